//===- CatalogDiff.h - Events added, removed, renamed -----------*- C++ -*-===//
//
// `catalog --diff`: two catalogs (a saved one and the current one) compared
// by event: unchanged, added, removed, and renamed (the rules' aliases map
// the old event, or the same rule's definition was matched across the two
// by name, place or file; docs/rules.md says how). Data in, data out.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_CATALOGDIFF_H
#define APISTAMP_LIB_CATALOGDIFF_H

#include "Catalog.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace apistamp {

/// The current event an alias of the rules maps \p OldEvent to, if any.
using AliasLookup =
    std::function<std::optional<std::string>(llvm::StringRef OldEvent)>;

/// How a renamed event's old and new definitions were matched, strongest
/// first: the order diffCatalogs tries them in.
enum class RenameMatch {
  Alias,    ///< The rules' aliases map the old event to the new one.
  SameName, ///< Same rule, kind and qualified name.
  SameLine, ///< Same rule, kind, file and line.
  /// Same rule, kind and file, the only pair left there, and similar last
  /// name components (at most half of the longer one edited).
  OnlyInFile,
  SameLastName, ///< Same rule, kind and last name component.
};

/// "alias", "same-name", "same-line", "only-in-file", "same-last-name".
llvm::StringRef renameMatchName(RenameMatch M);

/// What happened to one event between the two catalogs.
enum class EventChange { Unchanged, Added, Removed, Renamed };

/// "unchanged", "added", "removed", "renamed".
llvm::StringRef eventChangeName(EventChange C);

/// One event of a catalog diff. Where an event has several rows
/// (overloads), its first by file and line stands for it.
struct EventDiff {
  EventChange Change = EventChange::Unchanged;
  /// The old event ("" if added) and the new one ("" if removed).
  std::string OldEvent, NewEvent;
  /// The old and the new definition (the one that is there).
  CatalogEvent Old, New;
  /// Renamed: how the two were matched, and that said in words ("same
  /// rule, same file and line").
  RenameMatch Match = RenameMatch::Alias;
  std::string How;
};

/// Two catalogs compared event by event.
struct CatalogDiff {
  /// Renamed, removed, added, then unchanged; each by old (or new) event.
  std::vector<EventDiff> Events;
  /// Removed and added events that could have been renames but were not
  /// matched because the match was ambiguous, one sentence each.
  std::vector<std::string> Notes;

  /// The number of events that changed \p C.
  size_t count(EventChange C) const;
  /// The renames that no alias declares yet: what to add to `aliases:`.
  std::vector<const EventDiff *> suggestedAliases() const;
};

/// Compares \p Old with \p New by event (rows that share an event are one
/// event). An event in both is unchanged. An old event \p Aliases maps to
/// an event of \p New is renamed (RenameMatch::Alias). The others are
/// matched one to one, within one rule and kind, by the RenameMatch
/// criteria in order: a pair is a rename when each is the other's only
/// candidate left under the criterion. The rest are removed and added.
CatalogDiff diffCatalogs(llvm::ArrayRef<CatalogEvent> Old,
                         llvm::ArrayRef<CatalogEvent> New,
                         const AliasLookup &Aliases = nullptr);

} // namespace apistamp

#endif // APISTAMP_LIB_CATALOGDIFF_H
