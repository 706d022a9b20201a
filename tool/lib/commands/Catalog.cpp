//===- Catalog.cpp - apistamp catalog: every event the rules place --------===//

#include "Catalog.h"
#include "Commands.h"

namespace apistamp {

int runCatalog(CommandContext &Ctx) {
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
  if (Ctx.Opts.Unselected)
    return printUnselectedCatalog(Ctx);
  // CSV and JSON are data: files relative to the root of the rules that
  // cover them (the innermost), the same from any directory or checkout.
  printCatalog(Ctx.Out, selectedSites(Ctx.Result.Sites),
               Ctx.Opts.Format == OutputFormat::Text
                   ? Ctx.Display
                   : rootRelative(Ctx.Plan.sortedRuleSets(), Ctx.Display),
               Ctx.Opts.Format);
  return Ctx.exitCode(ExitClean);
}

} // namespace apistamp
