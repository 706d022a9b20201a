//===- EventPairs.h - One API's Python and C++ events, paired ---*- C++ -*-===//
//
// A Python function and the C++ function it calls through the extension
// log two events of one API (torchvision.io.image.decode_png and
// torchvision.csrc.io.image.cpu.decode_png.decode_png). The report shows
// them side by side; a rules file's `pairs:` makes check flag an event of
// either side without its partner. Pure: catalog rows in, pairs out.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_EVENTPAIRS_H
#define APISTAMP_LIB_EVENTPAIRS_H

#include "Catalog.h"
#include "apistamp/Rules.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <utility>
#include <vector>

namespace apistamp {

/// Whether \p Python (a Python function's event) and \p Cxx (a C++ one's)
/// are one API's: they end in the same name, and \p Cxx without its
/// ".csrc" component is under \p Python's package (its module's parent).
bool sameApi(llvm::StringRef Python, llvm::StringRef Cxx);

/// The pairs of \p Catalog: (Python function row, C++ row) indices, by
/// the Python event then the C++ one.
std::vector<std::pair<size_t, size_t>>
pairedEvents(llvm::ArrayRef<CatalogEvent> Catalog);

/// What `pairs:` entry \p Pair finds in \p Catalog: the rows of each side
/// that its globs match and that have no partner there, their name not
/// listed as one-sided.
struct UnpairedEvents {
  std::vector<const CatalogEvent *> PythonAlone, CxxAlone;
};
UnpairedEvents unpairedEvents(const EventPair &Pair,
                              llvm::ArrayRef<CatalogEvent> Catalog);

} // namespace apistamp

#endif // APISTAMP_LIB_EVENTPAIRS_H
