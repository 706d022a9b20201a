//===- UsageRender.cpp - The report as text, CSV, JSON or Markdown --------===//
//
// Renders a UsageReport as computed by buildReport (UsageReport.cpp): the
// text a person reads, CSV, JSON (a versioned contract: docs/report.md) and
// Markdown; the HTML page is UsageHtml.cpp's. Logs, saved catalogs and file
// names are untrusted: text and Markdown print what they say escaped
// (printableLine), CSV and JSON quote it as their formats do.
//
//===----------------------------------------------------------------------===//

#include "../Csv.h"
#include "../Suggestions.h"
#include "UsageReport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include <algorithm>

using namespace llvm;

namespace apistamp {

namespace {

/// The widest the text tables' event column is padded to.
constexpr size_t MaxEventColumn = 80;

/// \p Text in a Markdown table cell: its markup escaped, on one line, and
/// the other controls escaped as printableLine() does.
std::string markdownCell(StringRef Text) {
  // A line break would end the table row (and a CR starts one for some
  // renderers): a space.
  std::string OneLine = Text.str();
  std::replace_if(
      OneLine.begin(), OneLine.end(),
      [](char C) { return C == '\n' || C == '\r'; }, ' ');
  std::string Out;
  for (char C : printableLine(OneLine)) {
    if (C == '|' || C == '\\' || C == '`' || C == '*' || C == '_' || C == '<' ||
        C == '>')
      Out += '\\';
    Out += C;
  }
  return Out;
}

/// \p E's counts as JSON members (times null when never seen).
json::Object countsJson(const ReportEvent &E) {
  return json::Object{{"jobs", int64_t(E.Counts.Jobs)},
                      {"processes", int64_t(E.Counts.Processes)},
                      {"hosts", int64_t(E.Counts.Hosts)},
                      {"first_seen", E.Counts.FirstSeen.empty()
                                         ? json::Value(nullptr)
                                         : json::Value(E.Counts.FirstSeen)},
                      {"last_seen", E.Counts.LastSeen.empty()
                                        ? json::Value(nullptr)
                                        : json::Value(E.Counts.LastSeen)}};
}

/// What the logs were: counts, and each file's problems and stderr form.
json::Object inputsJson(const UsageCounts &In) {
  json::Array Files;
  for (const LogFileProblems &P : In.Problems) {
    json::Array First;
    for (const auto &[Line, Why] : P.First)
      First.push_back(json::Object{{"line", int64_t(Line)}, {"problem", Why}});
    json::Object O{{"file", P.File},
                   {"malformed", int64_t(P.Malformed)},
                   {"first", std::move(First)}};
    if (!P.Error.empty())
      O["error"] = P.Error;
    Files.push_back(std::move(O));
  }
  json::Array StderrLogs;
  for (const StderrLog &S : In.StderrLogs) {
    json::Array First;
    for (const auto &[Line, Why] : S.First)
      First.push_back(json::Object{{"line", int64_t(Line)}, {"problem", Why}});
    StderrLogs.push_back(json::Object{
        {"file", S.File},
        {"time", S.Time},
        {"job_id", S.Job ? json::Value(*S.Job) : json::Value(nullptr)},
        {"events", int64_t(S.Events)},
        {"ignored", int64_t(S.Ignored)},
        {"malformed", int64_t(S.Malformed)},
        {"first", std::move(First)}});
  }
  return json::Object{{"files", In.Files},
                      {"lines", int64_t(In.Lines)},
                      {"events", int64_t(In.EventLines)},
                      {"malformed", int64_t(In.Malformed)},
                      {"outside_window", int64_t(In.OutsideWindow)},
                      {"jobs", int64_t(In.Jobs)},
                      {"problems", std::move(Files)},
                      {"stderr_logs", std::move(StderrLogs)}};
}

/// Writes the report as the JSON contract (version 1) says, one event's
/// object at a time: memory stays the report's, whatever the number of
/// events. The members come in the order a json::Value prints them (sorted).
void writeReportJson(raw_ostream &OS, const UsageReport &R) {
  json::OStream J(OS, 2);
  auto Counted = [&R](const ReportEvent &E, json::Object O) {
    for (auto &KV : countsJson(E))
      O.try_emplace(KV.first, std::move(KV.second));
    json::Array Jobs;
    for (uint64_t N : E.Trend.dense(R.Periods.size()))
      Jobs.push_back(int64_t(N));
    O["trend"] = std::move(Jobs);
    return O;
  };
  auto Placed = [&](const ReportEvent &E) {
    json::Object O{{"event", E.Event},
                   {"status", statusName(E.Status)},
                   {"rule", E.Placed->Rule},
                   {"file", E.Placed->File},
                   {"line", E.Placed->Line},
                   {"kind", E.Placed->Kind},
                   {"language", languageOf(*E.Placed)},
                   {"module", packageOf(*E.Placed)}};
    if (!E.Placed->Through.empty())
      O["through"] = E.Placed->Through;
    return Counted(E, std::move(O));
  };
  auto Unplaced = [&](const ReportEvent &E) {
    return Counted(E, json::Object{{"event", E.Event}});
  };
  auto Rows = [&J](StringRef Key, ArrayRef<ReportEvent> Events,
                   function_ref<json::Object(const ReportEvent &)> Row) {
    J.attributeArray(Key, [&] {
      for (const ReportEvent &E : Events)
        J.value(Row(E));
    });
  };
  J.object([&] {
    Rows("events", R.Events, Placed);
    J.attribute("inputs", inputsJson(R.Inputs));
    J.attributeArray("languages", [&] {
      for (const GroupCoverage &G : groupCoverage(R, ReportGrouping::Language))
        J.value(json::Object{{"language", G.Key},
                             {"events", G.Events},
                             {"used", G.Used},
                             {"jobs", int64_t(G.Jobs)}});
    });
    J.attributeArray("layers", [&] {
      for (const EventGroup &G : R.Layers)
        J.object([&] {
          Rows("events", G.Events, Unplaced);
          J.attribute("globs", json::Array(G.Globs));
          J.attribute("layer", G.Name);
        });
    });
    J.attributeArray("other_libraries", [&] {
      for (const EventGroup &G : R.OtherLibraries)
        J.object([&] {
          Rows("events", G.Events, Unplaced);
          J.attribute("library", G.Name);
        });
    });
    J.attributeArray("pairs", [&] {
      for (const ApiPair &P : R.Pairs)
        J.value(json::Object{{"python", P.Python->Event},
                             {"cxx", P.Cxx->Event},
                             {"python_jobs", int64_t(P.Python->Counts.Jobs)},
                             {"cxx_jobs", int64_t(P.Cxx->Counts.Jobs)},
                             {"route", P.Route}});
    });
    J.attributeArray("rules", [&] {
      for (const RuleCoverage &C : R.Rules)
        J.value(
            json::Object{{"id", C.Id}, {"events", C.Events}, {"used", C.Used}});
    });
    json::Object TrendOf{{"unit", R.TrendUnit},
                         {"periods", json::Array(R.Periods)}};
    if (R.PeriodsLogged > R.Periods.size())
      TrendOf["periods_logged"] = int64_t(R.PeriodsLogged); // Capped.
    J.attribute("trend", std::move(TrendOf));
    Rows("unknown", R.Unknown, Unplaced);
    J.attribute("version", 1);
  });
}

/// What a pair's route says, for a person.
std::string routeText(const ApiPair &P) {
  if (P.Route == "both")
    return "both sides used";
  if (P.Route == "python only")
    return "python only: the C++ function never logged; the Python "
           "function's jobs take another route (the dispatcher's kernel, say)";
  if (P.Route == "c++ only")
    return "c++ only: the Python function never logged; the C++ one was "
           "reached another way (a C++ caller, another Python function)";
  return "neither used";
}

/// Where \p E is placed, "file:line", or "" (not escaped).
std::string location(const ReportEvent &E) {
  if (!E.Placed || E.Placed->File.empty())
    return "";
  return E.Placed->File + ":" + std::to_string(E.Placed->Line);
}

/// The inputs' problems, one line each, as diagnostics; \p Verbose adds
/// the first malformed lines.
void printProblems(raw_ostream &OS, const UsageReport &R, bool Verbose,
                   StringRef Prefix) {
  for (const LogFileProblems &P : R.Inputs.Problems) {
    std::string File = printableLine(P.File);
    if (P.Unreadable) {
      OS << Prefix << File << ": error: cannot read: " << printableLine(P.Error)
         << "\n";
      continue;
    }
    if (!P.Error.empty())
      OS << Prefix << File << ": warning: " << printableLine(P.Error)
         << (P.Truncated ? "" : "; the rest of the file was not read") << "\n";
    if (P.Malformed)
      OS << Prefix << File << ": warning: " << P.Malformed
         << " malformed lines skipped\n";
    if (Verbose)
      for (const auto &[Line, Why] : P.First)
        OS << Prefix << File << ":" << Line << ": note: " << printableLine(Why)
           << "\n";
  }
  // A stderr log's other lines are its process's output, not problems; its
  // PYTORCH_API_USAGE lines that name no event (or have no day) are.
  for (const StderrLog &S : R.Inputs.StderrLogs) {
    std::string File = printableLine(S.File);
    if (S.Malformed && !Verbose)
      OS << Prefix << File << ": warning: " << S.Malformed
         << " malformed PYTORCH_API_USAGE lines skipped (--verbose says "
            "why)\n";
    if (!Verbose)
      continue;
    OS << Prefix << File << ": note: c10's stderr form: " << S.Events
       << " events, " << S.Malformed << " malformed PYTORCH_API_USAGE lines, "
       << S.Ignored << " other lines ignored; one process, job "
       << (S.Job ? "'" + printableLine(*S.Job) + "'" : "unknown") << ", at "
       << printableLine(S.Time) << " (the file's mtime)\n";
    for (const auto &[Line, Why] : S.First)
      OS << Prefix << File << ":" << Line << ": note: " << printableLine(Why)
         << "\n";
  }
}

/// The rows grouped by rule or file, as a table.
void printTextGroups(raw_ostream &OS, const UsageReport &R, ReportGrouping By) {
  OS << formatv("\n{0,-40}  {1,6}  {2,6}  {3,8}  {4,8}\n", groupingName(By),
                "events", "used", "coverage", "jobs");
  for (const GroupCoverage &G : groupCoverage(R, By))
    OS << formatv("{0,-40}  {1,6}  {2,6}  {3,7}%  {4,8}\n",
                  printableLine(G.Key), G.Events, G.Used, G.Percent, G.Jobs);
}

/// A table of events titled \p Title, with their counts when
/// \p WithCounts.
void printTextTable(raw_ostream &OS, StringRef Title,
                    ArrayRef<ReportEvent> Rows, bool WithCounts) {
  OS << "\n" << Title << "\n";
  // Padded to the longest name as printed, up to MaxEventColumn: a longer
  // one overflows its own row, and does not pad every other row to it.
  std::vector<std::string> Events;
  size_t Width = 5;
  for (const ReportEvent &E : Rows) {
    Events.push_back(printableLine(E.Event));
    Width = std::max(Width, std::min(Events.back().size(), MaxEventColumn));
  }
  if (WithCounts && !Rows.empty())
    OS << formatv("  {0,6}  {1,9}  {2,5}  ", "jobs", "processes", "hosts")
       << left_justify("event", Width) << "  last seen\n";
  for (auto [E, Event] : zip_equal(Rows, Events)) {
    OS << "  ";
    if (WithCounts)
      OS << formatv("{0,6}  {1,9}  {2,5}  ", E.Counts.Jobs, E.Counts.Processes,
                    E.Counts.Hosts);
    OS << left_justify(Event, Width);
    if (WithCounts)
      OS << "  " << printableLine(E.Counts.LastSeen);
    if (E.Placed)
      OS << "  [" << printableLine(E.Placed->Rule) << "] "
         << printableLine(location(E));
    if (E.Placed && !E.Placed->Through.empty())
      OS << " through " << printableLine(E.Placed->Through);
    OS << "\n";
  }
}

/// The report a person reads: figures, problems, then the events used,
/// never used and unknown, and the rules' coverage (or the groups).
void printText(raw_ostream &OS, const UsageReport &R, ReportGrouping By,
               bool Verbose) {
  const UsageCounts &In = R.Inputs;
  OS << "apistamp report: " << In.Files << " files";
  if (!In.StderrLogs.empty())
    OS << " (" << In.StderrLogs.size() << " in c10's stderr form)";
  OS << ", " << In.Lines << " lines, " << In.EventLines << " events, "
     << In.Malformed << " malformed";
  if (In.OutsideWindow)
    OS << ", " << In.OutsideWindow << " outside --since/--until";
  OS << "; " << In.Jobs << (In.Jobs == 1 ? " job" : " jobs") << "\n";
  printProblems(OS, R, Verbose, "");
  if (By != ReportGrouping::Event)
    return printTextGroups(OS, R, By);
  std::vector<GroupCoverage> Languages =
      groupCoverage(R, ReportGrouping::Language);
  if (Languages.size() > 1) {
    OS << "by language:";
    for (const GroupCoverage &G : Languages)
      OS << formatv(" {0}: {1} of {2} used ({3}%);", G.Key, G.Used, G.Events,
                    G.Percent);
    OS << "\n";
  }
  std::vector<ReportEvent> UsedRows, NeverUsed, Unknown, NotMeasured;
  for (ArrayRef<ReportEvent> Rows : {ArrayRef(R.Events), ArrayRef(R.Unknown)})
    for (const ReportEvent &E : Rows)
      switch (E.Status) {
      case EventStatus::Used:
        UsedRows.push_back(E);
        break;
      case EventStatus::NeverUsed:
        NeverUsed.push_back(E);
        break;
      case EventStatus::Unknown:
        Unknown.push_back(E);
        break;
      case EventStatus::NotMeasured:
        NotMeasured.push_back(E);
        break;
      case EventStatus::Layer:
      case EventStatus::OtherLibrary:
        break; // Their groups are printed below.
      }
  printTextTable(
      OS, formatv("used: {0} of {1} events", R.Used, R.Events.size()).str(),
      UsedRows, true);
  printTextTable(OS,
                 formatv("never used: {0} events (deprecation candidates)",
                         NeverUsed.size())
                     .str(),
                 NeverUsed, false);
  if (!NotMeasured.empty())
    printTextTable(OS,
                   formatv("not measured: {0} events placed only in "
                           "definitions that are skipped or suppressed",
                           NotMeasured.size())
                       .str(),
                   NotMeasured, false);
  if (!Unknown.empty())
    printTextTable(OS,
                   formatv("unknown: {0} events logged but placed by no rule",
                           Unknown.size())
                       .str(),
                   Unknown, true);
  for (const EventGroup &G : R.Layers)
    printTextTable(OS,
                   formatv("logged by other layers: {0}: {1} events",
                           printableLine(G.Name), G.Events.size())
                       .str(),
                   G.Events, true);
  for (const EventGroup &G : R.OtherLibraries)
    printTextTable(OS,
                   formatv("other libraries: {0}: {1} events",
                           printableLine(G.Name), G.Events.size())
                       .str(),
                   G.Events, true);
  if (!R.Pairs.empty()) {
    OS << "\nboth sides of one API: " << R.Pairs.size()
       << " pairs (jobs of the Python, then the C++ function)\n";
    for (const ApiPair &P : R.Pairs)
      OS << formatv("  {0,6}  {1,6}  ", P.Python->Counts.Jobs,
                    P.Cxx->Counts.Jobs)
         << printableLine(P.Python->Event) << " <-> "
         << printableLine(P.Cxx->Event) << "  " << routeText(P) << "\n";
  }
  OS << "\nrules:\n";
  for (const RuleCoverage &C : R.Rules)
    OS << formatv("  {0,-30} {1} of {2} events used ({3}%)\n",
                  printableLine(C.Id), C.Used, C.Events, C.Percent);
}

/// One CSV row per event (or group).
void printCsv(raw_ostream &OS, const UsageReport &R, ReportGrouping By) {
  if (By != ReportGrouping::Event) {
    OS << groupingName(By) << ",events,used,jobs\n";
    for (const GroupCoverage &G : groupCoverage(R, By))
      OS << csvField(G.Key) << "," << G.Events << "," << G.Used << "," << G.Jobs
         << "\n";
    return;
  }
  OS << "event,status,rule,file,line,kind,jobs,processes,hosts,first_seen,"
        "last_seen,logged_by,language,through\n";
  auto Row = [&](const ReportEvent &E, StringRef LoggedBy = "") {
    OS << csvField(E.Event) << "," << statusName(E.Status) << ","
       << csvField(E.Placed ? E.Placed->Rule : "") << ","
       << csvField(E.Placed ? E.Placed->File : "") << ",";
    if (E.Placed)
      OS << E.Placed->Line;
    OS << "," << (E.Placed ? E.Placed->Kind : "") << "," << E.Counts.Jobs << ","
       << E.Counts.Processes << "," << E.Counts.Hosts << ","
       << csvField(E.Counts.FirstSeen) << "," << csvField(E.Counts.LastSeen)
       << "," << csvField(LoggedBy) << ","
       << (E.Placed ? languageOf(*E.Placed) : "") << ","
       << csvField(E.Placed ? E.Placed->Through : "") << "\n";
  };
  for (const ReportEvent &E : R.Events)
    Row(E);
  for (ArrayRef<EventGroup> Groups :
       {ArrayRef(R.Layers), ArrayRef(R.OtherLibraries)})
    for (const EventGroup &G : Groups)
      for (const ReportEvent &E : G.Events)
        Row(E, G.Name);
  for (const ReportEvent &E : R.Unknown)
    Row(E);
}

/// A summary and Markdown tables (for a pull request or a wiki).
void printMarkdown(raw_ostream &OS, const UsageReport &R, ReportGrouping By) {
  const UsageCounts &In = R.Inputs;
  OS << "## API usage\n\n"
     << R.Used << " of " << R.Events.size() << " events used; "
     << R.Unknown.size() << " unknown events; ";
  if (size_t N = eventsIn(R.Layers))
    OS << N << " events of other layers; ";
  if (size_t N = eventsIn(R.OtherLibraries))
    OS << N << " events of " << R.OtherLibraries.size() << " other libraries; ";
  OS << In.Jobs << (In.Jobs == 1 ? " job; " : " jobs; ") << In.Files
     << " files, " << In.EventLines << " events read, " << In.Malformed
     << " malformed lines.\n\n";
  std::vector<GroupCoverage> Languages =
      groupCoverage(R, ReportGrouping::Language);
  if (Languages.size() > 1) {
    OS << "By language:";
    for (const GroupCoverage &G : Languages)
      OS << " " << G.Key << " " << G.Used << " of " << G.Events << " used ("
         << G.Percent << "%);";
    OS << "\n\n";
  }
  if (By != ReportGrouping::Event) {
    OS << "| " << groupingName(By)
       << " | events | used | coverage | jobs |\n|---|---:|---:|---:|---:|\n";
    for (const GroupCoverage &G : groupCoverage(R, By))
      OS << "| " << markdownCell(G.Key) << " | " << G.Events << " | " << G.Used
         << " | " << G.Percent << "% | " << G.Jobs << " |\n";
    return;
  }
  OS << "| event | status | language | jobs | processes | hosts | last seen "
        "| rule | where |\n|---|---|---|---:|---:|---:|---|---|---|\n";
  auto Row = [&](const ReportEvent &E) {
    OS << "| " << markdownCell(E.Event) << " | " << statusName(E.Status)
       << " | " << (E.Placed ? languageOf(*E.Placed) : "") << " | "
       << E.Counts.Jobs << " | " << E.Counts.Processes << " | "
       << E.Counts.Hosts << " | " << markdownCell(E.Counts.LastSeen) << " | "
       << markdownCell(E.Placed ? E.Placed->Rule : "") << " | "
       << markdownCell(location(E)) << " |\n";
  };
  for (const ReportEvent &E : R.Events)
    Row(E);
  for (const ReportEvent &E : R.Unknown)
    Row(E);
  OS << "\n| rule | events | used | coverage |\n|---|---:|---:|---:|\n";
  for (const RuleCoverage &C : R.Rules)
    OS << "| " << markdownCell(C.Id) << " | " << C.Events << " | " << C.Used
       << " | " << C.Percent << "% |\n";
  auto Group = [&](StringRef Title, const EventGroup &G) {
    OS << "\n### " << Title << ": " << markdownCell(G.Name) << " ("
       << G.Events.size() << " events)\n";
    if (G.Events.empty())
      return;
    OS << "\n| event | jobs | processes | hosts | last seen |\n"
          "|---|---:|---:|---:|---|\n";
    for (const ReportEvent &E : G.Events)
      OS << "| " << markdownCell(E.Event) << " | " << E.Counts.Jobs << " | "
         << E.Counts.Processes << " | " << E.Counts.Hosts << " | "
         << markdownCell(E.Counts.LastSeen) << " |\n";
  };
  for (const EventGroup &G : R.Layers)
    Group("Logged by other layers", G);
  for (const EventGroup &G : R.OtherLibraries)
    Group("Other libraries", G);
}

} // namespace

void printReport(raw_ostream &OS, const UsageReport &Report,
                 ReportFormat Format, ReportGrouping By, bool Verbose) {
  switch (Format) {
  case ReportFormat::Text:
    return printText(OS, Report, By, Verbose);
  case ReportFormat::Csv:
    return printCsv(OS, Report, By);
  case ReportFormat::Json:
    writeReportJson(OS, Report);
    OS << "\n";
    return;
  case ReportFormat::Markdown:
    return printMarkdown(OS, Report, By);
  case ReportFormat::Html:
    return printReportHtml(OS, Report);
  }
}

} // namespace apistamp
