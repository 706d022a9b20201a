//===- sinks.h - The runtime's built-in sinks, configured by environment --===//
//
// Internal to the runtime library. The stderr sink (PYTORCH_API_USAGE_STDERR)
// and the JSON-lines file sink (APISTAMP_API_USAGE_LOG), configured once from
// the environment. Every line is written with a single write(2), so lines
// from threads and processes appending to one file never interleave.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_RUNTIME_SINKS_H
#define APISTAMP_RUNTIME_SINKS_H

#include <atomic>
#include <cstdint>
#include <map>
#include <string>

namespace apistamp {
namespace detail {

/// The sinks named by the environment when they were created. Immutable
/// after construction except for the "error already reported" flags.
class EnvSinks {
public:
  /// Reads PYTORCH_API_USAGE_STDERR, APISTAMP_API_USAGE_LOG, RANK,
  /// LOCAL_RANK and APISTAMP_JOB_ID_ENV (and the variables it names), and
  /// checks that the log file can be opened (and closes it again). A file
  /// that cannot be opened is reported once on stderr and disables the file
  /// sink.
  EnvSinks();
  EnvSinks(const EnvSinks &) = delete;
  EnvSinks &operator=(const EnvSinks &) = delete;

  /// True if events should go to stderr while no handler is installed.
  bool stderrEnabled() const { return Stderr; }

  /// True if there is a log file to write (writeJson does nothing otherwise).
  bool logEnabled() const { return LogEnabled; }

  /// Prints "PYTORCH_API_USAGE <Event>" on stderr, as c10 does.
  void writeStderr(const std::string &Event) const;

  /// Appends one JSON object for \p Event (with \p Metadata, if not null) to
  /// the log file, if there is one: opens it, writes the whole line, closes
  /// it, so that no descriptor outlives the call. Errors are reported once
  /// on stderr, with the system's reason. \p Pid is the process's id.
  /// \p Extra, if not null, is more members, already encoded, each with its
  /// leading comma (`,"ddp":{...}`), written after the fixed fields.
  void writeJson(const std::string &Event,
                 const std::map<std::string, std::string> *Metadata, long Pid,
                 const std::string *Extra = nullptr) const;

  /// The JSON line for \p Event, at most \p Limit bytes: a longer line has
  /// its event name cut (at a character boundary), only the metadata entries
  /// that fit, \p Extra only if it fits whole, and "truncated":true.
  /// (Exposed for the tests.)
  std::string jsonLine(const std::string &Event,
                       const std::map<std::string, std::string> *Metadata,
                       long Pid, std::size_t Limit,
                       const std::string *Extra = nullptr) const;

  /// The log file's path, made absolute when the sink was created.
  const std::string &path() const { return Path; }

private:
  bool Stderr = false;
  bool StderrIsPipe = false;
  bool LogEnabled = false;
  std::string Path;
  /// The JSON fields fixed per process: `,"host":...,"exe":...`.
  std::string HostAndExe;
  /// The rank's JSON value from RANK or LOCAL_RANK, else `null`: the line's
  /// rank unless setGlobalRank() gave one.
  std::string EnvRank;
  /// `,"job_id":...`.
  std::string JobId;

  /// host, exe, rank and job_id, with their leading commas.
  std::string fixedFields() const;
  mutable std::atomic<bool> WriteErrorReported{false};
  /// Set when a partial line could not be blanked: the next line starts
  /// with a newline, so that it is not glued to the partial one.
  mutable std::atomic<bool> NeedsNewline{false};
  /// The log is a pipe whose reader let a line wait PipeWaitMs: later lines
  /// are not waited for until one goes through.
  mutable std::atomic<bool> PipeStalled{false};
};

/// Makes the JSON lines written from now on carry \p Rank (c10's
/// SetGlobalRank) instead of the rank of the environment (RANK, LOCAL_RANK);
/// -1, c10's "no rank", goes back to the environment's. Thread-safe.
void setGlobalRank(std::int64_t Rank);

/// Fork safety of the JSON sink's descriptors (called by the runtime's
/// pthread_atfork handlers): a forked child never keeps a descriptor that a
/// thread of its parent had open for a line.
void lockSinkDescriptorsForFork();
void unlockSinkDescriptorsInParent();
/// Closes the parent's line descriptors in the child, then unlocks.
void closeSinkDescriptorsInChild();

/// The event of a DDP record's line (c10::LogPyTorchDDPUsage), written by
/// the runtime and by the c10 bridge.
constexpr char DDPUsageEvent[] = "c10.ddp_usage";

/// The member a DDP record's line carries after the fixed fields, for
/// EnvSinks::writeJson's \p Extra: `,"ddp":{"strs":{...},"ints":{...}}`,
/// c10's DDPLoggingData (strs_map, ints_map) with strings as JSON strings
/// and integers as JSON numbers. One function for both writers (the runtime
/// and the c10 bridge), so that their lines have one shape.
std::string ddpMembers(const std::map<std::string, std::string> &Strs,
                       const std::map<std::string, std::int64_t> &Ints);

/// Appends \p Text to \p Out as a JSON string literal (quoted, escaped;
/// invalid UTF-8 becomes U+FFFD). If \p Limit is given, stops before a
/// character whose escape would make Out longer than Limit bytes (with the
/// closing quote), never inside an escape or a UTF-8 sequence; returns false
/// if Text was cut.
bool appendJsonString(std::string &Out, const std::string &Text,
                      std::size_t Limit = std::string::npos);

/// Writes all of \p Line to \p Fd, retrying interrupted and short writes (a
/// line longer than a pipe's buffer arrives whole). If \p MayBePipe, a
/// closed reader yields EPIPE instead of killing the process with SIGPIPE.
/// On a non-blocking \p Fd, room is waited for \p WaitMs in all (EAGAIN
/// after; at once if 0). Returns true if every byte was written; otherwise
/// errno is the reason.
bool writeLine(int Fd, const std::string &Line, bool MayBePipe,
               int WaitMs = -1);

/// Writes "apistamp: <Message>" on stderr (for the runtime's own errors).
void reportError(const std::string &Message);

/// Marks this thread as inside a section (the runtime's, the bridge's) for
/// its lifetime: \p InSection, a thread_local, is true until it ends, and
/// then what it was. An event a signal handler raises on this thread while
/// it is true is dropped instead of waiting for a lock the thread holds.
class SectionMark {
public:
  explicit SectionMark(bool &InSection) : Flag(InSection), Saved(InSection) {
    Flag = true;
    // Set before anything it protects, as a signal handler on this thread
    // sees it.
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~SectionMark() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    Flag = Saved;
  }
  SectionMark(const SectionMark &) = delete;
  SectionMark &operator=(const SectionMark &) = delete;

private:
  bool &Flag;
  bool Saved;
};

} // namespace detail
} // namespace apistamp

#endif // APISTAMP_RUNTIME_SINKS_H
