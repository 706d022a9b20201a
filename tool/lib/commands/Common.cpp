//===- Common.cpp - Pieces shared by the commands -------------------------===//

#include "Commands.h"
#include "SafeWrite.h"
#include "StageNotes.h"
#include "StructuredReport.h"
#include "Suggestions.h"
#include "apistamp/ChangedLines.h"
#include "llvm/Support/FileOutputBuffer.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace apistamp {

bool narrowToChangedLines(CommandContext &Ctx) {
  const std::string &Ref = Ctx.Opts.ChangedSince;
  if (Ref.empty())
    return true;
  Expected<ChangedLines> Changed = changedLinesSince(
      Ref, Ctx.WorkingDirectory.empty() ? "." : Ctx.WorkingDirectory);
  if (!Changed) {
    Ctx.Err << "apistamp: error: "
            << printableLines(toString(Changed.takeError())) << "\n";
    return false;
  }
  std::vector<Site> &Sites = Ctx.Result.Sites;
  size_t Before = Sites.size();
  llvm::erase_if(Sites, [&](const Site &S) {
    return !Changed->intersects(S.File, S.BeginLine, S.EndLine);
  });
  llvm::erase_if(Ctx.Result.Suppressions, [&](const Suppression &S) {
    return !Changed->intersects(S.File, S.Line, S.Line + 1);
  });
  llvm::erase_if(Ctx.Result.Unselected, [&](const UnselectedSite &U) {
    const UnselectedDefinition &D = U.Definition;
    return !Changed->intersects(D.File, D.BeginLine, D.EndLine);
  });
  Ctx.Notes += "; " + std::to_string(Before - Sites.size()) +
               " selected definitions unchanged since " + Ref +
               " not considered";
  return true;
}

void printSkipReasons(raw_ostream &OS, const SiteCounts &Counts) {
  if (Counts.SkippedByReason.empty())
    return;
  std::vector<std::pair<unsigned, std::string>> ByCount;
  for (const auto &[Reason, Count] : Counts.SkippedByReason)
    ByCount.push_back({Count, Reason});
  llvm::stable_sort(
      ByCount, [](const auto &L, const auto &R) { return L.first > R.first; });
  OS << "apistamp: skipped:";
  for (size_t I = 0; I < ByCount.size(); ++I)
    OS << (I ? ", " : " ") << ByCount[I].first << " "
       << printableLine(ByCount[I].second);
  OS << "\n";
}

void printWallTime(const CommandContext &Ctx) {
  if (Ctx.Opts.Quiet)
    return;
  std::chrono::duration<double> Elapsed =
      std::chrono::steady_clock::now() - Ctx.Start;
  Ctx.Err << "apistamp: " << Ctx.Result.TUs << " TUs in "
          << formatv("{0:f1}", Elapsed.count()) << " s; "
          << Ctx.Result.SkippedBodies
          << " function bodies no rule can select were not parsed";
  if (Ctx.Result.UsedCache)
    Ctx.Err << "; " << cacheCounts(Ctx.Result);
  Ctx.Err << "\n";
}

void printFileProblems(const CommandContext &Ctx,
                       ArrayRef<FileProblem> Problems) {
  for (const FileProblem &P : Problems) {
    Ctx.Err << "apistamp: error: ";
    switch (P.Kind) {
    case FileProblem::ChangedDuringRun:
      Ctx.Err << "'" << printableLine(Ctx.Display(P.Path))
              << "' changed while apistamp ran; it was not changed";
      break;
    case FileProblem::ChangedBeforeWrite:
      Ctx.Err << "'" << printableLine(Ctx.Display(P.Path))
              << "' changed while apistamp ran; it was not written";
      break;
    case FileProblem::BadEdits:
      Ctx.Err << printableLine(P.Message);
      break;
    case FileProblem::CannotWrite:
      Ctx.Err << "cannot write '" << printableLine(Ctx.Display(P.Path))
              << "': " << printableLine(P.Message);
      break;
    }
    Ctx.Err << "\n";
  }
}

bool exportFixes(
    const CommandContext &Ctx, ArrayRef<Finding> Findings,
    const std::map<std::string, std::vector<TextEdit>> &FileFixes) {
  ReportInput In;
  In.Findings = Findings;
  In.FileFixes = FileFixes;
  std::string Text;
  raw_string_ostream OS(Text);
  printExportedFixes(OS, In, Ctx.WorkingDirectory);
  OS.flush();
  if (Error Written = writeOutputFile(Ctx.Opts.ExportFixes, Text)) {
    Ctx.Err << "apistamp: error: cannot write '"
            << printableLine(Ctx.Opts.ExportFixes)
            << "': " << printableLine(toString(std::move(Written))) << "\n";
    return false;
  }
  return true;
}

void removeLeftoverTemporaries(const CommandContext &Ctx) {
  for (const auto &Entry : Ctx.Result.ParsedContents)
    removeStaleTemporaries(Entry.first);
}

ChangeSet prepareChanges(const CommandContext &Ctx, bool &Errors) {
  const std::vector<Site> &Sites = Ctx.Result.Sites;
  ChangeSet Changes = computeChanges(Sites, Ctx.Result.ParsedContents);
  printFileProblems(Ctx, Changes.Problems);
  Errors |= !Changes.Problems.empty();
  if (!Ctx.Opts.ExportFixes.empty()) {
    std::map<std::string, std::vector<TextEdit>> FileFixes;
    for (const FileChange &C : Changes.Changes)
      FileFixes[C.Path] = C.Replacements;
    Errors |= !exportFixes(Ctx, collectFindings(Sites, {}, false), FileFixes);
  }
  // What no edit fixes is said where the fix is reported.
  std::vector<Site> Unfixable;
  llvm::copy_if(Sites, std::back_inserter(Unfixable), [](const Site &S) {
    return S.Status == SiteStatus::Duplicate ||
           S.Status == SiteStatus::Conflict;
  });
  printFindings(Ctx.Err, collectFindings(Unfixable, {}, /*Verbose=*/false),
                Ctx.Display);
  return Changes;
}

} // namespace apistamp
