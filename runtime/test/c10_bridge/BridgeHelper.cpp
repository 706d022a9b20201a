//===- BridgeHelper.cpp - A libtorch program with the c10 bridge ----------===//
//
// The c10 bridge's tests start this program and read the JSON lines it
// leaves. It is built three times: with the bridge linked ahead of libc10
// (and --as-needed), after libc10, and without the bridge (for LD_PRELOAD).
// Each argument is one step, run in order:
//
//   mode           print "mode <apistamp_c10_bridge_mode()>", or "mode none"
//                  if no bridge is loaded
//   a, b           call functions instrumented with c10's
//                  C10_LOG_API_USAGE_ONCE (events "bridge.a", "bridge.b";
//                  "b" has two sites of one name, both called)
//   log:NAME       c10::LogAPIUsage(NAME)
//   runtime        a site of apistamp's own runtime (linked too), event
//                  "bridge.runtime": both write to one log without clash
//   tensor         at::empty({2}): libc10 logs "tensor.create" itself
//   threads:T:N    T threads, started together, each call
//                  c10::LogAPIUsage("thread.<i>") for i < N, twice
//   ddp            c10::LogPyTorchDDPUsage with two strings and two ints
//   ddp:big        the same with a module name of 6000 bytes
//   runtime-ddp    the record of "ddp" through apistamp's runtime
//                  (apistamp::LogPyTorchDDPUsage): its line must be the
//                  bridge's
//   own            install the program's own c10 loggers, which print
//                  "own <pid> <event>" and "own-ddp <pid> <backend_name>"
//   static         print "static-init library loaded" (EarlyLib.cpp, whose
//                  static initialiser logs "bridge.static_init" if
//                  APISTAMP_BRIDGE_TEST_STATIC_INIT is set)
//   fork           fork; the child runs the remaining steps and exits, the
//                  parent waits for it and then runs them too
//
// Exits 0 after printing "done <pid>", or 3 on a bad step.
//
//===----------------------------------------------------------------------===//

#include "BridgeTorch.h"

#include "apistamp/api_usage.h"
#include "apistamp/c10_bridge.h"

#include <dlfcn.h>

#include <c10/util/Logging.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

void apiA() { C10_LOG_API_USAGE_ONCE("bridge.a"); }
void apiB1() { C10_LOG_API_USAGE_ONCE("bridge.b"); }
void apiB2() { C10_LOG_API_USAGE_ONCE("bridge.b"); }
void apiRuntime() { APISTAMP_LOG_API_USAGE_ONCE("bridge.runtime"); }

/// apistamp_c10_bridge_mode() of the bridge the process loaded, if any.
const char *bridgeMode() {
  using ModeFn = decltype(&apistamp_c10_bridge_mode);
  void *Mode = dlsym(RTLD_DEFAULT, "apistamp_c10_bridge_mode");
  return Mode ? reinterpret_cast<ModeFn>(Mode)() : "none";
}

void logFromThreads(int Threads, int Names) {
  std::atomic<int> Ready(0);
  std::vector<std::thread> Pool;
  for (int T = 0; T < Threads; ++T)
    Pool.emplace_back([&] {
      Ready.fetch_add(1);
      while (Ready.load() < Threads) {
      }
      for (int Round = 0; Round < 2; ++Round)
        for (int I = 0; I < Names; ++I)
          c10::LogAPIUsage("thread." + std::to_string(I));
    });
  for (std::thread &T : Pool)
    T.join();
}

/// The record of the "ddp" steps, as c10's or the runtime's DDPLoggingData.
template <typename DataT> DataT ddpRecord(bool Big) {
  DataT Data;
  Data.strs_map["backend_name"] = "gloo";
  Data.strs_map["module_name"] = Big ? std::string(6000, 'N') : "Net \"q\"";
  Data.ints_map["world_size"] = 2;
  Data.ints_map["rank"] = -1;
  return Data;
}

void logDDP(bool Big) {
  c10::LogPyTorchDDPUsage(ddpRecord<c10::DDPLoggingData>(Big));
}

void installOwnLoggers() {
  c10::SetAPIUsageLogger([](const std::string &Event) {
    std::printf("own %ld %s\n", static_cast<long>(getpid()), Event.c_str());
  });
  c10::SetPyTorchDDPUsageLogger([](const c10::DDPLoggingData &Data) {
    std::printf("own-ddp %ld %s\n", static_cast<long>(getpid()),
                Data.strs_map.at("backend_name").c_str());
  });
}

} // namespace

int main(int Argc, char **Argv) {
  for (int I = 1; I < Argc; ++I) {
    std::string Step = Argv[I];
    if (Step == "mode") {
      std::printf("mode %s\n", bridgeMode());
    } else if (Step == "a") {
      apiA();
    } else if (Step == "b") {
      apiB1();
      apiB2();
    } else if (Step.compare(0, 4, "log:") == 0) {
      c10::LogAPIUsage(Step.substr(4));
    } else if (Step == "runtime") {
      apiRuntime();
    } else if (Step == "tensor") {
      bridge_test::makeTensor();
    } else if (Step.compare(0, 8, "threads:") == 0) {
      std::size_t Colon = Step.find(':', 8);
      logFromThreads(std::atoi(Step.substr(8, Colon - 8).c_str()),
                     std::atoi(Step.substr(Colon + 1).c_str()));
    } else if (Step == "static") {
      if (bridge_test::earlyLibraryLoaded())
        std::printf("static-init library loaded\n");
    } else if (Step == "ddp" || Step == "ddp:big") {
      logDDP(Step == "ddp:big");
    } else if (Step == "runtime-ddp") {
      apistamp::LogPyTorchDDPUsage(ddpRecord<apistamp::DDPLoggingData>(false));
    } else if (Step == "own") {
      installOwnLoggers();
    } else if (Step == "fork") {
      std::fflush(stdout);
      pid_t Child = fork();
      if (Child < 0)
        return 4;
      if (Child > 0) {
        int Status = 0;
        waitpid(Child, &Status, 0);
        if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0)
          return 5;
      }
    } else {
      std::fprintf(stderr, "bad step %s\n", Step.c_str());
      return 3;
    }
  }
  std::printf("done %ld\n", static_cast<long>(getpid()));
  return 0;
}
