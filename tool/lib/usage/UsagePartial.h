//===- UsagePartial.h - The exact distinct keys of a set of logs -*- C++
//-*-===//
//
// `report --emit-partial` keeps what reading a set of logs found before it
// is counted: per event, the distinct keys of its jobs, processes and hosts
// and of its jobs per day, its first and last times, and what was read
// (files, lines, problems, stderr logs). `report --merge` unites partials:
// the union of their keys counts exactly what one pass over all their logs
// counts, and the memory it takes grows with the distinct keys, never with
// the lines read. The file format is docs/report.md's "Partials".
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_USAGEPARTIAL_H
#define APISTAMP_LIB_USAGE_USAGEPARTIAL_H

#include "LogCounts.h"
#include "UsageLog.h"
#include "apistamp/Rules.h"
#include "llvm/Support/Error.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace apistamp {

/// The version of the partial file format this apistamp writes and reads.
constexpr unsigned PartialFormatVersion = 1;

/// What a partial was counted with: partials merge only when these are
/// equal, for their union to be what one pass over their logs counts.
struct PartialSettings {
  std::string Since, Until;               ///< --since, --until.
  std::string StderrJobId, StderrJobFrom; ///< --stderr-job-id, -from.
  /// The rules' aliases (old name or glob, current name), in order: the
  /// first that maps a name is its.
  std::vector<std::pair<std::string, std::string>> Aliases;

  bool operator==(const PartialSettings &O) const {
    return Since == O.Since && Until == O.Until &&
           StderrJobId == O.StderrJobId && StderrJobFrom == O.StderrJobFrom &&
           Aliases == O.Aliases;
  }
  bool operator!=(const PartialSettings &O) const { return !(*this == O); }
};

/// The settings of counting \p Window, \p Jobs and \p Aliases.
PartialSettings partialSettings(const LogWindow &Window, const StderrJobs &Jobs,
                                llvm::ArrayRef<EventAlias> Aliases);

/// Distinct keys, ascending, each the top DistinctKeys::KeptKeyBits bits
/// of a key's hash (shifted down).
using PartialKeys = std::vector<uint64_t>;

/// One event's distinct keys and times.
struct PartialEvent {
  std::string FirstSeen, LastSeen;
  PartialKeys Jobs, Processes, Hosts;
  /// Jobs per day ("2026-11-23"), by day.
  std::vector<std::pair<std::string, PartialKeys>> Days;
};

/// A partial: its settings, what was read (Inputs' Events left empty) and
/// every event's keys, by its current name.
struct UsagePartial {
  PartialSettings Settings;
  UsageCounts Inputs;
  std::map<std::string, PartialEvent> Events;
};

/// \p Partial in the file format (docs/report.md).
std::string serializePartial(const UsagePartial &Partial);

/// Parses a partial file's bytes; \p Name names it in errors ("NAME:
/// error: ..."): another format version, a file that is not a partial, a
/// corrupt or truncated one. Never trusts the bytes.
llvm::Expected<UsagePartial> parsePartial(llvm::StringRef Bytes,
                                          llvm::StringRef Name);

/// Reads the partial file \p Path (parsePartial).
llvm::Expected<UsagePartial> readPartialFile(llvm::StringRef Path);

/// The keys and times the threads that read logs counted, as a partial's
/// events (every thread's Keys finished).
std::map<std::string, PartialEvent>
partialEventsOf(const CounterIds &Ids,
                llvm::ArrayRef<std::unique_ptr<ThreadCounts>> Threads);

/// Reads logs as readUsageLogs() does (the same arguments), and gives
/// their distinct keys, uncounted, with what was read and the settings.
UsagePartial readUsagePartial(llvm::ArrayRef<std::string> Files,
                              const LogWindow &Window, unsigned Threads,
                              uint64_t PartBytes, const StderrJobs &Jobs,
                              llvm::ArrayRef<EventAlias> Aliases);

/// Unites partials, one at a time: memory grows with their distinct keys
/// (DistinctKeys), and a partial is dropped once added.
class PartialMerger {
public:
  PartialMerger();
  ~PartialMerger();

  /// Adds \p Partial, named \p Name in errors; an error ("NAME: error:
  /// ...") when its settings are not those of the partials added before.
  llvm::Error add(UsagePartial &&Partial, llvm::StringRef Name);

  /// Partials added.
  unsigned partials() const { return Added; }

  /// The counts of all partials added, as one pass over their logs counts
  /// them; \p Threads count the keys. Call once.
  UsageCounts counts(unsigned Threads);

  /// All partials added as one partial. Call once, instead of counts().
  UsagePartial partial();

private:
  struct State;
  std::unique_ptr<State> S;
  unsigned Added = 0;
};

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_USAGEPARTIAL_H
