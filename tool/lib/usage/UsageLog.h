//===- UsageLog.h - Read API usage logs into per-event counts ---*- C++ -*-===//
//
// The runtime's JSON lines ({"event", "time", "pid", "host", "exe", "rank",
// "job_id"}) or c10's stderr form ("PYTORCH_API_USAGE <event>" lines among
// a process's other output) from files, directories, stdin, gzip or zstd,
// streamed once: memory grows with the distinct (event, job) and (event,
// process) pairs, never with the input. Bad lines are counted, never
// fatal.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_USAGELOG_H
#define APISTAMP_LIB_USAGE_USAGELOG_H

#include "apistamp/Rules.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <map>
#include <optional>
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

/// What a log in c10's stderr form (PYTORCH_API_USAGE lines) does not
/// say: its lines' time and its job. Its process is its own.
struct StderrFileInfo {
  std::string Time; ///< ISO 8601, as the runtime writes it.
  std::optional<std::string> Job;
};

/// A log read in c10's stderr form: one process, its lines all at one time.
struct StderrLog {
  std::string File;
  std::string Time;               ///< Its events' time: the file's mtime.
  std::optional<std::string> Job; ///< Unknown: the process is its own job.
  /// --stderr-job-from did not match the file's base name.
  bool NameUnmatched = false;
  /// PYTORCH_API_USAGE lines read (in --since/--until or not), the other
  /// lines (the rest of the process's stderr), and PYTORCH_API_USAGE lines
  /// whose event is not one.
  uint64_t Events = 0, Ignored = 0, Malformed = 0;
  /// (line number, what is wrong) of the first few malformed lines.
  std::vector<std::pair<uint64_t, std::string>> First;
};

/// The counts of every logged event, and what was read.
struct UsageCounts {
  std::map<std::string, EventCounts> Events;
  unsigned Files = 0; ///< Inputs read (unreadable ones not included).
  /// Lines: non-blank lines; Malformed: those of JSON-lines logs only (a
  /// stderr log's are in its StderrLog).
  uint64_t Lines = 0, EventLines = 0, Malformed = 0, OutsideWindow = 0;
  /// The distinct jobs that logged any event.
  uint64_t Jobs = 0;
  std::vector<LogFileProblems> Problems; ///< Files with bad lines or errors.
  std::vector<StderrLog> StderrLogs;     ///< Read in c10's stderr form.
};

/// How the job of a log in c10's stderr form is known: every one's
/// (JobId), or from its file's base name by the one group of the regular
/// expression JobFrom; neither: unknown.
struct StderrJobs {
  std::string JobId, JobFrom;
};

/// Which lines count: times in [Since, Until), compared as ISO 8601 text
/// ("2026-11" is the start of November); empty means unbounded.
struct LogWindow {
  std::string Since, Until;
};

/// Reads one log (a file, or "-" for stdin); gzip and zstd are recognised
/// by their magic bytes.
UsageCounts readUsageLog(llvm::StringRef Path, const LogWindow &Window);

/// Everything \p Counts says (totals, events, problems, stderr logs), a
/// line each, as text: two counts are the same when their texts are (tests,
/// the fuzzers).
std::string describeCounts(const UsageCounts &Counts);

/// How readUsageText reads a text (tests, the fuzzer).
struct TextReading {
  /// Every line with the validating parser alone, none on a fast path:
  /// the reference the fast paths are compared with.
  bool ValidatingOnly = false;
  /// The text in pieces of this many bytes (0: whole), each in a buffer of
  /// its own that is freed once read, as report unmaps its windows.
  size_t PieceBytes = 0;
};

/// Reads one log's text already in memory (for tests); a log in the
/// stderr form is counted as \p Stderr says, an old event name as
/// \p Aliases say, the text read as \p How says.
UsageCounts readUsageText(llvm::StringRef Name, llvm::StringRef Text,
                          const LogWindow &Window,
                          const StderrFileInfo &Stderr = {},
                          llvm::ArrayRef<EventAlias> Aliases = {},
                          const TextReading &How = {});

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

/// Reads every log with \p Threads threads and counts what they say. Each
/// is JSON lines or c10's stderr form, as its first line of either says.
/// Large plain JSON-lines files are shared by the threads in parts of
/// \p PartBytes. \p Jobs says the jobs of stderr logs; an event whose name
/// one of \p Aliases maps is counted as its current event (exactly: a job
/// that logged both names is one job).
UsageCounts readUsageLogs(llvm::ArrayRef<std::string> Files,
                          const LogWindow &Window, unsigned Threads,
                          uint64_t PartBytes = DefaultLogPartBytes,
                          const StderrJobs &Jobs = {},
                          llvm::ArrayRef<EventAlias> Aliases = {});

/// For tests: reads the plain file \p Path as if it had \p Size bytes,
/// more than it has (a file that shrinks while it is read looks so), in
/// parts of \p PartBytes on \p Threads threads.
UsageCounts readUsageLogShrunk(llvm::StringRef Path, uint64_t Size,
                               const LogWindow &Window, unsigned Threads,
                               uint64_t PartBytes);

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_USAGELOG_H
