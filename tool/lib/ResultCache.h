//===- ResultCache.h - Reuse the analysis of unchanged TUs ------*- C++ -*-===//
//
// A TU's facts (TUFacts) are stored under a key made of apistamp's identity,
// what of the rules the parse depends on (the root, the macro, the
// matchers), the options that change the parse and the compile command,
// with the hash of every file the TU read. They are reused only when every
// one of those files still has the same bytes, and the rules of the run,
// edited or not, decide on them: unless they can select something in a
// file whose bodies that parse skipped, which needs a parse.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_RESULTCACHE_H
#define APISTAMP_LIB_RESULTCACHE_H

#include "StoredFacts.h"
#include "apistamp/Site.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace apistamp {

/// apistamp's version and the xxh3 of its executable (computed once): what
/// every stored result and preamble is keyed on first.
const std::string &apistampIdentity();

/// What a run's lookups in the result cache gave.
struct CacheCounts {
  unsigned Hits = 0;
  /// Hits whose facts were parsed under other rules (an edited rules file):
  /// decided anew without a parse.
  unsigned Redecided = 0;
  /// Misses, by cause: no entry for the key; a file the TU read changed;
  /// the rules can select something where the parse skipped bodies; the
  /// entry does not check out (corrupt or tampered with).
  unsigned NoEntry = 0, Changed = 0, BodiesNeeded = 0, Untrusted = 0;
  /// Python: entries that said a file needs an edit, which comes only from
  /// a fresh parse.
  unsigned EditNeeded = 0;

  unsigned misses() const {
    return NoEntry + Changed + BodiesNeeded + Untrusted + EditNeeded;
  }
};

/// A directory of cached TU results, safe for concurrent runs (entries are
/// written to a temporary file and renamed into place; an unreadable entry
/// is a miss), kept under a size limit: a run that stored in it evicts the
/// least recently used entries and shared runs past it when it ends.
class ResultCache {
public:
  /// \p LimitBytes: the cache's size after a run that stored in it.
  explicit ResultCache(std::string Directory, uint64_t LimitBytes = uint64_t(1)
                                                                    << 30);
  ~ResultCache();
  ResultCache(const ResultCache &) = delete;
  ResultCache &operator=(const ResultCache &) = delete;

  /// Entries and shared runs evicted so far (by this object's end, those
  /// of its run).
  unsigned evicted() const { return Evicted; }
  /// Evicts past the limit now (the destructor does, if anything was
  /// stored).
  void evictPastLimit();

  /// The key of a TU's parse: what of \p Rules the parse depends on (the
  /// root, the macro, the matchers' texts; not the other selectors, the
  /// events or any other setting), the compile command, \p SkipBodies and
  /// apistamp's own executable.
  /// The key of a Python file's entry: what its facts depend on besides
  /// the files it read (\p Source, and the modules its classes' bases
  /// are in): the root, the Python path, what the rules' calls look like
  /// (\p CallShapes: callees and guards), and apistamp's own executable.
  std::string keyForPython(const RuleSet &Rules, llvm::StringRef Source,
                           llvm::ArrayRef<std::string> CallShapes);

  std::string keyFor(const RuleSet &Rules,
                     const clang::tooling::CompileCommand &Command,
                     bool SkipBodies);

  /// The result \p Rules (with \p Unselected, as AnalysisOptions says)
  /// make of the facts stored for \p Key (sitesFromFacts), if every file
  /// they depend on still has the same bytes, the parse did not skip bodies
  /// in a file \p Rules can select something in, and everything they say
  /// checks out (candidates in files under \p Rules' root, which the plan
  /// made canonical; the sites' bodies on braces); its FileContents are
  /// filled from those files, its Facts are the entry's. It holds facts
  /// only: the merge decides its sites from them, as it does fresh ones.
  std::optional<TUResult> lookup(llvm::StringRef Key, const RuleSet &Rules,
                                 bool Unselected = false,
                                 llvm::StringRef MustHaveRead = "");

  /// Stores the facts of \p Result (a TU that parsed under \p Rules) under
  /// \p Key. A failure to write only loses the entry (the cache is an
  /// optimisation); the first one is kept for writeError().
  void store(llvm::StringRef Key, const TUResult &Result, const RuleSet &Rules);

  /// Why an entry could not be written ("" if all were): for a warning.
  std::string writeError() const { return WriteError; }

  unsigned hits() const { return Hits; }
  /// Counts the hit of \p Key as a miss: its facts said that an edit is
  /// needed, and an edit is made only from a fresh parse.
  void editNeeded(llvm::StringRef Key) {
    --Hits;
    ++EditNeeded;
    std::lock_guard<std::mutex> Lock(Mutex);
    if (RedecidedKeys.erase(Key))
      --Redecided;
  }
  unsigned misses() const { return counts().misses(); }
  unsigned redecided() const { return Redecided; }
  /// What the lookups so far gave.
  CacheCounts counts() const;

private:
  /// The xxh3 of \p Path's bytes now, memoised for the run; with \p Bytes,
  /// also its bytes (kept for the run).
  std::optional<uint64_t>
  currentHash(const std::string &Path,
              std::shared_ptr<const std::string> *Bytes = nullptr);

  /// What is known of a file's bytes this run.
  struct FileState {
    std::optional<uint64_t> Hash;
    std::shared_ptr<const std::string> Bytes; ///< Once a lookup needed them.
  };

  /// Whether \p Path (absolute) still does not exist, memoised.
  bool stillAbsent(const std::string &Path);

  /// One file's candidates, stored once for every entry that has them.
  using SharedRun = std::vector<Candidate>;
  /// The run stored as \p Name (its bytes' xxh3-128), read once a run;
  /// null if it is not there or does not check out.
  std::shared_ptr<const SharedRun> sharedRun(llvm::StringRef Name);
  /// \p Entry's candidates, with each long run of one file's stored once
  /// (facts/<name>.json) and named instead.
  llvm::json::Array compactCandidates(llvm::ArrayRef<Candidate> Candidates);
  /// \p Entry's candidates, the shared runs it names read; false if one is
  /// missing or does not check out (\p Missing says which).
  bool expandCandidates(llvm::json::Value &Listed,
                        std::vector<Candidate> &Candidates, bool &Missing);

  std::string Directory;
  uint64_t LimitBytes;
  std::atomic<unsigned> Stored{0}, Evicted{0};
  std::string Identity; ///< Version and executable hash.
  std::mutex Mutex;
  llvm::StringMap<FileState> Files;
  std::atomic<unsigned> Hits{0}, Redecided{0};
  std::atomic<unsigned> NoEntry{0}, Changed{0}, BodiesNeeded{0}, Untrusted{0};
  std::atomic<unsigned> EditNeeded{0};
  llvm::StringMap<bool> Absent;
  llvm::StringSet<> RedecidedKeys; ///< The hits counted in Redecided.
  /// The shared runs read this run (null: refused), and those written.
  llvm::StringMap<std::shared_ptr<const SharedRun>> SharedRuns;
  llvm::StringSet<> SharedWritten;
  LexedFiles Lexed; ///< The files under the root, lexed once a run.
  std::string WriteError;
};

} // namespace apistamp

#endif // APISTAMP_LIB_RESULTCACHE_H
