//===- api_usage.cpp - c10-style API usage logging without libtorch -------===//
//
// Process-wide state (handlers, the set of names already logged, the events
// pending until a handler is installed), its reset in forked children, and
// the dispatch of each event to the handler and the environment's sinks.
//
//===----------------------------------------------------------------------===//

#include "apistamp/api_usage.h"
#include "sinks.h"

#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <pthread.h>
#include <unistd.h>
#include <unordered_set>
#include <utility>
#include <vector>

#if defined(__GLIBCXX__)
#include <cxxabi.h>
#define APISTAMP_HAS_FORCED_UNWIND 1
#endif

namespace apistamp {

namespace detail {
std::atomic<std::uint32_t> ProcessGeneration(1);
APISTAMP_THREAD_LOCAL unsigned EntryDepth = 0;
} // namespace detail

namespace {

using detail::EnvSinks;

/// Events kept for the first handler, per kind, before newer ones are
/// dropped.
constexpr std::size_t PendingLimit = 1024;

struct PendingMetadataEvent {
  std::string Context;
  std::map<std::string, std::string> Metadata;
};

/// Everything the runtime knows, guarded by Mutex. Never destroyed: static
/// destructors and detached threads may still log during exit.
struct State {
  std::mutex Mutex;
  /// The process generation the fields below belong to; when a forked child
  /// first takes the lock, they are reset (see refresh()).
  std::uint32_t Generation = 1;
  std::unordered_set<std::string> Logged;
  std::shared_ptr<const APIUsageLogger> Logger;
  std::shared_ptr<const APIUsageMetadataLogger> MetadataLogger;
  std::shared_ptr<const DDPUsageLogger> DDPLogger;
  std::vector<std::string> Pending;
  std::vector<PendingMetadataEvent> PendingMetadata;
  std::vector<DDPLoggingData> PendingDDP;
  /// Created on first use, from the environment at that time.
  const EnvSinks *Sinks = nullptr;

  /// Forgets what belongs to the parent after a fork: the names it logged
  /// and the events it kept for its handler. Handlers and sinks stay.
  /// Requires Mutex.
  void refresh() {
    std::uint32_t Current =
        detail::ProcessGeneration.load(std::memory_order_relaxed);
    if (Current == Generation)
      return;
    Generation = Current;
    Logged.clear();
    Pending.clear();
    PendingMetadata.clear();
    PendingDDP.clear();
  }

  /// Requires Mutex.
  const EnvSinks &sinks() {
    if (!Sinks)
      Sinks = new EnvSinks();
    return *Sinks;
  }
};

State *TheState = nullptr;

/// This process's id, for the JSON lines: read when the state is created and
/// in a forked child, not once per event (getpid is a system call).
std::atomic<long> ThePid(0);

/// True while this thread is inside the runtime (its lock, a sink's write,
/// a handler, a fork handler): an event raised then on the same thread (by
/// a signal handler that interrupted the runtime) is dropped instead of
/// waiting for a lock this thread holds. Constant-initialised, so reading it
/// in a signal handler does not allocate.
thread_local bool InRuntime = false;

/// Marks this thread as inside the runtime for its lifetime.
class RuntimeSection : detail::SectionMark {
public:
  RuntimeSection() : SectionMark(InRuntime) {}
};

// The child handler does no more than an increment, getpid, closing the
// sink's descriptors of the parent's threads, and unlocks: the state itself
// is reset by the child's first State::refresh().
void lockBeforeFork() {
  InRuntime = true;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  TheState->Mutex.lock();
  detail::lockSinkDescriptorsForFork();
}
void unlockInParent() {
  detail::unlockSinkDescriptorsInParent();
  TheState->Mutex.unlock();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  InRuntime = false;
}
void resetInChild() {
  detail::ProcessGeneration.fetch_add(1, std::memory_order_relaxed);
  ThePid.store(static_cast<long>(getpid()), std::memory_order_relaxed);
  detail::closeSinkDescriptorsInChild();
  TheState->Mutex.unlock();
  std::atomic_signal_fence(std::memory_order_seq_cst);
  InRuntime = false;
}

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

// Create the state (and register the fork handlers) while the program is
// still single-threaded, if nothing logged earlier.
struct CreateStateAtLoad {
  CreateStateAtLoad() { state(); }
} StateCreatedAtLoad;

/// True while this thread runs a handler: events it raises then are dropped
/// instead of re-entering the handler.
thread_local bool InHandler = false;

std::atomic<bool> HandlerErrorReported(false);

void reportHandlerError(const char *What) {
  if (HandlerErrorReported.exchange(true, std::memory_order_relaxed))
    return;
  detail::reportError(std::string("an API usage handler threw") +
                      (What ? std::string(" (") + What + ")" : std::string()) +
                      "; exceptions from handlers are ignored");
}

/// Runs \p Handler with \p Args; an exception it throws is reported once and
/// ignored. (Thread cancellation still unwinds through.)
template <typename HandlerT, typename... ArgsT>
void callHandler(const HandlerT &Handler, const ArgsT &...Args) {
  bool Saved = InHandler;
  InHandler = true;
  try {
    Handler(Args...);
#if APISTAMP_HAS_FORCED_UNWIND
  } catch (abi::__forced_unwind &) {
    InHandler = Saved;
    throw;
#endif
  } catch (const std::exception &E) {
    reportHandlerError(E.what());
  } catch (...) {
    reportHandlerError(nullptr);
  }
  InHandler = Saved;
}

/// Where one event goes, decided under the lock and acted on outside it.
struct Delivery {
  const EnvSinks *Sinks = nullptr;
  std::shared_ptr<const APIUsageLogger> Logger;
};

/// Decides where \p Event goes: the handler, or (none installed yet) the
/// pending buffer. Requires the state's mutex.
Delivery routeLocked(State &S, const std::string &Event) {
  Delivery D;
  D.Sinks = &S.sinks();
  D.Logger = S.Logger;
  if (!D.Logger && S.Pending.size() < PendingLimit)
    S.Pending.push_back(Event);
  return D;
}

/// Sends \p Event to the file sink and to the handler (or, with no handler,
/// to stderr if asked to). Takes no lock.
void send(const Delivery &D, const std::string &Event) {
  D.Sinks->writeJson(Event, nullptr, currentPid());
  if (D.Logger)
    callHandler(*D.Logger, Event);
  else if (D.Sinks->stderrEnabled())
    D.Sinks->writeStderr(Event);
}

void deliver(const std::string &Event) {
  State &S = state();
  RuntimeSection Section;
  Delivery D;
  {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    S.refresh();
    D = routeLocked(S, Event);
  }
  send(D, Event);
}

/// Under the state's lock: the sinks, and the logger \p Slot holds; with
/// none set yet, the record \p Make gives is kept in \p Pending (up to
/// PendingLimit) for the logger set later.
template <class Logger, class Record, class MakeRecord>
std::pair<const EnvSinks *, std::shared_ptr<const Logger>>
loggerOrKeep(State &S, std::shared_ptr<const Logger> State::*Slot,
             std::vector<Record> State::*Pending, MakeRecord Make) {
  std::lock_guard<std::mutex> Lock(S.Mutex);
  S.refresh();
  std::shared_ptr<const Logger> Current = S.*Slot;
  if (!Current && (S.*Pending).size() < PendingLimit)
    (S.*Pending).push_back(Make());
  return {&S.sinks(), std::move(Current)};
}

/// Delivers one record: to the sinks (\p Write), and to the handler in
/// \p Slot, or kept in \p Pending (\p Make) for a handler set later.
template <class Logger, class Record, class MakeRecord, class WriteRecord,
          class CallLogger>
void deliverRecord(std::shared_ptr<const Logger> State::*Slot,
                   std::vector<Record> State::*Pending, MakeRecord Make,
                   WriteRecord Write, CallLogger Call) {
  State &S = state();
  RuntimeSection Section;
  std::pair<const EnvSinks *, std::shared_ptr<const Logger>> Taken =
      loggerOrKeep(S, Slot, Pending, Make);
  Write(*Taken.first);
  if (Taken.second)
    Call(*Taken.second);
}

void deliverMetadata(const std::string &Context,
                     const std::map<std::string, std::string> &Metadata) {
  deliverRecord(
      &State::MetadataLogger, &State::PendingMetadata,
      [&] { return PendingMetadataEvent{Context, Metadata}; },
      [&](const EnvSinks &Sinks) {
        Sinks.writeJson(Context, &Metadata, currentPid());
      },
      [&](const APIUsageMetadataLogger &Logger) {
        callHandler(Logger, Context, Metadata);
      });
}

void deliverDDP(const DDPLoggingData &Data) {
  deliverRecord(
      &State::DDPLogger, &State::PendingDDP, [&] { return Data; },
      [&](const EnvSinks &Sinks) {
        if (!Sinks.logEnabled())
          return;
        std::string Members = detail::ddpMembers(Data.strs_map, Data.ints_map);
        Sinks.writeJson(detail::DDPUsageEvent, nullptr, currentPid(), &Members);
      },
      [&](const DDPUsageLogger &Logger) { callHandler(Logger, Data); });
}

/// Sets the handler in \p Slot to \p L and replays to it (\p ReplayOne)
/// the records kept in \p Pending while there was none. An empty \p L is
/// ignored; so is a failed allocation.
template <class Logger, class Record, class ReplayRecord>
void setLogger(Logger L, std::shared_ptr<const Logger> State::*Slot,
               std::vector<Record> State::*Pending, ReplayRecord ReplayOne) {
  if (!L)
    return;
  try {
    auto Shared = std::make_shared<const Logger>(std::move(L));
    std::vector<Record> Replay;
    State &S = state();
    {
      RuntimeSection Section;
      std::lock_guard<std::mutex> Lock(S.Mutex);
      S.refresh();
      S.*Slot = Shared;
      Replay.swap(S.*Pending);
    }
    for (const Record &R : Replay)
      ReplayOne(*Shared, R);
  } catch (const std::bad_alloc &) {
  }
}

void logSiteOnceImpl(detail::Site &Site, const char *Event, std::size_t Size) {
  if (InHandler || InRuntime)
    return; // Not marked: its first use outside a handler logs it.
  State &S = state();
  RuntimeSection Section;
  std::string Name(Event, Size);
  Delivery D;
  {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    S.refresh();
    if (Site.Generation.load(std::memory_order_relaxed) == S.Generation)
      return; // Another thread got here first.
    bool Inserted = S.Logged.insert(Name).second;
    Site.Generation.store(S.Generation, std::memory_order_relaxed);
    if (!Inserted)
      return; // Another site of the same name logged it.
    D = routeLocked(S, Name);
  }
  send(D, Name);
}

} // namespace

void SetAPIUsageLogger(APIUsageLogger Logger) {
  setLogger(std::move(Logger), &State::Logger, &State::Pending,
            [](const APIUsageLogger &L, const std::string &Event) {
              callHandler(L, Event);
            });
}

void LogAPIUsage(const std::string &Event) {
  if (InHandler || InRuntime)
    return;
  try {
    deliver(Event);
  } catch (const std::bad_alloc &) {
  }
}

void SetAPIUsageMetadataLogger(APIUsageMetadataLogger Logger) {
  setLogger(
      std::move(Logger), &State::MetadataLogger, &State::PendingMetadata,
      [](const APIUsageMetadataLogger &L, const PendingMetadataEvent &Event) {
        callHandler(L, Event.Context, Event.Metadata);
      });
}

void LogAPIUsageMetadata(const std::string &Context,
                         const std::map<std::string, std::string> &Metadata) {
  if (InHandler || InRuntime)
    return;
  try {
    deliverMetadata(Context, Metadata);
  } catch (const std::bad_alloc &) {
  }
}

void SetPyTorchDDPUsageLogger(DDPUsageLogger Logger) {
  setLogger(std::move(Logger), &State::DDPLogger, &State::PendingDDP,
            [](const DDPUsageLogger &L, const DDPLoggingData &Data) {
              callHandler(L, Data);
            });
}

void LogPyTorchDDPUsage(const DDPLoggingData &Data) {
  if (InHandler || InRuntime)
    return;
  try {
    deliverDDP(Data);
  } catch (const std::bad_alloc &) {
  }
}

void SetGlobalRank(std::int64_t Rank) { detail::setGlobalRank(Rank); }

namespace detail {

void logSiteOnce(Site &S, const char *Event) {
  try {
    logSiteOnceImpl(S, Event ? Event : "", Event ? std::strlen(Event) : 0);
  } catch (const std::bad_alloc &) {
  }
}

void logSiteOnce(Site &S, const std::string &Event) {
  try {
    logSiteOnceImpl(S, Event.data(), Event.size());
  } catch (const std::bad_alloc &) {
  }
}

bool LogAPIUsageFakeReturn(const std::string &Event) {
  LogAPIUsage(Event);
  return true;
}

} // namespace detail

} // namespace apistamp
