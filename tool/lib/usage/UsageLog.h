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
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace apistamp {

/// Where a log's bad lines are: the count and the first few.
struct LogFileProblems {
  std::string File;
  bool Unreadable = false;
  std::string Error; ///< Why it could not be read.
  /// Error says that the file was cut off: it has no rest that was not
  /// read.
  bool Truncated = false;
  uint64_t Malformed = 0;
  /// (line number, what is wrong) of the first few malformed lines.
  std::vector<std::pair<uint64_t, std::string>> First;
};

/// The counts of one event, from logs or from warehouse aggregates.
struct EventCounts {
  uint64_t Jobs = 0, Processes = 0, Hosts = 0;
  std::string FirstSeen, LastSeen; ///< ISO 8601 times, as logged.
  /// Distinct jobs per day ("2026-11-23"), by day.
  std::vector<std::pair<std::string, uint64_t>> JobsByDay;
};

/// The counts of every logged event, and what was read.
struct UsageCounts {
  std::map<std::string, EventCounts> Events;
  unsigned Files = 0; ///< Inputs read (unreadable ones not included).
  uint64_t Lines = 0, EventLines = 0, Malformed = 0, OutsideWindow = 0;
  std::vector<LogFileProblems> Problems; ///< Files with bad lines or errors.
};

/// Which lines count: times in [Since, Until), compared as ISO 8601 text
/// ("2026-11" is the start of November); empty means unbounded.
struct LogWindow {
  std::string Since, Until;
};

/// Reads one log (a file, or "-" for stdin); gzip and zstd are recognised
/// by their magic bytes.
UsageCounts readUsageLog(llvm::StringRef Path, const LogWindow &Window);

/// Reads one log's text already in memory (for tests and --aggregates).
UsageCounts readUsageText(llvm::StringRef Name, llvm::StringRef Text,
                          const LogWindow &Window);

/// The log files named by \p Inputs (LogInputs.cpp): regular files and "-"
/// as given, directories searched for *.jsonl, *.jsonl.gz and *.jsonl.zst
/// (sorted), following symbolic links but no loop: each directory and
/// file is taken once (by device and inode). Names that do not exist go to
/// \p Missing; what is not taken (a FIFO, a device, a directory that
/// cannot be read, a loop, a file met twice) goes to \p Skipped, as
/// "path: why".
std::vector<std::string> expandLogInputs(llvm::ArrayRef<std::string> Inputs,
                                         std::vector<std::string> &Missing,
                                         std::vector<std::string> &Skipped);

/// Opens the log \p Path to read it without blocking on a FIFO or a device
/// (non-blocking, then checked): its descriptor, or -1 with errno set
/// (EINVAL for what is not a regular file).
int openRegularFile(llvm::StringRef Path);

/// Plain log files of twice this size or more are read in parts of it.
constexpr uint64_t DefaultLogPartBytes = uint64_t(16) << 20;

/// Reads every log with \p Threads threads and counts what they say. Large
/// plain files are shared by the threads in parts of \p PartBytes.
UsageCounts readUsageLogs(llvm::ArrayRef<std::string> Files,
                          const LogWindow &Window, unsigned Threads,
                          uint64_t PartBytes = DefaultLogPartBytes);

/// For tests: reads the plain file \p Path as if it had \p Size bytes,
/// more than it has (a file that shrinks while it is read looks so), in
/// parts of \p PartBytes on \p Threads threads.
UsageCounts readUsageLogShrunk(llvm::StringRef Path, uint64_t Size,
                               const LogWindow &Window, unsigned Threads,
                               uint64_t PartBytes);

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_USAGELOG_H
