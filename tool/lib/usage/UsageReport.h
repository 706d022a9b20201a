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
};

/// \p Status as the reports spell it: "used", "never-used" or "unknown".
llvm::StringRef statusName(EventStatus Status);

/// One row of the report.
struct ReportEvent {
  std::string Event;
  EventStatus Status = EventStatus::Unknown;
  const CatalogEvent *Placed = nullptr; ///< Null for unknown events.
  EventCounts Counts;
  /// Jobs per trend period (day or week), aligned with Report::Periods.
  std::vector<uint64_t> Trend;
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
