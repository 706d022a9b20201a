//===- Merge.cpp - apistamp merge: every TU's tu result, as check -p ------===//
//
// The plan is the whole database's, as `check -p` makes it; the results of
// its TUs come from the files `tu` wrote (TUResultFiles, in the driver)
// instead of parses, and the merged result goes to check, diff or fix as
// --diff and --fix say: the same output, edits and write safety.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "apistamp/CommandTable.h"

namespace apistamp {

int runMerge(CommandContext &Ctx) {
  Options As = Ctx.Opts;
  As.RunMode = Ctx.Opts.OutputMode;
  CommandContext Inner{As,        Ctx.Plan,    Ctx.Result,           Ctx.Out,
                       Ctx.Err,   Ctx.Display, Ctx.WorkingDirectory, Ctx.Start,
                       Ctx.Notes, Ctx.Target};
  return commandInfo(As.RunMode).Run(Inner);
}

} // namespace apistamp
