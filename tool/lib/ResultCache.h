//===- ResultCache.h - Reuse the analysis of unchanged TUs ------*- C++ -*-===//
//
// A TU's result is stored under a key made of apistamp's identity, the rules
// file, the root, the options that change results and the compile command,
// with the hash of every file the TU read. It is reused only when every one
// of those files still has the same bytes.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_RESULTCACHE_H
#define APISTAMP_LIB_RESULTCACHE_H

#include "apistamp/Site.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringMap.h"
#include <atomic>
#include <mutex>
#include <optional>
#include <string>

namespace apistamp {

/// apistamp's version and the xxh3 of its executable (computed once): what
/// every stored result and preamble is keyed on first.
const std::string &apistampIdentity();

/// A directory of cached TU results, safe for concurrent runs (entries are
/// written to a temporary file and renamed into place; an unreadable entry
/// is a miss).
class ResultCache {
public:
  explicit ResultCache(std::string Directory);

  /// The key of a TU: \p Rules (the text they were parsed from), the compile
  /// command, \p SkipBodies, whether the definitions no rule selects are
  /// recorded (\p Unselected) and apistamp's own executable.
  std::string keyFor(const RuleSet &Rules,
                     const clang::tooling::CompileCommand &Command,
                     bool SkipBodies, bool Unselected = false);

  /// The stored result for \p Key if every file it depends on still has the
  /// same bytes and everything it says checks out (files with sites under
  /// \p Rules' root, which the plan made canonical; bodies on braces); its
  /// FileContents are filled from those files. It holds facts only: the
  /// merge decides its sites from them, as it does fresh ones.
  std::optional<TUResult> lookup(llvm::StringRef Key, const RuleSet &Rules);

  /// Stores \p Result (a TU that parsed) under \p Key. A failure to write
  /// only loses the entry (the cache is an optimisation); the first one is
  /// kept for writeError().
  void store(llvm::StringRef Key, const TUResult &Result);

  /// Why an entry could not be written ("" if all were): for a warning.
  std::string writeError() const { return WriteError; }

  unsigned hits() const { return Hits; }
  unsigned misses() const { return Misses; }

private:
  /// The xxh3 of \p Path's bytes now, memoised for the run; with
  /// \p Contents, also its bytes.
  std::optional<uint64_t> currentHash(const std::string &Path,
                                      std::string *Contents = nullptr);

  /// Whether \p Path (absolute) still does not exist, memoised.
  bool stillAbsent(const std::string &Path);

  std::string Directory;
  std::string Identity; ///< Version and executable hash.
  std::mutex Mutex;
  llvm::StringMap<std::optional<uint64_t>> Hashes;
  llvm::StringMap<bool> Absent;
  std::atomic<unsigned> Hits{0}, Misses{0};
  std::string WriteError;
};

} // namespace apistamp

#endif // APISTAMP_LIB_RESULTCACHE_H
