//===- c10_bridge.cpp - c10's API usage events to apistamp's sinks --------===//
//
// libapistamp_c10bridge.so. Preloaded (LD_PRELOAD) or linked into a process
// that uses libtorch, it receives every event c10 logs and writes each event
// name once per process (once more in a forked child) to the runtime's
// JSON-lines sink (runtime/sinks.cpp, compiled in with hidden visibility),
// and each DDP record as one line.
//
// It does not link libc10. It defines c10's three logging entry points
// (c10::LogAPIUsage, c10::detail::LogAPIUsageFakeReturn behind
// C10_LOG_API_USAGE_ONCE, c10::LogPyTorchDDPUsage); wherever the bridge comes
// before libc10 in the dynamic linker's global scope (always under
// LD_PRELOAD, also for a libc10 that Python dlopens later), every call to
// them, from any library, reaches the bridge first, which then passes it on
// to c10's own function (so c10's logger, the program's or c10's default
// stderr printer, still runs). Where libc10 comes first (a program linked
// with libc10 before the bridge), the bridge installs itself at load with
// c10::SetAPIUsageLogger and c10::SetPyTorchDDPUsageLogger instead.
// runtime/README.md, "c10 bridge", says what each way catches and costs.
//
//===----------------------------------------------------------------------===//

#include "apistamp/c10_bridge.h"
#include "sinks.h"

#include <c10/util/Logging.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <dlfcn.h>
#include <exception>
#include <functional>
#include <link.h>
#include <mutex>
#include <pthread.h>
#include <string>
#include <unistd.h>
#include <unordered_set>
#include <vector>

namespace {

using apistamp::detail::EnvSinks;

// c10's mangled names, for the std::string ABI the bridge is built with. A
// c10 built with the other ABI has other names for the string functions:
// the bridge then finds none of them and receives nothing (the DDP functions
// keep their names, hence the check in sameObject()).
#if _GLIBCXX_USE_CXX11_ABI
#define APISTAMP_MANGLED_STRING                                                \
  "NSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
#else
#define APISTAMP_MANGLED_STRING "Ss"
#endif
constexpr char LogAPIUsageName[] =
    "_ZN3c1011LogAPIUsageERK" APISTAMP_MANGLED_STRING;
constexpr char LogAPIUsageFakeReturnName[] =
    "_ZN3c106detail21LogAPIUsageFakeReturnERK" APISTAMP_MANGLED_STRING;
constexpr char LogPyTorchDDPUsageName[] =
    "_ZN3c1018LogPyTorchDDPUsageERKNS_14DDPLoggingDataE";
constexpr char SetAPIUsageLoggerName[] =
    "_ZN3c1017SetAPIUsageLoggerESt8functionIFvRK" APISTAMP_MANGLED_STRING "EE";
constexpr char SetPyTorchDDPUsageLoggerName[] =
    "_ZN3c1024SetPyTorchDDPUsageLoggerESt8functionIFvRKNS_14DDPLoggingDataEEE";

using LogFn = void (*)(const std::string &);
using FakeReturnFn = bool (*)(const std::string &);
using DDPFn = void (*)(const c10::DDPLoggingData &);
using APILogger = std::function<void(const std::string &)>;
using DDPLogger = std::function<void(const c10::DDPLoggingData &)>;
using SetLoggerFn = void (*)(APILogger);
using SetDDPLoggerFn = void (*)(DDPLogger);

//===----------------------------------------------------------------------===//
// Process state: the names logged, reset in a forked child (as in
// runtime/api_usage.cpp)
//===----------------------------------------------------------------------===//

/// Incremented in each forked child: the child's first event forgets the
/// names its parent logged.
std::atomic<std::uint32_t> ProcessGeneration(1);

/// This process's id, read at load and in a forked child.
std::atomic<long> ThePid(0);

/// Everything the bridge knows, guarded by Mutex. Never destroyed: static
/// destructors and detached threads may still log during exit.
struct State {
  std::mutex Mutex;
  /// The process generation Logged belongs to.
  std::uint32_t Generation = 1;
  std::unordered_set<std::string> Logged;
  /// Created at the first event, from the environment at that time.
  const EnvSinks *Sinks = nullptr;

  /// Forgets the parent's names in a forked child. Requires Mutex.
  void refresh() {
    std::uint32_t Current = ProcessGeneration.load(std::memory_order_relaxed);
    if (Current == Generation)
      return;
    Generation = Current;
    Logged.clear();
  }

  /// Requires Mutex.
  const EnvSinks &sinks() {
    if (!Sinks)
      Sinks = new EnvSinks();
    return *Sinks;
  }
};

State *TheState = nullptr;

/// True while this thread is inside the bridge's lock or a sink's write: an
/// event raised then on the same thread (a signal handler) is dropped
/// instead of waiting for a lock this thread holds.
thread_local bool InBridge = false;

/// Marks this thread as inside the bridge for its lifetime.
class BridgeSection : apistamp::detail::SectionMark {
public:
  BridgeSection() : SectionMark(InBridge) {}
};

// The lock and the sink's descriptors are held across fork(), so that a
// child never inherits them locked or open.
void lockBeforeFork() {
  InBridge = true;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  TheState->Mutex.lock();
  apistamp::detail::lockSinkDescriptorsForFork();
}
void unlockInParent() {
  apistamp::detail::unlockSinkDescriptorsInParent();
  TheState->Mutex.unlock();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  InBridge = false;
}
void resetInChild() {
  ProcessGeneration.fetch_add(1, std::memory_order_relaxed);
  ThePid.store(static_cast<long>(getpid()), std::memory_order_relaxed);
  apistamp::detail::closeSinkDescriptorsInChild();
  TheState->Mutex.unlock();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  InBridge = false;
}

/// The state, created at load (startBridge) or by an event that comes
/// earlier (a library initialised before the bridge), both while the
/// process is single-threaded.
State &state() {
  static State *S = [] {
    TheState = new State();
    ThePid.store(static_cast<long>(getpid()), std::memory_order_relaxed);
    pthread_atfork(lockBeforeFork, unlockInParent, resetInChild);
    return TheState;
  }();
  return *S;
}

long currentPid() { return ThePid.load(std::memory_order_relaxed); }

/// The sinks, created from the environment by the first event.
const EnvSinks &sinks() {
  State &S = state();
  BridgeSection Section;
  std::lock_guard<std::mutex> Lock(S.Mutex);
  return S.sinks();
}

/// Writes \p Event to the JSON-lines sink if this process has not logged
/// that name yet. Throws nothing but a thread cancellation's unwinding (the
/// sink's open and write are cancellation points), which must go on.
void logOnce(const std::string &Event) {
  if (InBridge)
    return;
  try {
    State &S = state();
    BridgeSection Section;
    const EnvSinks *Sinks;
    {
      std::lock_guard<std::mutex> Lock(S.Mutex);
      S.refresh();
      if (!S.Logged.insert(Event).second)
        return;
      Sinks = &S.sinks();
    }
    Sinks->writeJson(Event, nullptr, currentPid());
  } catch (const std::exception &) {
  }
}

/// Writes one line for the DDP record \p Data (every record: they carry
/// different data). Throws as logOnce.
void logDDP(const c10::DDPLoggingData &Data) {
  if (InBridge)
    return;
  try {
    const EnvSinks &Sinks = sinks();
    if (!Sinks.logEnabled())
      return;
    std::string Members =
        apistamp::detail::ddpMembers(Data.strs_map, Data.ints_map);
    BridgeSection Section;
    Sinks.writeJson(apistamp::detail::DDPUsageEvent, nullptr, currentPid(),
                    &Members);
  } catch (const std::exception &) {
  }
}

/// c10's default logger's output, for an event that c10's default logger
/// will not see (the bridge replaced it, or there is no c10).
void printLikeC10(const std::string &Event) {
  if (InBridge)
    return;
  try {
    const EnvSinks &Sinks = sinks();
    if (Sinks.stderrEnabled())
      Sinks.writeStderr(Event);
  } catch (const std::exception &) {
  }
}

//===----------------------------------------------------------------------===//
// Finding c10's own functions
//===----------------------------------------------------------------------===//

/// The load address of \p Address's object, or null.
const void *objectOf(const void *Address) {
  Dl_info Info;
  if (!Address || !dladdr(Address, &Info))
    return nullptr;
  return Info.dli_fbase;
}

/// True if \p Address is in the bridge itself.
bool inBridge(const void *Address) {
  static const void *Bridge =
      objectOf(reinterpret_cast<const void *>(&objectOf));
  return Address && objectOf(Address) == Bridge;
}

/// True if \p A and \p B are defined by one object.
bool sameObject(const void *A, const void *B) {
  const void *Object = objectOf(A);
  return Object && Object == objectOf(B);
}

int collectObject(struct dl_phdr_info *Info, std::size_t, void *Out) {
  static_cast<std::vector<std::string> *>(Out)->push_back(
      Info->dlpi_name ? Info->dlpi_name : "");
  return 0;
}

/// The number of objects loaded since the process started.
unsigned long long loadCount() {
  unsigned long long Adds = 0;
  dl_iterate_phdr(
      [](struct dl_phdr_info *Info, std::size_t Size, void *Out) {
        if (Size >=
            offsetof(struct dl_phdr_info, dlpi_adds) + sizeof(Info->dlpi_adds))
          *static_cast<unsigned long long *>(Out) = Info->dlpi_adds;
        return 1;
      },
      &Adds);
  return Adds;
}

/// A definition of \p Name outside the bridge: the next one in the global
/// scope, else the first found from any loaded object's scope (a libc10
/// that Python loaded with RTLD_LOCAL is only in its dependents' scopes).
/// Never called with the bridge's lock held (the dynamic linker's own lock
/// is taken here).
void *findDefinition(const char *Name) {
  void *Found = dlsym(RTLD_NEXT, Name);
  if (!Found || inBridge(Found)) {
    Found = nullptr;
    std::vector<std::string> Objects;
    dl_iterate_phdr(collectObject, &Objects);
    for (const std::string &Object : Objects) {
      void *Handle = dlopen(Object.empty() ? nullptr : Object.c_str(),
                            RTLD_LAZY | RTLD_NOLOAD);
      if (!Handle)
        continue;
      void *Candidate = dlsym(Handle, Name);
      dlclose(Handle);
      if (Candidate && !inBridge(Candidate)) {
        Found = Candidate;
        break;
      }
    }
  }
  dlerror(); // The failed look-ups leave nothing for the program to read.
  return Found;
}

/// One of c10's functions in the c10 the process loaded (not the bridge's
/// own definition), looked up on first use and kept once found.
class RealFunction {
public:
  constexpr explicit RealFunction(const char *Name) : Name(Name) {}

  /// The function, or null if no loaded object defines it.
  void *get() {
    void *Found = Address.load(std::memory_order_acquire);
    if (Found)
      return Found;
    // Searched again only once more objects were loaded.
    unsigned long long Adds = loadCount();
    if (FailedAt.load(std::memory_order_relaxed) == Adds)
      return nullptr;
    Found = findDefinition(Name);
    if (Found)
      Address.store(Found, std::memory_order_release);
    else
      FailedAt.store(Adds, std::memory_order_relaxed);
    return Found;
  }

private:
  const char *Name;
  std::atomic<void *> Address{nullptr};
  /// The load count of the last search that found nothing.
  std::atomic<unsigned long long> FailedAt{~0ull};
};

RealFunction RealLogAPIUsage(LogAPIUsageName);
RealFunction RealLogAPIUsageFakeReturn(LogAPIUsageFakeReturnName);
RealFunction RealLogPyTorchDDPUsage(LogPyTorchDDPUsageName);
RealFunction RealSetAPIUsageLogger(SetAPIUsageLoggerName);
RealFunction RealSetPyTorchDDPUsageLogger(SetPyTorchDDPUsageLoggerName);

/// What apistamp_c10_bridge_mode() returns.
std::atomic<const char *> Mode("inactive");

/// Installs the bridge with c10::SetAPIUsageLogger (and, for a c10 of the
/// bridge's ABI, c10::SetPyTorchDDPUsageLogger). Returns false if no c10 is
/// loaded.
bool installAsLogger() {
  void *SetLogger = RealSetAPIUsageLogger.get();
  if (!SetLogger)
    return false;
  try {
    reinterpret_cast<SetLoggerFn>(SetLogger)([](const std::string &Event) {
      logOnce(Event);
      printLikeC10(Event); // c10's default logger is replaced.
    });
    void *SetDDPLogger = RealSetPyTorchDDPUsageLogger.get();
    if (SetDDPLogger && sameObject(SetDDPLogger, SetLogger))
      reinterpret_cast<SetDDPLoggerFn>(SetDDPLogger)(
          [](const c10::DDPLoggingData &Data) { logDDP(Data); });
  } catch (...) {
    return false;
  }
  return true;
}

/// At load: decides how events will reach the bridge.
__attribute__((constructor)) void startBridge() {
  state(); // Fork handlers while the process is single-threaded.
  void *Global = dlsym(RTLD_DEFAULT, LogAPIUsageName);
  dlerror();
  if (Global && inBridge(Global))
    Mode.store("interposed");
  else if (installAsLogger())
    Mode.store("installed");
}

} // namespace

//===----------------------------------------------------------------------===//
// c10's logging entry points, as the bridge defines them
//===----------------------------------------------------------------------===//

namespace c10 {

void LogAPIUsage(const std::string &Event) {
  logOnce(Event);
  if (void *Real = RealLogAPIUsage.get())
    reinterpret_cast<LogFn>(Real)(Event);
  else
    printLikeC10(Event); // No c10 in the process: the bridge is c10.
}

void LogPyTorchDDPUsage(const DDPLoggingData &Data) {
  void *Real = RealLogPyTorchDDPUsage.get();
  // A c10 whose strings have another ABI passes another layout.
  if (!Real || sameObject(Real, RealLogAPIUsage.get()))
    logDDP(Data);
  if (Real)
    reinterpret_cast<DDPFn>(Real)(Data);
}

namespace detail {

bool LogAPIUsageFakeReturn(const std::string &Event) {
  logOnce(Event);
  if (void *Real = RealLogAPIUsageFakeReturn.get())
    return reinterpret_cast<FakeReturnFn>(Real)(Event);
  printLikeC10(Event);
  return true;
}

} // namespace detail

} // namespace c10

const char *apistamp_c10_bridge_mode(void) { return Mode.load(); }
