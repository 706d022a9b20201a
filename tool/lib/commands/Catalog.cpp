//===- Catalog.cpp - apistamp catalog: every event the rules place --------===//

#include "Catalog.h"
#include "CatalogDiff.h"
#include "Commands.h"
#include "Suggestions.h"
#include "usage/UsageReport.h"

namespace apistamp {

/// catalog --diff: the saved catalog against this one, by event. The rules'
/// aliases are not read yet: no rename is "alias declared".
static int runCatalogDiff(CommandContext &Ctx) {
  llvm::Expected<std::vector<CatalogEvent>> Old =
      readCatalogFile(Ctx.Opts.CatalogDiffFile);
  if (!Old) {
    Ctx.Err << printableLines(llvm::toString(Old.takeError())) << "\n";
    return ExitBadUsage;
  }
  std::vector<CatalogEvent> Now = catalogOf(
      Ctx.Result.Sites, rootRelative(Ctx.Plan.sortedRuleSets(), Ctx.Display));
  printCatalogDiff(Ctx.Out, diffCatalogs(*Old, Now, /*Aliases=*/nullptr),
                   Ctx.Opts.Format, Ctx.Opts.Verbose);
  return Ctx.exitCode(ExitClean);
}

int runCatalog(CommandContext &Ctx) {
  if (!Ctx.Opts.CatalogDiffFile.empty())
    return runCatalogDiff(Ctx);
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
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
