//===- Check.cpp - apistamp check: report what is missing or wrong --------===//

#include "Catalog.h"
#include "Changes.h"
#include "Commands.h"
#include "EventPairs.h"
#include "StructuredReport.h"
#include "Suggestions.h"

using namespace llvm;

namespace apistamp {

namespace {

/// Every finding of a check, by where it comes from.
struct CheckFindings {
  std::vector<Finding> Sites, Usage, UnusedRules, NoRule, Overlaps, Pairs,
      NotChecked;
};

/// The selected definitions the rules' policy skipped (a forbidden edit in
/// a public header): not checked, so check fails at each, unless its rule
/// says `allow_skipped: true` (counted in \p Allowed).
std::vector<Finding> notCheckedFindings(const CommandContext &Ctx,
                                        unsigned &Allowed) {
  std::vector<Finding> Findings;
  Allowed = 0;
  for (const Site &S : Ctx.Result.Sites) {
    if (S.Status != SiteStatus::Skipped || !S.SkippedByPolicy)
      continue;
    bool AllowedByRule =
        llvm::any_of(Ctx.Plan.sortedRuleSets(), [&](const RuleSet *Rules) {
          const Rule *R = Rules->rule(S.RuleId);
          return R && R->AllowSkipped && pathUnder(S.File, Rules->Root);
        });
    if (AllowedByRule) {
      ++Allowed;
      continue;
    }
    Finding F;
    F.File = S.File;
    F.Line = S.Line;
    F.Column = S.Column;
    F.RuleId = S.RuleId;
    F.Message = "selected definition not checked: '" + S.QualifiedName +
                "' is " + S.SkipReason +
                ", so its event is neither placed nor measured; narrow rule '" +
                S.RuleId +
                "', or set 'allow_skipped: true' on it if that is "
                "intended";
    Findings.push_back(std::move(F));
  }
  return Findings;
}

/// The events each rules file's `pairs:` wants on both sides and finds on
/// one: a warning at the event's definition.
std::vector<Finding> unpairedFindings(const CommandContext &Ctx) {
  std::vector<Finding> Findings;
  std::vector<CatalogEvent> Catalog =
      catalogOf(Ctx.Result.Sites, Ctx.Result.Inherited,
                [](llvm::StringRef Path) { return Path.str(); });
  for (const RuleSet *Rules : Ctx.Plan.sortedRuleSets())
    for (const EventPair &Pair : Rules->Pairs) {
      UnpairedEvents Alone = unpairedEvents(Pair, Catalog);
      auto Say = [&](const CatalogEvent *E, llvm::StringRef Side,
                     llvm::StringRef Other, const EventGlob &OtherGlob,
                     llvm::StringRef OnlyKey) {
        Finding F;
        F.File = E->File;
        F.Line = E->Line;
        F.Column = 1;
        F.RuleId = "pairs";
        llvm::StringRef Name = llvm::StringRef(E->Event).rsplit('.').second;
        F.Message = ("API usage event '" + E->Event + "' is logged on the " +
                     Side + " side only: no " + Other + " event matching '" +
                     OtherGlob.pattern() + "' ends in '." + Name +
                     "'; log both sides ('pairs', " +
                     llvm::sys::path::filename(Rules->Path) + ":" +
                     llvm::Twine(Pair.Line) + "), or list '" + Name +
                     "' in its '" + OnlyKey + "'")
                        .str();
        Findings.push_back(std::move(F));
      };
      for (const CatalogEvent *E : Alone.PythonAlone)
        Say(E, "Python", "C++", *Pair.Cxx, "python_only");
      for (const CatalogEvent *E : Alone.CxxAlone)
        Say(E, "C++", "Python", *Pair.Python, "cxx_only");
    }
  return Findings;
}

/// --format=json or sarif: every finding, the counts and the fixes.
void printStructured(CommandContext &Ctx, CheckFindings F,
                     const SiteCounts &Counts,
                     std::map<std::string, std::vector<TextEdit>> FileFixes) {
  std::vector<Finding> &Findings = F.Sites;
  append_range(Findings, F.Usage);
  append_range(Findings, F.UnusedRules);
  append_range(Findings, F.NoRule);
  append_range(Findings, F.Overlaps);
  append_range(Findings, F.Pairs);
  append_range(Findings, F.NotChecked);
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
  if (Ctx.Opts.Format == OutputFormat::Json)
    printJsonReport(Ctx.Out, In, Ctx.Display);
  else
    printSarifReport(Ctx.Out, In, Ctx.WorkingDirectory,
                     /*WithBaseUri=*/!Ctx.Opts.SarifWithoutBaseUri);
}

/// The text form: every finding, then the summary line.
void printText(CommandContext &Ctx, const CheckFindings &F,
               const SiteCounts &Counts) {
  for (const std::vector<Finding> *Part :
       {&F.Sites, &F.NotChecked, &F.Usage, &F.UnusedRules, &F.NoRule,
        &F.Overlaps, &F.Pairs})
    printFindings(Ctx.Out, *Part, Ctx.Display);
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
  if (Counts.NotChecked || Counts.NotCheckedAllowed)
    Ctx.summary(Ctx.Out)
        << "apistamp: " << Counts.NotChecked + Counts.NotCheckedAllowed
        << " selected definitions not checked (the rules forbid their edits: "
           "public_header_edits: forbid)"
        << (Counts.NotCheckedAllowed
                ? "; " + std::to_string(Counts.NotCheckedAllowed) +
                      " of them allowed by their rule's 'allow_skipped'"
                : "")
        << "\n";
  if (Counts.RulesSelectingNothing)
    Ctx.summary(Ctx.Out) << "apistamp: " << Counts.RulesSelectingNothing
                         << (Counts.RulesSelectingNothing == 1 ? " rule"
                                                               : " rules")
                         << " selected nothing (said above)\n";
}

/// The findings that are not the sites': --usage's (judged against the
/// whole tree before --changed-since narrows the sites), unused rules and
/// --fail-on-unselected's; false after saying why the run cannot go on.
bool collectProjectFindings(CommandContext &Ctx, CheckFindings &F) {
  const Options &Opts = Ctx.Opts;
  bool WholeProject = Ctx.wholeProject() && Ctx.Result.Failed.empty();
  if (WholeProject)
    F.UnusedRules = unusedRuleWarnings(Ctx);
  std::vector<CatalogEvent> WholeCatalog;
  if (!Opts.UsageFile.empty())
    WholeCatalog =
        catalogOf(Ctx.Result.Sites, Ctx.Result.Inherited, Ctx.Display);
  if (!narrowToChangedLines(Ctx))
    return false;
  if (!Opts.UsageFile.empty()) {
    Expected<std::vector<Finding>> Gate = usageGateFindings(Ctx, WholeCatalog);
    if (!Gate) {
      Ctx.Err << printableLines(toString(Gate.takeError())) << "\n";
      return false;
    }
    F.Usage = std::move(*Gate);
  }
  removeLeftoverTemporaries(Ctx);
  if (Opts.Unselected) {
    std::optional<std::vector<Finding>> Unselected = unselectedFindings(Ctx);
    if (!Unselected)
      return false;
    F.NoRule = std::move(*Unselected);
  }
  if (WholeProject) {
    F.Overlaps = overlapNotes(Ctx.Result.Sites);
    F.Pairs = unpairedFindings(Ctx);
  }
  return true;
}

} // namespace

int runCheck(CommandContext &Ctx) {
  const Options &Opts = Ctx.Opts;
  CheckFindings F;
  if (!collectProjectFindings(Ctx, F))
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

  F.Sites = collectFindings(Sites, Ctx.Result.Suppressions, Opts.Verbose);
  F.NotChecked = notCheckedFindings(Ctx, Counts.NotCheckedAllowed);
  Counts.NotChecked = F.NotChecked.size();
  Counts.RulesSelectingNothing = F.UnusedRules.size();
  unsigned Problems = F.UnusedRules.size() + countProblems(F.Sites) +
                      F.NoRule.size() + countProblems(F.Usage) +
                      F.Pairs.size() + F.NotChecked.size();
  if (Structured)
    printStructured(Ctx, std::move(F), Counts, std::move(FileFixes));
  else
    printText(Ctx, F, Counts);
  Ctx.Out.flush();
  printWallTime(Ctx);
  return Ctx.exitCode(Problems || Errors ? ExitFindings : ExitClean);
}

} // namespace apistamp
