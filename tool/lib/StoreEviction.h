//===- StoreEviction.h - Keep an on-disk store under a size -----*- C++ -*-===//
//
// The result cache and the preamble store are directories of files that a
// run may remove at any time (a missing file is a miss): each use marks a
// file used (its modification time), and a store past its limit removes the
// least recently used first.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_STOREEVICTION_H
#define APISTAMP_LIB_STOREEVICTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Chrono.h"
#include <string>
#include <vector>

namespace apistamp {

/// A file of a store, as eviction orders it.
struct StoredFile {
  std::string Path;
  uint64_t Size = 0;
  llvm::sys::TimePoint<> Used; ///< Its modification time.
};

/// Marks \p File used now (its modification time orders evictions).
void touchStoredFile(llvm::StringRef File);

/// The regular files of \p Directory (not its subdirectories) whose names
/// end with one of \p Suffixes.
std::vector<StoredFile> storedFiles(llvm::StringRef Directory,
                                    llvm::ArrayRef<llvm::StringRef> Suffixes);

/// Removes the least recently used of \p Files (ties broken by
/// \p RemoveFirst) until their total size is at most \p LimitBytes; returns
/// the files removed.
std::vector<std::string>
evictPastLimit(std::vector<StoredFile> Files, uint64_t LimitBytes,
               llvm::function_ref<bool(const StoredFile &, const StoredFile &)>
                   RemoveFirst);

} // namespace apistamp

#endif // APISTAMP_LIB_STOREEVICTION_H
