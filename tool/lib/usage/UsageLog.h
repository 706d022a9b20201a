//===- UsageLog.h - Read API usage logs into per-event counts ---*- C++ -*-===//
//
// The runtime's JSON lines ({"event", "time", "pid", "host", "exe", "rank",
// "job_id"}) from files, directories, stdin, gzip or zstd, streamed once:
// memory grows with the distinct (event, job) and (event, process) pairs,
// never with the input. Bad lines are counted, never fatal.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_USAGELOG_H
#define APISTAMP_LIB_USAGE_USAGELOG_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace apistamp {

/// A set of 64-bit hashes (open addressing, linear probing) that can
/// prefetch a key's slot before the key is inserted: counting a large log
/// is mostly waiting for cache misses in these sets, and the reader
/// overlaps them (UsageLog.cpp).
class HashSet64 {
public:
  size_t size() const { return Count + HasZero; }
  bool empty() const { return size() == 0; }
  void prefetch(uint64_t Key) const {
    if (!Slots.empty())
      __builtin_prefetch(&Slots[slotOf(Key)], /*write=*/1);
  }
  void insert(uint64_t Key);
  /// Adds every key of \p Other (moved in whole when this set is smaller).
  void merge(HashSet64 &&Other);

private:
  size_t slotOf(uint64_t Key) const {
    return size_t((Key * 0x9E3779B97F4A7C15ULL) >> Shift);
  }
  void grow();

  std::vector<uint64_t> Slots; ///< 0: empty (key 0 is HasZero).
  size_t Count = 0;            ///< Nonzero keys.
  bool HasZero = false;
  unsigned Shift = 64;
};

/// What the logs say about one event.
struct EventUsage {
  /// Hashes of job ids; a line without one counts its process as its job.
  HashSet64 Jobs;
  HashSet64 Processes; ///< (host, pid, exe).
  HashSet64 Hosts;
  std::string FirstSeen, LastSeen; ///< ISO 8601 times, as logged.
  /// Jobs per day ("2026-11-23").
  std::map<std::string, HashSet64> JobsByDay;
  /// The reader's cache: JobsByDay's entry of the last line's day.
  std::string LastDay;
  HashSet64 *LastDaySet = nullptr;

  void merge(EventUsage &&Other);
};

/// Where a log's bad lines are: the count and the first few.
struct LogFileProblems {
  std::string File;
  bool Unreadable = false;
  std::string Error; ///< Why it could not be read.
  uint64_t Malformed = 0;
  /// (line number, what is wrong) of the first few malformed lines.
  std::vector<std::pair<uint64_t, std::string>> First;
};

/// Everything read from some logs.
struct UsageTable {
  llvm::StringMap<EventUsage> Events;
  unsigned Files = 0; ///< Inputs read (unreadable ones not included).
  uint64_t Lines = 0, EventLines = 0, Malformed = 0, OutsideWindow = 0;
  std::vector<LogFileProblems> Problems; ///< Files with bad lines or errors.

  void merge(UsageTable &&Other);
  /// The same, merging the events' sets on \p Threads threads.
  void merge(UsageTable &&Other, unsigned Threads);
};

/// Which lines count: times in [Since, Until), compared as ISO 8601 text
/// ("2026-11" is the start of November); empty means unbounded.
struct LogWindow {
  std::string Since, Until;
};

/// Reads one log (a file, or "-" for stdin); gzip and zstd are recognised
/// by their magic bytes.
UsageTable readUsageLog(llvm::StringRef Path, const LogWindow &Window);

/// Reads one log's text already in memory (for tests and --aggregates).
UsageTable readUsageText(llvm::StringRef Name, llvm::StringRef Text,
                         const LogWindow &Window);

/// The log files named by \p Inputs: files and "-" as given, directories
/// searched for *.jsonl, *.jsonl.gz and *.jsonl.zst (sorted). Names that
/// do not exist go to \p Missing.
std::vector<std::string> expandLogInputs(llvm::ArrayRef<std::string> Inputs,
                                         std::vector<std::string> &Missing);

/// Reads every log with \p Threads threads and merges the counts.
UsageTable readUsageLogs(llvm::ArrayRef<std::string> Files,
                         const LogWindow &Window, unsigned Threads);

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_USAGELOG_H
