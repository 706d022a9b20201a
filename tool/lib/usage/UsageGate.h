//===- UsageGate.h - Which removed events usage says are still used -*- C++
//-*-===//
//
// check --usage: the usage a report (report --format=json) or a warehouse's
// aggregates (docs/report-sql.md) records, judged against the events the
// current tree places. An event used by enough jobs that no longer has a
// place is a removal that breaks users; one used by fewer, or placed and
// never used, is a deprecation candidate. Data in, verdicts out: the check
// command turns them into findings.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_USAGEGATE_H
#define APISTAMP_LIB_USAGE_USAGEGATE_H

#include "../Catalog.h"
#include "UsageLog.h"
#include "apistamp/Rules.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <string>
#include <vector>

namespace apistamp {

/// What a usage file says of one event: its counts (JobsByDay holds jobs
/// per period, by the period's first day; see UsageEvidence::PeriodDays),
/// and what a saved report adds.
struct EventUsage : EventCounts {
  /// A saved report's rule for the event when it was made ("" if none).
  std::string Rule;
  /// The names it was counted under, when aliases merged several.
  std::vector<std::string> LoggedAs;
};

/// A usage file as the gate reads it.
struct UsageEvidence {
  std::string Path;
  /// The days of a period of JobsByPeriod: 1, or 7 for a report whose trend
  /// is by week.
  unsigned PeriodDays = 1;
  std::map<std::string, EventUsage> Events;
};

/// Reads \p Path: a JSON report (`report --format=json`, version 1; every
/// section's events) or the aggregates CSV (docs/report-sql.md), as its
/// first byte says; an event \p Keep rejects is left out (a saved report's
/// placed events are always kept). Errors name the file.
llvm::Expected<UsageEvidence>
readUsageEvidence(llvm::StringRef Path,
                  llvm::function_ref<bool(llvm::StringRef)> Keep = nullptr);

/// \p Evidence with each event that \p Aliases map under its current name
/// (counts added: an upper bound when a job logged both).
void mergeAliases(UsageEvidence &Evidence, llvm::ArrayRef<EventAlias> Aliases);

/// The jobs of \p Usage at or after \p Since (all if empty): exact when
/// the event was first seen since then, else the sum of the jobs of the
/// periods that end after it (a job logged on several days counts once a
/// day: an upper bound, which errs towards keeping an API).
uint64_t jobsSince(const EventUsage &Usage, llvm::StringRef Since,
                   unsigned PeriodDays);

/// What the gate decides of an event.
struct UsageVerdict {
  enum Kind {
    /// Used by at least the minimum of jobs, and placed nowhere now.
    RemovesUsed,
    /// Placed nowhere now, and used by fewer jobs (or never).
    RemovesRarelyUsed,
    /// Placed, measurable, and used by fewer jobs than the minimum.
    DeprecationCandidate,
  } What;
  std::string Event;
  uint64_t Jobs = 0;
  /// The day the jobs are counted from: --since, or the first seen day; ""
  /// if never seen.
  std::string Since;
  std::string LastSeen; ///< Day; "" if never seen.
  std::string Rule;     ///< A saved report's rule for it, or "".
  std::vector<std::string> LoggedAs;
};

/// What the gate is asked.
struct GateRequest {
  uint64_t MinJobs = 1;
  std::string Since; ///< ISO 8601 prefix, or "".
  /// Events other layers log (torch's, the Python side's): never this
  /// library's removals.
  llvm::ArrayRef<EventLayer> Layers;
};

/// The verdicts on \p Evidence against \p Catalog (the current tree's
/// whole catalog), removals first, each by event name. An event of the
/// evidence is this library's when a saved report placed it, or its first
/// name component is a current event's, and no layer claims it.
std::vector<UsageVerdict> judgeUsage(const UsageEvidence &Evidence,
                                     llvm::ArrayRef<CatalogEvent> Catalog,
                                     const GateRequest &Request);

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_USAGEGATE_H
