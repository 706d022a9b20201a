//===- ProjectAnalysis.cpp - Analyse every TU and merge the results -------===//

#include "ProjectAnalysis.h"
#include "ResultCache.h"
#include "SiteDecision.h"
#include "WorkerPool.h"
#include "apistamp/Analysis.h"
#include "apistamp/Paths.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/thread.h"
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <mutex>

using namespace llvm;

namespace apistamp {

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
        Result = analyseTU(*Job.Command,
                           {Job.Rules, Options.Target, Options.SkipBodies});
      }))
    return Result;
  return failedTU("clang crashed while analysing '" + Job.Source +
                  "' (a clang bug, or code nested too deeply for its stack)");
}

/// Analyses \p Job, or takes its result from the cache.
TUResult analyseJob(const TUJob &Job, const ProjectAnalysisOptions &Options) {
  if (!Job.Command)
    return failedTU("no compile command for '" + Job.Source +
                    "'; pass -p BUILD_DIR or compiler arguments after '--'");
  std::string Key;
  if (Options.Cache) {
    Key = Options.Cache->keyFor(*Job.Rules, *Job.Command, Options.SkipBodies);
    if (std::optional<TUResult> Cached = Options.Cache->lookup(Key, *Job.Rules))
      return std::move(*Cached);
  }
  TUResult Result = analyseTUIsolated(Job, Options);
  if (!Key.empty())
    Options.Cache->store(Key, Result);
  return Result;
}

/// Why \p File is a public header of \p Rules' project, or "".
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

/// Decides \p S, a definition seen first in a TU whose files' bytes are
/// \p Contents; false if its facts make no site. An insertion or correction
/// in a public header makes every user of the library need the macro's
/// header: the rules forbid it (decideSite), or it is warned about here.
bool decideMergedSite(const Project &P, const RuleSet &Rules, Site &S,
                      const std::map<std::string, std::string> &Contents,
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
  if (Rules.PublicHeaderEdits == RuleSet::PublicHeaderPolicy::Warn &&
      !Why.empty() && !S.Edits.empty() &&
      (S.Status == SiteStatus::Missing || S.Status == SiteStatus::Wrong))
    Warnings.push_back(
        {S.File, S.ReportLine, S.ReportColumn, S.Event, S.RuleId, Why});
  return true;
}

/// Counts \p S (decided) as selected by its rule, winning over the later
/// rules that also select it.
void countRuleUsage(const Site &S, RuleUsage &Usage) {
  Usage.Used.insert(S.RuleId);
  for (const std::string &Loser : S.AlsoSelectedBy)
    Usage.ShadowedBy[Loser].insert(S.RuleId);
}

/// Whether \p S, found by \p TU, may be read by TUs this run did not analyse
/// (\p PartialView): only a header can be.
bool seenFromPartialView(const TUJob &TU, const Site &S, bool PartialView) {
  return PartialView && S.File != TU.Source;
}

using SiteMap = std::map<std::pair<std::string, unsigned>, Site>;

/// Adds the sites of TU \p I (result \p R) to \p Sites. Each definition is
/// decided once, as the first TU that parsed it saw it; the others only count
/// which rules selected it. But a TU that selects a definition wins over one
/// that found it stale: a verdict must not depend on the order of the TUs.
void mergeSites(const Project &P, size_t I, TUResult &R, bool PartialView,
                SiteMap &Sites, RuleUsage &Usage,
                std::vector<PublicHeaderEdit> &Warnings) {
  const RuleSet &Rules = *P.TUs[I].Rules;
  for (Site &S : R.Sites) {
    auto Found = Sites.find({S.File, S.Offset});
    bool Overrides = Found != Sites.end() &&
                     Found->second.Status == SiteStatus::Stale &&
                     !Found->second.Suppressed && !S.RuleId.empty();
    if (Found == Sites.end() || Overrides) {
      if (!decideMergedSite(P, Rules, S, R.FileContents, Warnings,
                            seenFromPartialView(P.TUs[I], S, PartialView)))
        continue;
      if (Overrides)
        Sites.erase(Found);
      Found = Sites.try_emplace({S.File, S.Offset}, std::move(S)).first;
      countRuleUsage(Found->second, Usage);
    } else if (Found->second.Status != SiteStatus::Stale) {
      countRuleUsage(S, Usage);
    }
  }
}

/// A stale call's removal takes the rules' #include with it (a
/// RemoveInclude edit) only where no file this run did not see may need it:
/// not in a header seen from a partial view (TUs not analysed read it, and
/// may rely on its #include), nor in a file whose #include a fragment's
/// call uses (a .inl included inside a namespace or class).
void keepIncludesOthersMayNeed(const Project &P, bool PartialView,
                               std::vector<Site> &Sites) {
  StringSet<> Keep;
  for (const Site &S : Sites)
    if (!S.IncludeFile.empty() && S.IncludeFile != S.File)
      Keep.insert(S.IncludeFile);
  StringSet<> Sources;
  for (const TUJob &TU : P.TUs)
    Sources.insert(TU.Source);
  for (Site &S : Sites)
    if (Keep.contains(S.File) || (PartialView && !Sources.contains(S.File)))
      llvm::erase_if(S.Edits, [](const TextEdit &E) {
        return E.Kind == TextEdit::RemoveInclude;
      });
}

/// Merges the per-TU results, consuming them: nothing reads a TUResult
/// after this, so no order of later steps can see it half-moved.
AnalysisResult merge(const Project &P, std::vector<TUResult> &&Results,
                     bool PartialView) {
  AnalysisResult Merged;
  Merged.TUs = Results.size();
  SiteMap Sites;
  std::map<std::pair<std::string, unsigned>, Suppression> Suppressions;
  std::map<std::pair<std::string, unsigned>, Explanation> Explanations;
  std::vector<PublicHeaderEdit> Ignored; // Said for the site itself.
  for (size_t I = 0; I < Results.size(); ++I) {
    TUResult &R = Results[I];
    Merged.SkippedBodies += R.SkippedBodies;
    if (R.ParseFailed) {
      Merged.Failed.push_back(
          {P.TUs[I].Source, std::move(R.Diagnostics), P.TUs[I].Rules});
      continue;
    }
    // A TU analysed for a named header reports what lies in that header.
    StringRef Only = P.TUs[I].ReportOnly;
    auto Reported = [Only](StringRef File) {
      return Only.empty() || File == Only;
    };
    llvm::erase_if(R.Sites, [&](const Site &S) { return !Reported(S.File); });
    llvm::erase_if(R.Suppressions,
                   [&](const Suppression &S) { return !Reported(S.File); });
    llvm::erase_if(R.Expectations,
                   [&](const Expectation &E) { return !Reported(E.File); });
    llvm::erase_if(R.Explanations,
                   [&](const Explanation &E) { return !Reported(E.File); });
    const RuleSet &Rules = *P.TUs[I].Rules;
    RuleUsage &Usage = Merged.Usage[&Rules];
    auto Partial = [&](const Site &S) {
      return seenFromPartialView(P.TUs[I], S, PartialView);
    };
    mergeSites(P, I, R, PartialView, Sites, Usage, Merged.PublicHeaderEdits);
    for (Suppression &S : R.Suppressions) {
      auto [It, New] = Suppressions.try_emplace({S.File, S.Offset}, S);
      It->second.Used |= S.Used;
    }
    for (Expectation &E : R.Expectations)
      Merged.Expectations.push_back(std::move(E));
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
      auto [It, New] = Merged.ParsedContents.try_emplace(Path, Contents);
      if (!New && It->second != Contents)
        Merged.Inconsistent.insert(Path); // It changed between two parses.
    }
  }
  for (const std::string &Path : Merged.Inconsistent)
    Merged.ParsedContents.erase(Path);
  for (auto &Entry : Sites)
    Merged.Sites.push_back(std::move(Entry.second));
  keepIncludesOthersMayNeed(P, PartialView, Merged.Sites);
  for (auto &Entry : Suppressions)
    Merged.Suppressions.push_back(std::move(Entry.second));
  for (auto &Entry : Explanations)
    Merged.Explanations.push_back(std::move(Entry.second));
  return Merged;
}

} // namespace

AnalysisResult analyseProject(const Project &P,
                              const ProjectAnalysisOptions &Options) {
  std::vector<TUResult> Results(P.TUs.size());
  std::mutex FinishedMutex;
  auto Run = [&](size_t I) {
    Results[I] = analyseJob(P.TUs[I], Options);
    if (Options.Finished) {
      std::lock_guard<std::mutex> Lock(FinishedMutex);
      Options.Finished(P.TUs[I].Source);
    }
  };
  unsigned Threads =
      std::max(1u, std::min<unsigned>(Options.Threads, P.TUs.size()));
  // Long-lived workers rather than a thread per TU: a fresh thread per TU
  // cost about 10% (its allocations start cold).
  std::atomic<size_t> Next{0};
  WorkerOptions Workers;
  Workers.StackSize = TUStackSize;
  Workers.CrashRecovery = true;
  runWorkers(
      Threads,
      [&](unsigned) {
        for (size_t I = Next++; I < P.TUs.size(); I = Next++)
          Run(I);
      },
      Workers);
  AnalysisResult Merged = merge(P, std::move(Results), Options.PartialView);
  if (Options.Cache) {
    Merged.UsedCache = true;
    Merged.CacheHits = Options.Cache->hits();
    Merged.CacheMisses = Options.Cache->misses();
    Merged.CacheWriteError = Options.Cache->writeError();
  }
  return Merged;
}

} // namespace apistamp
