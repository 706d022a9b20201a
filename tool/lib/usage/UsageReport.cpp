//===- UsageReport.cpp - Events placed vs. events used --------------------===//

#include "UsageReport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <set>

using namespace llvm;

namespace apistamp {

namespace {

Error fileError(StringRef Path, const Twine &Message) {
  return createStringError(inconvertibleErrorCode(),
                           Path + ": error: " + Message);
}

/// Days since 1970-01-01 of "YYYY-MM-DD" (Howard Hinnant's algorithm), or
/// nullopt.
std::optional<int64_t> daysOf(StringRef Day) {
  int Y, M, D;
  if (Day.size() != 10 || Day[4] != '-' || Day[7] != '-' ||
      Day.substr(0, 4).getAsInteger(10, Y) ||
      Day.substr(5, 2).getAsInteger(10, M) ||
      Day.substr(8, 2).getAsInteger(10, D) || M < 1 || M > 12 || D < 1 ||
      D > 31)
    return std::nullopt;
  Y -= M <= 2;
  int64_t Era = (Y >= 0 ? Y : Y - 399) / 400;
  int64_t YearOfEra = Y - Era * 400;
  int64_t DayOfYear = (153 * (M + (M > 2 ? -3 : 9)) + 2) / 5 + D - 1;
  int64_t DayOfEra =
      YearOfEra * 365 + YearOfEra / 4 - YearOfEra / 100 + DayOfYear;
  return Era * 146097 + DayOfEra - 719468;
}

std::string dayName(int64_t Days) {
  Days += 719468;
  int64_t Era = (Days >= 0 ? Days : Days - 146096) / 146097;
  int64_t DayOfEra = Days - Era * 146097;
  int64_t YearOfEra =
      (DayOfEra - DayOfEra / 1460 + DayOfEra / 36524 - DayOfEra / 146096) /
      365;
  int64_t Y = YearOfEra + Era * 400;
  int64_t DayOfYear = DayOfEra - (365 * YearOfEra + YearOfEra / 4 -
                                  YearOfEra / 100);
  int64_t MP = (5 * DayOfYear + 2) / 153;
  int64_t D = DayOfYear - (153 * MP + 2) / 5 + 1;
  int64_t M = MP < 10 ? MP + 3 : MP - 9;
  return formatv("{0:D4}-{1:D2}-{2:D2}", Y + (M <= 2), M, D).str();
}

/// The Monday that starts \p Day's week (ISO weeks), as a day name.
std::string weekOf(StringRef Day) {
  std::optional<int64_t> Days = daysOf(Day);
  if (!Days)
    return Day.str();
  // 1970-01-01 was a Thursday: Monday is 3 days before it.
  int64_t Monday = *Days - ((*Days + 3) % 7 + 7) % 7;
  return dayName(Monday);
}

/// Splits one CSV record (RFC 4180 quoting).
std::vector<std::string> csvRecord(StringRef Line) {
  std::vector<std::string> Fields(1);
  bool Quoted = false;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quoted) {
      if (C == '"' && I + 1 < Line.size() && Line[I + 1] == '"')
        Fields.back() += '"', ++I;
      else if (C == '"')
        Quoted = false;
      else
        Fields.back() += C;
    } else if (C == '"') {
      Quoted = true;
    } else if (C == ',') {
      Fields.emplace_back();
    } else if (C != '\r') {
      Fields.back() += C;
    }
  }
  return Fields;
}

std::string csvField(StringRef Text) {
  if (Text.find_first_of(",\"\n\r") == StringRef::npos)
    return Text.str();
  std::string Quoted = "\"";
  for (char C : Text)
    Quoted += C == '"' ? std::string("\"\"") : std::string(1, C);
  return Quoted + "\"";
}

std::string markdownCell(StringRef Text) {
  std::string Out;
  for (char C : Text) {
    if (C == '|' || C == '\\' || C == '`' || C == '*' || C == '_' ||
        C == '<' || C == '>')
      Out += '\\';
    Out += C == '\n' ? ' ' : C;
  }
  return Out;
}

} // namespace

Expected<std::vector<CatalogEvent>> readCatalogFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return fileError(Path, "cannot read the catalog: " +
                               Buffer.getError().message());
  return parseCatalog((*Buffer)->getBuffer(), Path);
}

Expected<std::vector<CatalogEvent>> parseCatalog(StringRef Text,
                                                 StringRef Path) {
  Expected<json::Value> Parsed = json::parse(Text);
  if (!Parsed)
    return fileError(Path, "not a catalog (apistamp catalog --format=json): " +
                               toString(Parsed.takeError()));
  const json::Array *Entries = Parsed->getAsArray();
  if (!Entries)
    return fileError(Path, "not a catalog: expected the JSON array that "
                           "'apistamp catalog --format=json' writes");
  std::vector<CatalogEvent> Catalog;
  for (size_t I = 0; I < Entries->size(); ++I) {
    const json::Object *E = (*Entries)[I].getAsObject();
    std::optional<StringRef> Event = E ? E->getString("event") : std::nullopt;
    if (!Event || Event->empty())
      return fileError(Path, "entry " + Twine(I + 1) +
                                 " of the catalog has no 'event'");
    CatalogEvent C;
    C.Event = Event->str();
    C.Rule = E->getString("rule").value_or("").str();
    C.File = E->getString("file").value_or("").str();
    C.Kind = E->getString("kind").value_or("").str();
    C.Line = unsigned(E->getInteger("line").value_or(0));
    Catalog.push_back(std::move(C));
  }
  return Catalog;
}

Expected<UsageCounts> readAggregates(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return fileError(Path, "cannot read the aggregates: " +
                               Buffer.getError().message());
  SmallVector<StringRef> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  const std::vector<std::string> Header = {
      "event", "day", "jobs", "processes", "hosts", "first_seen", "last_seen"};
  if (Lines.empty() || csvRecord(Lines.front()) != Header)
    return fileError(Path, "the aggregates must start with the header "
                           "'event,day,jobs,processes,hosts,first_seen,"
                           "last_seen' (docs/report-sql.md)");
  UsageCounts Counts;
  Counts.Files = 1;
  for (size_t I = 1; I < Lines.size(); ++I) {
    std::vector<std::string> F = csvRecord(Lines[I]);
    uint64_t Jobs, Processes, Hosts;
    if (F.size() != Header.size() || F[0].empty() ||
        StringRef(F[2]).getAsInteger(10, Jobs) ||
        StringRef(F[3]).getAsInteger(10, Processes) ||
        StringRef(F[4]).getAsInteger(10, Hosts))
      return fileError(Path, "line " + Twine(I + 1) +
                                 ": expected an event, a day (or nothing), "
                                 "three counts and two times");
    EventCounts &C = Counts.Events[F[0]];
    if (!F[1].empty()) {
      C.JobsByDay.push_back({F[1], Jobs});
      continue;
    }
    C.Jobs = Jobs;
    C.Processes = Processes;
    C.Hosts = Hosts;
    C.FirstSeen = F[5];
    C.LastSeen = F[6];
  }
  for (auto &Entry : Counts.Events)
    llvm::sort(Entry.second.JobsByDay);
  return Counts;
}

UsageReport buildReport(const std::vector<CatalogEvent> &Catalog,
                        UsageCounts &&Counts) {
  UsageReport Report;
  // One row per event: the first definition by file and line places it.
  std::map<std::string, const CatalogEvent *> Placed;
  for (const CatalogEvent &C : Catalog) {
    const CatalogEvent *&Slot = Placed[C.Event];
    if (!Slot || std::tie(C.File, C.Line) < std::tie(Slot->File, Slot->Line))
      Slot = &C;
  }
  // The trend: days, or weeks when the logs span more than a quarter.
  std::set<std::string> Days;
  for (const auto &Entry : Counts.Events)
    for (const auto &Day : Entry.second.JobsByDay)
      Days.insert(Day.first);
  bool Weekly = false;
  if (!Days.empty())
    if (std::optional<int64_t> First = daysOf(*Days.begin()))
      if (std::optional<int64_t> Last = daysOf(*Days.rbegin()))
        Weekly = *Last - *First > 92;
  Report.TrendUnit = Weekly ? "week" : "day";
  std::set<std::string> Periods;
  for (const std::string &Day : Days)
    Periods.insert(Weekly ? weekOf(Day) : Day);
  Report.Periods.assign(Periods.begin(), Periods.end());
  auto TrendOf = [&](const EventCounts &C) {
    std::vector<uint64_t> Trend(Report.Periods.size());
    for (const auto &[Day, Jobs] : C.JobsByDay) {
      std::string Period = Weekly ? weekOf(Day) : Day;
      size_t Index = llvm::lower_bound(Report.Periods, Period) -
                     Report.Periods.begin();
      if (Index < Trend.size())
        Trend[Index] += Jobs;
    }
    return Trend;
  };

  std::map<std::string, RuleCoverage> Rules;
  for (const auto &[Event, C] : Placed) {
    ReportEvent Row;
    Row.Event = Event;
    Row.Placed = C;
    auto Logged = Counts.Events.find(Event);
    if (Logged != Counts.Events.end()) {
      Row.Counts = std::move(Logged->second);
      Counts.Events.erase(Logged);
    }
    Row.Status = Row.Counts.Jobs ? "used" : "never-used";
    Row.Trend = TrendOf(Row.Counts);
    RuleCoverage &R = Rules[C->Rule];
    R.Id = C->Rule;
    ++R.Events;
    R.Used += Row.Counts.Jobs > 0;
    Report.Events.push_back(std::move(Row));
  }
  for (auto &[Event, C] : Counts.Events) {
    ReportEvent Row;
    Row.Event = Event;
    Row.Status = "unknown";
    Row.Counts = std::move(C);
    Row.Trend = TrendOf(Row.Counts);
    Report.Unknown.push_back(std::move(Row));
  }
  auto ByJobs = [](const ReportEvent &L, const ReportEvent &R) {
    return std::make_pair(~L.Counts.Jobs, StringRef(L.Event)) <
           std::make_pair(~R.Counts.Jobs, StringRef(R.Event));
  };
  llvm::stable_sort(Report.Events, ByJobs);
  llvm::stable_sort(Report.Unknown, ByJobs);
  for (auto &Entry : Rules)
    Report.Rules.push_back(Entry.second);
  Counts.Events.clear();
  Report.Inputs = std::move(Counts);
  return Report;
}

namespace {

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

json::Value reportJson(const UsageReport &R) {
  const UsageCounts &In = R.Inputs;
  json::Array Events, Unknown, Rules, Files;
  auto Trend = [](const ReportEvent &E) {
    json::Array Jobs;
    for (uint64_t N : E.Trend)
      Jobs.push_back(int64_t(N));
    return Jobs;
  };
  for (const ReportEvent &E : R.Events) {
    json::Object O{{"event", E.Event},       {"status", E.Status},
                   {"rule", E.Placed->Rule}, {"file", E.Placed->File},
                   {"line", E.Placed->Line}, {"kind", E.Placed->Kind}};
    for (auto &KV : countsJson(E))
      O.try_emplace(KV.first, std::move(KV.second));
    O["trend"] = Trend(E);
    Events.push_back(std::move(O));
  }
  for (const ReportEvent &E : R.Unknown) {
    json::Object O{{"event", E.Event}};
    for (auto &KV : countsJson(E))
      O.try_emplace(KV.first, std::move(KV.second));
    O["trend"] = Trend(E);
    Unknown.push_back(std::move(O));
  }
  for (const RuleCoverage &C : R.Rules)
    Rules.push_back(
        json::Object{{"id", C.Id}, {"events", C.Events}, {"used", C.Used}});
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
  json::Array Periods;
  for (const std::string &P : R.Periods)
    Periods.push_back(P);
  return json::Object{
      {"version", 1},
      {"inputs", json::Object{{"files", In.Files},
                              {"lines", int64_t(In.Lines)},
                              {"events", int64_t(In.EventLines)},
                              {"malformed", int64_t(In.Malformed)},
                              {"outside_window", int64_t(In.OutsideWindow)},
                              {"problems", std::move(Files)}}},
      {"trend", json::Object{{"unit", R.TrendUnit},
                             {"periods", std::move(Periods)}}},
      {"events", std::move(Events)},
      {"unknown", std::move(Unknown)},
      {"rules", std::move(Rules)}};
}

std::string location(const ReportEvent &E) {
  if (!E.Placed || E.Placed->File.empty())
    return "";
  return E.Placed->File + ":" + std::to_string(E.Placed->Line);
}

/// Rows grouped by rule or file: events placed, used, jobs of all events.
struct GroupRow {
  std::string Key;
  unsigned Events = 0, Used = 0;
  uint64_t Jobs = 0;
};

std::vector<GroupRow> groupRows(const UsageReport &R, ReportGrouping By) {
  std::map<std::string, GroupRow> Groups;
  for (const ReportEvent &E : R.Events) {
    std::string Key = By == ReportGrouping::Rule ? E.Placed->Rule
                                                 : E.Placed->File;
    GroupRow &G = Groups[Key];
    G.Key = Key;
    ++G.Events;
    G.Used += E.Counts.Jobs > 0;
    G.Jobs += E.Counts.Jobs;
  }
  std::vector<GroupRow> Rows;
  for (auto &Entry : Groups)
    Rows.push_back(Entry.second);
  return Rows;
}

void printProblems(raw_ostream &OS, const UsageReport &R, bool Verbose,
                   StringRef Prefix) {
  for (const LogFileProblems &P : R.Inputs.Problems) {
    if (P.Unreadable) {
      OS << Prefix << P.File << ": error: cannot read: " << P.Error << "\n";
      continue;
    }
    if (!P.Error.empty())
      OS << Prefix << P.File << ": warning: " << P.Error
         << "; the rest of the file was not read\n";
    if (P.Malformed)
      OS << Prefix << P.File << ": warning: " << P.Malformed
         << " malformed lines skipped\n";
    if (Verbose)
      for (const auto &[Line, Why] : P.First)
        OS << Prefix << P.File << ":" << Line << ": note: " << Why << "\n";
  }
}

void printText(raw_ostream &OS, const UsageReport &R, ReportGrouping By,
               bool Verbose) {
  const UsageCounts &In = R.Inputs;
  OS << "apistamp report: " << In.Files << " files, " << In.Lines
     << " lines, " << In.EventLines << " events, " << In.Malformed
     << " malformed";
  if (In.OutsideWindow)
    OS << ", " << In.OutsideWindow << " outside --since/--until";
  OS << "\n";
  printProblems(OS, R, Verbose, "");
  if (By != ReportGrouping::Event) {
    OS << formatv("\n{0,-40}  {1,6}  {2,6}  {3,8}  {4,8}\n",
                  By == ReportGrouping::Rule ? "rule" : "file", "events",
                  "used", "coverage", "jobs");
    for (const GroupRow &G : groupRows(R, By))
      OS << formatv("{0,-40}  {1,6}  {2,6}  {3,7}%  {4,8}\n", G.Key, G.Events,
                    G.Used, G.Events ? G.Used * 100 / G.Events : 0, G.Jobs);
    return;
  }
  unsigned Used = llvm::count_if(
      R.Events, [](const ReportEvent &E) { return E.Counts.Jobs > 0; });
  auto Table = [&](StringRef Title, ArrayRef<ReportEvent> Rows,
                   bool WithCounts) {
    OS << "\n" << Title << "\n";
    size_t Width = 5;
    for (const ReportEvent &E : Rows)
      Width = std::max(Width, E.Event.size());
    if (WithCounts)
      OS << formatv("  {0,6}  {1,9}  {2,5}  ", "jobs", "processes", "hosts")
         << left_justify("event", Width) << "  last seen\n";
    for (const ReportEvent &E : Rows) {
      OS << "  ";
      if (WithCounts)
        OS << formatv("{0,6}  {1,9}  {2,5}  ", E.Counts.Jobs,
                      E.Counts.Processes, E.Counts.Hosts);
      OS << left_justify(E.Event, Width);
      if (WithCounts)
        OS << "  " << E.Counts.LastSeen;
      if (E.Placed)
        OS << "  [" << E.Placed->Rule << "] " << location(E);
      OS << "\n";
    }
  };
  std::vector<ReportEvent> UsedRows, NeverUsed;
  for (const ReportEvent &E : R.Events)
    (E.Counts.Jobs ? UsedRows : NeverUsed).push_back(E);
  Table(formatv("used: {0} of {1} events", Used, R.Events.size()).str(),
        UsedRows, true);
  Table(formatv("never used: {0} events (deprecation candidates)",
                NeverUsed.size())
            .str(),
        NeverUsed, false);
  if (!R.Unknown.empty())
    Table(formatv("unknown: {0} events logged but placed by no rule",
                  R.Unknown.size())
              .str(),
          R.Unknown, true);
  OS << "\nrules:\n";
  for (const RuleCoverage &C : R.Rules)
    OS << formatv("  {0,-30} {1} of {2} events used ({3}%)\n", C.Id, C.Used,
                  C.Events, C.Events ? C.Used * 100 / C.Events : 0);
}

void printCsv(raw_ostream &OS, const UsageReport &R, ReportGrouping By) {
  if (By != ReportGrouping::Event) {
    OS << (By == ReportGrouping::Rule ? "rule" : "file")
       << ",events,used,jobs\n";
    for (const GroupRow &G : groupRows(R, By))
      OS << csvField(G.Key) << "," << G.Events << "," << G.Used << ","
         << G.Jobs << "\n";
    return;
  }
  OS << "event,status,rule,file,line,kind,jobs,processes,hosts,first_seen,"
        "last_seen\n";
  auto Row = [&](const ReportEvent &E) {
    OS << csvField(E.Event) << "," << E.Status << ","
       << csvField(E.Placed ? E.Placed->Rule : "") << ","
       << csvField(E.Placed ? E.Placed->File : "") << ",";
    if (E.Placed)
      OS << E.Placed->Line;
    OS << "," << (E.Placed ? E.Placed->Kind : "") << "," << E.Counts.Jobs
       << "," << E.Counts.Processes << "," << E.Counts.Hosts << ","
       << E.Counts.FirstSeen << "," << E.Counts.LastSeen << "\n";
  };
  for (const ReportEvent &E : R.Events)
    Row(E);
  for (const ReportEvent &E : R.Unknown)
    Row(E);
}

void printMarkdown(raw_ostream &OS, const UsageReport &R, ReportGrouping By) {
  const UsageCounts &In = R.Inputs;
  unsigned Used = llvm::count_if(
      R.Events, [](const ReportEvent &E) { return E.Counts.Jobs > 0; });
  OS << "## API usage\n\n"
     << Used << " of " << R.Events.size() << " events used; "
     << R.Unknown.size() << " unknown events; " << In.Files << " files, "
     << In.EventLines << " events read, " << In.Malformed
     << " malformed lines.\n\n";
  if (By != ReportGrouping::Event) {
    OS << "| " << (By == ReportGrouping::Rule ? "rule" : "file")
       << " | events | used | coverage | jobs |\n|---|---:|---:|---:|---:|\n";
    for (const GroupRow &G : groupRows(R, By))
      OS << "| " << markdownCell(G.Key) << " | " << G.Events << " | "
         << G.Used << " | " << (G.Events ? G.Used * 100 / G.Events : 0)
         << "% | " << G.Jobs << " |\n";
    return;
  }
  OS << "| event | status | jobs | processes | hosts | last seen | rule | "
        "where |\n|---|---|---:|---:|---:|---|---|---|\n";
  auto Row = [&](const ReportEvent &E) {
    OS << "| " << markdownCell(E.Event) << " | " << E.Status << " | "
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
       << " | " << (C.Events ? C.Used * 100 / C.Events : 0) << "% |\n";
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
    OS << formatv("{0:2}", reportJson(Report)) << "\n";
    return;
  case ReportFormat::Markdown:
    return printMarkdown(OS, Report, By);
  case ReportFormat::Html:
    return printReportHtml(OS, Report);
  }
}

} // namespace apistamp
