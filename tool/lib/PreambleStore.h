//===- PreambleStore.h - Parsed include prefixes kept between runs -*- C++
//-*-===//
//
// A directory of precompiled preambles (a TU's parsed include prefix, as
// clang's PCH) with what apistamp recorded in that prefix, keyed by
// everything that decides how the prefix parses. Entries are untrusted: one
// is used only if the PCH has the bytes its entry names and every file the
// prefix read still has the same bytes, and no file it looked for and did
// not find exists now.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PREAMBLESTORE_H
#define APISTAMP_LIB_PREAMBLESTORE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace apistamp {

/// A use of the rules' macro, or a directive comment, that the preamble's
/// parse saw: by offset in one inclusion of a file (RegionFacts::Inclusions,
/// or the main file's prefix when Inclusion is -1). What it says is read
/// again from the bytes when the preamble is used.
struct RegionMark {
  int Inclusion = -1;
  unsigned Offset = 0;
  friend bool operator==(const RegionMark &A, const RegionMark &B) {
    return A.Inclusion == B.Inclusion && A.Offset == B.Offset;
  }
};

/// What apistamp records in a preamble's region, which a parse on top of
/// the preamble does not see again.
struct RegionFacts {
  /// The canonical paths of the inclusions of files under the root, in the
  /// order they were entered (a file included twice is listed twice).
  std::vector<std::string> Inclusions;
  /// Where each starts in the PCH's source locations, from where the main
  /// file does: a parse on the PCH finds them there (and checks).
  std::vector<unsigned> InclusionStarts;
  /// The macro's expansions and the directive comments, in the order the
  /// preprocessor saw them.
  std::vector<RegionMark> MacroUses;
  std::vector<RegionMark> Comments;
  /// Files under the root some of whose bodies were skipped (rules that
  /// select something in one of them need another preamble).
  std::vector<std::string> SkippedFiles;
  unsigned SkippedBodies = 0;
};

/// One stored preamble.
struct PreambleEntry {
  unsigned Bounds = 0; ///< Bytes of the main file the preamble covers.
  bool EndsAtStartOfLine = false;
  /// Every file the preamble read, canonical, with the xxh3 of its bytes.
  std::vector<std::pair<std::string, uint64_t>> Files;
  /// Paths looked for and not found (an earlier directory of the include
  /// path, say): if one appears, the prefix may parse differently.
  std::vector<std::string> Absent;
  RegionFacts Region;
  uint64_t PchHash = 0, PchSize = 0;
};

/// A preamble ready for use: its entry, and the PCH's bytes (mapped).
struct LoadedPreamble {
  PreambleEntry Entry;
  std::unique_ptr<llvm::MemoryBuffer> Pch;
};

/// The store: `<Directory>/<key>.json` names `<key>-<pch hash>.pch`. Safe
/// for concurrent runs and kill -9 (files are written to a temporary and
/// renamed; a PCH is named by its contents and checked against them), and
/// kept under a size limit by evicting the least recently used.
class PreambleStore {
public:
  /// \p LimitBytes: the store's size after a write is at most this.
  PreambleStore(std::string Directory, uint64_t LimitBytes);

  /// The preamble stored under \p Key (which covers the main file's prefix
  /// and everything that decides how it parses), if it checks out against
  /// the files now.
  std::optional<LoadedPreamble> lookup(llvm::StringRef Key);

  /// Stores \p Entry with \p Pch under \p Key (setting the entry's PCH
  /// hash and size), then evicts the least recently used entries past the
  /// limit. A failure to write only loses the entry; the first is kept for
  /// writeError().
  void store(llvm::StringRef Key, PreambleEntry &Entry, llvm::StringRef Pch);

  /// Removes the entry under \p Key (its facts did not match its PCH): the
  /// next run that needs it builds it again.
  void forget(llvm::StringRef Key);

  /// The xxh3 of \p Path's bytes now, memoised for the run.
  std::optional<uint64_t> currentHash(const std::string &Path);

  /// Drops the memoised hash of \p Path: a parse read other bytes there
  /// than a lookup checked, so the next lookup reads it again.
  void fileChanged(llvm::StringRef Path);

  const std::string &directory() const { return Directory; }
  uint64_t limit() const { return LimitBytes; }
  std::string writeError() const;
  /// The size on disk of the store in \p Directory now.
  static uint64_t sizeOf(llvm::StringRef Directory);

  /// Lookups that found a usable entry, or none; preambles built and
  /// stored; evicted; parses that ran on a preamble; parses whose preamble
  /// facts did not match its PCH (parsed again without it).
  std::atomic<unsigned> Hits{0}, Misses{0}, Built{0}, Evicted{0}, Used{0},
      Mismatches{0};

private:
  bool stillAbsent(const std::string &Path);
  void evictPastLimit();

  std::string Directory;
  uint64_t LimitBytes;
  mutable std::mutex Mutex;
  llvm::StringMap<std::optional<uint64_t>> Hashes;
  llvm::StringMap<bool> Absent;
  std::string WriteError;
};

} // namespace apistamp

#endif // APISTAMP_LIB_PREAMBLESTORE_H
