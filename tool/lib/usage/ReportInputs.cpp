//===- ReportInputs.cpp - The catalog and aggregates a report reads -------===//
//
// The report's inputs besides the logs (UsageLog.cpp): the catalog that
// `apistamp catalog --format=json` writes, and the CSV aggregates that
// docs/report-sql.md's SQL produces in a warehouse.
//
//===----------------------------------------------------------------------===//

#include "BoundedJson.h"
#include "LogLine.h"
#include "UsageReport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <algorithm>
#include <map>

using namespace llvm;

namespace apistamp {

Error inputFileError(StringRef Path, const Twine &Message) {
  return createStringError(inconvertibleErrorCode(),
                           Path + ": error: " + Message);
}

namespace {

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

} // namespace

Expected<std::vector<CatalogEvent>> readCatalogFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return inputFileError(Path, "cannot read the catalog: " +
                                    Buffer.getError().message());
  return parseCatalog((*Buffer)->getBuffer(), Path);
}

Expected<std::vector<CatalogEvent>> parseCatalog(StringRef Text,
                                                 StringRef Path) {
  Expected<json::Value> Parsed = parseBoundedJson(Text);
  if (!Parsed)
    return inputFileError(Path,
                          "not a catalog (apistamp catalog --format=json): " +
                              toString(Parsed.takeError()));
  const json::Array *Entries = Parsed->getAsArray();
  if (!Entries)
    return inputFileError(Path, "not a catalog: expected the JSON array that "
                                "'apistamp catalog --format=json' writes");
  std::vector<CatalogEvent> Catalog;
  for (size_t I = 0; I < Entries->size(); ++I) {
    const json::Object *E = (*Entries)[I].getAsObject();
    std::optional<StringRef> Event = E ? E->getString("event") : std::nullopt;
    if (!Event || Event->empty())
      return inputFileError(Path, "entry " + Twine(I + 1) +
                                      " of the catalog has no 'event'");
    CatalogEvent C;
    C.Event = Event->str();
    C.Rule = E->getString("rule").value_or("").str();
    C.File = E->getString("file").value_or("").str();
    C.Kind = E->getString("kind").value_or("").str();
    C.Line = unsigned(E->getInteger("line").value_or(0));
    C.Status = E->getString("status").value_or("").str();
    C.Name = E->getString("name").value_or("").str();
    C.Language = E->getString("language").value_or("").str();
    if (const json::Object *Through = E->getObject("through")) {
      C.Through = Through->getString("name").value_or("").str();
      C.ThroughFile = Through->getString("file").value_or("").str();
      C.ThroughLine = unsigned(Through->getInteger("line").value_or(0));
    }
    Catalog.push_back(std::move(C));
  }
  return Catalog;
}

Expected<UsageCounts> readAggregates(StringRef Path,
                                     function_ref<bool(StringRef)> Keep) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return inputFileError(Path, "cannot read the aggregates: " +
                                    Buffer.getError().message());
  StringRef Text = (*Buffer)->getBuffer();
  Text.consume_front("\xEF\xBB\xBF"); // A UTF-8 byte order mark (Excel's).
  SmallVector<StringRef> Lines;
  Text.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  const std::vector<std::string> Header = {
      "event", "day", "jobs", "processes", "hosts", "first_seen", "last_seen"};
  if (Lines.empty() || csvRecord(Lines.front()) != Header)
    return inputFileError(Path, "the aggregates must start with the header "
                                "'event,day,jobs,processes,hosts,first_seen,"
                                "last_seen' (docs/report-sql.md)");
  UsageCounts Counts;
  Counts.Files = 1;
  // The line of each (event, day) row, the totals' day being "": a second
  // row for one is an error, not a silent replacement or sum (two exports
  // concatenated?).
  std::map<std::pair<std::string, std::string>, size_t> RowLine;
  for (size_t I = 1; I < Lines.size(); ++I) {
    // Most rows quote nothing: their fields are slices of the line.
    SmallVector<StringRef, 8> F;
    std::vector<std::string> Unquoted;
    StringRef Line = Lines[I];
    Line.consume_back("\r");
    if (Line.find_first_of("\"\r") == StringRef::npos) {
      Line.split(F, ',');
    } else {
      Unquoted = csvRecord(Line);
      F.append(Unquoted.begin(), Unquoted.end());
    }
    uint64_t Jobs, Processes, Hosts;
    if (F.size() != Header.size() || F[0].empty() ||
        F[2].getAsInteger(10, Jobs) || F[3].getAsInteger(10, Processes) ||
        F[4].getAsInteger(10, Hosts))
      return inputFileError(Path,
                            "line " + Twine(I + 1) +
                                ": expected an event, a day (or nothing), "
                                "three counts and two times");
    // The JSON report's counts are signed 64-bit integers.
    if (std::max({Jobs, Processes, Hosts}) > uint64_t(INT64_MAX))
      return inputFileError(Path, "line " + Twine(I + 1) +
                                      ": a count over 2^63 - 1 (no log has so "
                                      "many)");
    // What a warehouse got wrong is an error, not a silent "0 jobs".
    auto IsDay = [](StringRef Day) {
      return Day.size() == 10 && isIsoTime(Day) && isCalendarDay(Day);
    };
    auto IsTime = [](StringRef Time) {
      return Time.empty() || (isIsoTime(Time) && isCalendarDay(Time));
    };
    if (!F[1].empty() && !IsDay(F[1]))
      return inputFileError(Path, "line " + Twine(I + 1) + ": '" + F[1] +
                                      "' is not a day (YYYY-MM-DD)");
    if (!IsTime(F[5]) || !IsTime(F[6]))
      return inputFileError(Path, "line " + Twine(I + 1) + ": '" +
                                      (IsTime(F[5]) ? F[6] : F[5]) +
                                      "' is not an ISO 8601 time");
    if (Keep && !Keep(F[0]))
      continue;
    auto [Row, New] = RowLine.try_emplace({F[0].str(), F[1].str()}, I + 1);
    if (!New)
      return inputFileError(
          Path, "line " + Twine(I + 1) + ": a second " +
                    (F[1].empty() ? "totals row" : "row of day " + F[1].str()) +
                    " for event '" + F[0] +
                    "' (the first is "
                    "line " +
                    Twine(Row->second) + ")");
    EventCounts &C = Counts.Events[F[0].str()];
    if (!F[1].empty()) {
      C.JobsByDay.push_back({F[1].str(), Jobs});
      continue;
    }
    C.Jobs = Jobs;
    C.Processes = Processes;
    C.Hosts = Hosts;
    C.FirstSeen = F[5].str();
    C.LastSeen = F[6].str();
  }
  for (auto &[Event, C] : Counts.Events) {
    llvm::sort(C.JobsByDay);
    if (!RowLine.count({Event, ""}))
      return inputFileError(
          Path, "event '" + Event + "' has rows by day (line " +
                    Twine(RowLine.lower_bound({Event, ""})->second) +
                    ") but no totals row (its day empty)");
    for (const auto &[Day, Jobs] : C.JobsByDay)
      if (Jobs > C.Jobs)
        return inputFileError(
            Path, "line " + Twine(RowLine[{Event, Day}]) + ": " + Twine(Jobs) +
                      " jobs of '" + Event + "' on " + Day +
                      ", more than its " + Twine(C.Jobs) + " in all");
  }
  return Counts;
}

void mergeAliasedEvents(UsageCounts &Counts, ArrayRef<EventAlias> Aliases) {
  if (Aliases.empty())
    return;
  std::map<std::string, EventCounts> Merged;
  for (auto &[Name, Event] : Counts.Events) {
    auto [It, New] =
        Merged.try_emplace(currentEventName(Aliases, Name), std::move(Event));
    if (!New)
      addCounts(It->second, Event);
  }
  Counts.Events = std::move(Merged);
}

void addCounts(EventCounts &Into, const EventCounts &From) {
  Into.Jobs += From.Jobs;
  Into.Processes += From.Processes;
  Into.Hosts += From.Hosts;
  if (!From.FirstSeen.empty() &&
      (Into.FirstSeen.empty() || From.FirstSeen < Into.FirstSeen))
    Into.FirstSeen = From.FirstSeen;
  if (From.LastSeen > Into.LastSeen)
    Into.LastSeen = From.LastSeen;
  std::map<std::string, uint64_t> Days(Into.JobsByDay.begin(),
                                       Into.JobsByDay.end());
  for (const auto &[Day, Jobs] : From.JobsByDay)
    Days[Day] += Jobs;
  Into.JobsByDay.assign(Days.begin(), Days.end());
}

} // namespace apistamp
