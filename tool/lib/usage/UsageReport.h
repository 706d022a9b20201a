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
llvm::Expected<UsageCounts> readAggregates(llvm::StringRef Path);

/// What the logs say of an event.
enum class EventStatus {
  Used,      ///< Placed by a rule, and logged by at least one job.
  NeverUsed, ///< Placed by a rule, and logged by no job.
  Unknown,   ///< Logged, and placed by no rule.
  /// Placed by a rule, logged by no job, and every definition placing it
  /// skipped or suppressed: nothing could have logged it.
  NotMeasured,
};

/// \p Status as the reports spell it: "used", "never-used", "unknown" or
/// "not-measured".
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

/// Per rule: events placed, and how many of them were used.
struct RuleCoverage {
  std::string Id;
  unsigned Events = 0, Used = 0;
  unsigned Percent = 0; ///< Used of Events, in whole percent (rounded down).
};

/// The catalog joined with the counts, ready to render.
struct UsageReport {
  UsageCounts Inputs; ///< Events moved out; the input figures stay.
  std::vector<ReportEvent> Events;  ///< The catalog's, by jobs then name.
  std::vector<ReportEvent> Unknown; ///< Logged, placed by no rule.
  unsigned Used = 0;                ///< Events whose status is Used.
  std::vector<RuleCoverage> Rules;
  std::string TrendUnit;            ///< "day" or "week" (spans over 92 days).
  std::vector<std::string> Periods; ///< First day of each period.
  /// The periods logged: more than Periods when they were capped to the
  /// latest MaxTrendPeriods.
  size_t PeriodsLogged = 0;
};

/// Joins the catalog with the counts (UsageReport.cpp).
UsageReport buildReport(const std::vector<CatalogEvent> &Catalog,
                        UsageCounts &&Counts);

/// The placed events of a rule or a file: how many, how many used, and
/// the jobs of all of them.
struct GroupCoverage {
  std::string Key; ///< The rule's id, or the file.
  unsigned Events = 0, Used = 0;
  unsigned Percent = 0; ///< Used of Events, in whole percent (rounded down).
  uint64_t Jobs = 0;
};

/// The report's placed events grouped by \p By (Rule or File), by key.
std::vector<GroupCoverage> groupCoverage(const UsageReport &Report,
                                         ReportGrouping By);

/// Renders \p Report (UsageRender.cpp); \p Verbose adds the first
/// malformed lines per file.
void printReport(llvm::raw_ostream &OS, const UsageReport &Report,
                 ReportFormat Format, ReportGrouping By, bool Verbose);

/// The HTML page (UsageHtml.cpp).
void printReportHtml(llvm::raw_ostream &OS, const UsageReport &Report);

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_USAGEREPORT_H
