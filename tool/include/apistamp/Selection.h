//===- Selection.h - Which rule selects a definition ------------*- C++ -*-===//
//
// Selection works on DeclFacts, plain data extracted from the AST, so the
// policy logic is testable without parsing C++.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_SELECTION_H
#define APISTAMP_SELECTION_H

#include "apistamp/DeclFacts.h"
#include "apistamp/Rules.h"
#include <functional>
#include <string>
#include <vector>

namespace apistamp {

/// The outcome of testing one rule against one definition.
struct RuleVerdict {
  bool Selected = false;
  /// Why the rule did not select it, e.g. "namespace 'a' != 'b'".
  std::string Rejection;
};

/// Tests every filter of \p R against \p Facts.
RuleVerdict evaluateRule(const Rule &R, const DeclFacts &Facts);

/// Whether some rule of the file's language (Python for a .py file, else
/// C++) has files and exclude_files that let it select definitions written
/// in \p RelativePath (relative to the root).
bool fileCanBeSelected(const RuleSet &Rules, llvm::StringRef RelativePath);

/// Whether some Python rule's modules, files and exclude_files let it
/// select definitions of module \p Module, written in \p RelativePath.
bool moduleCanBeSelected(const RuleSet &Rules, llvm::StringRef Module,
                         llvm::StringRef RelativePath);

/// The first rule of \p Rules that selects \p Facts, or nullptr.
const Rule *selectRule(const RuleSet &Rules, const DeclFacts &Facts);

} // namespace apistamp

#endif // APISTAMP_SELECTION_H
