//===- ReportCommand.cpp - apistamp report: which placed events are used --===//

#include "../Catalog.h"
#include "../PlanAndAnalyse.h"
#include "../SafeWrite.h"
#include "../Suggestions.h"
#include "../usage/UsagePartial.h"
#include "../usage/UsageReport.h"
#include "Commands.h"
#include "apistamp/Rules.h"
#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace apistamp {

namespace {

/// \p Layers' layers added to \p Into: a name it has gets their globs
/// too, a new one is added last.
void addLayers(std::vector<EventLayer> &Into, ArrayRef<EventLayer> Layers) {
  for (const EventLayer &L : Layers) {
    auto Same = llvm::find_if(
        Into, [&](const EventLayer &Known) { return Known.Name == L.Name; });
    if (Same == Into.end())
      Into.push_back(L);
    else
      llvm::append_range(Same->Globs, L.Globs);
  }
}

/// The catalog: a saved one, or the one the rules and the build give now
/// (as `catalog` computes it); the rules' layers go to \p Layers and their
/// aliases to \p Aliases (with a saved catalog, those of --rules when it is
/// given). \p Exit is the exit code of a failure.
Expected<std::vector<CatalogEvent>>
loadCatalog(const Options &Opts, raw_ostream &Err, int &Exit,
            std::vector<EventLayer> &Layers, std::vector<EventAlias> &Aliases) {
  Exit = ExitBadUsage;
  if (!Opts.Report.CatalogFile.empty()) {
    if (!Opts.RulesFile.empty()) {
      Expected<RuleSet> Rules = loadRules(Opts.RulesFile);
      if (!Rules)
        return Rules.takeError();
      addLayers(Layers, Rules->Layers);
      llvm::append_range(Aliases, Rules->Aliases);
    }
    return readCatalogFile(Opts.Report.CatalogFile);
  }
  Options Catalog = Opts;
  Catalog.RunMode = Mode::Catalog;
  Catalog.Sources = Opts.Report.CatalogSources; // Not the logs.
  auto Failed = [&Exit](int Code) {
    Exit = Code;
    return createStringError(inconvertibleErrorCode(),
                             "apistamp: error: the catalog failed; no report");
  };
  Expected<AnalysedRun> Run = planAndAnalyse(Catalog, Err);
  if (!Run) {
    Err << printableLines(toString(Run.takeError())) << "\n";
    return Failed(ExitBadUsage);
  }
  if (!Run->Result.Failed.empty())
    return Failed(ExitParseFailed);
  for (const RuleSet *Rules : Run->Plan.sortedRuleSets()) {
    addLayers(Layers, Rules->Layers);
    llvm::append_range(Aliases, Rules->Aliases);
  }
  std::vector<CatalogEvent> Events =
      catalogOf(Run->Result.Sites, Run->Result.Inherited,
                rootRelative(Run->Plan.sortedRuleSets(), Run->Display));
  for (size_t I = 0; I < Events.size(); ++I)
    if (Events[I].Event.empty())
      return createStringError(inconvertibleErrorCode(),
                               "the catalog: error: entry " + Twine(I + 1) +
                                   " of the catalog has no 'event'");
  return Events;
}

/// The log files that Opts' arguments name; warns of the others.
std::vector<std::string> logFiles(const Options &Opts, raw_ostream &Err) {
  std::vector<std::string> Missing, Skipped;
  std::vector<std::string> Files =
      expandLogInputs(Opts.Sources, Missing, Skipped);
  for (const std::string &M : Missing)
    Err << "apistamp: warning: no such log file or directory: '"
        << printableLine(M) << "'\n";
  for (const std::string &S : Skipped)
    Err << "apistamp: warning: " << printableLine(S) << "\n";
  return Files;
}

/// Warns of the stderr logs of \p Counts whose job was not found, and
/// fails when no log could be read.
Error checkLogsRead(const Options &Opts, const UsageCounts &Counts,
                    raw_ostream &Err) {
  for (const StderrLog &S : Counts.StderrLogs)
    if (S.NameUnmatched)
      Err << printableLine(S.File)
          << ": warning: a stderr log whose name --stderr-job-from '"
          << printableLine(Opts.Report.StderrJobFrom)
          << "' does not match: its job is unknown\n";
  if (Counts.Files != 0)
    return Error::success();
  for (const LogFileProblems &P : Counts.Problems)
    Err << printableLine(P.File)
        << ": error: cannot read: " << printableLine(P.Error) << "\n";
  return createStringError(inconvertibleErrorCode(),
                           "apistamp: error: no log could be read");
}

/// Unites the partials Opts names (--merge); with \p Aliases, the aliases
/// of this report's rules, each must have been counted with them.
Expected<std::unique_ptr<PartialMerger>>
mergePartials(const Options &Opts, const std::vector<EventAlias> *Aliases) {
  auto Merger = std::make_unique<PartialMerger>();
  std::optional<PartialSettings> Ours;
  if (Aliases)
    Ours = partialSettings({}, {}, *Aliases);
  for (const std::string &Path : Opts.Sources) {
    Expected<UsagePartial> Partial = readPartialFile(Path);
    if (!Partial)
      return Partial.takeError();
    if (Ours && Partial->Settings.Aliases != Ours->Aliases)
      return inputFileError(
          Path, "counted with " + Twine(Partial->Settings.Aliases.size()) +
                    " aliases, not this report's " +
                    Twine(Ours->Aliases.size()) +
                    " (the rules' 'aliases'): merge with the rules it was "
                    "emitted with (--rules), or emit it again");
    if (Error E = Merger->add(std::move(*Partial), Path))
      return E;
  }
  return Merger;
}

/// The counts: from the aggregates file, the partials (--merge), or read
/// from the logs; an old event name that \p Aliases map counted as its
/// current event.
Expected<UsageCounts> loadCounts(const Options &Opts, raw_ostream &Err,
                                 const std::vector<EventAlias> &Aliases) {
  const Options::ReportOptions &R = Opts.Report;
  if (!R.AggregatesFile.empty()) {
    Expected<UsageCounts> Counts = readAggregates(R.AggregatesFile);
    if (Counts)
      mergeAliasedEvents(*Counts, Aliases);
    return Counts;
  }
  if (R.Merge) {
    Expected<std::unique_ptr<PartialMerger>> Merger =
        mergePartials(Opts, &Aliases);
    if (!Merger)
      return Merger.takeError();
    return (*Merger)->counts(Opts.Jobs);
  }
  UsageCounts Counts = readUsageLogs(
      logFiles(Opts, Err), LogWindow{R.Since, R.Until}, Opts.Jobs,
      DefaultLogPartBytes, {R.StderrJobId, R.StderrJobFrom}, Aliases);
  if (Error E = checkLogsRead(Opts, Counts, Err))
    return E;
  return Counts;
}

/// The aliases a partial of logs is counted with: those of the rules files
/// the catalog uses when it is computed (-p, no --catalog), else those of
/// --rules, if given.
Expected<std::vector<EventAlias>> partialAliases(const Options &Opts,
                                                 raw_ostream &Err, int &Exit) {
  std::vector<EventAlias> Aliases;
  std::vector<EventLayer> Layers;
  if (!Opts.BuildDir.empty() && Opts.Report.CatalogFile.empty()) {
    Expected<std::vector<CatalogEvent>> Catalog =
        loadCatalog(Opts, Err, Exit, Layers, Aliases);
    if (!Catalog)
      return Catalog.takeError();
    return Aliases;
  }
  Exit = ExitBadUsage;
  if (!Opts.RulesFile.empty()) {
    Expected<RuleSet> Rules = loadRules(Opts.RulesFile);
    if (!Rules)
      return Rules.takeError();
    llvm::append_range(Aliases, Rules->Aliases);
  }
  return Aliases;
}

/// --emit-partial: the distinct keys of the logs, or of the partials
/// merged (--merge), written to the file it names.
int emitPartial(const Options &Opts, raw_ostream &Err) {
  const Options::ReportOptions &R = Opts.Report;
  UsagePartial Partial;
  if (R.Merge) {
    Expected<std::unique_ptr<PartialMerger>> Merger =
        mergePartials(Opts, nullptr);
    if (!Merger) {
      Err << printableLines(toString(Merger.takeError())) << "\n";
      return ExitBadUsage;
    }
    Partial = (*Merger)->partial();
  } else {
    int Exit;
    Expected<std::vector<EventAlias>> Aliases = partialAliases(Opts, Err, Exit);
    if (!Aliases) {
      Err << printableLines(toString(Aliases.takeError())) << "\n";
      return Exit;
    }
    Partial = readUsagePartial(logFiles(Opts, Err), LogWindow{R.Since, R.Until},
                               Opts.Jobs, DefaultLogPartBytes,
                               {R.StderrJobId, R.StderrJobFrom}, *Aliases);
    if (Error E = checkLogsRead(Opts, Partial.Inputs, Err)) {
      Err << printableLines(toString(std::move(E))) << "\n";
      return ExitBadUsage;
    }
  }
  if (Error E = writeOutputFile(R.EmitPartial, serializePartial(Partial))) {
    Err << "apistamp: error: cannot write '" << printableLine(R.EmitPartial)
        << "': " << printableLine(toString(std::move(E))) << "\n";
    return ExitFindings;
  }
  if (!Opts.Quiet)
    Err << "apistamp report: partial " << printableLine(R.EmitPartial) << ": "
        << Partial.Inputs.Files << " files, " << Partial.Inputs.Lines
        << " lines, " << Partial.Inputs.EventLines << " events, "
        << Partial.Events.size() - Partial.Events.count("")
        << " distinct events\n";
  return ExitClean;
}

} // namespace

int runReport(const Options &Opts, raw_ostream &Out, raw_ostream &Err) {
  const Options::ReportOptions &R = Opts.Report;
  if (!R.EmitPartial.empty())
    return emitPartial(Opts, Err);
  int CatalogExit;
  UnplacedEvents Unplaced;
  Unplaced.Unknown = R.Unknown;
  std::vector<EventAlias> Aliases;
  Expected<std::vector<CatalogEvent>> Catalog =
      loadCatalog(Opts, Err, CatalogExit, Unplaced.Layers, Aliases);
  if (!Catalog) {
    Err << printableLines(toString(Catalog.takeError())) << "\n";
    return CatalogExit;
  }
  Expected<UsageCounts> Counts = loadCounts(Opts, Err, Aliases);
  if (!Counts) {
    Err << printableLines(toString(Counts.takeError())) << "\n";
    return ExitBadUsage;
  }
  addLayers(Unplaced.Layers, R.Layers);
  UsageReport Report = buildReport(*Catalog, std::move(*Counts), Unplaced);
  if (R.Output.empty() || R.Output == "-") {
    printReport(Out, Report, R.Format, R.By, Opts.Verbose);
    return ExitClean;
  }
  std::string Text;
  raw_string_ostream Rendered(Text);
  printReport(Rendered, Report, R.Format, R.By, Opts.Verbose);
  if (Error E = writeOutputFile(R.Output, Text)) {
    Err << "apistamp: error: cannot write '" << printableLine(R.Output)
        << "': " << printableLine(toString(std::move(E))) << "\n";
    return ExitFindings;
  }
  return ExitClean;
}

} // namespace apistamp
