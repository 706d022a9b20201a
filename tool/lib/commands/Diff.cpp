//===- Diff.cpp - apistamp diff: show what fix would change ---------------===//

#include "Commands.h"
#include "apistamp/UnifiedDiff.h"

namespace apistamp {

int runDiff(CommandContext &Ctx) {
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
  SiteCounts Counts = countSites(Ctx.Result.Sites);
  bool Errors = false;
  ChangeSet Changes = prepareChanges(Ctx, Errors);
  removeLeftoverTemporaries(Ctx);
  for (const FileChange &C : Changes.Changes)
    Ctx.Out << unifiedDiff(C.Before, C.After, Ctx.Display(C.Path));
  Ctx.Out.flush(); // The diff before the summary on stderr.
  Ctx.summary(Ctx.Err) << "apistamp: " << Counts.Missing << " to insert, "
                       << Counts.Wrong << " to correct, "
                       << (Counts.Stale > Counts.StaleKept
                               ? std::to_string(Counts.Stale -
                                                Counts.StaleKept) +
                                     " stale to remove, "
                               : "")
                       << "in " << Changes.Changes.size() << " files"
                       << Ctx.Notes << "\n";
  printWallTime(Ctx);
  return Ctx.exitCode(Errors ? ExitFindings : ExitClean);
}

} // namespace apistamp
