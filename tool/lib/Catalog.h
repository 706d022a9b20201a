//===- Catalog.h - Every event the rules place, as data ---------*- C++ -*-===//
//
// The catalog: one row per event, with the rule, the file (relative to the
// root of the rules that cover it) and the line of the definition that
// places it. `catalog` prints it; `report` joins it with usage logs.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_CATALOG_H
#define APISTAMP_LIB_CATALOG_H

#include "apistamp/Paths.h"
#include "apistamp/Rules.h"
#include "apistamp/Site.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>
#include <vector>

namespace apistamp {

/// One event of the catalog: where the rules place it (the first
/// definition by file and line when overloads share it).
struct CatalogEvent {
  std::string Event, Rule, File, Kind;
  unsigned Line = 0;
  /// The definition's status as `catalog` says it ("present", "skipped",
  /// ...); "" when a saved catalog does not say.
  std::string Status;
  /// The definition's qualified name ("lib::f"); "" when a saved catalog
  /// does not say.
  std::string Name;
  /// "c++" or "python"; "" when a saved catalog does not say (then the
  /// event's site decides, as far as the report can tell).
  std::string Language;
  /// A class's event logged by a base's constructor (InheritedEvent): that
  /// constructor's class ("torchvision.datasets.vision.VisionDataset"), file
  /// and line; Through is "" for an event its own definition places.
  std::string Through, ThroughFile;
  unsigned ThroughLine = 0;

  /// Whether the definition holds no call that could log its event: it is
  /// skipped (constexpr, a macro's body, a forbidden public header...) or
  /// suppressed.
  bool unmeasurable() const {
    return Status == "skipped" || Status == "suppressed" ||
           Status == "conflict";
  }
};

/// Paths relative to the root of the innermost of \p RuleSets that covers
/// them (the same from any directory or checkout); others as \p Otherwise
/// shows them.
PathDisplay rootRelative(llvm::ArrayRef<const RuleSet *> RuleSets,
                         PathDisplay Otherwise);

/// The catalog rows of the selected ones of \p Sites and of \p Inherited
/// (sorted by file and line), files shown by \p Display. A class's
/// inherited event that a definition of its own places is that
/// definition's row; one it places but cannot measure (a class without
/// __init__) gives way to the inherited row: one row per event.
std::vector<CatalogEvent> catalogOf(llvm::ArrayRef<Site> Sites,
                                    llvm::ArrayRef<InheritedEvent> Inherited,
                                    const PathDisplay &Display);

} // namespace apistamp

#endif // APISTAMP_LIB_CATALOG_H
