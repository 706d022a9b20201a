//===- UsageGate.cpp - Which removed events usage says are still used -----===//

#include "UsageGate.h"
#include "BoundedJson.h"
#include "UsageReport.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include <set>
#include <simdjson.h>

using namespace llvm;

namespace apistamp {

namespace {

/// The evidence of aggregates (docs/report-sql.md): per day, exactly.
UsageEvidence fromCounts(StringRef Path, UsageCounts &&Counts) {
  UsageEvidence Evidence;
  Evidence.Path = Path.str();
  for (auto &[Name, C] : Counts.Events)
    static_cast<EventCounts &>(Evidence.Events[Name]) = std::move(C);
  return Evidence;
}

/// \p Key's string in \p Row, or "".
std::string stringIn(simdjson::dom::object Row, std::string_view Key) {
  std::string_view Value;
  if (Row[Key].get_string().get(Value))
    Value = {};
  return std::string(Value);
}

/// A saved report's trend periods (its "trend" object), and its unit into
/// \p Evidence.
std::vector<std::string> trendPeriods(simdjson::dom::object Report,
                                      UsageEvidence &Evidence) {
  std::vector<std::string> Periods;
  simdjson::dom::object Trend;
  if (Report["trend"].get_object().get(Trend))
    return Periods;
  std::string_view Unit;
  if (!Trend["unit"].get_string().get(Unit) && Unit == "week")
    Evidence.PeriodDays = 7;
  simdjson::dom::array P;
  if (!Trend["periods"].get_array().get(P))
    for (simdjson::dom::element Day : P) {
      std::string_view Name;
      if (Day.get_string().get(Name))
        Name = {};
      Periods.emplace_back(Name);
    }
  return Periods;
}

/// Takes a saved report's event rows into \p Evidence (placed ones with
/// their rule; unplaced ones only if \p Keep keeps them); false at a row
/// without an event or its jobs.
bool takeRows(simdjson::dom::array Rows, bool Placed,
              function_ref<bool(StringRef)> Keep, ArrayRef<std::string> Periods,
              UsageEvidence &Evidence) {
  for (simdjson::dom::element Element : Rows) {
    simdjson::dom::object Row;
    std::string_view Event;
    int64_t Jobs = -1;
    if (Element.get_object().get(Row) || Row["event"].get_string().get(Event) ||
        Event.empty() || Row["jobs"].get_int64().get(Jobs) || Jobs < 0)
      return false;
    if (!Placed && Keep && !Keep(StringRef(Event.data(), Event.size())))
      continue;
    EventUsage &U = Evidence.Events[std::string(Event)];
    U.Jobs = uint64_t(Jobs);
    U.FirstSeen = stringIn(Row, "first_seen");
    U.LastSeen = stringIn(Row, "last_seen");
    if (Placed)
      U.Rule = stringIn(Row, "rule");
    simdjson::dom::array Counts;
    if (Row["trend"].get_array().get(Counts))
      continue;
    size_t P = 0;
    for (simdjson::dom::element N : Counts) {
      int64_t Jobs = 0;
      if (P < Periods.size() && !N.get_int64().get(Jobs) && Jobs > 0)
        U.JobsByDay.push_back({Periods[P], uint64_t(Jobs)});
      ++P;
    }
  }
  return true;
}

/// The evidence a saved JSON report (version 1) gives: every section's
/// events, with their trend (simdjson: a report of every library's events
/// is tens of megabytes).
Expected<UsageEvidence> fromReport(StringRef Path, StringRef Text,
                                   function_ref<bool(StringRef)> Keep) {
  auto Bad = [&](const Twine &Why) {
    return inputFileError(Path, "not a usage report (apistamp report "
                                "--format=json): " +
                                    Why);
  };
  simdjson::dom::parser Parser;
  simdjson::padded_string Padded(Text.data(), Text.size());
  simdjson::dom::element Doc;
  if (auto Error = Parser.parse(Padded).get(Doc))
    return Bad(simdjson::error_message(Error));
  simdjson::dom::object Report;
  int64_t Version = 0;
  if (Doc.get_object().get(Report))
    return Bad("expected a JSON object");
  if (Report["version"].get_int64().get(Version) || Version != 1)
    return Bad("expected \"version\": 1");
  UsageEvidence Evidence;
  Evidence.Path = Path.str();
  std::vector<std::string> Periods = trendPeriods(Report, Evidence);
  // The placed events, then the unknown ones and those of each group.
  std::vector<std::pair<simdjson::dom::array, bool>> Sections;
  simdjson::dom::array Rows;
  if (!Report["events"].get_array().get(Rows))
    Sections.push_back({Rows, true});
  if (!Report["unknown"].get_array().get(Rows))
    Sections.push_back({Rows, false});
  for (std::string_view Section : {"layers", "other_libraries"}) {
    simdjson::dom::array Groups;
    if (Report[Section].get_array().get(Groups))
      continue;
    for (simdjson::dom::element G : Groups)
      if (!G["events"].get_array().get(Rows))
        Sections.push_back({Rows, false});
  }
  for (auto [Section, Placed] : Sections)
    if (!takeRows(Section, Placed, Keep, Periods, Evidence))
      return Bad("an event row without an 'event' or its 'jobs'");
  return Evidence;
}

/// "2026-11-20" of "2026-11-20T10:00:00Z"; "" of "".
std::string dayOf(StringRef Time) { return Time.take_front(10).str(); }

} // namespace

Expected<UsageEvidence> readUsageEvidence(StringRef Path,
                                          function_ref<bool(StringRef)> Keep) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return inputFileError(Path, "cannot read the usage file: " +
                                    Buffer.getError().message());
  StringRef Text = (*Buffer)->getBuffer().ltrim();
  if (Text.starts_with("{")) {
    Expected<UsageEvidence> Evidence = fromReport(Path, Text, Keep);
    if (Evidence)
      return Evidence;
    // A log's first line is an object too: say what to pass instead.
    Expected<json::Value> First = parseBoundedJson(Text.split('\n').first);
    const json::Object *Line = First ? First->getAsObject() : nullptr;
    if (!First)
      consumeError(First.takeError());
    if (Line && Line->getString("event")) {
      consumeError(Evidence.takeError());
      return inputFileError(Path, "a usage log, not a usage report: pass its "
                                  "report ('apistamp report --format=json "
                                  "LOGS -o usage.json')");
    }
    return Evidence;
  }
  Expected<UsageCounts> Counts = readAggregates(Path, Keep);
  if (!Counts)
    return inputFileError(
        Path, "a usage file is a JSON report (apistamp report "
              "--format=json) or aggregates (docs/report-sql.md): " +
                  toString(Counts.takeError()));
  return fromCounts(Path, std::move(*Counts));
}

void mergeAliases(UsageEvidence &Evidence, ArrayRef<EventAlias> Aliases) {
  if (Aliases.empty())
    return;
  std::map<std::string, EventUsage> Merged;
  for (auto &[Name, Usage] : Evidence.Events) {
    std::string Current = currentEventName(Aliases, Name);
    auto [It, New] = Merged.try_emplace(Current);
    EventUsage &Into = It->second;
    Into.LoggedAs.push_back(Name);
    if (New) {
      std::vector<std::string> LoggedAs = std::move(Into.LoggedAs);
      Into = std::move(Usage);
      Into.LoggedAs = std::move(LoggedAs);
      continue;
    }
    addCounts(Into, Usage);
    if (Into.Rule.empty())
      Into.Rule = Usage.Rule;
  }
  // A name counted under itself alone says nothing more.
  for (auto &[Name, Usage] : Merged)
    if (Usage.LoggedAs.size() == 1 && Usage.LoggedAs.front() == Name)
      Usage.LoggedAs.clear();
  Evidence.Events = std::move(Merged);
}

uint64_t jobsSince(const EventUsage &Usage, StringRef Since,
                   unsigned PeriodDays) {
  if (Since.empty() || Usage.FirstSeen >= Since)
    return Usage.Jobs;
  if (Usage.LastSeen < Since)
    return 0;
  // Since is a time prefix: its day, or the first day of its month or year.
  std::string SinceDay = Since.take_front(10).str();
  if (SinceDay.size() == 4)
    SinceDay += "-01-01";
  else if (SinceDay.size() == 7)
    SinceDay += "-01";
  uint64_t Jobs = 0;
  for (const auto &[Start, N] : Usage.JobsByDay) {
    std::optional<int64_t> Day = daysOf(Start);
    // A period counts when it ends after Since's day begins.
    if (Day ? dayName(*Day + PeriodDays - 1) >= SinceDay : Start >= SinceDay)
      Jobs += N;
  }
  return std::min(Jobs, Usage.Jobs);
}

std::vector<UsageVerdict> judgeUsage(const UsageEvidence &Evidence,
                                     ArrayRef<CatalogEvent> Catalog,
                                     const GateRequest &Request) {
  std::set<std::string> Placed, Measurable, Libraries;
  for (const CatalogEvent &C : Catalog) {
    Placed.insert(C.Event);
    if (!C.unmeasurable())
      Measurable.insert(C.Event);
    Libraries.insert(StringRef(C.Event).split('.').first.str());
  }
  auto Verdict = [&](UsageVerdict::Kind What, StringRef Event,
                     const EventUsage *Usage) {
    UsageVerdict V{What, Event.str(), 0, "", "", "", {}};
    V.Since = Request.Since;
    if (!Usage)
      return V;
    V.Jobs = jobsSince(*Usage, Request.Since, Evidence.PeriodDays);
    if (V.Since.empty())
      V.Since = dayOf(Usage->FirstSeen);
    V.LastSeen = dayOf(Usage->LastSeen);
    V.Rule = Usage->Rule;
    V.LoggedAs = Usage->LoggedAs;
    return V;
  };
  std::vector<UsageVerdict> Removals, Candidates;
  for (const auto &EventAndUsage : Evidence.Events) {
    const std::string &Event = EventAndUsage.first;
    const auto &Usage = EventAndUsage.second;
    if (Placed.count(Event))
      continue;
    // A rule placed it when the usage was measured: ours, whatever layer's
    // globs match it (a layer accounts for events no rule places).
    bool PlacedThen = !Usage.Rule.empty();
    bool Ours =
        PlacedThen || Libraries.count(StringRef(Event).split('.').first.str());
    if (!Ours ||
        (!PlacedThen && llvm::any_of(Request.Layers, [&](const EventLayer &L) {
          return L.matches(Event);
        })))
      continue;
    UsageVerdict V = Verdict(UsageVerdict::RemovesUsed, Event, &Usage);
    if (V.Jobs < Request.MinJobs)
      V.What = UsageVerdict::RemovesRarelyUsed;
    Removals.push_back(std::move(V));
  }
  for (const std::string &Event : Measurable) {
    auto Usage = Evidence.Events.find(Event);
    const EventUsage *U =
        Usage == Evidence.Events.end() ? nullptr : &Usage->second;
    UsageVerdict V = Verdict(UsageVerdict::DeprecationCandidate, Event, U);
    if (V.Jobs < Request.MinJobs)
      Candidates.push_back(std::move(V));
  }
  llvm::append_range(Removals, Candidates);
  return Removals;
}

} // namespace apistamp
