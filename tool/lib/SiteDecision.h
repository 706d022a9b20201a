//===- SiteDecision.h - How a selected body stands, and its fix -*- C++ -*-===//
//
// Pure: from the facts the analysis (or the cache) recorded about a
// definition and the bytes of its file, the site's status, where its
// finding is reported and the edits that fix it. The one place a status is
// decided; no AST, so every case is unit-tested on strings.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SITEDECISION_H
#define APISTAMP_LIB_SITEDECISION_H

#include "apistamp/Site.h"

namespace apistamp {

/// The 1-based line and byte column of \p Offset in \p Code, counted as
/// clang counts them ("\n", "\r\n" and a lone "\r" end a line).
std::pair<unsigned, unsigned> lineAndColumn(llvm::StringRef Code,
                                            unsigned Offset);

/// Decides \p S from its facts and \p Code, the bytes of S.File: its
/// Status, SkipReason, FoundEvents, report location and Edits.
/// - Not selected, or suppressed, and its first statement a call of the
///   macro with a literal event the rules do not keep: Stale (the fix
///   removes the call, and the rules' #include as apistamp writes it if
///   nothing else in the file names the macro then: a RemoveInclude edit
///   that fileReplacements decides; Event becomes the call's, RuleId is
///   cleared).
/// - Otherwise not selected: no site; returns false, and the caller drops
///   it. Suppressed: Suppressed. A body it cannot instrument: Skipped.
/// - A block: no call is Missing (the fix inserts the call), one with the
///   expected event Present, one with another Wrong (the fix corrects the
///   literal), more Duplicate (no fix). A fix also adds the rules'
///   #include. Calls of events the rules keep (keep_events) are not
///   counted: they were placed by hand, and are never rewritten.
/// \p PublicHeaderWhy says why S.File is a public header ("" if it is not):
/// with `public_header_edits: forbid`, a fix there makes the site Skipped.
/// \p PartialView: TUs that were not analysed may read S.File (a header in a
/// run on named files or a shard); a definition this view does not select
/// may be selected there, so its first-statement event is not judged: a
/// Stale site with NotJudged set, no edit, and a note. A fragment's fix is
/// not judged either (its other includers need the #include too): NotJudged,
/// no edit.
bool decideSite(Site &S, llvm::StringRef Code, const RuleSet &Rules,
                llvm::StringRef PublicHeaderWhy = "", bool PartialView = false);

/// One more TU reaches the body of \p Decided (decided as the TU it was
/// first seen through, \p DecidedThrough, saw it under \p DecidedRules) and
/// selects it too: \p Other, its facts there, under \p OtherRules, through
/// \p OtherThrough. The same event and include needs: a fix's #include goes
/// to Other's includer too (a fragment included inside a namespace by
/// several files needs it in each). A different event, macro or include, or
/// an include needed in the fragment by one TU and in its includer by
/// another: one body cannot serve both, so Decided becomes a Conflict whose
/// ConflictingTUs name both (once each), and nothing is written there. Neither
/// selected: no change.
void reconcileReach(Site &Decided, const RuleSet &DecidedRules,
                    llvm::StringRef DecidedThrough, const Site &Other,
                    const RuleSet &OtherRules, llvm::StringRef OtherThrough);

/// A Conflict's reason in words, from its participants: "different events:
/// 'a' through x.cpp; 'b' through y.cpp, included again".
std::string conflictReason(const Site &S);

/// The call that makes \p S stale when it is not selected: the first
/// expansion of the macro in its block, if that is the block's first
/// statement and logs a literal event the rules do not keep; else null.
const MacroUse *staleCall(const Site &S, llvm::StringRef Code,
                          const RuleSet &Rules);

/// Whether \p Use is the first statement of the body whose '{' is at
/// \p LBraceOffset: only whitespace and comments come between them.
bool isFirstStatement(llvm::StringRef Code, unsigned LBraceOffset,
                      const MacroUse &Use);

/// The edit that removes the statement of \p Use if it is what apistamp
/// writes, `Macro("event");`, as clang's lexer reads \p Code at its offset
/// (comments and line breaks may come between the tokens): its whole line
/// when the statement is alone on it, else the statement and the blanks
/// after it. None otherwise, and why in \p WhyNot.
std::optional<TextEdit> callRemoval(llvm::StringRef File, llvm::StringRef Code,
                                    const MacroUse &Use, llvm::StringRef Macro,
                                    std::string *WhyNot = nullptr);

/// The line of \p Code that is the #include of \p Header as apistamp writes
/// it (`#include "Header"`, or `<Header>` if \p Angled, alone on its line
/// and not indented), as offset and length with its line break; none if
/// there is no such directive (comments and string literals do not count)
/// or more than one. What a stale call's removal may take with it.
std::optional<std::pair<unsigned, unsigned>>
includeLine(llvm::StringRef Code, llvm::StringRef Header, bool Angled);

} // namespace apistamp

#endif // APISTAMP_LIB_SITEDECISION_H
