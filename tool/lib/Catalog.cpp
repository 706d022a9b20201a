//===- Catalog.cpp - Every event the rules place, as data -----------------===//

#include "Catalog.h"
#include "Findings.h"

using namespace llvm;

namespace apistamp {

PathDisplay rootRelative(ArrayRef<const RuleSet *> RuleSets,
                         PathDisplay Otherwise) {
  std::vector<std::string> Roots;
  for (const RuleSet *Set : RuleSets)
    Roots.push_back(Set->Root);
  return [Roots = std::move(Roots),
          Otherwise = std::move(Otherwise)](StringRef Path) {
    std::optional<StringRef> Best;
    for (const std::string &Root : Roots)
      if (std::optional<StringRef> Relative = pathUnder(Path, Root))
        if (!Best || Relative->size() < Best->size())
          Best = Relative;
    return Best ? Best->str() : Otherwise(Path);
  };
}

std::vector<CatalogEvent> catalogOf(ArrayRef<Site> Sites,
                                    const PathDisplay &Display) {
  std::vector<CatalogEvent> Catalog;
  for (const Site &S : Sites)
    if (S.Status != SiteStatus::Stale)
      Catalog.push_back(CatalogEvent{
          S.Event, S.RuleId, Display(S.File), kindName(S.Kind).str(), S.Line,
          statusName(S.Status).str(), S.QualifiedName});
  return Catalog;
}

} // namespace apistamp
