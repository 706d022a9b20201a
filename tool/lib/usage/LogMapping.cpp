//===- LogMapping.cpp - A plain log mapped, safe if it shrinks ------------===//

#include "LogMapping.h"
#include <cassert>
#include <csignal>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>

namespace apistamp {

namespace {

/// The calling thread's mapping, and whether a fault hit it.
thread_local const char *Begin = nullptr, *End = nullptr;
thread_local volatile sig_atomic_t Shrank = 0;
uintptr_t PageSize = 4096;
struct sigaction Previous;
std::mutex Mutex;
unsigned Users = 0;

void onBus(int Signal, siginfo_t *Info, void *Context) {
  const char *Address = static_cast<const char *>(Info->si_addr);
  if (Address >= Begin && Address < End) {
    void *Page = const_cast<char *>(Address - uintptr_t(Address) % PageSize);
    if (mmap(Page, PageSize, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
             -1, 0) != MAP_FAILED) {
      Shrank = 1;
      return;
    }
  }
  // Not a mapped log: what would have happened without this handler.
  if ((Previous.sa_flags & SA_SIGINFO) && Previous.sa_sigaction) {
    Previous.sa_sigaction(Signal, Info, Context);
    return;
  }
  if (!(Previous.sa_flags & SA_SIGINFO) && Previous.sa_handler != SIG_DFL &&
      Previous.sa_handler != SIG_IGN) {
    Previous.sa_handler(Signal);
    return;
  }
  struct sigaction Default = {};
  Default.sa_handler = SIG_DFL;
  sigaction(SIGBUS, &Default, nullptr); // The access faults again.
}

/// Installs onBus for its first user.
void acquireHandler() {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Users++)
    return;
  PageSize = uintptr_t(sysconf(_SC_PAGESIZE));
  struct sigaction Action = {};
  Action.sa_sigaction = onBus;
  Action.sa_flags = SA_SIGINFO;
  sigemptyset(&Action.sa_mask);
  sigaction(SIGBUS, &Action, &Previous);
}

/// Restores the previous handler after its last user.
void releaseHandler() {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (--Users == 0)
    sigaction(SIGBUS, &Previous, nullptr);
}

} // namespace

LogMapping::LogMapping(int Fd, uint64_t Size) {
  assert(!Begin && "one mapping per thread");
  acquireHandler();
  void *Map = mmap(nullptr, Size, PROT_READ, MAP_SHARED, Fd, 0);
  if (Map == MAP_FAILED)
    return;
  Data = static_cast<const char *>(Map);
  this->Size = Size;
  Begin = Data;
  End = Data + Size;
  Shrank = 0;
}

LogMapping::~LogMapping() {
  if (Data) {
    Begin = End = nullptr;
    munmap(const_cast<char *>(Data), Size);
  }
  releaseHandler();
}

bool LogMapping::shrank() const { return Shrank; }

void LogMapping::adviseSequential() const {
  (void)madvise(const_cast<char *>(Data), Size, MADV_SEQUENTIAL);
}

void LogMapping::dropRead(const char *From, size_t Length) const {
  uintptr_t First = uintptr_t(From) & ~(PageSize - 1);
  uintptr_t Last = uintptr_t(From + Length) & ~(PageSize - 1);
  if (Last > First)
    (void)madvise(reinterpret_cast<void *>(First), Last - First, MADV_DONTNEED);
}

} // namespace apistamp
