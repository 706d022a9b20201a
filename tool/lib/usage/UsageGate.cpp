//===- UsageGate.cpp - Which removed events usage says are still used -----===//

#include "UsageGate.h"
#include "UsageReport.h"
#include "llvm/ADT/STLExtras.h"
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

/// The evidence of aggregates (docs/report-sql.md): per day, exactly.
UsageEvidence fromCounts(StringRef Path, UsageCounts &&Counts) {
  UsageEvidence Evidence;
  Evidence.Path = Path.str();
  for (auto &[Name, C] : Counts.Events) {
    EventUsage &U = Evidence.Events[Name];
    U.Jobs = C.Jobs;
    U.FirstSeen = std::move(C.FirstSeen);
    U.LastSeen = std::move(C.LastSeen);
    U.JobsByPeriod = std::move(C.JobsByDay);
  }
  return Evidence;
}

/// The evidence a saved JSON report (version 1) gives: every section's
/// events, with their trend.
Expected<UsageEvidence> fromReport(StringRef Path, const json::Value &Doc) {
  auto Bad = [&](const Twine &Why) {
    return fileError(Path, "not a usage report (apistamp report "
                           "--format=json): " +
                               Why);
  };
  const json::Object *Report = Doc.getAsObject();
  if (!Report)
    return Bad("expected a JSON object");
  if (Report->getInteger("version") != 1)
    return Bad("expected \"version\": 1");
  UsageEvidence Evidence;
  Evidence.Path = Path.str();
  std::vector<std::string> Periods;
  if (const json::Object *Trend = Report->getObject("trend")) {
    if (Trend->getString("unit") == "week")
      Evidence.PeriodDays = 7;
    if (const json::Array *P = Trend->getArray("periods"))
      for (const json::Value &Day : *P)
        Periods.push_back(Day.getAsString().value_or("").str());
  }
  auto Take = [&](const json::Array *Rows, bool Placed) -> Error {
    if (!Rows)
      return Error::success();
    for (size_t I = 0; I < Rows->size(); ++I) {
      const json::Object *Row = (*Rows)[I].getAsObject();
      std::optional<StringRef> Event =
          Row ? Row->getString("event") : std::nullopt;
      std::optional<int64_t> Jobs =
          Row ? Row->getInteger("jobs") : std::nullopt;
      if (!Event || Event->empty() || !Jobs || *Jobs < 0)
        return Bad("an event row without an 'event' or its 'jobs'");
      EventUsage &U = Evidence.Events[Event->str()];
      U.Jobs = uint64_t(*Jobs);
      U.FirstSeen = Row->getString("first_seen").value_or("").str();
      U.LastSeen = Row->getString("last_seen").value_or("").str();
      if (Placed)
        U.Rule = Row->getString("rule").value_or("").str();
      if (const json::Array *Trend = Row->getArray("trend"))
        for (size_t P = 0; P < Trend->size() && P < Periods.size(); ++P)
          if (int64_t N = (*Trend)[P].getAsInteger().value_or(0); N > 0)
            U.JobsByPeriod.push_back({Periods[P], uint64_t(N)});
    }
    return Error::success();
  };
  if (Error E = Take(Report->getArray("events"), true))
    return E;
  if (Error E = Take(Report->getArray("unknown"), false))
    return E;
  for (StringRef Section : {"layers", "other_libraries"})
    if (const json::Array *Groups = Report->getArray(Section))
      for (const json::Value &G : *Groups)
        if (const json::Object *Group = G.getAsObject())
          if (Error E = Take(Group->getArray("events"), false))
            return E;
  return Evidence;
}

/// "2026-11-20" of "2026-11-20T10:00:00Z"; "" of "".
std::string dayOf(StringRef Time) { return Time.take_front(10).str(); }

} // namespace

Expected<UsageEvidence> readUsageEvidence(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return fileError(Path, "cannot read the usage file: " +
                               Buffer.getError().message());
  StringRef Text = (*Buffer)->getBuffer().ltrim();
  if (Text.starts_with("{")) {
    Expected<json::Value> Doc = json::parse(Text);
    if (!Doc) {
      std::string Why = toString(Doc.takeError());
      Expected<json::Value> First = json::parse(Text.split('\n').first);
      const json::Object *Line = First ? First->getAsObject() : nullptr;
      if (!First)
        consumeError(First.takeError());
      if (Line && Line->getString("event"))
        return fileError(Path, "a usage log, not a usage report: pass its "
                               "report ('apistamp report --format=json "
                               "LOGS -o usage.json')");
      return fileError(Path, "not a usage report (apistamp report "
                             "--format=json): " +
                                 Why);
    }
    return fromReport(Path, *Doc);
  }
  Expected<UsageCounts> Counts = readAggregates(Path);
  if (!Counts)
    return fileError(Path,
                     "a usage file is a JSON report (apistamp report "
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
    Into.Jobs += Usage.Jobs;
    if (!Usage.FirstSeen.empty() &&
        (Into.FirstSeen.empty() || Usage.FirstSeen < Into.FirstSeen))
      Into.FirstSeen = Usage.FirstSeen;
    if (Usage.LastSeen > Into.LastSeen)
      Into.LastSeen = Usage.LastSeen;
    if (Into.Rule.empty())
      Into.Rule = Usage.Rule;
    std::map<std::string, uint64_t> Periods(Into.JobsByPeriod.begin(),
                                            Into.JobsByPeriod.end());
    for (const auto &[Period, Jobs] : Usage.JobsByPeriod)
      Periods[Period] += Jobs;
    Into.JobsByPeriod.assign(Periods.begin(), Periods.end());
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
  for (const auto &[Start, N] : Usage.JobsByPeriod) {
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
  for (const auto &[Event, Usage] : Evidence.Events) {
    if (Placed.count(Event))
      continue;
    bool Ours = !Usage.Rule.empty() ||
                Libraries.count(StringRef(Event).split('.').first.str());
    if (!Ours || llvm::any_of(Request.Layers, [&](const EventLayer &L) {
          return L.matches(Event);
        }))
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
