//===- SiteDecision.h - How a selected body stands, and its fix -*- C++ -*-===//
//
// Pure: from the text of a selected body and the macro calls found in it,
// the site's status, where its finding is reported and the edits that fix
// it. No AST, so every case is unit-tested on strings.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SITEDECISION_H
#define APISTAMP_LIB_SITEDECISION_H

#include "apistamp/Analysis.h"

namespace apistamp {

/// The 1-based line and byte column of \p Offset in \p Code, counted as
/// clang counts them ("\n", "\r\n" and a lone "\r" end a line).
std::pair<unsigned, unsigned> lineAndColumn(llvm::StringRef Code,
                                            unsigned Offset);

/// Sets \p S's Status, FoundEvents, report location and Edits from its Body
/// and Calls (the rules' macro uses in the body, in source order) and
/// \p Code, the bytes of S.File: no call is Missing (the
/// fix inserts the call), one with the expected event Present, one with
/// another Wrong (the fix corrects the literal), more Duplicate (no fix). A
/// fix also adds the rules' #include.
void decideSite(Site &S, llvm::StringRef Code, const RuleSet &Rules);

/// Whether \p Use is the first statement of the body whose '{' is at
/// \p LBraceOffset: only whitespace and comments come between them.
bool isFirstStatement(llvm::StringRef Code, unsigned LBraceOffset,
                      const MacroUse &Use);

/// The edit that removes the call statement of \p Use ("MACRO(...);"):
/// its whole line when the statement is alone on it, else the statement and
/// the blanks after it; none if the call is not followed by ");".
std::optional<TextEdit> callRemoval(llvm::StringRef File, llvm::StringRef Code,
                                    const MacroUse &Use);

} // namespace apistamp

#endif // APISTAMP_LIB_SITEDECISION_H
