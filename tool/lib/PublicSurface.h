//===- PublicSurface.h - The public API that no rule selects ----*- C++ -*-===//
//
// Which definitions no rule selects are on a rules file's public surface
// (declared in one of its headers, not in an excluded namespace or name),
// and a rule that would select each one, checked against it. Pure: the
// facts are data, the public headers a predicate.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PUBLICSURFACE_H
#define APISTAMP_LIB_PUBLICSURFACE_H

#include "apistamp/Rules.h"
#include "apistamp/Site.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>
#include <string>

namespace apistamp {

/// Whether the file at a canonical path is a public header of the project
/// (public_headers, or installed by the build).
using PublicHeaderTest = llvm::function_ref<bool(llvm::StringRef Path)>;

/// Whether \p Rules say what their public surface is: `public_surface:
/// headers`, or public headers (`public_headers`, or \p BuildInstalls,
/// headers the build installs).
bool hasPublicSurface(const RuleSet &Rules, bool BuildInstalls);

/// Where \p U is on the public surface of \p Rules: the canonical path of
/// the first header in its DeclaredIn that matches `public_surface:
/// headers`, or without them that \p IsPublicHeader takes; "" if none.
std::string surfaceHeader(const UnselectedDefinition &U, const RuleSet &Rules,
                          PublicHeaderTest IsPublicHeader);

/// Whether `public_surface`'s exclude_namespaces (an enclosing namespace's
/// name), exclude_names (its name or an enclosing class's) or exclude_files
/// (the file it is written in, relative to \p Root) exclude \p U.
bool excludedFromSurface(const UnselectedDefinition &U,
                         const PublicSurface &Surface, llvm::StringRef Root);

/// A rule, as YAML to paste under `rules:` (a list item indented by two
/// spaces), meant to select \p U: `where`, and `namespace` and `name`, or
/// `class` (and `name` for a method); checkedSuggestion says whether it
/// does.
std::string suggestedRule(const UnselectedDefinition &U);

/// suggestedRule(\p U), parsed and tested against \p U's facts with the
/// top-level exclude_files of \p Rules: std::nullopt unless it selects \p U.
std::optional<std::string> checkedSuggestion(const UnselectedDefinition &U,
                                             const RuleSet &Rules);

} // namespace apistamp

#endif // APISTAMP_LIB_PUBLICSURFACE_H
