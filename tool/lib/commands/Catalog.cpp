//===- Catalog.cpp - apistamp catalog: every event the rules place --------===//

#include "Commands.h"

namespace apistamp {

int runCatalog(CommandContext &Ctx) {
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
  printCatalog(Ctx.Out, selectedSites(Ctx.Result.Sites), Ctx.Display,
               Ctx.Opts.Format == OutputFormat::Json  ? "json"
               : Ctx.Opts.Format == OutputFormat::Csv ? "csv"
                                                      : "text");
  return Ctx.exitCode(ExitClean);
}

} // namespace apistamp
