//===- Check.cpp - apistamp check: report what is missing or wrong --------===//

#include "Changes.h"
#include "Commands.h"
#include "StructuredReport.h"
#include "Suggestions.h"

using namespace llvm;

namespace apistamp {

int runCheck(CommandContext &Ctx) {
  const Options &Opts = Ctx.Opts;
  bool WholeProject = Ctx.wholeProject() && Ctx.Result.Failed.empty();
  std::vector<Finding> UnusedRules;
  if (WholeProject)
    UnusedRules = unusedRuleWarnings(Ctx);
  // The gate judges removals against the whole tree, before --changed-since
  // narrows the sites to a change.
  std::vector<CatalogEvent> WholeCatalog;
  if (!Opts.UsageFile.empty())
    WholeCatalog = catalogOf(Ctx.Result.Sites, Ctx.Display);
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
  std::vector<Finding> UsageFindings;
  if (!Opts.UsageFile.empty()) {
    Expected<std::vector<Finding>> Gate = usageGateFindings(Ctx, WholeCatalog);
    if (!Gate) {
      Ctx.Err << printableLines(toString(Gate.takeError())) << "\n";
      return ExitBadUsage;
    }
    UsageFindings = std::move(*Gate);
  }
  removeLeftoverTemporaries(Ctx);
  std::optional<std::vector<Finding>> Unselected;
  if (Opts.Unselected && !(Unselected = unselectedFindings(Ctx)))
    return ExitBadUsage;
  const std::vector<Site> &Sites = Ctx.Result.Sites;
  SiteCounts Counts = countSites(Sites);
  bool Structured = Opts.Format != OutputFormat::Text;
  bool Errors = false;
  std::map<std::string, std::vector<TextEdit>> FileFixes;
  if (Structured || !Opts.ExportFixes.empty()) {
    ChangeSet Changes = computeChanges(Sites, Ctx.Result.ParsedContents);
    printFileProblems(Ctx, Changes.Problems);
    Errors |= !Changes.Problems.empty();
    for (const FileChange &C : Changes.Changes)
      FileFixes[C.Path] = C.Replacements;
  }
  if (!Opts.ExportFixes.empty())
    Errors |= !exportFixes(Ctx, collectFindings(Sites, {}, false), FileFixes);

  std::vector<Finding> Findings =
      collectFindings(Sites, Ctx.Result.Suppressions, Opts.Verbose);
  std::vector<Finding> Overlaps;
  if (WholeProject)
    Overlaps = overlapNotes(Sites);
  // --fail-on-unselected: public definitions no rule selects are errors.
  std::vector<Finding> NoRule = Unselected.value_or(std::vector<Finding>());
  unsigned Problems = UnusedRules.size() + countProblems(Findings) +
                      NoRule.size() + countProblems(UsageFindings);
  if (Structured) {
    append_range(Findings, UsageFindings);
    append_range(Findings, UnusedRules);
    append_range(Findings, NoRule);
    append_range(Findings, Overlaps);
    // Said on stderr too; here for the tools that read only this.
    for (const PublicHeaderEdit &E : Ctx.Result.PublicHeaderEdits)
      Findings.push_back(publicHeaderFinding(E));
    ReportInput In;
    In.Findings = Findings;
    In.Counts = Counts;
    In.TUs = Ctx.Result.TUs;
    In.ParseFailures = Ctx.Result.Failed.size();
    In.FileFixes = std::move(FileFixes);
    In.RuleSets = Ctx.Plan.sortedRuleSets();
    if (Opts.Format == OutputFormat::Json)
      printJsonReport(Ctx.Out, In, Ctx.Display);
    else
      printSarifReport(Ctx.Out, In, Ctx.WorkingDirectory,
                       /*WithBaseUri=*/!Opts.SarifWithoutBaseUri);
  } else {
    printFindings(Ctx.Out, Findings, Ctx.Display);
    printFindings(Ctx.Out, UsageFindings, Ctx.Display);
    printFindings(Ctx.Out, UnusedRules, Ctx.Display);
    printFindings(Ctx.Out, NoRule, Ctx.Display);
    printFindings(Ctx.Out, Overlaps, Ctx.Display);
    Ctx.summary(Ctx.Out) << "apistamp: " << Ctx.Result.TUs << " TUs, "
                         << Counts.Selected
                         << " definitions selected: " << Counts.Present
                         << " instrumented, " << Counts.Missing << " missing, "
                         << Counts.Wrong << " wrong, " << Counts.Duplicate
                         << " duplicate, " << Counts.Skipped << " skipped, "
                         << Counts.Suppressed << " suppressed, " << Counts.Stale
                         << " stale"
                         << (Counts.Conflict
                                 ? ", " + std::to_string(Counts.Conflict) +
                                       " conflicting"
                                 : "")
                         << Ctx.Notes << "\n";
    printSkipReasons(Ctx.summary(Ctx.Out), Counts);
  }
  Ctx.Out.flush();
  printWallTime(Ctx);
  return Ctx.exitCode(Problems || Errors ? ExitFindings : ExitClean);
}

} // namespace apistamp
