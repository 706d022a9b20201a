//===- Report.cpp - apistamp report: which placed events are used ---------===//

#include "../SafeWrite.h"
#include "../usage/UsageReport.h"
#include "apistamp/Driver.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Threading.h"

using namespace llvm;

namespace apistamp {

namespace {

/// The catalog: a saved one, or `apistamp catalog --format=json` run now.
Expected<std::vector<CatalogEvent>> loadCatalog(const Options &Opts,
                                                raw_ostream &Err, int &Exit) {
  if (!Opts.Report.CatalogFile.empty())
    return readCatalogFile(Opts.Report.CatalogFile);
  Options Catalog = Opts;
  Catalog.RunMode = Mode::Catalog;
  Catalog.Format = OutputFormat::Json;
  Catalog.Sources.clear();
  std::string Json;
  raw_string_ostream JsonOut(Json);
  Exit = run(Catalog, JsonOut, Err);
  if (Exit != ExitClean)
    return createStringError(inconvertibleErrorCode(),
                             "apistamp: error: the catalog failed; no report");
  return parseCatalog(Json, "the catalog");
}

std::optional<ReportFormat> formatNamed(StringRef Name) {
  return StringSwitch<std::optional<ReportFormat>>(Name)
      .Case("text", ReportFormat::Text)
      .Case("csv", ReportFormat::Csv)
      .Case("json", ReportFormat::Json)
      .Case("markdown", ReportFormat::Markdown)
      .Case("html", ReportFormat::Html)
      .Default(std::nullopt);
}

std::optional<ReportGrouping> groupingNamed(StringRef Name) {
  return StringSwitch<std::optional<ReportGrouping>>(Name)
      .Case("event", ReportGrouping::Event)
      .Case("rule", ReportGrouping::Rule)
      .Case("file", ReportGrouping::File)
      .Default(std::nullopt);
}

} // namespace

int runReport(const Options &Opts, raw_ostream &Out, raw_ostream &Err) {
  const Options::ReportOptions &R = Opts.Report;
  std::optional<ReportFormat> Format = formatNamed(R.Format);
  std::optional<ReportGrouping> By = groupingNamed(R.By);
  if (!Format || !By) {
    Err << "apistamp: error: "
        << (!Format ? "--format must be text, csv, json, markdown or html"
                    : "--by must be event, rule or file")
        << "\n";
    return ExitBadUsage;
  }
  if (Opts.Sources.empty() == R.AggregatesFile.empty()) {
    Err << "apistamp: error: "
        << (R.AggregatesFile.empty()
                ? "no logs given; pass log files, directories or '-', or "
                  "--aggregates FILE.csv"
                : "pass logs or --aggregates, not both")
        << "\n";
    return ExitBadUsage;
  }
  int CatalogExit = ExitClean;
  Expected<std::vector<CatalogEvent>> Catalog =
      loadCatalog(Opts, Err, CatalogExit);
  if (!Catalog) {
    Err << toString(Catalog.takeError()) << "\n";
    return CatalogExit != ExitClean ? CatalogExit : int(ExitBadUsage);
  }

  UsageCounts Counts;
  if (!R.AggregatesFile.empty()) {
    Expected<UsageCounts> Read = readAggregates(R.AggregatesFile);
    if (!Read) {
      Err << toString(Read.takeError()) << "\n";
      return ExitBadUsage;
    }
    Counts = std::move(*Read);
  } else {
    std::vector<std::string> Missing;
    std::vector<std::string> Files = expandLogInputs(Opts.Sources, Missing);
    for (const std::string &M : Missing)
      Err << "apistamp: warning: no such log file or directory: '" << M
          << "'\n";
    unsigned Threads =
        Opts.Jobs ? Opts.Jobs : hardware_concurrency().compute_thread_count();
    Counts = readUsageLogs(Files, LogWindow{R.Since, R.Until}, Threads);
    if (Counts.Files == 0) {
      for (const LogFileProblems &P : Counts.Problems)
        Err << P.File << ": error: cannot read: " << P.Error << "\n";
      Err << "apistamp: error: no log could be read\n";
      return ExitBadUsage;
    }
  }
  UsageReport Report = buildReport(*Catalog, std::move(Counts));
  if (R.Output.empty() || R.Output == "-") {
    printReport(Out, Report, *Format, *By, Opts.Verbose);
    return ExitClean;
  }
  std::string Text;
  raw_string_ostream Rendered(Text);
  printReport(Rendered, Report, *Format, *By, Opts.Verbose);
  if (Error E = writeFileAtomically(R.Output, Text)) {
    Err << "apistamp: error: cannot write '" << R.Output
        << "': " << toString(std::move(E)) << "\n";
    return ExitFindings;
  }
  return ExitClean;
}

} // namespace apistamp
