//===- Helper.cpp - A fresh process that runs a script of runtime calls ---===//
//
// The runtime's tests start this program when they need a process of its
// own: no logger installed yet, a chosen environment, a fork. Each argument
// is one step, run in order:
//
//   a, b               call instrumented functions (events "helper.a",
//                      "helper.b"; "b" has two sites of one name)
//   log:NAME           apistamp::LogAPIUsage(NAME)
//   meta:NAME          LogAPIUsageMetadata(NAME, {k: v, quote: "q"})
//   ddp, ddp:big       LogPyTorchDDPUsage with backend_name "gloo",
//                      module_name 'Net "q"' (ddp:big: 6000 bytes of N),
//                      world_size 2 and rank -1 (the c10 bridge's helper
//                      logs the same record)
//   rank:N             apistamp::SetGlobalRank(N)
//   install            install loggers printing "<pid> <event>",
//                      "<pid> meta <context> k=v,..." and
//                      "<pid> ddp <backend_name> <world_size>" on stdout
//   install-throwing   install a logger that throws
//   flood:N:SIZE:T     T threads each log N events of about SIZE bytes
//                      ("flood.<pid>.<thread>.<i>.xxxx")
//   state              print "state <fds> <threads> <signals> <env>": the
//                      open descriptors, the thread count, a digest of every
//                      signal's disposition and of the environment
//   fork               fork; the child runs the remaining steps and exits,
//                      the parent waits for it and then runs them too
//   cd:DIR             chdir(DIR)
//   fsize:+N           limit the size of files this process writes
//                      (RLIMIT_FSIZE, SIGXFSZ ignored) to the log's current
//                      size plus N bytes; "fsize:max" lifts the limit
//   fork-during-write  a thread logs "blocked" (the test keeps the log, a
//                      FIFO, full); once that thread has the log open, fork:
//                      the child exits 1 if it has a descriptor of the log;
//                      prints "child-fds clean" or "child-fds leaked", then
//                      creates <log>.forked and joins the thread
//
// Exits 0 after printing "done <pid>", or 3 on a bad step.
//
//===----------------------------------------------------------------------===//

#include "apistamp/api_usage.h"

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

void apiA() { C10_LOG_API_USAGE_ONCE("helper.a"); }
void apiB1() { C10_LOG_API_USAGE_ONCE("helper.b"); }
void apiB2() { C10_LOG_API_USAGE_ONCE("helper.b"); }

/// Writes \p Line and a newline to stdout with one write(2).
void printLine(const std::string &Line) {
  std::string Text = Line + "\n";
  if (write(STDOUT_FILENO, Text.data(), Text.size()) < 0)
    std::abort();
}

std::string pidText() { return std::to_string(static_cast<long>(getpid())); }

void logDDP(bool Big) {
  apistamp::DDPLoggingData Data;
  Data.strs_map["backend_name"] = "gloo";
  Data.strs_map["module_name"] = Big ? std::string(6000, 'N') : "Net \"q\"";
  Data.ints_map["world_size"] = 2;
  Data.ints_map["rank"] = -1;
  apistamp::LogPyTorchDDPUsage(Data);
}

void flood(int Count, int Size, int Threads) {
  std::vector<std::thread> Workers;
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([=] {
      for (int I = 0; I < Count; ++I) {
        std::string Name = "flood." + pidText() + "." + std::to_string(T) +
                           "." + std::to_string(I) + ".";
        if (static_cast<int>(Name.size()) < Size)
          Name.append(static_cast<std::size_t>(Size) - Name.size(), 'x');
        apistamp::LogAPIUsage(Name);
      }
    });
  for (std::thread &W : Workers)
    W.join();
}

/// What the runtime promises not to change in the host process.
std::string processState() {
  std::string Fds;
  if (DIR *Dir = opendir("/proc/self/fd")) {
    std::vector<int> Numbers;
    while (struct dirent *Entry = readdir(Dir))
      if (Entry->d_name[0] != '.')
        Numbers.push_back(std::atoi(Entry->d_name));
    int Own = dirfd(Dir);
    closedir(Dir);
    std::sort(Numbers.begin(), Numbers.end());
    for (int N : Numbers)
      if (N != Own)
        Fds += std::to_string(N) + ",";
  }
  int Threads = 0;
  if (DIR *Dir = opendir("/proc/self/task")) {
    while (struct dirent *Entry = readdir(Dir))
      Threads += Entry->d_name[0] != '.';
    closedir(Dir);
  }
  std::size_t Signals = 0;
  for (int Signal = 1; Signal < NSIG; ++Signal) {
    struct sigaction Action;
    if (sigaction(Signal, nullptr, &Action) == 0)
      Signals = Signals * 31 +
                reinterpret_cast<std::size_t>(Action.sa_handler) +
                static_cast<std::size_t>(Action.sa_flags);
  }
  std::size_t Env = 0;
  for (char **Variable = environ; *Variable; ++Variable)
    Env = Env * 31 + std::hash<std::string>()(*Variable);
  return "state " + Fds + " " + std::to_string(Threads) + " " +
         std::to_string(Signals) + " " + std::to_string(Env);
}

/// True if this process has a descriptor open on \p Path.
bool hasDescriptorOf(const std::string &Path) {
  bool Found = false;
  if (DIR *Dir = opendir("/proc/self/fd")) {
    while (struct dirent *Entry = readdir(Dir)) {
      if (Entry->d_name[0] == '.')
        continue;
      char Target[PATH_MAX];
      std::string Link = std::string("/proc/self/fd/") + Entry->d_name;
      ssize_t N = readlink(Link.c_str(), Target, sizeof(Target) - 1);
      if (N > 0 && Path == std::string(Target, static_cast<std::size_t>(N)))
        Found = true;
    }
    closedir(Dir);
  }
  return Found;
}

int forkDuringWrite() {
  const char *Log = std::getenv("APISTAMP_API_USAGE_LOG");
  if (!Log)
    return 3;
  std::thread Writer([] { apistamp::LogAPIUsage("blocked"); });
  // Wait until the writer has the log open (it then blocks in write()).
  for (int I = 0; I < 20000 && !hasDescriptorOf(Log); ++I)
    usleep(500);
  if (!hasDescriptorOf(Log)) {
    printLine("writer never opened the log");
    Writer.join();
    return 4;
  }
  pid_t Child = fork();
  if (Child < 0)
    return 3;
  if (Child == 0)
    _exit(hasDescriptorOf(Log) ? 1 : 0);
  int Status = 0;
  waitpid(Child, &Status, 0);
  bool Clean = WIFEXITED(Status) && WEXITSTATUS(Status) == 0;
  printLine(Clean ? "child-fds clean" : "child-fds leaked");
  int Marker = open((std::string(Log) + ".forked").c_str(),
                    O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (Marker >= 0)
    close(Marker);
  Writer.join();
  return 0;
}

/// The descriptors "fds:exhaust" took.
std::vector<int> *ExhaustedFds = nullptr;

bool startsWith(const std::string &S, const std::string &Prefix) {
  return S.compare(0, Prefix.size(), Prefix) == 0;
}

int run(const std::vector<std::string> &Steps, std::size_t First) {
  for (std::size_t I = First; I < Steps.size(); ++I) {
    const std::string &Step = Steps[I];
    if (Step == "a") {
      apiA();
    } else if (Step == "b") {
      apiB1();
      apiB2();
    } else if (startsWith(Step, "log:")) {
      apistamp::LogAPIUsage(Step.substr(4));
    } else if (startsWith(Step, "meta:")) {
      apistamp::LogAPIUsageMetadata(Step.substr(5),
                                    {{"k", "v"}, {"quote", "\"q\""}});
    } else if (Step == "ddp" || Step == "ddp:big") {
      logDDP(Step == "ddp:big");
    } else if (startsWith(Step, "rank:")) {
      apistamp::SetGlobalRank(std::atoll(Step.c_str() + 5));
    } else if (Step == "install") {
      apistamp::SetAPIUsageLogger(
          [](const std::string &Event) { printLine(pidText() + " " + Event); });
      apistamp::SetAPIUsageMetadataLogger(
          [](const std::string &Context,
             const std::map<std::string, std::string> &Metadata) {
            std::string Line = pidText() + " meta " + Context + " ";
            for (const auto &Entry : Metadata)
              Line += Entry.first + "=" + Entry.second + ",";
            printLine(Line);
          });
      apistamp::SetPyTorchDDPUsageLogger(
          [](const apistamp::DDPLoggingData &Data) {
            printLine(pidText() + " ddp " + Data.strs_map.at("backend_name") +
                      " " + std::to_string(Data.ints_map.at("world_size")));
          });
    } else if (Step == "state") {
      printLine(processState());
    } else if (Step == "install-throwing") {
      apistamp::SetAPIUsageLogger([](const std::string &Event) {
        throw std::runtime_error("logger failed on " + Event);
      });
    } else if (startsWith(Step, "flood:")) {
      int Count = 0, Size = 0, Threads = 0;
      if (std::sscanf(Step.c_str(), "flood:%d:%d:%d", &Count, &Size,
                      &Threads) != 3)
        return 3;
      flood(Count, Size, Threads);
    } else if (startsWith(Step, "cd:")) {
      if (chdir(Step.substr(3).c_str()) != 0)
        return 3;
    } else if (startsWith(Step, "fsize:")) {
      signal(SIGXFSZ, SIG_IGN);
      struct rlimit Limit;
      getrlimit(RLIMIT_FSIZE, &Limit);
      if (Step == "fsize:max") {
        Limit.rlim_cur = Limit.rlim_max;
      } else {
        struct stat St;
        const char *Log = std::getenv("APISTAMP_API_USAGE_LOG");
        if (!Log || stat(Log, &St) != 0)
          return 3;
        Limit.rlim_cur = static_cast<rlim_t>(St.st_size) +
                         static_cast<rlim_t>(std::atol(Step.c_str() + 7));
      }
      if (setrlimit(RLIMIT_FSIZE, &Limit) != 0)
        return 3;
    } else if (Step == "fds:exhaust") {
      // Every descriptor taken (the log cannot be opened: EMFILE) ...
      static std::vector<int> Taken;
      int Fd;
      while ((Fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
        Taken.push_back(Fd);
      if (errno != EMFILE)
        return 3;
      // ... until "fds:release".
      ExhaustedFds = &Taken;
    } else if (Step == "fds:release") {
      if (!ExhaustedFds)
        return 3;
      for (int Fd : *ExhaustedFds)
        close(Fd);
      ExhaustedFds->clear();
    } else if (Step == "fork-during-write") {
      int Status = forkDuringWrite();
      if (Status != 0)
        return Status;
    } else if (Step == "fork") {
      pid_t Child = fork();
      if (Child < 0)
        return 3;
      if (Child == 0)
        _exit(run(Steps, I + 1));
      int Status = 0;
      waitpid(Child, &Status, 0);
      if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0)
        return 4;
    } else {
      std::fprintf(stderr, "helper: bad step '%s'\n", Step.c_str());
      return 3;
    }
  }
  printLine("done " + pidText());
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  return run(std::vector<std::string>(Argv + 1, Argv + Argc), 0);
}
