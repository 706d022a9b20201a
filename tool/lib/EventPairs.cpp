//===- EventPairs.cpp - One API's Python and C++ events, paired -----------===//

#include "EventPairs.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

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

std::vector<std::pair<size_t, size_t>>
pairedEvents(ArrayRef<CatalogEvent> Catalog) {
  std::vector<size_t> Python, Cxx;
  for (size_t I = 0; I < Catalog.size(); ++I) {
    if (!isPython(Catalog[I]))
      Cxx.push_back(I);
    else if (Catalog[I].Kind == "function")
      Python.push_back(I);
  }
  std::vector<std::pair<size_t, size_t>> Pairs;
  for (size_t P : Python)
    for (size_t C : Cxx)
      if (sameApi(Catalog[P].Event, Catalog[C].Event) &&
          !llvm::any_of(Pairs, [&](const std::pair<size_t, size_t> &Known) {
            return Catalog[Known.first].Event == Catalog[P].Event &&
                   Catalog[Known.second].Event == Catalog[C].Event;
          }))
        Pairs.push_back({P, C});
  llvm::sort(Pairs, [&](const auto &L, const auto &R) {
    return std::tie(Catalog[L.first].Event, Catalog[L.second].Event) <
           std::tie(Catalog[R.first].Event, Catalog[R.second].Event);
  });
  return Pairs;
}

UnpairedEvents unpairedEvents(const EventPair &Pair,
                              ArrayRef<CatalogEvent> Catalog) {
  std::vector<const CatalogEvent *> Python, Cxx;
  for (const CatalogEvent &C : Catalog) {
    if (isPython(C) && C.Kind == "function" && Pair.Python->matches(C.Event))
      Python.push_back(&C);
    else if (!isPython(C) && Pair.Cxx->matches(C.Event))
      Cxx.push_back(&C);
  }
  UnpairedEvents Alone;
  auto Listed = [](ArrayRef<std::string> Names, StringRef Event) {
    return llvm::is_contained(Names, lastName(Event));
  };
  for (const CatalogEvent *P : Python)
    if (!Listed(Pair.PythonOnly, P->Event) &&
        !llvm::any_of(Cxx,
                      [&](const CatalogEvent *C) {
                        return sameApi(P->Event, C->Event);
                      }) &&
        llvm::none_of(Alone.PythonAlone, [&](const CatalogEvent *K) {
          return K->Event == P->Event;
        }))
      Alone.PythonAlone.push_back(P);
  for (const CatalogEvent *C : Cxx)
    if (!Listed(Pair.CxxOnly, C->Event) &&
        !llvm::any_of(Python,
                      [&](const CatalogEvent *P) {
                        return sameApi(P->Event, C->Event);
                      }) &&
        llvm::none_of(Alone.CxxAlone, [&](const CatalogEvent *K) {
          return K->Event == C->Event;
        }))
      Alone.CxxAlone.push_back(C);
  return Alone;
}

} // namespace apistamp
