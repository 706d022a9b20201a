//===- Catalog.cpp - Every event the rules place, as data -----------------===//

#include "Catalog.h"
#include "Findings.h"
#include <set>
#include <tuple>

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
                                    ArrayRef<InheritedEvent> Inherited,
                                    const PathDisplay &Display) {
  struct Row {
    std::string File;
    unsigned Line;
    CatalogEvent Event;
  };
  std::vector<Row> Rows;
  std::set<std::string> Measured;
  for (const Site &S : Sites)
    // An internal entry point's marker logs nothing: no event.
    if (S.Status != SiteStatus::Stale && !S.Internal) {
      CatalogEvent C;
      C.Event = S.Event;
      C.Rule = S.RuleId;
      C.File = Display(S.File);
      C.Kind = kindName(S.Kind).str();
      C.Line = S.Line;
      C.Status = statusName(S.Status).str();
      C.Name = S.QualifiedName;
      C.Language = S.Python ? "python" : "c++";
      if (!C.unmeasurable())
        Measured.insert(S.Event);
      Rows.push_back({S.File, S.Line, std::move(C)});
    }
  std::set<std::string> Replaced;
  for (const InheritedEvent &I : Inherited) {
    if (Measured.count(I.Event) || !Replaced.insert(I.Event).second)
      continue;
    CatalogEvent C;
    C.Event = I.Event;
    C.Rule = I.RuleId;
    C.File = Display(I.File);
    C.Kind = kindName(DeclKind::Constructor).str();
    C.Line = I.Line;
    C.Status = statusName(I.ThroughStatus).str();
    C.Name = I.QualifiedName;
    C.Language = "python";
    C.Through = I.ThroughName;
    C.ThroughFile = Display(I.ThroughFile);
    C.ThroughLine = I.ThroughLine;
    Rows.push_back({I.File, I.Line, std::move(C)});
  }
  // An own row that cannot log gives way to the inherited one.
  llvm::erase_if(Rows, [&](const Row &R) {
    return R.Event.Through.empty() && Replaced.count(R.Event.Event) &&
           R.Event.unmeasurable();
  });
  // Sites come sorted; inherited rows go after their file's sites of the
  // same line (std::stable_sort needs a deprecated temporary buffer).
  std::vector<size_t> Order(Rows.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  llvm::sort(Order, [&](size_t L, size_t R) {
    return std::tie(Rows[L].File, Rows[L].Line, L) <
           std::tie(Rows[R].File, Rows[R].Line, R);
  });
  std::vector<CatalogEvent> Catalog;
  for (size_t I : Order)
    Catalog.push_back(std::move(Rows[I].Event));
  return Catalog;
}

} // namespace apistamp
