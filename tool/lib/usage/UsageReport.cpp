//===- UsageReport.cpp - The catalog joined with the logs' counts ---------===//
//
// buildReport: one row per event the catalog places (its first definition
// by file and line), its counts and status, the logged events no rule
// places (a layer's, another library's or unknown), coverage per rule, and
// the trend's periods (days, or weeks when the logs span more than a
// quarter). The renderers (UsageRender.cpp, UsageHtml.cpp) print what is
// computed here.
//
//===----------------------------------------------------------------------===//

#include "UsageReport.h"
#include "../EventPairs.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <set>
#include <tuple>

using namespace llvm;

namespace apistamp {

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
      (DayOfEra - DayOfEra / 1460 + DayOfEra / 36524 - DayOfEra / 146096) / 365;
  int64_t Y = YearOfEra + Era * 400;
  int64_t DayOfYear =
      DayOfEra - (365 * YearOfEra + YearOfEra / 4 - YearOfEra / 100);
  int64_t MP = (5 * DayOfYear + 2) / 153;
  int64_t D = DayOfYear - (153 * MP + 2) / 5 + 1;
  int64_t M = MP < 10 ? MP + 3 : MP - 9;
  return formatv("{0:D4}-{1:D2}-{2:D2}", Y + (M <= 2), M, D).str();
}

namespace {

/// Trends over a span of up to this many days are per day, longer ones per
/// week (a quarter of daily columns stays readable).
constexpr int64_t DailyTrendMaxDays = 92;

/// The Monday that starts \p Day's week (ISO weeks), as a day name.
std::string weekOf(StringRef Day) {
  std::optional<int64_t> Days = daysOf(Day);
  if (!Days)
    return Day.str();
  // 1970-01-01 was a Thursday: Monday is 3 days before it.
  int64_t Monday = *Days - ((*Days + 3) % 7 + 7) % 7;
  return dayName(Monday);
}

/// \p Used of \p Events in whole percent, rounded down; 0 of none.
unsigned percentOf(unsigned Used, unsigned Events) {
  return Events ? Used * 100 / Events : 0;
}

/// Per event, the first definition by file and line: the one that places
/// it.
std::map<std::string, const CatalogEvent *>
placedEvents(const std::vector<CatalogEvent> &Catalog) {
  std::map<std::string, const CatalogEvent *> Placed;
  for (const CatalogEvent &C : Catalog) {
    const CatalogEvent *&Slot = Placed[C.Event];
    if (!Slot || std::tie(C.File, C.Line) < std::tie(Slot->File, Slot->Line))
      Slot = &C;
  }
  return Placed;
}

/// The trend's periods: the days logged, or their weeks when the logs span
/// more than a quarter.
class TrendPeriods {
public:
  explicit TrendPeriods(const UsageCounts &Counts) {
    std::set<std::string> Days;
    for (const auto &Entry : Counts.Events)
      for (const auto &Day : Entry.second.JobsByDay)
        Days.insert(Day.first);
    if (!Days.empty())
      if (std::optional<int64_t> First = daysOf(*Days.begin()))
        if (std::optional<int64_t> Last = daysOf(*Days.rbegin()))
          Weekly = *Last - *First > DailyTrendMaxDays;
    std::set<std::string> Unique;
    for (const std::string &Day : Days)
      Unique.insert(Weekly ? weekOf(Day) : Day);
    Logged = Unique.size();
    // The latest periods, when there are too many to draw or to hold per
    // event.
    auto First = Unique.begin();
    std::advance(First, Logged - std::min(Logged, MaxTrendPeriods));
    Periods.assign(First, Unique.end());
  }

  /// "day" or "week".
  std::string unit() const { return Weekly ? "week" : "day"; }
  /// The first day of each period, in order.
  const std::vector<std::string> &periods() const { return Periods; }
  /// The periods logged, those dropped by the cap included.
  size_t logged() const { return Logged; }

  /// \p C's jobs per period (days are in order, and so are their periods).
  SparseTrend trendOf(const EventCounts &C) const {
    SparseTrend Trend;
    for (const auto &[Day, Jobs] : C.JobsByDay) {
      std::string Period = Weekly ? weekOf(Day) : Day;
      auto It = llvm::lower_bound(Periods, Period);
      if (It != Periods.end() && *It == Period)
        Trend.add(uint32_t(It - Periods.begin()), Jobs);
    }
    return Trend;
  }

private:
  bool Weekly = false;
  std::vector<std::string> Periods;
  size_t Logged = 0;
};

/// \p Event's first name component: up to its first '.'.
StringRef firstComponent(StringRef Event) { return Event.split('.').first; }

/// Rows by jobs (most first), then by name.
void sortByJobs(std::vector<ReportEvent> &Rows) {
  llvm::stable_sort(Rows, [](const ReportEvent &L, const ReportEvent &R) {
    return std::make_pair(~L.Counts.Jobs, StringRef(L.Event)) <
           std::make_pair(~R.Counts.Jobs, StringRef(R.Event));
  });
}

} // namespace

uint64_t SparseTrend::operator[](size_t Period) const {
  auto It = llvm::lower_bound(
      Entries, Period, [](const auto &E, size_t P) { return E.first < P; });
  return It != Entries.end() && It->first == Period ? It->second : 0;
}

std::vector<uint64_t> SparseTrend::dense(size_t Periods) const {
  std::vector<uint64_t> Jobs(Periods);
  for (const auto &[Period, N] : Entries)
    if (Period < Periods)
      Jobs[Period] = N;
  return Jobs;
}

StringRef statusName(EventStatus Status) {
  switch (Status) {
  case EventStatus::Used:
    return "used";
  case EventStatus::NeverUsed:
    return "never-used";
  case EventStatus::Unknown:
    return "unknown";
  case EventStatus::NotMeasured:
    return "not-measured";
  case EventStatus::Layer:
    return "layer";
  case EventStatus::OtherLibrary:
    return "other-library";
  }
  llvm_unreachable("unknown EventStatus");
}

size_t eventsIn(ArrayRef<EventGroup> Groups) {
  size_t N = 0;
  for (const EventGroup &G : Groups)
    N += G.Events.size();
  return N;
}

/// Adds a row to \p Report for each event the catalog places, with the
/// counts taken out of \p Counts; returns each rule's coverage.
static std::map<std::string, RuleCoverage>
addPlacedEvents(UsageReport &Report, const std::vector<CatalogEvent> &Catalog,
                UsageCounts &Counts, const TrendPeriods &Trend) {
  std::map<std::string, RuleCoverage> Rules;
  // An event is measured if any definition that places it can log it.
  std::set<std::string> Unmeasured, Measured;
  for (const CatalogEvent &C : Catalog)
    (C.unmeasurable() ? Unmeasured : Measured).insert(C.Event);
  for (const std::string &Event : Measured)
    Unmeasured.erase(Event);
  for (const auto &[Event, C] : placedEvents(Catalog)) {
    ReportEvent Row;
    Row.Event = Event;
    Row.Placed = C;
    auto Logged = Counts.Events.find(Event);
    if (Logged != Counts.Events.end()) {
      Row.Counts = std::move(Logged->second);
      Counts.Events.erase(Logged);
    }
    Row.Status = Row.Counts.Jobs           ? EventStatus::Used
                 : Unmeasured.count(Event) ? EventStatus::NotMeasured
                                           : EventStatus::NeverUsed;
    Row.Trend = Trend.trendOf(Row.Counts);
    RuleCoverage &R = Rules[C->Rule];
    R.Id = C->Rule;
    ++R.Events;
    R.Used += Row.Status == EventStatus::Used;
    Report.Used += Row.Status == EventStatus::Used;
    Report.Events.push_back(std::move(Row));
  }
  return Rules;
}

/// Adds what the catalog does not list: the first layer's that matches it,
/// else another library's when no catalog event shares its first name
/// component, else unknown. An empty catalog names no library of its own:
/// nothing is another's.
static void addUnplacedEvents(UsageReport &Report,
                              const std::vector<CatalogEvent> &Catalog,
                              UsageCounts &Counts, const TrendPeriods &Trend,
                              const UnplacedEvents &Unplaced) {
  for (const EventLayer &L : Unplaced.Layers) {
    EventGroup G;
    G.Name = L.Name;
    for (const EventGlob &Glob : L.Globs)
      G.Globs.push_back(Glob.pattern());
    Report.Layers.push_back(std::move(G));
  }
  std::set<StringRef> Libraries;
  for (const CatalogEvent &C : Catalog)
    Libraries.insert(firstComponent(C.Event));
  std::map<std::string, EventGroup> Others;
  // Each entry taken out as its row is made: the two never both hold all.
  while (!Counts.Events.empty()) {
    auto Entry = Counts.Events.extract(Counts.Events.begin());
    ReportEvent Row;
    Row.Event = std::move(Entry.key());
    Row.Counts = std::move(Entry.mapped());
    Row.Trend = Trend.trendOf(Row.Counts);
    const std::string &Event = Row.Event;
    auto Layer = llvm::find_if(Unplaced.Layers, [&](const EventLayer &L) {
      return L.matches(Row.Event);
    });
    StringRef Library = firstComponent(Event);
    if (Layer != Unplaced.Layers.end()) {
      Row.Status = EventStatus::Layer;
      Report.Layers[Layer - Unplaced.Layers.begin()].Events.push_back(
          std::move(Row));
    } else if (Unplaced.Unknown == UnknownScope::SameLibrary &&
               !Libraries.empty() && !Library.empty() &&
               !Libraries.count(Library)) {
      Row.Status = EventStatus::OtherLibrary;
      EventGroup &G = Others[Library.str()];
      G.Name = Library.str();
      G.Events.push_back(std::move(Row));
    } else {
      Row.Status = EventStatus::Unknown;
      Report.Unknown.push_back(std::move(Row));
    }
  }
  for (auto &Entry : Others)
    Report.OtherLibraries.push_back(std::move(Entry.second));
}

UsageReport buildReport(const std::vector<CatalogEvent> &Catalog,
                        UsageCounts &&Counts, const UnplacedEvents &Unplaced) {
  UsageReport Report;
  Report.Scope = Unplaced.Unknown;
  TrendPeriods Trend(Counts);
  Report.TrendUnit = Trend.unit();
  Report.Periods = Trend.periods();
  Report.PeriodsLogged = Trend.logged();
  std::map<std::string, RuleCoverage> Rules =
      addPlacedEvents(Report, Catalog, Counts, Trend);
  addUnplacedEvents(Report, Catalog, Counts, Trend, Unplaced);
  sortByJobs(Report.Events);
  sortByJobs(Report.Unknown);
  for (std::vector<EventGroup> *Groups :
       {&Report.Layers, &Report.OtherLibraries})
    for (EventGroup &G : *Groups)
      sortByJobs(G.Events);
  for (auto &Entry : Rules) {
    Entry.second.Percent = percentOf(Entry.second.Used, Entry.second.Events);
    Report.Rules.push_back(Entry.second);
  }
  std::map<StringRef, const ReportEvent *> Row;
  for (const ReportEvent &E : Report.Events)
    Row[E.Event] = &E;
  for (auto [P, C] : pairedEvents(Catalog)) {
    ApiPair Pair;
    Pair.Python = Row.at(Catalog[P].Event);
    Pair.Cxx = Row.at(Catalog[C].Event);
    bool PythonUsed = Pair.Python->Status == EventStatus::Used;
    bool CxxUsed = Pair.Cxx->Status == EventStatus::Used;
    Pair.Route = PythonUsed && CxxUsed ? "both"
                 : PythonUsed          ? "python only"
                 : CxxUsed             ? "c++ only"
                                       : "neither";
    Report.Pairs.push_back(std::move(Pair));
  }
  Counts.Events.clear();
  Report.Inputs = std::move(Counts);
  return Report;
}

StringRef groupingName(ReportGrouping By) {
  switch (By) {
  case ReportGrouping::Event:
    return "event";
  case ReportGrouping::Rule:
    return "rule";
  case ReportGrouping::File:
    return "file";
  case ReportGrouping::Module:
    return "module";
  case ReportGrouping::Language:
    return "language";
  }
  llvm_unreachable("unknown ReportGrouping");
}

std::string languageOf(const CatalogEvent &C) {
  if (!C.Language.empty())
    return C.Language;
  return StringRef(C.File).ends_with(".py") ? "python" : "c++";
}

std::string packageOf(const CatalogEvent &C) {
  StringRef Dir = C.File;
  size_t Slash = Dir.find_last_of("/\\");
  if (Slash == StringRef::npos)
    return "(top level)";
  std::string Dotted = Dir.take_front(Slash).str();
  std::replace(Dotted.begin(), Dotted.end(), '/', '.');
  std::replace(Dotted.begin(), Dotted.end(), '\\', '.');
  return Dotted;
}

std::vector<GroupCoverage> groupCoverage(const UsageReport &R,
                                         ReportGrouping By) {
  std::map<std::string, GroupCoverage> Groups;
  for (const ReportEvent &E : R.Events) {
    std::string Key = By == ReportGrouping::Rule       ? E.Placed->Rule
                      : By == ReportGrouping::Module   ? packageOf(*E.Placed)
                      : By == ReportGrouping::Language ? languageOf(*E.Placed)
                                                       : E.Placed->File;
    GroupCoverage &G = Groups[Key];
    G.Key = Key;
    ++G.Events;
    G.Used += E.Status == EventStatus::Used;
    G.Jobs += E.Counts.Jobs;
  }
  std::vector<GroupCoverage> Rows;
  for (auto &Entry : Groups) {
    Entry.second.Percent = percentOf(Entry.second.Used, Entry.second.Events);
    Rows.push_back(Entry.second);
  }
  return Rows;
}

} // namespace apistamp
