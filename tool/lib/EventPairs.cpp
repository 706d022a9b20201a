//===- EventPairs.cpp - One API's Python and C++ events, paired -----------===//

#include "EventPairs.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include <set>
#include <tuple>

using namespace llvm;

namespace apistamp {

/// The last dotted component of \p Event.
static StringRef lastName(StringRef Event) {
  return Event.rsplit('.').second.empty() ? Event : Event.rsplit('.').second;
}

bool sameApi(StringRef Python, StringRef Cxx) {
  SmallVector<StringRef, 8> P, C;
  Python.split(P, '.');
  Cxx.split(C, '.');
  if (P.size() < 3 || lastName(Python) != lastName(Cxx))
    return false;
  auto Csrc = llvm::find(C, "csrc");
  if (Csrc == C.end())
    return false;
  C.erase(Csrc);
  // Python's package: without its module and name.
  ArrayRef<StringRef> Package = ArrayRef(P).drop_back(2);
  return C.size() > Package.size() + 1 &&
         std::equal(Package.begin(), Package.end(), C.begin());
}

static bool isPython(const CatalogEvent &C) {
  return C.Language == "python" ||
         (C.Language.empty() && StringRef(C.File).ends_with(".py"));
}

namespace {
/// The rows of two sides, the second's by last name: a pair's partners
/// are found without comparing every row with every other.
struct Sides {
  std::vector<size_t> Python;
  StringMap<std::vector<size_t>> CxxByName;
};
} // namespace

/// \p Catalog's Python function rows and C++ rows (those \p Keep takes).
static Sides sidesOf(ArrayRef<CatalogEvent> Catalog,
                     function_ref<bool(const CatalogEvent &)> Keep) {
  Sides S;
  for (size_t I = 0; I < Catalog.size(); ++I) {
    const CatalogEvent &C = Catalog[I];
    if (!Keep(C))
      continue;
    if (!isPython(C))
      S.CxxByName[lastName(C.Event)].push_back(I);
    else if (C.Kind == "function")
      S.Python.push_back(I);
  }
  return S;
}

std::vector<std::pair<size_t, size_t>>
pairedEvents(ArrayRef<CatalogEvent> Catalog) {
  Sides S = sidesOf(Catalog, [](const CatalogEvent &) { return true; });
  // One pair per two events (overloads share an event).
  std::set<std::pair<StringRef, StringRef>> Seen;
  std::vector<std::pair<size_t, size_t>> Pairs;
  for (size_t P : S.Python)
    for (size_t C : S.CxxByName.lookup(lastName(Catalog[P].Event)))
      if (sameApi(Catalog[P].Event, Catalog[C].Event) &&
          Seen.insert({Catalog[P].Event, Catalog[C].Event}).second)
        Pairs.push_back({P, C});
  llvm::sort(Pairs, [&](const auto &L, const auto &R) {
    return std::tie(Catalog[L.first].Event, Catalog[L.second].Event) <
           std::tie(Catalog[R.first].Event, Catalog[R.second].Event);
  });
  return Pairs;
}

UnpairedEvents unpairedEvents(const EventPair &Pair,
                              ArrayRef<CatalogEvent> Catalog) {
  Sides S = sidesOf(Catalog, [&](const CatalogEvent &C) {
    return isPython(C) ? Pair.Python->matches(C.Event)
                       : Pair.Cxx->matches(C.Event);
  });
  std::set<std::string> Paired;
  for (size_t P : S.Python)
    for (size_t C : S.CxxByName.lookup(lastName(Catalog[P].Event)))
      if (sameApi(Catalog[P].Event, Catalog[C].Event)) {
        Paired.insert(Catalog[P].Event);
        Paired.insert(Catalog[C].Event);
      }
  UnpairedEvents Alone;
  std::set<std::string> Said;
  auto Add = [&](size_t I, ArrayRef<std::string> OneSided,
                 std::vector<const CatalogEvent *> &Out) {
    const CatalogEvent &E = Catalog[I];
    if (!Paired.count(E.Event) &&
        !llvm::is_contained(OneSided, lastName(E.Event)) &&
        Said.insert(E.Event).second)
      Out.push_back(&E);
  };
  for (size_t P : S.Python)
    Add(P, Pair.PythonOnly, Alone.PythonAlone);
  for (auto &Entry : S.CxxByName)
    for (size_t C : Entry.second)
      Add(C, Pair.CxxOnly, Alone.CxxAlone);
  // C++ rows in the catalog's order, as the Python ones are.
  llvm::sort(Alone.CxxAlone);
  return Alone;
}

} // namespace apistamp
