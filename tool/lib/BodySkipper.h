//===- BodySkipper.h - Which function bodies a parse may skip --*- C++ -*-===//
//
// Bodies that no rule can select are not parsed: those in system headers,
// outside the root, or in files no rule's `files` matches unless the file
// names the rules' macro (a call there may be stale). A TU's parse and its
// preamble's skip the same ones.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_BODYSKIPPER_H
#define APISTAMP_LIB_BODYSKIPPER_H

#include "apistamp/Rules.h"
#include "clang/AST/DeclBase.h"
#include "llvm/ADT/DenseMap.h"
#include <set>
#include <string>

namespace apistamp {

/// Decides, per file, whether bodies there are skipped, and counts them.
class BodySkipper {
public:
  explicit BodySkipper(const RuleSet &Rules) : Rules(Rules) {}

  /// As ASTConsumer::shouldSkipFunctionBody.
  bool shouldSkip(clang::Decl *D);

  /// Whether the bodies in \p Path (canonical, under the root: \p Relative)
  /// with contents \p Contents are parsed.
  static bool parsesBodiesIn(const RuleSet &Rules, llvm::StringRef Relative,
                             llvm::StringRef Contents);

  unsigned Skipped = 0;
  /// Files under the root where a body was skipped.
  std::set<std::string> SkippedUnderRoot;

private:
  const RuleSet &Rules;
  struct FileVerdict {
    bool Parse = false;
    std::string UnderRoot; ///< Its canonical path if under the root.
  };
  llvm::DenseMap<clang::FileID, FileVerdict> Verdicts;
};

} // namespace apistamp

#endif // APISTAMP_LIB_BODYSKIPPER_H
