//===- WorkerPool.cpp - Run one body on a few worker threads --------------===//

#include "WorkerPool.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/thread.h"
#include <cassert>
#include <csignal>
#include <mutex>
#include <vector>

using namespace llvm;

namespace apistamp {

namespace {

/// Lets a crash in one worker (a clang bug, or clang's stack overflowing
/// on pathological code) be recovered from: LLVM's crash recovery, with
/// its signal handlers run on an alternate stack, so that a stack overflow
/// can be handled too.
void enableCrashRecovery() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    CrashRecoveryContext::Enable();
    for (int Signal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP}) {
      struct sigaction Action;
      if (sigaction(Signal, nullptr, &Action) == 0) {
        Action.sa_flags |= SA_ONSTACK;
        sigaction(Signal, &Action, nullptr);
      }
    }
  });
}

/// Runs \p Body(\p Worker) on an alternate signal stack of its own.
void runOnAlternateStack(function_ref<void(unsigned)> Body, unsigned Worker) {
  std::vector<char> SignalStack(1 << 16);
  stack_t Alternate{};
  Alternate.ss_sp = SignalStack.data();
  Alternate.ss_size = SignalStack.size();
  sigaltstack(&Alternate, nullptr);
  Body(Worker);
  stack_t Off{};
  Off.ss_flags = SS_DISABLE;
  sigaltstack(&Off, nullptr);
}

} // namespace

void runWorkers(unsigned Count, function_ref<void(unsigned)> Body,
                const WorkerOptions &Options) {
  assert(!(Options.CrashRecovery && Options.OnCallingThread) &&
         "the calling thread has no alternate signal stack");
  if (Options.CrashRecovery)
    enableCrashRecovery();
  unsigned First = Options.OnCallingThread ? 1 : 0;
  bool CrashRecovery = Options.CrashRecovery;
  std::vector<llvm::thread> Workers;
  for (unsigned I = First; I < Count; ++I)
    Workers.emplace_back(Options.StackSize, [Body, I, CrashRecovery] {
      if (CrashRecovery)
        runOnAlternateStack(Body, I);
      else
        Body(I);
    });
  if (Options.OnCallingThread && Count > 0)
    Body(0);
  for (llvm::thread &Worker : Workers)
    Worker.join();
}

} // namespace apistamp
