//===- Merge.cpp - apistamp merge: every TU's tu result, as check -p ------===//
//
// The plan is the whole database's, as `check -p` makes it; the results of
// its TUs come from the files `tu` wrote (readResultsFor, in the driver)
// instead of parses, and the merged result goes to check, diff or fix as
// --diff and --fix say: the same output, edits and write safety.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

namespace apistamp {

int runCheck(CommandContext &Ctx);
int runDiff(CommandContext &Ctx);
int runFix(CommandContext &Ctx);

int runMerge(CommandContext &Ctx) {
  Options As = Ctx.Opts;
  As.RunMode = Ctx.Opts.MergeAs;
  CommandContext Inner{As,        Ctx.Plan,    Ctx.Result,           Ctx.Out,
                       Ctx.Err,   Ctx.Display, Ctx.WorkingDirectory, Ctx.Start,
                       Ctx.Notes, Ctx.Target};
  switch (As.RunMode) {
  case Mode::Diff:
    return runDiff(Inner);
  case Mode::Fix:
    return runFix(Inner);
  default:
    return runCheck(Inner);
  }
}

} // namespace apistamp
