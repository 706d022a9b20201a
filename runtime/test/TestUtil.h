//===- TestUtil.h - Processes, files, collectors for the runtime tests ---===//

#ifndef APISTAMP_RUNTIME_TEST_TESTUTIL_H
#define APISTAMP_RUNTIME_TEST_TESTUTIL_H

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <vector>

namespace apistamp {
namespace test {

/// How to start a child process.
struct ProcessOptions {
  /// argv, including argv[0] (the program path).
  std::vector<std::string> Args;
  /// Variables set on top of a cleaned copy of this process's environment
  /// (without the variables the runtime reads); an empty value unsets.
  std::map<std::string, std::string> Env;
  /// If >= 0, the child's stderr; otherwise it is captured.
  int StderrFd = -1;
};

/// What a finished child did.
struct ProcessResult {
  pid_t Pid = -1;
  /// The exit status, or -1 if the child was killed by a signal.
  int ExitCode = -1;
  /// The signal that killed the child, or 0.
  int Signal = 0;
  /// True if the child did not finish within the hang limit and was killed.
  bool Hung = false;
  std::string Out;
  std::string Err;
};

/// A started child whose output goes to temporary files.
struct RunningProcess {
  pid_t Pid = -1;
  std::string OutPath;
  std::string ErrPath;
};

/// Starts a child process (posix_spawn).
RunningProcess startProcess(const ProcessOptions &Options);

/// Waits for \p P. A child still running after 120 s is taken to be hung
/// (deadlocked) and killed: a correctness check, not a performance one.
ProcessResult waitProcess(const RunningProcess &P);

/// startProcess + waitProcess.
ProcessResult runProcess(const ProcessOptions &Options);

/// Waits for a forked child \p Pid like waitProcess (hang limit 120 s);
/// returns its exit status, or -1 if it hung or was killed by a signal.
int waitForChild(pid_t Pid);

/// The path of the apistamp_runtime_helper program.
std::string helperPath();

/// A temporary directory, removed with its contents on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;
  /// The directory's path.
  const std::string &path() const { return Path; }
  /// \p Name inside the directory.
  std::string file(const std::string &Name) const { return Path + "/" + Name; }

private:
  std::string Path;
};

/// Reads everything written to the FIFO \p Fifo while \p Run runs (and
/// 300 ms after). The FIFO is open for reading and writing meanwhile, so a
/// writer closing its end after each line is not an end of file.
std::string readFifoWhile(const std::string &Fifo,
                          const std::function<void()> &Run);

/// The whole contents of \p Path ("" if it cannot be read).
std::string readFile(const std::string &Path);

/// \p Text split at '\n'; a final newline does not add an empty line.
std::vector<std::string> splitLines(const std::string &Text);

/// How many times \p Needle occurs in \p Haystack.
std::size_t countOccurrences(const std::string &Haystack,
                             const std::string &Needle);

/// Collects the events a test's logger receives. One process-wide instance
/// (never destroyed), installed anew by each test.
class EventCollector {
public:
  /// The instance.
  static EventCollector &get();
  /// Forgets collected events and installs itself with SetAPIUsageLogger.
  void install();
  /// Appends \p Event (what the installed logger does).
  void add(const std::string &Event);
  /// All events collected since install(), in arrival order.
  std::vector<std::string> events();
  /// The collected events that start with \p Prefix.
  std::vector<std::string> withPrefix(const std::string &Prefix);
  /// How many times \p Event was collected.
  std::size_t count(const std::string &Event);

private:
  std::mutex Mutex;
  std::vector<std::string> Events;
};

} // namespace test
} // namespace apistamp

#endif // APISTAMP_RUNTIME_TEST_TESTUTIL_H
