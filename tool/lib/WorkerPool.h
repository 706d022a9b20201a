//===- WorkerPool.h - Run one body on a few worker threads ------*- C++ -*-===//
//
// The threads that analyse TUs (ProjectAnalysis.cpp) and the ones that read
// usage logs (usage/UsageLog.cpp): a body run on a fixed number of
// long-lived workers, which take their work from a shared counter.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_WORKERPOOL_H
#define APISTAMP_LIB_WORKERPOOL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace apistamp {

/// How the workers run.
struct WorkerOptions {
  /// Each worker thread's stack size; none: the platform's default.
  std::optional<unsigned> StackSize;
  /// Lets a worker recover from a crash under llvm::CrashRecoveryContext:
  /// LLVM's crash recovery is enabled, its signal handlers run on an
  /// alternate stack, and every worker thread has one (so that a stack
  /// overflow can be handled too).
  bool CrashRecovery = false;
  /// Worker 0 is the calling thread (no thread of its own, nor StackSize,
  /// nor an alternate signal stack).
  bool OnCallingThread = false;
};

/// Runs \p Body(Worker) for Worker in [0, \p Count) on \p Count workers, and
/// waits for them.
void runWorkers(unsigned Count, llvm::function_ref<void(unsigned)> Body,
                const WorkerOptions &Options = {});

} // namespace apistamp

#endif // APISTAMP_LIB_WORKERPOOL_H
