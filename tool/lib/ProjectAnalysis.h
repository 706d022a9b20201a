//===- ProjectAnalysis.h - Analyse every TU, merge the results -*- C++ -*-===//
//
// The second stage: runs analyseTU over the planned TUs (in parallel,
// through the result cache) and merges what they found into one
// AnalysisResult, the plain data every command renders.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PROJECTANALYSIS_H
#define APISTAMP_LIB_PROJECTANALYSIS_H

#include "Project.h"
#include "ResultCache.h"
#include "apistamp/Site.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <functional>
#include <map>
#include <mutex>
#include <set>

namespace apistamp {

class ResultCache;
class PreambleStore;

/// The bytes of the run's files, each held once for every result that saw
/// the same bytes at the same path (a header every TU reads: its parses
/// each copy it).
class SharedBytesPool {
public:
  /// \p Bytes, or the same bytes of \p Path held already.
  SharedBytes share(const std::string &Path, const SharedBytes &Bytes);
  /// Every file of \p R's FileContents shared.
  void share(TUResult &R);

private:
  std::mutex Mutex;
  std::map<std::pair<std::string, uint64_t>, SharedBytes> Held;
};

/// How the TUs are analysed.
struct ProjectAnalysisOptions {
  unsigned Threads = 1;
  const ExplainTarget *Target = nullptr;
  bool SkipBodies = true;
  /// Record the definitions no rule selects (AnalysisOptions::Unselected).
  bool Unselected = false;
  ResultCache *Cache = nullptr; ///< Null: no cache.
  /// Stored preambles (null: none); built for the TUs analysed afresh if
  /// BuildPreambles.
  PreambleStore *Preambles = nullptr;
  bool BuildPreambles = false;
  /// Sources whose TUs get one built (besides all, with BuildPreambles).
  std::function<bool(llvm::StringRef Source)> BuildPreambleFor;
  /// The TUs are a part of the database (named files, a shard): TUs not
  /// analysed may select a definition in a header that these do not.
  bool PartialView = false;
  /// Called (from any thread, one call at a time) as each TU finishes.
  std::function<void(llvm::StringRef Source)> Finished;
  /// TU I's result, from elsewhere (merge reads tu's result files), asked
  /// for in the plan's order: nothing is parsed, and the first error ends
  /// the analysis.
  std::function<llvm::Expected<TUResult>(size_t I)> GivenResult;
  /// The run's edits are written or shown (fix, diff, --export-fixes): a
  /// result read from disk (the cache, a tu result file) or parsed on a
  /// stored preamble that would edit a file is parsed again, in full, and
  /// the edits come from that parse.
  bool FreshEdits = false;
  /// Where results' bytes are shared (analyseProject sets its own).
  SharedBytesPool *Bytes = nullptr;
  /// Find the events classes log through a base's constructor
  /// (AnalysisResult::Inherited): the catalog's, report's and gate's runs.
  bool InheritedEvents = false;
};

/// A TU whose results must not be used.
struct FailedTU {
  std::string Source;
  std::string Diagnostics; ///< As clang prints them.
  const RuleSet *Rules = nullptr;
};

/// What the rules of one rules file did over the whole run.
struct RuleUsage {
  llvm::StringSet<> Used; ///< Rules that selected a definition.
  /// Per rule: the earlier rules that won what it also selects.
  llvm::StringMap<std::set<std::string>> ShadowedBy;
};

/// An insertion or correction proposed in a header the library installs, or
/// an event already there (with `public_header_edits: warn`).
struct PublicHeaderEdit {
  /// The event is there already (an earlier fix, or by hand): said on
  /// every run, so that the dependency it gives users is not forgotten.
  bool AlreadyThere = false;
  std::string File;
  unsigned Line = 0, Column = 0;
  std::string Event, RuleId;
  std::string Why; ///< "installed by the build" or "in public_headers".
};

/// A definition no rule selects, as the first TU that saw it did (its
/// DeclaredIn is every TU's), and the rules that judged it.
struct UnselectedSite {
  UnselectedDefinition Definition;
  const RuleSet *Rules = nullptr;
};

/// Everything the TUs of a run found, merged.
struct AnalysisResult {
  unsigned TUs = 0;
  std::vector<FailedTU> Failed; ///< In TU order.
  /// One per definition (a header's sites, seen by several TUs, once),
  /// sorted by file and offset whatever -j was.
  std::vector<Site> Sites;
  /// One per comment; Used if any TU used it.
  std::vector<Suppression> Suppressions;
  std::vector<Expectation> Expectations;
  /// For explain: one per definition (file, line).
  std::vector<Explanation> Explanations;
  /// When asked for (InheritedEvents): the events classes log through a
  /// base's constructor, one per class, by file and line.
  std::vector<InheritedEvent> Inherited;
  /// For explain, with Inherited: each other class's reason for logging
  /// nothing through a base, by qualified name.
  std::map<std::string, std::string> NotInherited;
  /// When asked for: one per definition that no TU's rules select, sorted
  /// by file and offset.
  std::vector<UnselectedSite> Unselected;
  /// The bytes each file with sites had when parsed (edits are offsets into
  /// them); a file that TUs saw with different bytes is in Inconsistent
  /// instead.
  std::map<std::string, std::string> ParsedContents;
  std::set<std::string> Inconsistent;
  /// Per rules file, from the TUs that parsed.
  llvm::DenseMap<const RuleSet *, RuleUsage> Usage;
  unsigned SkippedBodies = 0; ///< Bodies no rule can select, not parsed.
  /// Edits in public headers that the rules warn about (the default); with
  /// `public_header_edits: forbid` such sites are Skipped instead.
  std::vector<PublicHeaderEdit> PublicHeaderEdits;
  /// A part of the database: the files judged from every TU that reads
  /// them, the other TUs analysed for them (sources), and the other TUs that
  /// did not preprocess (so that nothing could be judged whole).
  std::vector<std::string> JudgedWhole, CompletingTUs, Unreadable;
  bool UsedCache = false;
  CacheCounts Cache;           ///< When UsedCache.
  std::string CacheWriteError; ///< The first failed cache write, if any.
  /// With FreshEdits: the TUs whose result from disk or on a stored
  /// preamble proposed other edits than their fresh parse (a stale or
  /// forged entry); the edits are the fresh parse's.
  std::vector<std::string> DisagreedWithFreshParse;
  /// The preamble store, if the run used one.
  struct PreambleSummary {
    std::string Directory;
    /// TUs parsed on a stored preamble; preambles built; evicted; parses
    /// redone without one (its facts did not match, or the parse failed).
    unsigned Used = 0, Built = 0, Evicted = 0, Redone = 0;
    uint64_t Limit = 0;
    std::string WriteError; ///< The first failed write, if any.
  };
  std::optional<PreambleSummary> Preambles;
};

/// Why \p File (canonical) is a public header of \p Rules' project (it is
/// installed by the build, or matches `public_headers`), or "".
std::string publicHeaderReason(const Project &P, const RuleSet &Rules,
                               llvm::StringRef File);

/// Analyses \p Job alone, as a run analyses each of its TUs (on a thread
/// with a TU's stack, where a crash is a failed TU), without a cache.
TUResult analyseAlone(const TUJob &Job, const ProjectAnalysisOptions &Options);

/// Analyses every TU of \p P and merges the results, each as it comes
/// where no later step needs them all; an error only from GivenResult.
llvm::Expected<AnalysisResult>
analyseProject(const Project &P, const ProjectAnalysisOptions &Options);

} // namespace apistamp

#endif // APISTAMP_LIB_PROJECTANALYSIS_H
