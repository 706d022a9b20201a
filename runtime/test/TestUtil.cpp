//===- TestUtil.cpp - Processes, files, collectors for the runtime tests -===//

#include "TestUtil.h"

#include "apistamp/api_usage.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace apistamp {
namespace test {

namespace {

/// Variables that change what the runtime does: never inherited by helpers.
const char *const RuntimeVariables[] = {"PYTORCH_API_USAGE_STDERR",
                                        "APISTAMP_API_USAGE_LOG",
                                        "APISTAMP_JOB_ID_ENV",
                                        "RANK",
                                        "LOCAL_RANK",
                                        "SLURM_JOB_ID",
                                        "TORCHELASTIC_RUN_ID"};

bool isRuntimeVariable(const std::string &Entry) {
  std::string Name = Entry.substr(0, Entry.find('='));
  for (const char *Variable : RuntimeVariables)
    if (Name == Variable)
      return true;
  return false;
}

const int HangLimitSeconds = 120;

/// Waits for \p Pid for at most HangLimitSeconds; kills it after that.
/// Returns the wait status, and sets \p Hung.
int waitWithLimit(pid_t Pid, bool &Hung) {
  Hung = false;
  auto Deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(HangLimitSeconds);
  int Status = 0;
  for (;;) {
    pid_t Done = waitpid(Pid, &Status, WNOHANG);
    if (Done == Pid)
      return Status;
    if (Done < 0 && errno != EINTR)
      return -1;
    if (std::chrono::steady_clock::now() > Deadline) {
      Hung = true;
      kill(Pid, SIGKILL);
      waitpid(Pid, &Status, 0);
      return Status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

} // namespace

RunningProcess startProcess(const ProcessOptions &Options) {
  static int Counter = 0;
  RunningProcess P;
  char Template[] = "/tmp/apistamp-proc-XXXXXX";
  if (!mkdtemp(Template))
    throw std::runtime_error("mkdtemp failed");
  std::string Dir = Template;
  P.OutPath = Dir + "/out" + std::to_string(++Counter);
  P.ErrPath = Dir + "/err" + std::to_string(Counter);

  std::vector<std::string> Env;
  for (char **E = environ; *E; ++E)
    if (!isRuntimeVariable(*E))
      Env.push_back(*E);
  for (const auto &Entry : Options.Env) {
    for (std::size_t I = 0; I < Env.size(); ++I)
      if (Env[I].compare(0, Entry.first.size() + 1, Entry.first + "=") == 0)
        Env.erase(Env.begin() + static_cast<std::ptrdiff_t>(I--));
    if (!Entry.second.empty())
      Env.push_back(Entry.first + "=" + Entry.second);
  }
  std::vector<char *> EnvP, ArgV;
  for (std::string &E : Env)
    EnvP.push_back(&E[0]);
  EnvP.push_back(nullptr);
  std::vector<std::string> Args = Options.Args;
  for (std::string &A : Args)
    ArgV.push_back(&A[0]);
  ArgV.push_back(nullptr);

  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_addopen(&Actions, STDIN_FILENO, "/dev/null",
                                   O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&Actions, STDOUT_FILENO, P.OutPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (Options.StderrFd >= 0)
    posix_spawn_file_actions_adddup2(&Actions, Options.StderrFd, STDERR_FILENO);
  else
    posix_spawn_file_actions_addopen(&Actions, STDERR_FILENO, P.ErrPath.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int Error =
      posix_spawn(&P.Pid, ArgV[0], &Actions, nullptr, ArgV.data(), EnvP.data());
  posix_spawn_file_actions_destroy(&Actions);
  if (Error != 0)
    throw std::runtime_error(std::string("posix_spawn: ") +
                             std::strerror(Error));
  return P;
}

ProcessResult waitProcess(const RunningProcess &P) {
  ProcessResult R;
  R.Pid = P.Pid;
  int Status = waitWithLimit(P.Pid, R.Hung);
  if (WIFEXITED(Status))
    R.ExitCode = WEXITSTATUS(Status);
  else if (WIFSIGNALED(Status))
    R.Signal = WTERMSIG(Status);
  R.Out = readFile(P.OutPath);
  R.Err = readFile(P.ErrPath);
  unlink(P.OutPath.c_str());
  unlink(P.ErrPath.c_str());
  rmdir(P.OutPath.substr(0, P.OutPath.rfind('/')).c_str());
  return R;
}

ProcessResult runProcess(const ProcessOptions &Options) {
  return waitProcess(startProcess(Options));
}

int waitForChild(pid_t Pid) {
  bool Hung;
  int Status = waitWithLimit(Pid, Hung);
  if (Hung || !WIFEXITED(Status))
    return -1;
  return WEXITSTATUS(Status);
}

std::string helperPath() { return APISTAMP_RUNTIME_HELPER; }

std::string readFifoWhile(const std::string &Fifo,
                          const std::function<void()> &Run) {
  // Opened for reading and writing, so that the runtime closing its end
  // after each line is not an end of file here.
  int Reader = open(Fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (Reader < 0)
    throw std::runtime_error("cannot open FIFO " + Fifo);
  std::string Received;
  std::atomic<bool> Stop{false};
  std::thread Drain([&] {
    char Buffer[4096];
    while (!Stop) {
      struct pollfd Poll = {Reader, POLLIN, 0};
      if (poll(&Poll, 1, 50) <= 0)
        continue;
      ssize_t N = read(Reader, Buffer, sizeof(Buffer));
      if (N > 0)
        Received.append(Buffer, static_cast<std::size_t>(N));
    }
  });
  Run();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Stop = true;
  Drain.join();
  close(Reader);
  return Received;
}

TempDir::TempDir() {
  char Template[] = "/tmp/apistamp-test-XXXXXX";
  if (!mkdtemp(Template))
    throw std::runtime_error("mkdtemp failed");
  Path = Template;
}

TempDir::~TempDir() {
  std::string Command = "rm -rf '" + Path + "'";
  if (std::system(Command.c_str()) != 0) {
    // Leave it: a temporary directory is not worth failing a test for.
  }
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream Out;
  Out << In.rdbuf();
  return Out.str();
}

std::vector<std::string> splitLines(const std::string &Text) {
  std::vector<std::string> Lines;
  std::size_t Begin = 0;
  while (Begin < Text.size()) {
    std::size_t End = Text.find('\n', Begin);
    if (End == std::string::npos)
      End = Text.size();
    Lines.push_back(Text.substr(Begin, End - Begin));
    Begin = End + 1;
  }
  return Lines;
}

std::size_t countOccurrences(const std::string &Haystack,
                             const std::string &Needle) {
  std::size_t Count = 0;
  for (std::size_t Pos = Haystack.find(Needle); Pos != std::string::npos;
       Pos = Haystack.find(Needle, Pos + Needle.size()))
    ++Count;
  return Count;
}

EventCollector &EventCollector::get() {
  static EventCollector *Instance = new EventCollector();
  return *Instance;
}

void EventCollector::install() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Events.clear();
  }
  SetAPIUsageLogger([](const std::string &Event) { get().add(Event); });
}

void EventCollector::add(const std::string &Event) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Events.push_back(Event);
}

std::vector<std::string> EventCollector::events() {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Events;
}

std::vector<std::string> EventCollector::withPrefix(const std::string &Prefix) {
  std::vector<std::string> Out;
  for (const std::string &Event : events())
    if (Event.compare(0, Prefix.size(), Prefix) == 0)
      Out.push_back(Event);
  return Out;
}

std::size_t EventCollector::count(const std::string &Event) {
  std::size_t N = 0;
  for (const std::string &E : events())
    N += E == Event;
  return N;
}

} // namespace test
} // namespace apistamp
