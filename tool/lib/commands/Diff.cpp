//===- Diff.cpp - apistamp diff: show what fix would change ---------------===//

#include "Commands.h"
#include "apistamp/Paths.h"
#include "apistamp/UnifiedDiff.h"
#include "llvm/Support/Path.h"

namespace apistamp {

/// The directory the diff applies from: the root of the rules, or, with
/// several rules files, the nearest directory that holds all their roots.
static std::string diffBase(const Project &Plan) {
  std::string Base;
  for (const RuleSet *Rules : Plan.sortedRuleSets()) {
    if (Base.empty())
      Base = Rules->Root;
    while (Base != "/" && Rules->Root != Base && !pathUnder(Rules->Root, Base))
      Base = llvm::sys::path::parent_path(Base).str();
  }
  return Base;
}

/// \p Path relative to \p Base; as it is shown elsewhere if it is not under
/// it (edits are only made under a root, so it is).
static std::string diffPath(const CommandContext &Ctx, llvm::StringRef Base,
                            llvm::StringRef Path) {
  if (Base == "/" && Path.starts_with("/"))
    return Path.drop_front().str();
  if (std::optional<llvm::StringRef> Relative = pathUnder(Path, Base))
    return Relative->str();
  return Ctx.Display(Path);
}

int runDiff(CommandContext &Ctx) {
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
  SiteCounts Counts = countSites(Ctx.Result.Sites);
  bool Errors = false;
  ChangeSet Changes = prepareChanges(Ctx, Errors);
  removeLeftoverTemporaries(Ctx);
  std::string Base = diffBase(Ctx.Plan);
  for (const FileChange &C : Changes.Changes)
    Ctx.Out << unifiedDiff(C.Before, C.After, diffPath(Ctx, Base, C.Path));
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
