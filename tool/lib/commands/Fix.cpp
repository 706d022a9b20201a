//===- Fix.cpp - apistamp fix: write the events into the sources ----------===//

#include "Commands.h"
#include "SafeWrite.h"
#include "Suggestions.h"
#include "llvm/ADT/StringSet.h"

namespace apistamp {

/// --verbose: each event written, at the line of the call or name.
static void listWrittenEvents(const CommandContext &Ctx,
                              llvm::ArrayRef<FileChange> Changes,
                              llvm::ArrayRef<FileProblem> Problems) {
  llvm::StringSet<> Written;
  for (const FileChange &C : Changes)
    Written.insert(C.Path);
  for (const FileProblem &P : Problems)
    Written.erase(P.Path);
  for (const Site &S : Ctx.Result.Sites) {
    if (S.Edits.empty() || !Written.contains(S.File))
      continue;
    const char *What = S.Status == SiteStatus::Missing ? "inserted"
                       : S.Status == SiteStatus::Wrong ? "corrected"
                       : S.Status == SiteStatus::Stale ? "removed stale"
                                                       : nullptr;
    if (!What)
      continue;
    Ctx.Err << printableLine(Ctx.Display(S.File)) << ":" << S.ReportLine << ":"
            << S.ReportColumn << ": note: " << What << " API usage event '"
            << printableLine(S.Event) << "'";
    if (!S.RuleId.empty())
      Ctx.Err << " [" << printableLine(S.RuleId) << "]";
    Ctx.Err << "\n";
  }
}

int runFix(CommandContext &Ctx) {
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
  SiteCounts Counts = countSites(Ctx.Result.Sites);
  // A conflict cannot be fixed by any edit apistamp knows: it fails.
  bool Errors = Counts.Conflict > 0;
  ChangeSet Changes = prepareChanges(Ctx, Errors);
  removeLeftoverTemporaries(Ctx);
  WriteResult Written = writeChanges(Changes.Changes);
  printFileProblems(Ctx, Written.Problems);
  // What was written: the events of a file left as it was are not counted.
  llvm::StringSet<> Unwritten;
  for (const FileProblem &P : Changes.Problems)
    Unwritten.insert(P.Path);
  for (const FileProblem &P : Written.Problems)
    Unwritten.insert(P.Path);
  if (!Unwritten.empty()) {
    // Sites without edits (duplicates, conflicts, skipped) count as before.
    std::vector<Site> Made;
    for (const Site &S : Ctx.Result.Sites)
      if (S.Edits.empty() || !Unwritten.contains(S.File))
        Made.push_back(S);
    Counts = countSites(Made);
  }
  if (Ctx.Opts.Verbose)
    listWrittenEvents(Ctx, Changes.Changes, Written.Problems);
  Errors |= !Written.Problems.empty();
  if (Ctx.Opts.FailOnChange && Written.Written)
    Errors = true;
  Ctx.summary(Ctx.Out)
      << "apistamp: inserted " << Counts.Missing << ", corrected "
      << Counts.Wrong
      << (Counts.Stale > Counts.StaleKept
              ? ", removed " + std::to_string(Counts.Stale - Counts.StaleKept) +
                    " stale"
              : "")
      << " API usage events in " << Written.Written << " files"
      << (Counts.Duplicate ? "; " + std::to_string(Counts.Duplicate) +
                                 " duplicates need a manual fix"
                           : "")
      << (Counts.StaleKept ? "; " + std::to_string(Counts.StaleKept) +
                                 " stale events need a manual fix"
                           : "")
      << (Counts.Conflict ? "; " + std::to_string(Counts.Conflict) +
                                " conflicting bodies left as they were"
                          : "")
      << (Written.Problems.empty()
              ? ""
              : "; " + std::to_string(Written.Problems.size()) +
                    " files not written, left as they were")
      << Ctx.Notes << "\n";
  printSkipReasons(Ctx.summary(Ctx.Out), Counts);
  Ctx.Out.flush();
  printWallTime(Ctx);
  return Ctx.exitCode(Errors ? ExitFindings : ExitClean);
}

} // namespace apistamp
