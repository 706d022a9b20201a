//===- UsageReport.h - Events placed vs. events used ------------*- C++ -*-===//
//
// `apistamp report`: the catalog (every event the rules place) joined with
// what the logs say (jobs, processes, hosts, first and last seen, a trend),
// as plain data, and its renderings: text, CSV, JSON (a versioned
// contract), Markdown and a self-contained HTML page.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_USAGEREPORT_H
#define APISTAMP_LIB_USAGE_USAGEREPORT_H

#include "../Catalog.h"
#include "UsageLog.h"
#include "apistamp/Options.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"
#include <string>
#include <vector>

namespace apistamp {

/// Reads `apistamp catalog --format=json` output (ReportInputs.cpp); errors
/// name the file.
llvm::Expected<std::vector<CatalogEvent>> readCatalogFile(llvm::StringRef Path);
/// The same from its text; \p Name names it in errors.
llvm::Expected<std::vector<CatalogEvent>> parseCatalog(llvm::StringRef Text,
                                                       llvm::StringRef Name);

/// Reads the CSV that docs/report-sql.md's SQL produces (event, day, jobs,
/// processes, hosts, first_seen, last_seen; a row with an empty day holds
/// an event's totals, one with a day its jobs that day).
/// Rows whose event \p Keep rejects are checked, not kept.
llvm::Expected<UsageCounts>
readAggregates(llvm::StringRef Path,
               llvm::function_ref<bool(llvm::StringRef)> Keep = nullptr);

/// "PATH: error: MESSAGE", as the report's and the gate's input files say
/// what is wrong with them.
llvm::Error inputFileError(llvm::StringRef Path, const llvm::Twine &Message);

/// Adds \p From's counts to \p Into's (two names' counts, or a period's):
/// distinct counts are summed (an upper bound), times widened, days merged.
void addCounts(EventCounts &Into, const EventCounts &From);

/// Counts each event that \p Aliases map under its current name, for
/// counts that were made per name (aggregates, a saved report): the counts
/// of the names are added, an upper bound when a job logged both (the logs
/// themselves are counted exactly: readUsageLogs).
void mergeAliasedEvents(UsageCounts &Counts,
                        llvm::ArrayRef<EventAlias> Aliases);

/// Days since 1970-01-01 of "YYYY-MM-DD" (Howard Hinnant's algorithm), or
/// nullopt.
std::optional<int64_t> daysOf(llvm::StringRef Day);
/// The day \p Days after 1970-01-01, "YYYY-MM-DD" (daysOf's inverse).
std::string dayName(int64_t Days);

/// What the logs say of an event.
enum class EventStatus {
  Used,      ///< Placed by a rule, and logged by at least one job.
  NeverUsed, ///< Placed by a rule, and logged by no job.
  /// Logged, placed by no rule, declared by no layer, and (unless
  /// UnknownScope::All) its first name component is a catalog event's.
  Unknown,
  /// Placed by a rule, logged by no job, and every definition placing it
  /// skipped or suppressed: nothing could have logged it.
  NotMeasured,
  /// Logged, placed by no rule, and matched by a layer's globs.
  Layer,
  /// Logged, placed by no rule, declared by no layer, and its first name
  /// component is no catalog event's: another library's event.
  OtherLibrary,
};

/// \p Status as the reports spell it: "used", "never-used", "unknown",
/// "not-measured", "layer" or "other-library".
llvm::StringRef statusName(EventStatus Status);

/// An event's jobs per trend period, kept for the periods that have any:
/// an event logged on a few days of many costs what it logged.
class SparseTrend {
public:
  /// Adds \p Jobs to period \p Period, which is no earlier than the
  /// periods added before.
  void add(uint32_t Period, uint64_t Jobs) {
    if (!Entries.empty() && Entries.back().first == Period)
      Entries.back().second += Jobs;
    else
      Entries.push_back({Period, Jobs});
  }
  /// The jobs of period \p Period.
  uint64_t operator[](size_t Period) const;
  /// The jobs of each of \p Periods periods, in order.
  std::vector<uint64_t> dense(size_t Periods) const;
  /// (period, jobs) of the periods with jobs, in order.
  const std::vector<std::pair<uint32_t, uint64_t>> &entries() const {
    return Entries;
  }

private:
  std::vector<std::pair<uint32_t, uint64_t>> Entries;
};

/// The most trend periods a report keeps: the latest ones (ten years of
/// weeks).
constexpr size_t MaxTrendPeriods = 520;

/// One row of the report.
struct ReportEvent {
  std::string Event;
  EventStatus Status = EventStatus::Unknown;
  const CatalogEvent *Placed = nullptr; ///< Null for unknown events.
  EventCounts Counts;
  /// Jobs per trend period (day or week), by index in Report::Periods.
  SparseTrend Trend;
};

/// Logged events that the catalog does not list and something else
/// accounts for: a layer's, or another library's.
struct EventGroup {
  /// The layer's name, or the library's (the events' first name
  /// component).
  std::string Name;
  /// A layer's globs, as declared; none for a library.
  std::vector<std::string> Globs;
  std::vector<ReportEvent> Events; ///< By jobs, then name.
};

/// What accounts for the logged events the catalog does not list, besides
/// "unknown".
struct UnplacedEvents {
  /// The layers that log events the rules do not place; the first whose
  /// globs match an event takes it.
  std::vector<EventLayer> Layers;
  /// Whether an event whose first name component no catalog event has is
  /// another library's (SameLibrary) or unknown (All).
  UnknownScope Unknown = UnknownScope::SameLibrary;
};

/// Per rule: events placed, and how many of them were used.
struct RuleCoverage {
  std::string Id;
  unsigned Events = 0, Used = 0;
  unsigned Percent = 0; ///< Used of Events, in whole percent (rounded down).
};

/// One API on both sides (EventPairs.h): its Python function's row, its C++
/// function's, and which of them the jobs reached.
struct ApiPair {
  const ReportEvent *Python = nullptr, *Cxx = nullptr;
  /// "both", "python only", "c++ only" or "neither".
  std::string Route;
};

/// The catalog joined with the counts, ready to render.
struct UsageReport {
  UsageCounts Inputs; ///< Events moved out; the input figures stay.
  std::vector<ReportEvent> Events; ///< The catalog's, by jobs then name.
  /// Logged, placed by no rule, and accounted for by neither a layer nor
  /// another library.
  std::vector<ReportEvent> Unknown;
  /// Every layer declared, in order, with the logged events it accounts
  /// for (none, perhaps).
  std::vector<EventGroup> Layers;
  /// The logged events of other libraries, by library name.
  std::vector<EventGroup> OtherLibraries;
  UnknownScope Scope = UnknownScope::SameLibrary; ///< As --unknown said.
  unsigned Used = 0; ///< Events whose status is Used.
  std::vector<RuleCoverage> Rules;
  /// The APIs whose Python and C++ functions both log, by Python event.
  std::vector<ApiPair> Pairs;
  std::string TrendUnit;            ///< "day" or "week" (spans over 92 days).
  std::vector<std::string> Periods; ///< First day of each period.
  /// The periods logged: more than Periods when they were capped to the
  /// latest MaxTrendPeriods.
  size_t PeriodsLogged = 0;
};

/// Joins the catalog with the counts (UsageReport.cpp): a logged event is
/// the catalog's if it lists it, else the first layer's whose globs match
/// it, else another library's or unknown as \p Unplaced says.
UsageReport buildReport(const std::vector<CatalogEvent> &Catalog,
                        UsageCounts &&Counts,
                        const UnplacedEvents &Unplaced = {});

/// The number of events in \p Groups.
size_t eventsIn(llvm::ArrayRef<EventGroup> Groups);

/// The placed events of a rule or a file: how many, how many used, and
/// the jobs of all of them.
struct GroupCoverage {
  std::string Key; ///< The rule's id, or the file.
  unsigned Events = 0, Used = 0;
  unsigned Percent = 0; ///< Used of Events, in whole percent (rounded down).
  uint64_t Jobs = 0;
};

/// The report's placed events grouped by \p By (Rule, File, Module or
/// Language), by key.
std::vector<GroupCoverage> groupCoverage(const UsageReport &Report,
                                         ReportGrouping By);

/// What \p By groups by, as a heading: "rule", "file", "module",
/// "language".
llvm::StringRef groupingName(ReportGrouping By);

/// The language of a placed event: the catalog's, else by its file
/// (".py" is Python's), "c++" otherwise.
std::string languageOf(const CatalogEvent &C);

/// The package of a placed event: its file's directory, dotted
/// ("torchvision/transforms/transforms.py" is "torchvision.transforms");
/// "(top level)" for a file at the root.
std::string packageOf(const CatalogEvent &C);

/// Renders \p Report (UsageRender.cpp); \p Verbose adds the first
/// malformed lines per file.
void printReport(llvm::raw_ostream &OS, const UsageReport &Report,
                 ReportFormat Format, ReportGrouping By, bool Verbose);

/// The HTML page (UsageHtml.cpp).
void printReportHtml(llvm::raw_ostream &OS, const UsageReport &Report);

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_USAGEREPORT_H
