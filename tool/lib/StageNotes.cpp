//===- StageNotes.cpp - What the driver says between stages ---------------===//

#include "StageNotes.h"
#include "Findings.h"
#include "PreambleStore.h"
#include "Suggestions.h"
#include "llvm/Support/Format.h"
#include <cstdlib>
#include <set>

using namespace llvm;

namespace apistamp {

void StageNotes::planned(const Project &P) {
  if (P.DatabaseOutsideRoot)
    Err << "apistamp: note: '" << printableLine(P.DatabaseOutsideRoot->second)
        << "' names a compilation database outside its root ('"
        << printableLine(P.DatabaseOutsideRoot->first)
        << "'): its compile commands are trusted to read files (options that "
           "write or load code are dropped)\n";
  if (!Verbose)
    return;
  for (const std::string &Source : P.WithoutRules)
    Err << "apistamp: note: skipping '" << printableLine(Source)
        << "': no .apistamp.yaml above it\n";
  for (const std::string &Source : P.NotSelectable)
    Err << "apistamp: note: skipping '" << printableLine(Source)
        << "': no rule's 'files' and 'exclude_files' let it select "
           "anything in it; it is not parsed\n";
  for (size_t I = 0; I < P.TUs.size(); ++I)
    if (!P.TUs[I].ReportOnly.empty() &&
        (I == 0 || P.TUs[I - 1].ReportOnly != P.TUs[I].ReportOnly))
      Err << "apistamp: note: '" << printableLine(P.TUs[I].ReportOnly)
          << "' is not in the compilation database; analysed through '"
          << printableLine(P.TUs[I].Source) << "', which includes it\n";
  for (size_t I = 0; I < P.TUs.size(); ++I)
    if (P.TUs[I].Configurations > 1 &&
        (I == 0 || P.TUs[I - 1].Source != P.TUs[I].Source))
      Err << "apistamp: note: '" << printableLine(Display(P.TUs[I].Source))
          << "' has " << P.TUs[I].Configurations
          << " configurations (compile commands); each is analysed\n";
}

void StageNotes::startProgress(size_t TUs) {
  const char *CI = std::getenv("CI");
  ShowProgress = Err.is_displayed() && !(CI && StringRef(CI) == "true");
  Total = TUs;
  Done = 0;
}

void StageNotes::finished(StringRef Source) {
  if (!ShowProgress)
    return;
  ++Done;
  Err << "\r\x1b[K[" << Done << "/" << Total << "] "
      << printableLine(Display(Source));
  Err.flush();
}

void StageNotes::endProgress() {
  if (ShowProgress && Done)
    Err << "\r\x1b[K";
  ShowProgress = false;
}

/// "a.h, b.h and c.h", as displayed (escaped).
static std::string listed(ArrayRef<std::string> Paths,
                          const PathDisplay &Display) {
  std::string List;
  for (size_t I = 0; I < Paths.size(); ++I)
    List += (I == 0                  ? ""
             : I + 1 == Paths.size() ? " and "
                                     : ", ") +
            ("'" + printableLine(Display(Paths[I])) + "'");
  return List;
}

void StageNotes::completedView(const AnalysisResult &Result) {
  if (!Result.JudgedWhole.empty() && !Result.CompletingTUs.empty())
    Err << "apistamp: note: " << listed(Result.JudgedWhole, Display)
        << " judged from every TU that reads "
        << (Result.JudgedWhole.size() == 1 ? "it" : "them")
        << ": also analysed " << listed(Result.CompletingTUs, Display)
        << " for " << (Result.JudgedWhole.size() == 1 ? "it" : "them") << "\n";
  if (!Result.Unreadable.empty())
    Err << "apistamp: note: " << listed(Result.Unreadable, Display)
        << (Result.Unreadable.size() == 1 ? " does" : " do")
        << " not preprocess: the headers this run shares with other TUs are "
           "seen from a partial view\n";
}

std::string cacheCounts(const AnalysisResult &Result) {
  const CacheCounts &C = Result.Cache;
  std::string Counts = "cache: " + std::to_string(C.Hits) + " hits, " +
                       std::to_string(C.misses()) + " misses";
  if (C.Redecided)
    Counts += " (" + std::to_string(C.Redecided) +
              " hits re-decided from cached facts under edited rules)";
  return Counts;
}

/// Why the cache missed, cause by cause: "" if it did not.
static std::string missCauses(const CacheCounts &C) {
  std::string Causes;
  for (auto [Count, Cause] :
       {std::pair<unsigned, const char *>{C.NoEntry, "no entry"},
        {C.Changed, "a file read changed"},
        {C.BodiesNeeded, "the rules need bodies the parse skipped"},
        {C.Untrusted, "an entry that does not check out"},
        {C.EditNeeded, "an edit is needed (made from a fresh parse)"}})
    if (Count)
      Causes +=
          (Causes.empty() ? "" : ", ") + std::to_string(Count) + " " + Cause;
  return Causes;
}

void StageNotes::analysed(const AnalysisResult &Result) {
  if (!Result.CacheWriteError.empty())
    Err << "apistamp: warning: the result cache could not be written ("
        << printableLine(Result.CacheWriteError)
        << "); results are not affected\n";
  if (Result.Preambles && !Result.Preambles->WriteError.empty())
    Err << "apistamp: warning: a preamble could not be stored ("
        << printableLine(Result.Preambles->WriteError)
        << "); results are not affected\n";
  if (Verbose && Result.Preambles) {
    const AnalysisResult::PreambleSummary &P = *Result.Preambles;
    Err << "apistamp: preamble store '" << printableLine(Display(P.Directory))
        << "': " << P.Used << " TUs parsed on a preamble, " << P.Built
        << " built by this run, " << P.Evicted << " evicted";
    if (P.Redone)
      Err << ", " << P.Redone << " parsed again without one";
    Err << "; "
        << llvm::format("%.1f", PreambleStore::sizeOf(P.Directory) / 1048576.0)
        << " of " << (P.Limit >> 20) << " MiB\n";
  }
  if (Verbose && Result.UsedCache) {
    Err << "apistamp: " << cacheCounts(Result);
    if (std::string Causes = missCauses(Result.Cache); !Causes.empty())
      Err << "; misses: " << Causes;
    Err << "\n";
  }
  for (const std::string &Source : Result.DisagreedWithFreshParse)
    Err << "apistamp: warning: '" << printableLine(Display(Source))
        << "': its result from the cache, a tu result file or a stored "
           "preamble proposed other edits than a fresh parse of it (stale "
           "or forged); the edits are the fresh parse's\n";
  completedView(Result);
  std::set<std::string> IncludesNoted;
  for (const FailedTU &F : Result.Failed) {
    // Clang's diagnostics quote file names (its snippets escape the rest).
    Err << printableLines(F.Diagnostics) << "apistamp: error: '"
        << printableLine(Display(F.Source))
        << "' failed to parse; nothing in it was checked or changed\n";
    // Said once per header, not once per TU that misses it.
    if (F.Rules && !F.Rules->Include.empty() &&
        !IncludesNoted.count(F.Rules->Include) &&
        StringRef(F.Diagnostics)
            .contains("'" + F.Rules->Include + "' file not found")) {
      Err << "apistamp: note: '" << printableLine(F.Rules->Include)
          << "', the rules' include, is not on the include path: pass "
             "--extra-arg=-I<dir> (for the runtime, the 'include' directory "
             "of its installation), or link apistamp::runtime and "
             "reconfigure the build\n";
      IncludesNoted.insert(F.Rules->Include);
    }
  }
}

void StageNotes::publicHeaderEdits(std::vector<PublicHeaderEdit> Edits) {
  llvm::sort(Edits, [](const PublicHeaderEdit &L, const PublicHeaderEdit &R) {
    return std::tie(L.File, L.Line, L.Column) <
           std::tie(R.File, R.Line, R.Column);
  });
  for (const PublicHeaderEdit &E : Edits) {
    Finding F = publicHeaderFinding(E);
    Err << printableLine(Display(F.File)) << ":" << F.Line << ":" << F.Column
        << ": warning: " << printableLine(F.Message) << " ["
        << printableLine(F.RuleId) << "]\n";
  }
}

} // namespace apistamp
