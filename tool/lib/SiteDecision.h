//===- SiteDecision.h - How a selected definition stands, and its fix -*- C++ -*-===//
//
// Pure: from the text of a selected body and the macro calls found in it,
// the site's status, where its finding is reported and the edits that fix
// it. No AST, so every case is unit-tested on strings.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SITEDECISION_H
#define APISTAMP_LIB_SITEDECISION_H

#include "SourceRecorders.h"
#include "apistamp/Analysis.h"

namespace apistamp {

/// Where a selected definition's body is, as offsets into its file's text.
struct BodyText {
  llvm::StringRef Code;    ///< The whole file.
  unsigned DeclOffset = 0; ///< Where the definition starts.
  unsigned LBraceOffset = 0, RBraceOffset = 0;
};

/// The 1-based line and byte column of \p Offset in \p Code, counted as
/// clang counts them ("\n", "\r\n" and a lone "\r" end a line).
std::pair<unsigned, unsigned> lineAndColumn(llvm::StringRef Code,
                                            unsigned Offset);

/// Sets \p S's Status, FoundEvents, report location and Edits from \p Calls,
/// the rules' macro calls in its body in source order: none is Missing (the
/// fix inserts the call), one with the expected event Present, one with
/// another Wrong (the fix corrects the literal), more Duplicate (no fix). A
/// fix also adds the rules' #include.
void decideSite(Site &S, llvm::ArrayRef<const MacroUse *> Calls,
                const BodyText &Body, const RuleSet &Rules);

} // namespace apistamp

#endif // APISTAMP_LIB_SITEDECISION_H
