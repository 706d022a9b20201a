//===- SitesFromFacts.h - What rules make of a parse's facts ----*- C++ -*-===//
//
// The one place rules decide on what a parse found (TUFacts): which
// candidates are sites, with which rule and event, which a comment
// suppresses, which are listed as unselected. Pure (no clang type): a fresh
// parse and a cached one go through it, so they cannot disagree, and a
// rules edit is decided on cached facts without a parse.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SITESFROMFACTS_H
#define APISTAMP_LIB_SITESFROMFACTS_H

#include "apistamp/Site.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <vector>

namespace apistamp {

/// The bytes of files, by canonical path.
using FileBytes = llvm::StringMap<SharedBytes>;

/// Fills \p Result's Sites, Suppressions, Expectations, Unselected and
/// FileContents with what \p Rules make of \p Facts, in the candidates'
/// order, as a parse under \p Rules finds them:
/// - a candidate the first rule that selects it makes a Site of (a class
///   without a constructor body only if that rule is a constructor rule):
///   its rule, the later rules that also select it, its event, and the
///   apistamp-ignore comment at its start (which is then Used);
/// - a candidate no rule selects whose first statement logs an event the
///   rules do not keep: a Site with no rule (it may be stale);
/// - with \p Unselected, a function no rule selects that users could call
///   (external, public, in no file of the top-level `exclude_files`), with
///   each rule's reason.
/// FileContents holds the bytes of every file with a site and of every
/// includer a site's #include goes to, from \p Contents, which must hold
/// those of every candidate's file and includer (a site whose file it lacks
/// is dropped). Returns, per candidate, the index of its site in
/// Result.Sites, if it has one.
std::vector<std::optional<size_t>>
sitesFromFacts(const TUFacts &Facts, const RuleSet &Rules, bool Unselected,
               const FileBytes &Contents, TUResult &Result);

} // namespace apistamp

#endif // APISTAMP_LIB_SITESFROMFACTS_H
