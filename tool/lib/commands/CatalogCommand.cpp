//===- CatalogCommand.cpp - apistamp catalog: every event the rules place -===//

#include "Catalog.h"
#include "CatalogDiff.h"
#include "Commands.h"
#include "Suggestions.h"
#include "usage/UsageReport.h"

namespace apistamp {

/// catalog --diff: the saved catalog against this one, by event; an old
/// event the rules' aliases map is "renamed (alias declared)".
static int runCatalogDiff(CommandContext &Ctx) {
  llvm::Expected<std::vector<CatalogEvent>> Old =
      readCatalogFile(Ctx.Opts.CatalogDiffFile);
  if (!Old) {
    Ctx.Err << printableLines(llvm::toString(Old.takeError())) << "\n";
    return ExitBadUsage;
  }
  std::vector<CatalogEvent> Now =
      catalogOf(Ctx.Result.Sites, Ctx.Result.Inherited,
                rootRelative(Ctx.Plan.sortedRuleSets(), Ctx.Display));
  std::vector<EventAlias> Aliases;
  for (const RuleSet *Rules : Ctx.Plan.sortedRuleSets())
    llvm::append_range(Aliases, Rules->Aliases);
  auto Lookup =
      [&Aliases](llvm::StringRef Event) -> std::optional<std::string> {
    std::string Current = currentEventName(Aliases, Event);
    if (Current == Event)
      return std::nullopt;
    return Current;
  };
  printCatalogDiff(Ctx.Out, diffCatalogs(*Old, Now, Lookup), Ctx.Opts.Format,
                   Ctx.Opts.Verbose);
  return Ctx.exitCode(ExitClean);
}

int runCatalog(CommandContext &Ctx) {
  if (!Ctx.Opts.CatalogDiffFile.empty())
    return runCatalogDiff(Ctx);
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
  if (Ctx.Opts.Unselected)
    return printUnselectedCatalog(Ctx);
  // CSV and JSON are data: files relative to the root of the rules that
  // cover them (the innermost), the same from any directory or checkout.
  printCatalog(
      Ctx.Out,
      catalogOf(Ctx.Result.Sites, Ctx.Result.Inherited,
                Ctx.Opts.Format == OutputFormat::Text
                    ? Ctx.Display
                    : rootRelative(Ctx.Plan.sortedRuleSets(), Ctx.Display)),
      Ctx.Opts.Format);
  return Ctx.exitCode(ExitClean);
}

} // namespace apistamp
