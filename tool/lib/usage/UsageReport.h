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

/// Reads `apistamp catalog --format=json` output; errors name the file.
llvm::Expected<std::vector<CatalogEvent>> readCatalogFile(llvm::StringRef Path);
/// The same from its text; \p Name names it in errors.
llvm::Expected<std::vector<CatalogEvent>> parseCatalog(llvm::StringRef Text,
                                                       llvm::StringRef Name);

/// Reads the CSV that docs/report-sql.md's SQL produces (event, day, jobs,
/// processes, hosts, first_seen, last_seen; a row with an empty day holds
/// an event's totals, one with a day its jobs that day).
llvm::Expected<UsageCounts> readAggregates(llvm::StringRef Path);

/// One row of the report.
struct ReportEvent {
  std::string Event;
  std::string Status; ///< "used", "never-used", or "unknown".
  const CatalogEvent *Placed = nullptr; ///< Null for unknown events.
  EventCounts Counts;
  /// Jobs per trend period (day or week), aligned with Report::Periods.
  std::vector<uint64_t> Trend;
};

/// Per rule: events placed, and how many of them were used.
struct RuleCoverage {
  std::string Id;
  unsigned Events = 0, Used = 0;
};

struct UsageReport {
  UsageCounts Inputs; ///< Events moved out; the input figures stay.
  std::vector<ReportEvent> Events;  ///< The catalog's, by jobs then name.
  std::vector<ReportEvent> Unknown; ///< Logged, placed by no rule.
  std::vector<RuleCoverage> Rules;
  std::string TrendUnit; ///< "day" or "week" (spans over 92 days).
  std::vector<std::string> Periods; ///< First day of each period.
};

/// Joins the catalog with the counts.
UsageReport buildReport(const std::vector<CatalogEvent> &Catalog,
                        UsageCounts &&Counts);

/// Renders \p Report; \p Verbose adds the first malformed lines per file.
void printReport(llvm::raw_ostream &OS, const UsageReport &Report,
                 ReportFormat Format, ReportGrouping By, bool Verbose);

/// The HTML page (UsageHtml.cpp).
void printReportHtml(llvm::raw_ostream &OS, const UsageReport &Report);

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_USAGEREPORT_H
