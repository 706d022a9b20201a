//===- Catalog.cpp - apistamp catalog: every event the rules place --------===//

#include "Commands.h"
#include "apistamp/Paths.h"

namespace apistamp {

int runCatalog(CommandContext &Ctx) {
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
  // CSV and JSON are data: files relative to the root of the rules that
  // cover them (the innermost), the same from any directory or checkout.
  std::vector<std::string> Roots;
  for (const RuleSet *Set : Ctx.Plan.sortedRuleSets())
    Roots.push_back(canonicalPath(Set->Root));
  PathDisplay RootRelative = [&](llvm::StringRef Path) {
    std::optional<llvm::StringRef> Best;
    for (const std::string &Root : Roots)
      if (std::optional<llvm::StringRef> Relative = pathUnder(Path, Root))
        if (!Best || Relative->size() < Best->size())
          Best = Relative;
    return Best ? Best->str() : Ctx.Display(Path);
  };
  printCatalog(Ctx.Out, selectedSites(Ctx.Result.Sites),
               Ctx.Opts.Format == OutputFormat::Text ? Ctx.Display
                                                     : RootRelative,
               Ctx.Opts.Format == OutputFormat::Json  ? "json"
               : Ctx.Opts.Format == OutputFormat::Csv ? "csv"
                                                      : "text");
  return Ctx.exitCode(ExitClean);
}

} // namespace apistamp
