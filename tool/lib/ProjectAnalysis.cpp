//===- ProjectAnalysis.cpp - Analyse every TU and merge the results -------===//

#include "ProjectAnalysis.h"
#include "PreambleStore.h"
#include "ResultCache.h"
#include "SiteDecision.h"
#include "ViewCompletion.h"
#include "WorkerPool.h"
#include "apistamp/Analysis.h"
#include "apistamp/Paths.h"
#include "python/PythonProject.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/thread.h"
#include "llvm/Support/xxhash.h"
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <numeric>

using namespace llvm;

namespace apistamp {

SharedBytes SharedBytesPool::share(const std::string &Path,
                                   const SharedBytes &Bytes) {
  std::pair<std::string, uint64_t> Key{Path, xxh3_64bits(Bytes.ref())};
  std::lock_guard<std::mutex> Lock(Mutex);
  auto [It, New] = Held.try_emplace(std::move(Key), Bytes);
  return New || It->second == Bytes ? It->second : Bytes;
}

void SharedBytesPool::share(TUResult &R) {
  for (auto &[Path, Bytes] : R.FileContents)
    Bytes = share(Path, Bytes);
}

namespace {

/// Stack for one TU's parse: clang recurses deeply on deeply nested code;
/// past this, the TU crashes and is reported as failed, alone.
constexpr unsigned TUStackSize = 64 << 20;

/// Runs \p Work under crash recovery, on a worker thread (which has a
/// large stack and an alternate signal stack); false if it crashed.
bool runIsolated(llvm::function_ref<void()> Work) {
  CrashRecoveryContext Context;
  return Context.RunSafely(Work);
}

/// The result of a TU that could not be analysed, and why.
TUResult failedTU(std::string Why) {
  TUResult Result;
  Result.ParseFailed = true;
  Result.Diagnostics = "error: " + std::move(Why) + "\n";
  return Result;
}

/// analyseTU, isolated: a TU that crashes is a failed TU, and the run goes
/// on.
TUResult analyseTUIsolated(const TUJob &Job,
                           const ProjectAnalysisOptions &Options) {
  TUResult Result;
  if (runIsolated([&] {
        AnalysisOptions TU{Job.Rules, Options.Target, Options.SkipBodies,
                           Options.Unselected};
        TU.Preambles = Options.Preambles;
        // A TU that completes another's view is read for a few files only.
        TU.BuildPreamble =
            Job.Completes.empty() &&
            (Options.BuildPreambles || (Options.BuildPreambleFor &&
                                        Options.BuildPreambleFor(Job.Source)));
        Result = analyseTU(*Job.Command, TU);
      }))
    return Result;
  return failedTU("clang crashed while analysing '" + Job.Source +
                  "' (a clang bug, or code nested too deeply for its stack)");
}

/// A definition, as the merge keys it: its file and offset.
using SiteKey = std::pair<std::string, unsigned>;

/// The edits each site of \p R proposes, decided alone (with no public
/// header reason and as a whole view: the most a merge can make of them),
/// sorted; and the sites that propose one, in \p Editing. A site whose
/// file's bytes the result lacks counts as editing.
std::vector<TextEdit> editsAlone(const TUResult &R, const RuleSet &Rules,
                                 std::set<SiteKey> *Editing = nullptr) {
  std::vector<TextEdit> Edits;
  for (const Site &S : R.Sites) {
    if (S.File.empty())
      continue; // A copy HeldSites emptied: its holder proposes the same.
    auto Code = R.FileContents.find(S.File);
    Site Decided = S;
    bool Proposes = Code == R.FileContents.end() ||
                    (decideSite(Decided, Code->second, Rules, "", false) &&
                     !Decided.Edits.empty());
    if (!Proposes)
      continue;
    if (Editing)
      Editing->insert({S.File, S.Offset});
    llvm::append_range(Edits, Decided.Edits);
  }
  llvm::sort(Edits);
  return Edits;
}

/// Whether deciding the sites of \p R (from the cache) changes nothing.
bool changesNothing(const TUResult &R, const RuleSet &Rules) {
  std::set<SiteKey> Editing;
  editsAlone(R, Rules, &Editing);
  return Editing.empty();
}

/// The sites of the fresh C++ results a run holds until it merges them
/// all (fix, diff: parseAgainWhereEdits needs every result first): a
/// header's definitions are the same sites in every TU that reads it, so
/// each definition is held whole once, in the earliest result of the plan
/// that has it, and every later copy that is the same in every field, under
/// the same rules, is dropped (or, if it came first, emptied: Site(),
/// compacted away before the merge).
/// The merge decides a definition as its first TU saw it and only counts
/// the others' rules and reach, which the same copy does not change
/// (protobuf under a policy of every public definition: 350,802 of its
/// 384,227 held sites are such copies).
class HeldSites {
public:
  explicit HeldSites(ArrayRef<TUJob> Jobs) : Jobs(Jobs) {}

  /// Adds \p R, result \p I (fresh: never replaced), from any thread.
  void add(size_t I, TUResult &R) {
    const TUJob &TU = Jobs[I];
    if (!TU.Command || TU.Python || !TU.ReportOnly.empty() ||
        !TU.Completes.empty())
      return;
    std::lock_guard<std::mutex> Lock(Mutex);
    auto SameAs = [&](const Holder &H, const Site &S) {
      return Jobs[H.Result].Rules == TU.Rules && sameFields(*H.Copy, S);
    };
    // A copy of what an earlier result holds goes now, whole (an emptied
    // Site is still its size).
    llvm::erase_if(R.Sites, [&](const Site &S) {
      auto It = First.find({S.File, S.Offset});
      return It != First.end() && It->second.Result < I &&
             SameAs(It->second, S);
    });
    R.Sites.shrink_to_fit();
    // The rest is held here: first seen, or earlier in the plan than the
    // result that held it (whose copy is emptied).
    for (Site &S : R.Sites) {
      auto [It, New] = First.try_emplace({S.File, S.Offset}, Holder{I, &S});
      if (New || I > It->second.Result || !SameAs(It->second, S))
        continue;
      *It->second.Copy = Site();
      It->second = {I, &S};
    }
  }

  /// Removes the emptied copies from \p Results.
  static void compact(std::vector<TUResult> &Results) {
    for (TUResult &R : Results)
      llvm::erase_if(R.Sites, [](const Site &S) { return S.File.empty(); });
  }

private:
  struct Holder {
    size_t Result;
    Site *Copy; ///< In a held result's Sites, which are not resized.
  };
  ArrayRef<TUJob> Jobs;
  std::mutex Mutex;
  std::map<SiteKey, Holder> First;
};

/// A Python file's result: from the cache when the entry says that nothing
/// in the file needs to change (then no edit can come of it), else from
/// \p Python's fresh read, which is stored.
TUResult analysePythonJob(const TUJob &Job,
                          const ProjectAnalysisOptions &Options,
                          python::Project *Python) {
  if (!Python)
    return failedTU("'" + Job.Source + "' was not read");
  std::string Key;
  if (Options.Cache) {
    Key = Options.Cache->keyForPython(*Job.Rules, Job.Source,
                                      Python->callShapes());
    if (std::optional<TUResult> Cached = Options.Cache->lookup(
            Key, *Job.Rules, Options.Unselected, Job.Source)) {
      bool Own = llvm::all_of(
          Cached->Sites, [&](const Site &S) { return S.File == Job.Source; });
      if (Own && !Options.Target && changesNothing(*Cached, *Job.Rules)) {
        Cached->Facts = TUFacts();
        Cached->From = TUResult::Origin::Cache;
        return std::move(*Cached);
      }
      Options.Cache->editNeeded(Key);
    }
  }
  TUResult Result = Python->analyse(Job, Options.Target, Options.Unselected);
  if (!Key.empty())
    Options.Cache->store(Key, Result, *Job.Rules);
  Result.Facts = TUFacts();
  return Result;
}

/// Analyses \p Job, or takes its result from the cache; a Python job from
/// \p Python, the run's Python sources read.
TUResult analyseJob(const TUJob &Job, const ProjectAnalysisOptions &Options,
                    python::Project *Python) {
  if (Job.Python)
    return analysePythonJob(Job, Options, Python);
  if (!Job.Command)
    return failedTU("no compile command for '" + Job.Source +
                    "'; pass -p BUILD_DIR or compiler arguments after '--'");
  std::string Key;
  if (Options.Cache) {
    Key = Options.Cache->keyFor(*Job.Rules, *Job.Command, Options.SkipBodies);
    if (std::optional<TUResult> Cached =
            Options.Cache->lookup(Key, *Job.Rules, Options.Unselected)) {
      Cached->Facts = TUFacts(); // Decided on: the merge needs them no more.
      Cached->From = TUResult::Origin::Cache;
      return std::move(*Cached);
    }
  }
  TUResult Result = analyseTUIsolated(Job, Options);
  if (!Key.empty())
    Options.Cache->store(Key, Result, *Job.Rules);
  Result.Facts = TUFacts();
  return Result;
}

/// Decides \p S, a definition seen first in a TU whose files' bytes are
/// \p Contents; false if its facts make no site. An insertion or correction
/// in a public header makes every user of the library need the macro's
/// header: the rules forbid it (decideSite), or it is warned about here.
bool decideMergedSite(const Project &P, const RuleSet &Rules, Site &S,
                      const std::map<std::string, SharedBytes> &Contents,
                      std::vector<PublicHeaderEdit> &Warnings,
                      bool PartialView) {
  auto Code = Contents.find(S.File);
  if (Code == Contents.end())
    return false;
  std::string Why;
  if (Rules.PublicHeaderEdits != RuleSet::PublicHeaderPolicy::Allow)
    Why = publicHeaderReason(P, Rules, S.File);
  if (!decideSite(S, Code->second, Rules, Why, PartialView))
    return false;
  bool Edited = !S.Edits.empty() && (S.Status == SiteStatus::Missing ||
                                     S.Status == SiteStatus::Wrong);
  bool There = S.Status == SiteStatus::Present;
  if (Rules.PublicHeaderEdits == RuleSet::PublicHeaderPolicy::Warn &&
      !Why.empty() && (Edited || There))
    Warnings.push_back(
        {There, S.File, S.ReportLine, S.ReportColumn, S.Event, S.RuleId, Why});
  return true;
}

/// Counts \p S (decided) as selected by its rule, winning over the later
/// rules that also select it.
void countRuleUsage(const Site &S, RuleUsage &Usage) {
  Usage.Used.insert(S.RuleId);
  for (const std::string &Loser : S.AlsoSelectedBy)
    Usage.ShadowedBy[Loser].insert(S.RuleId);
}

/// The TUs whose results are merged, and how much of the project they see.
struct MergeView {
  ArrayRef<TUJob> Jobs; ///< One per result.
  /// The TUs are a part of the database (ProjectAnalysisOptions).
  bool PartialView = false;
  /// Files that every TU of the database that reads them was analysed for.
  const std::set<std::string> &WholeFiles;

  /// Whether \p S, found by TU \p I, may be read by TUs this run did not
  /// analyse: only a header can be.
  bool seesPartly(size_t I, const Site &S) const {
    return PartialView && S.File != Jobs[I].Source && !WholeFiles.count(S.File);
  }
};

/// A definition as merged so far: decided as the TU it was first seen
/// through saw it.
struct MergedSite {
  Site Decided;
  const RuleSet *Rules;
  std::string Through; ///< That TU's source, as findings name it.
};
using SiteMap = std::map<std::pair<std::string, unsigned>, MergedSite>;

/// \p TU's source, relative to its rules' root where it is under it.
std::string throughName(const TUJob &TU) {
  std::optional<StringRef> Relative = pathUnder(TU.Source, TU.Rules->Root);
  return Relative ? Relative->str() : TU.Source;
}

/// Adds the sites of TU \p I (result \p R) to \p Sites. Each definition is
/// decided once, as the first TU that parsed it saw it; the others count
/// which rules selected it, and must agree with it on the event and the
/// include (reconcileReach). But a TU that selects a definition wins over
/// one that found it stale: a verdict must not depend on the order of the
/// TUs.
void mergeSites(const Project &P, const MergeView &View, size_t I, TUResult &R,
                SiteMap &Sites, RuleUsage &Usage,
                std::vector<PublicHeaderEdit> &Warnings) {
  const TUJob &TU = View.Jobs[I];
  const RuleSet &Rules = *TU.Rules;
  for (Site &S : R.Sites) {
    std::pair<std::string, unsigned> Key{S.File, S.Offset};
    auto Found = Sites.find(Key);
    bool Overrides = Found != Sites.end() &&
                     Found->second.Decided.Status == SiteStatus::Stale &&
                     !Found->second.Decided.Suppressed && !S.RuleId.empty();
    if (Found == Sites.end() || Overrides) {
      if (!decideMergedSite(P, Rules, S, R.FileContents, Warnings,
                            View.seesPartly(I, S)))
        continue;
      if (Overrides)
        Sites.erase(Found);
      Found = Sites
                  .try_emplace(std::move(Key), MergedSite{std::move(S), &Rules,
                                                          throughName(TU)})
                  .first;
      countRuleUsage(Found->second.Decided, Usage);
    } else if (Found->second.Decided.Status != SiteStatus::Stale) {
      countRuleUsage(S, Usage);
      MergedSite &M = Found->second;
      reconcileReach(M.Decided, *M.Rules, M.Through, S, Rules, throughName(TU));
    }
  }
}

/// Adds the definitions \p Found that no rule of \p Rules selects to
/// \p Merged: the first TU's facts, with the declarations every TU saw.
void mergeUnselected(
    std::vector<UnselectedDefinition> &Found, const RuleSet &Rules,
    std::map<std::pair<std::string, unsigned>, UnselectedSite> &Merged) {
  for (UnselectedDefinition &U : Found) {
    auto [It, New] = Merged.try_emplace({U.File, U.Offset});
    if (New) {
      It->second = {std::move(U), &Rules};
      continue;
    }
    std::vector<std::string> &DeclaredIn = It->second.Definition.DeclaredIn;
    for (std::string &File : U.DeclaredIn)
      if (!llvm::is_contained(DeclaredIn, File))
        DeclaredIn.push_back(std::move(File));
  }
}

/// A stale call's removal takes the rules' #include with it (a
/// RemoveInclude edit) only where no file this run did not see may need it:
/// not in a header seen from a partial view (TUs not analysed read it, and
/// may rely on its #include; one judged from every TU that reads it is
/// treated as a whole run treats it), nor in a file whose #include a
/// fragment's call uses (a .inl included inside a namespace or class).
void keepIncludesOthersMayNeed(const Project &P, const MergeView &View,
                               std::vector<Site> &Sites) {
  StringSet<> Keep;
  for (const Site &S : Sites)
    if (!S.IncludeFile.empty() && S.IncludeFile != S.File)
      Keep.insert(S.IncludeFile);
  StringSet<> Sources;
  for (const TUJob &TU : P.TUs)
    Sources.insert(TU.Source);
  for (Site &S : Sites)
    if (Keep.contains(S.File) ||
        (View.PartialView && !Sources.contains(S.File) &&
         !View.WholeFiles.count(S.File)))
      llvm::erase_if(S.Edits, [](const TextEdit &E) {
        return E.Kind == TextEdit::RemoveInclude;
      });
}

/// Drops from \p R what \p TU does not report: a TU analysed for a named
/// header reports what lies in that header; one that completes the view,
/// what lies in the files it completes.
void keepReported(TUResult &R, const TUJob &TU) {
  auto Reported = [&TU](StringRef File) {
    return (TU.ReportOnly.empty() || File == TU.ReportOnly) &&
           (TU.Completes.empty() || llvm::is_contained(TU.Completes, File));
  };
  llvm::erase_if(R.Sites, [&](const Site &S) { return !Reported(S.File); });
  llvm::erase_if(R.Suppressions,
                 [&](const Suppression &S) { return !Reported(S.File); });
  llvm::erase_if(R.Expectations,
                 [&](const Expectation &E) { return !Reported(E.File); });
  llvm::erase_if(R.Explanations,
                 [&](const Explanation &E) { return !Reported(E.File); });
  llvm::erase_if(R.Unselected, [&](const UnselectedDefinition &U) {
    return !Reported(U.File);
  });
}

/// Merges the per-TU results one at a time, in the plan's order, each
/// consumed as it is added: what is kept is the decided sites and the bytes
/// of the files they are in, not the TUs' results.
class ResultMerger {
public:
  ResultMerger(const Project &P, const MergeView &View) : P(P), View(View) {}

  /// Adds TU \p I's result.
  void add(size_t I, TUResult &&Result) {
    TUResult R = std::move(Result);
    Merged.SkippedBodies += R.SkippedBodies;
    const TUJob &TU = View.Jobs[I];
    Merged.TUs += TU.Completes.empty();
    if (R.ParseFailed) {
      Merged.Failed.push_back({TU.Source, std::move(R.Diagnostics), TU.Rules});
      return;
    }
    keepReported(R, TU);
    const RuleSet &Rules = *TU.Rules;
    RuleUsage &Usage = Merged.Usage[&Rules];
    auto Partial = [&](const Site &S) { return View.seesPartly(I, S); };
    mergeSites(P, View, I, R, Sites, Usage, Merged.PublicHeaderEdits);
    for (Suppression &S : R.Suppressions) {
      auto [It, New] = Suppressions.try_emplace({S.File, S.Offset}, S);
      It->second.Used |= S.Used;
    }
    for (Expectation &E : R.Expectations)
      Merged.Expectations.push_back(std::move(E));
    mergeUnselected(R.Unselected, Rules, Unselected);
    for (Explanation &E : R.Explanations) {
      if (E.SelectedSite &&
          !decideMergedSite(P, Rules, *E.SelectedSite, R.FileContents, Ignored,
                            Partial(*E.SelectedSite))) {
        E.SelectedSite.reset();
        E.Outcome = Explanation::NotSelected;
      }
      Explanations.try_emplace({E.File, E.Line}, std::move(E));
    }
    for (auto &[Path, Contents] : R.FileContents) {
      auto [It, New] = FirstBytes.try_emplace(Path, Contents);
      if (!New && It->second != Contents)
        Merged.Inconsistent.insert(Path); // It changed between two parses.
    }
  }

  /// The merged result of every TU added.
  AnalysisResult finish() && {
    for (auto &[Path, Bytes] : FirstBytes)
      if (!Merged.Inconsistent.count(Path))
        Merged.ParsedContents.try_emplace(Path, Bytes.str());
    // One decision, one answer: explain says what the merge decided.
    for (auto &Entry : Explanations) {
      Explanation &E = Entry.second;
      if (E.SelectedSite) {
        auto Found = Sites.find({E.SelectedSite->File, E.SelectedSite->Offset});
        if (Found != Sites.end())
          E.SelectedSite = Found->second.Decided;
      }
      Merged.Explanations.push_back(std::move(E));
    }
    // A definition one TU's rules select is covered, whatever the others
    // say.
    for (auto &[Key, U] : Unselected) {
      auto Found = Sites.find(Key);
      if (Found == Sites.end() || Found->second.Decided.RuleId.empty())
        Merged.Unselected.push_back(std::move(U));
    }
    for (auto &Entry : Sites)
      Merged.Sites.push_back(std::move(Entry.second.Decided));
    keepIncludesOthersMayNeed(P, View, Merged.Sites);
    for (auto &Entry : Suppressions)
      Merged.Suppressions.push_back(std::move(Entry.second));
    return std::move(Merged);
  }

private:
  const Project &P;
  const MergeView &View;
  AnalysisResult Merged;
  SiteMap Sites;
  std::map<std::pair<std::string, unsigned>, Suppression> Suppressions;
  std::map<std::pair<std::string, unsigned>, Explanation> Explanations;
  std::map<std::pair<std::string, unsigned>, UnselectedSite> Unselected;
  std::vector<PublicHeaderEdit> Ignored; // Said for the site itself.
  /// The bytes of each file with sites, as the first TU saw them (shared by
  /// the TUs that read the same bytes from the same place).
  std::map<std::string, SharedBytes> FirstBytes;
};

/// Merges the per-TU results, consuming them.
AnalysisResult merge(const Project &P, const MergeView &View,
                     std::vector<TUResult> &&Results) {
  ResultMerger Merger(P, View);
  for (size_t I = 0; I < Results.size(); ++I)
    Merger.add(I, std::move(Results[I]));
  return std::move(Merger).finish();
}

} // namespace

std::string publicHeaderReason(const Project &P, const RuleSet &Rules,
                               StringRef File) {
  if (P.Installed.contains(File))
    return "installed by the build (cmake_install.cmake)";
  if (std::optional<StringRef> Relative = pathUnder(File, Rules.Root))
    if (llvm::any_of(Rules.PublicHeaders,
                     [&](const PathGlob &G) { return G.matches(*Relative); }))
      return "listed in 'public_headers'";
  return "";
}

/// Runs \p Work(I) for I in [0, \p Count) on up to \p Threads workers with
/// TU-sized stacks. Long-lived workers rather than a thread per TU: a fresh
/// thread per TU cost about 10% (its allocations start cold).
static void onWorkers(size_t Count, unsigned Threads,
                      function_ref<void(size_t)> Work) {
  std::atomic<size_t> Next{0};
  WorkerOptions Workers;
  Workers.StackSize = TUStackSize;
  Workers.CrashRecovery = true;
  runWorkers(
      std::max(1u, std::min<unsigned>(Threads, Count)),
      [&](unsigned) {
        for (size_t I = Next++; I < Count; I = Next++)
          Work(I);
      },
      Workers);
}

/// The Python sources of \p Jobs, to be read together (a class's bases are
/// resolved across modules); null if there is none.
static std::unique_ptr<python::Project> pythonProjectOf(ArrayRef<TUJob> Jobs) {
  if (llvm::any_of(Jobs, [](const TUJob &Job) { return Job.Python; }))
    return std::make_unique<python::Project>(Jobs);
  return nullptr;
}

/// Analyses \p Jobs on the run's threads, their Python files in \p Python;
/// \p Finished(I) after each, and \p Take(I, result) in the jobs' order, as
/// soon as every earlier job's result is taken: a result is held only until
/// the earlier ones finish.
static void analyseJobs(ArrayRef<TUJob> Jobs,
                        const ProjectAnalysisOptions &Options,
                        function_ref<void(size_t)> Finished,
                        python::Project *Python,
                        function_ref<void(size_t, TUResult &&)> Take) {
  std::vector<std::optional<TUResult>> Waiting(Jobs.size());
  size_t NextTaken = 0;
  std::mutex TakeMutex;
  onWorkers(Jobs.size(), Options.Threads, [&](size_t I) {
    TUResult Result = analyseJob(Jobs[I], Options, Python);
    if (Options.Bytes)
      Options.Bytes->share(Result);
    std::lock_guard<std::mutex> Lock(TakeMutex);
    Finished(I);
    Waiting[I] = std::move(Result);
    for (; NextTaken < Waiting.size() && Waiting[NextTaken]; ++NextTaken) {
      Take(NextTaken, std::move(*Waiting[NextTaken]));
      Waiting[NextTaken].reset();
    }
  });
}

/// The \p Count given results, to \p Take in order; an error naming every
/// one refused (after the first, the rest are read only to say what else is
/// wrong).
static Error takeGiven(
    size_t Count, const std::function<Expected<TUResult>(size_t)> &GivenResult,
    SharedBytesPool *Bytes, function_ref<void(size_t, TUResult &&)> Take) {
  std::vector<std::string> Refused;
  for (size_t I = 0; I < Count; ++I) {
    Expected<TUResult> Given = GivenResult(I);
    if (!Given) {
      Refused.push_back(toString(Given.takeError()));
      continue;
    }
    Given->From = TUResult::Origin::ResultFile;
    if (Refused.empty() && Bytes)
      Bytes->share(*Given);
    if (Refused.empty())
      Take(I, std::move(*Given));
  }
  if (Refused.empty())
    return Error::success();
  return createStringError(inconvertibleErrorCode(), join(Refused, "\n"));
}

/// Every result of analyseJobs, in the jobs' order.
static std::vector<TUResult> analyseJobs(ArrayRef<TUJob> Jobs,
                                         const ProjectAnalysisOptions &Options,
                                         function_ref<void(size_t)> Finished,
                                         python::Project *Python) {
  std::vector<TUResult> Results(Jobs.size());
  analyseJobs(Jobs, Options, Finished, Python,
              [&](size_t I, TUResult &&R) { Results[I] = std::move(R); });
  return Results;
}

/// What a run that shows or writes edits takes from parses of its own
/// (docs/reliability.md, "every write comes from a parse made in this
/// run"): every C++ result read from disk or parsed on a stored preamble
/// that proposes an edit, or that has a definition a fresh result proposes
/// an edit in (the merge may take the include it needs from any TU that
/// reaches it), is parsed again, in full, without the cache, until none is
/// left; a repaired cache entry is stored. Returns the sources whose fresh
/// parse proposed other edits than the result it replaced.
///
/// \p Proposing: what each result the caller dropped proposed (it is parsed
/// again whatever else it says); empty for the others.
static std::vector<std::string>
parseAgainWhereEdits(ArrayRef<TUJob> Jobs, std::vector<TUResult> &Results,
                     const ProjectAnalysisOptions &Options, HeldSites *Held,
                     ArrayRef<std::vector<TextEdit>> Proposing) {
  ProjectAnalysisOptions Fresh;
  Fresh.Threads = Options.Threads;
  Fresh.SkipBodies = Options.SkipBodies;
  Fresh.Unselected = Options.Unselected;
  std::set<SiteKey> Edited;
  std::vector<std::vector<TextEdit>> Proposed(Results.size());
  for (size_t I = 0; I < Results.size(); ++I) {
    std::set<SiteKey> Editing;
    Proposed[I] = I < Proposing.size() && !Proposing[I].empty()
                      ? Proposing[I]
                      : editsAlone(Results[I], *Jobs[I].Rules, &Editing);
    if (Results[I].From == TUResult::Origin::Parsed)
      Edited.insert(Editing.begin(), Editing.end());
  }
  std::vector<std::string> Disagreed;
  for (;;) {
    std::vector<size_t> Again;
    for (size_t I = 0; I < Results.size(); ++I) {
      const TUResult &R = Results[I];
      if (R.From == TUResult::Origin::Parsed || Jobs[I].Python ||
          !Jobs[I].Command)
        continue;
      if (!Proposed[I].empty() || llvm::any_of(R.Sites, [&](const Site &S) {
            return Edited.count({S.File, S.Offset});
          }))
        Again.push_back(I);
    }
    if (Again.empty())
      return Disagreed;
    // Parsed in full, their facts kept for the cache only until stored;
    // the results they replace are dropped first (a run under a wide
    // policy holds every TU's sites: not twice).
    std::vector<bool> FromCache(Again.size());
    for (size_t K = 0; K < Again.size(); ++K) {
      FromCache[K] = Results[Again[K]].From == TUResult::Origin::Cache;
      Results[Again[K]] = TUResult();
    }
    std::vector<TUResult> Parsed(Again.size());
    std::vector<std::vector<TextEdit>> NewEdits(Again.size());
    std::vector<std::set<SiteKey>> Editing(Again.size());
    onWorkers(Again.size(), Options.Threads, [&](size_t K) {
      const TUJob &Job = Jobs[Again[K]];
      TUResult &New = Parsed[K];
      New = analyseTUIsolated(Job, Fresh);
      NewEdits[K] = editsAlone(New, *Job.Rules, &Editing[K]);
      if (Options.Cache && FromCache[K]) {
        std::string Key =
            Options.Cache->keyFor(*Job.Rules, *Job.Command, Options.SkipBodies);
        Options.Cache->editNeeded(Key);
        Options.Cache->store(Key, New, *Job.Rules);
      }
      New.Facts = TUFacts();
      if (Options.Bytes)
        Options.Bytes->share(New);
      if (Held)
        Held->add(Again[K], New);
    });
    for (size_t K = 0; K < Again.size(); ++K) {
      size_t I = Again[K];
      if (NewEdits[K] != Proposed[I] && !Parsed[K].ParseFailed)
        Disagreed.push_back(Jobs[I].Source);
      Results[I] = std::move(Parsed[K]);
      Proposed[I] = std::move(NewEdits[K]);
      Edited.insert(Editing[K].begin(), Editing[K].end());
    }
  }
}

/// The order of a whole-project run's plan: by source, then command.
static bool planOrder(const TUJob &L, const TUJob &R) {
  if (L.Source != R.Source)
    return L.Source < R.Source;
  if (L.Command.has_value() != R.Command.has_value())
    return !L.Command.has_value();
  if (!L.Command)
    return false;
  return std::tie(L.Command->Directory, L.Command->CommandLine) <
         std::tie(R.Command->Directory, R.Command->CommandLine);
}

TUResult analyseAlone(const TUJob &Job, const ProjectAnalysisOptions &Options) {
  if (Job.Python) {
    python::Project Python(Job);
    return analyseJob(Job, Options, &Python);
  }
  if (!Job.Command)
    return analyseJob(Job, Options, nullptr);
  TUResult Result;
  WorkerOptions Workers;
  Workers.StackSize = TUStackSize;
  Workers.CrashRecovery = true;
  runWorkers(
      1, [&](unsigned) { Result = analyseTUIsolated(Job, Options); }, Workers);
  return Result;
}

Expected<AnalysisResult> analyseProject(const Project &P,
                                        const ProjectAnalysisOptions &Given) {
  SharedBytesPool Bytes;
  ProjectAnalysisOptions Options = Given;
  Options.Bytes = &Bytes;
  std::vector<TUJob> Jobs = P.TUs;
  std::unique_ptr<python::Project> Python = pythonProjectOf(Jobs);
  auto Finished = [&](size_t I) {
    if (Options.Finished)
      Options.Finished(Jobs[I].Source);
  };
  // A part of the database: the files whose verdict depends on the other
  // TUs are judged from every TU that reads them.
  std::set<std::string> WholeFiles;
  ViewCompletion Completion;
  bool PartialView =
      Options.PartialView &&
      !(P.OthersPlanned && P.Others.empty() && P.OthersUnplanned.empty());
  bool MayComplete = PartialView && !P.Others.empty();
  AnalysisResult Merged;
  std::vector<std::string> Disagreed;
  // Every TU's result, to Take in the plan's order: given (merge) or
  // analysed.
  auto produce = [&](function_ref<void(size_t, TUResult &&)> Take) -> Error {
    if (Options.GivenResult)
      return takeGiven(Jobs.size(), Options.GivenResult, Options.Bytes, Take);
    analyseJobs(Jobs, Options, Finished, Python.get(), Take);
    return Error::success();
  };
  if (!Options.FreshEdits && !MayComplete) {
    // Each result merged as it comes: memory is the decided sites and the
    // TUs in flight, not every TU's result.
    MergeView View{Jobs, PartialView, WholeFiles};
    ResultMerger Merger(P, View);
    if (Error Refused = produce(
            [&](size_t I, TUResult &&R) { Merger.add(I, std::move(R)); }))
      return std::move(Refused);
    Merged = std::move(Merger).finish();
  } else {
    // Held until every result is in (the view completed, the fresh-edit
    // re-parse), as little of each as the later steps need: a fresh
    // result's sites once (HeldSites), a result from disk that proposes an
    // edit (parsed again whatever it says) only what it proposes.
    std::vector<TUResult> Results(Jobs.size());
    HeldSites Held(Jobs);
    std::vector<std::vector<TextEdit>> Proposing(Jobs.size());
    bool Compact = !MayComplete;
    auto Hold = [&](size_t I, TUResult &&R) {
      const TUJob &Job = Jobs[I];
      if (Compact && Options.FreshEdits && R.From != TUResult::Origin::Parsed &&
          !Job.Python && Job.Command) {
        std::vector<TextEdit> Edits = editsAlone(R, *Job.Rules);
        if (!Edits.empty()) {
          Proposing[I] = std::move(Edits);
          TUResult Dropped;
          Dropped.From = R.From;
          Results[I] = std::move(Dropped);
          return;
        }
      }
      Results[I] = std::move(R);
      if (Compact && Results[I].From == TUResult::Origin::Parsed)
        Held.add(I, Results[I]);
    };
    if (Error Refused = produce(Hold))
      return std::move(Refused);
    if (MayComplete) {
      std::set<std::string> Needed = filesNeedingWholeView(Jobs, Results);
      if (!Needed.empty()) {
        Completion = completeView(P.Others, P.TUs, Needed, Options.Threads);
        std::unique_ptr<python::Project> MorePython =
            pythonProjectOf(Completion.Jobs);
        std::vector<TUResult> More = analyseJobs(
            Completion.Jobs, Options, [](size_t) {}, MorePython.get());
        // Merged in the whole run's order: the same TU decides first.
        std::vector<size_t> Order(Jobs.size() + More.size());
        std::iota(Order.begin(), Order.end(), 0);
        auto JobAt = [&](size_t I) -> const TUJob & {
          return I < Jobs.size() ? Jobs[I] : Completion.Jobs[I - Jobs.size()];
        };
        std::stable_sort(Order.begin(), Order.end(), [&](size_t L, size_t R) {
          return planOrder(JobAt(L), JobAt(R));
        });
        std::vector<TUJob> SortedJobs;
        std::vector<TUResult> SortedResults;
        for (size_t I : Order) {
          SortedJobs.push_back(JobAt(I));
          SortedResults.push_back(I < Jobs.size()
                                      ? std::move(Results[I])
                                      : std::move(More[I - Jobs.size()]));
        }
        Jobs = std::move(SortedJobs);
        Results = std::move(SortedResults);
        if (Completion.Unreadable.empty() && P.OthersUnplanned.empty())
          WholeFiles = std::move(Needed);
      }
    }
    if (Options.FreshEdits)
      Disagreed = parseAgainWhereEdits(Jobs, Results, Options,
                                       Compact ? &Held : nullptr, Proposing);
    HeldSites::compact(Results);
    Merged =
        merge(P, MergeView{Jobs, PartialView, WholeFiles}, std::move(Results));
  }
  Merged.DisagreedWithFreshParse = std::move(Disagreed);
  if (Options.InheritedEvents && Python) {
    std::vector<TUJob> Modules = P.TUs;
    llvm::append_range(Modules, P.UnselectablePython);
    Merged.Inherited = Python->inheritedEvents(
        Modules, Merged.Sites, Options.Target ? &Merged.NotInherited : nullptr);
  }
  Merged.JudgedWhole.assign(WholeFiles.begin(), WholeFiles.end());
  for (const TUJob &Job : Completion.Jobs)
    Merged.CompletingTUs.push_back(Job.Source);
  Merged.Unreadable = std::move(Completion.Unreadable);
  if (Options.Cache) {
    Merged.UsedCache = true;
    Merged.Cache = Options.Cache->counts();
    Merged.CacheWriteError = Options.Cache->writeError();
  }
  if (PreambleStore *Store = Options.Preambles)
    Merged.Preambles = AnalysisResult::PreambleSummary{
        Store->directory(), Store->Used,    Store->Built,       Store->Evicted,
        Store->Mismatches,  Store->limit(), Store->writeError()};
  return Merged;
}

} // namespace apistamp
