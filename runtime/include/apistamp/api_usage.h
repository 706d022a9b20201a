//===- api_usage.h - c10-style API usage logging without libtorch -*- C++ -*-//
//
// Provides C10_LOG_API_USAGE_ONCE and c10's API usage handler functions for
// code that does not link libtorch. Each event *name* is logged once per
// process (c10: once per call site), again once in a forked child; after the
// first call a site costs two relaxed loads and a compare: no lock, no
// allocation, no string built. APISTAMP_LOG_API_ENTRY logs only outermost
// calls (not the calls an instrumented library makes to itself), with a
// per-thread depth. Needs C++11 or later; works with -fno-exceptions and
// -fno-rtti. Semantics, sinks and environment variables: runtime/README.md.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_API_USAGE_H
#define APISTAMP_API_USAGE_H

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#if defined(__GNUC__) || defined(__clang__)
/// Marks a declaration as exported from the shared runtime library.
#define APISTAMP_API __attribute__((visibility("default")))
/// Keeps an inline helper out of the dynamic symbol table of the library that
/// uses the macro, so that a library with its own hidden copy of the runtime
/// never calls another copy's helper.
#define APISTAMP_HIDDEN __attribute__((visibility("hidden")))
/// Tells the compiler that \p X is almost always false.
#define APISTAMP_UNLIKELY(X) __builtin_expect(!!(X), 0)
/// Thread-local storage of a plain (constant-initialised) variable: `__thread`
/// needs no TLS wrapper call, which an `extern thread_local` does.
#define APISTAMP_THREAD_LOCAL __thread
/// Makes the compiler forget where pointer \p P points, so that it keeps the
/// value instead of computing the address again (a thread-local variable's,
/// a `__tls_get_addr` call in position-independent code).
#define APISTAMP_OPAQUE(P) __asm__("" : "+r"(P))
#else
#define APISTAMP_API
#define APISTAMP_HIDDEN
#define APISTAMP_UNLIKELY(X) (X)
#define APISTAMP_THREAD_LOCAL thread_local
#define APISTAMP_OPAQUE(P) ((void)(P))
#endif

namespace apistamp {

/// Receives one API usage event (c10's `SetAPIUsageLogger` signature).
typedef std::function<void(const std::string &)> APIUsageLogger;

/// Receives one event with its metadata (c10's `SetAPIUsageMetadataLogger`).
typedef std::function<void(const std::string &,
                           const std::map<std::string, std::string> &)>
    APIUsageMetadataLogger;

/// Replaces the handler that receives API usage events; an empty function is
/// ignored (c10 rejects it). Events logged before the first handler was
/// installed (at most 1024) are handed to it now, in order. The handler runs
/// outside any internal lock; events raised while it runs on the same thread
/// are not passed to it again. Until a handler is installed, events go to
/// stderr as `PYTORCH_API_USAGE <event>` if PYTORCH_API_USAGE_STDERR is set
/// and non-empty (as in c10), and nowhere otherwise. Thread-safe.
APISTAMP_API void SetAPIUsageLogger(APIUsageLogger Logger);

/// Logs \p Event every time it is called: to the handler (or the pending
/// buffer) and to the JSON-lines file named by APISTAMP_API_USAGE_LOG.
APISTAMP_API void LogAPIUsage(const std::string &Event);

/// Replaces the handler for events with metadata; an empty function is
/// ignored. Pending metadata events (at most 1024) are handed to the first
/// one installed. The default handler does nothing (as in c10).
APISTAMP_API void SetAPIUsageMetadataLogger(APIUsageMetadataLogger Logger);

/// Logs \p Context with \p Metadata every time it is called: to the metadata
/// handler (or its pending buffer) and to the JSON-lines file, if any.
APISTAMP_API void
LogAPIUsageMetadata(const std::string &Context,
                    const std::map<std::string, std::string> &Metadata);

/// One DistributedDataParallel record (c10's `DDPLoggingData`, same members):
/// what PyTorch's DDP logs at construction and, sampled, while training.
struct DDPLoggingData {
  /// The record's fields that are strings.
  std::map<std::string, std::string> strs_map;
  /// The record's fields that are integers.
  std::map<std::string, std::int64_t> ints_map;
};

/// Receives one DDP record (c10's `SetPyTorchDDPUsageLogger` signature).
typedef std::function<void(const DDPLoggingData &)> DDPUsageLogger;

/// Replaces the handler for DDP records; an empty function is ignored (c10
/// rejects it). Pending records (at most 1024) are handed to the first one
/// installed. The default handler does nothing (as in c10). Thread-safe.
APISTAMP_API void SetPyTorchDDPUsageLogger(DDPUsageLogger Logger);

/// Logs the DDP record \p Data every time it is called: to the DDP handler
/// (or its pending buffer) and to the JSON-lines file, if any, as one line
/// of event "c10.ddp_usage" with a "ddp" member (runtime/README.md).
APISTAMP_API void LogPyTorchDDPUsage(const DDPLoggingData &Data);

/// Sets the rank that the JSON lines written from now on carry, in place of
/// RANK or LOCAL_RANK (c10's `SetGlobalRank`, whose rank prefixes c10's log
/// messages); -1, c10's "no rank", goes back to the environment's. A forked
/// child keeps it. Thread-safe.
APISTAMP_API void SetGlobalRank(std::int64_t Rank);

namespace detail {

/// Incremented in each forked child, so that every site logs again there.
/// Starts at 1; a site that never logged holds 0.
extern APISTAMP_API std::atomic<std::uint32_t> ProcessGeneration;

/// The state of one C10_LOG_API_USAGE_ONCE call site: constant-initialised
/// (no guard variable), it records the process generation it last ran in.
struct Site {
  /// The generation in which this site was handled, or 0.
  std::atomic<std::uint32_t> Generation;

  /// A site that has not logged yet.
  constexpr Site() : Generation(0) {}

  /// True if this site was already handled in this process: the whole
  /// steady-state cost of the macro.
  APISTAMP_HIDDEN bool done() const {
    return Generation.load(std::memory_order_relaxed) ==
           ProcessGeneration.load(std::memory_order_relaxed);
  }
};

/// The slow path of C10_LOG_API_USAGE_ONCE: logs \p Event unless an event of
/// that name was already logged in this process, and marks \p S done.
APISTAMP_API void logSiteOnce(Site &S, const char *Event);

/// \copydoc logSiteOnce(Site &, const char *)
APISTAMP_API void logSiteOnce(Site &S, const std::string &Event);

/// Logs \p Event and returns true (c10's helper of the same name).
APISTAMP_API bool LogAPIUsageFakeReturn(const std::string &Event);

/// How many APIEntryScope objects are alive on this thread, less those that
/// a UserCodeScope set aside: 0 outside any instrumented API call. Per
/// thread (a new thread starts at 0); a forked child keeps its parent
/// thread's value, as it continues inside the same calls.
extern APISTAMP_API APISTAMP_THREAD_LOCAL unsigned EntryDepth;

/// The address of this thread's EntryDepth, looked up once by the caller
/// and kept: one `__tls_get_addr` per scope in position-independent code,
/// where g++ would otherwise call it again in the destructor. The pointer
/// is opaque to the compiler, so UBSan checks it as a plain pointer (g++ 12
/// -O2 -fsanitize=undefined checked a pointer it knew to be EntryDepth's
/// address with stale flags and reported a null pointer that was not there).
APISTAMP_HIDDEN inline unsigned *entryDepth() {
  unsigned *Depth = &EntryDepth;
  APISTAMP_OPAQUE(Depth);
  return Depth;
}

} // namespace detail

/// Marks the lifetime of one call into an API instrumented with
/// APISTAMP_LOG_API_ENTRY (which declares one): while it is alive, this
/// thread is inside the API, and calls of other instrumented APIs on it are
/// not outermost. Not copyable; destroyed in reverse order of construction,
/// on return or while an exception unwinds.
class APIEntryScope {
public:
  /// Enters the API on this thread.
  APISTAMP_HIDDEN APIEntryScope()
      : Depth(detail::entryDepth()), Outermost((*Depth)++ == 0) {}
  /// Leaves it.
  APISTAMP_HIDDEN ~APIEntryScope() { --*Depth; }
  APIEntryScope(const APIEntryScope &) = delete;
  APIEntryScope &operator=(const APIEntryScope &) = delete;

  /// True if no other APIEntryScope was alive on this thread when this one
  /// was made (or only ones that a UserCodeScope set aside since).
  APISTAMP_HIDDEN bool outermost() const { return Outermost; }

private:
  /// This thread's depth.
  unsigned *Depth;
  bool Outermost;
};

/// Marks a call from inside an instrumented API out to user code (a
/// callback, a virtual function the user overrides): while it is alive,
/// this thread counts as outside every API, so the user code's own calls of
/// instrumented APIs are outermost and logged. Restores the depth on
/// destruction. Without it, such calls count as the library's own.
class UserCodeScope {
public:
  /// Sets this thread's depth aside.
  APISTAMP_HIDDEN UserCodeScope() : Depth(detail::entryDepth()), Saved(*Depth) {
    *Depth = 0;
  }
  /// Puts it back.
  APISTAMP_HIDDEN ~UserCodeScope() { *Depth = Saved; }
  UserCodeScope(const UserCodeScope &) = delete;
  UserCodeScope &operator=(const UserCodeScope &) = delete;

private:
  unsigned *Depth;
  unsigned Saved;
};

} // namespace apistamp

/// Logs \p ... (a string literal, `const char *` or `std::string`) once per
/// process per event name; later calls only compare two integers and do not
/// evaluate the argument. A statement: `APISTAMP_LOG_API_USAGE_ONCE("a.b");`
/// in a function body (not in constexpr functions before C++23).
#define APISTAMP_LOG_API_USAGE_ONCE(...)                                       \
  do {                                                                         \
    static ::apistamp::detail::Site ApistampSite;                              \
    if (APISTAMP_UNLIKELY(!ApistampSite.done()))                               \
      ::apistamp::detail::logSiteOnce(ApistampSite, __VA_ARGS__);              \
  } while (false)

/// Pastes two tokens after expanding them.
#define APISTAMP_CONCAT_(A, B) APISTAMP_CONCAT_IMPL_(A, B)
#define APISTAMP_CONCAT_IMPL_(A, B) A##B
#ifdef __COUNTER__
#define APISTAMP_UNIQUE_ID_ __COUNTER__
#else
#define APISTAMP_UNIQUE_ID_ __LINE__
#endif

/// Logs \p ... like APISTAMP_LOG_API_USAGE_ONCE (once per process per event
/// name, argument not evaluated after that), but only for an *outermost*
/// call: one made while no other call of a function instrumented with this
/// macro is running on this thread. A call the library makes to itself
/// neither logs nor marks its site, so a later direct call of that function
/// from outside logs it. Declares an APIEntryScope that lives until the end
/// of the enclosing block, so it belongs at the start of a function body:
/// `APISTAMP_LOG_API_ENTRY("a.b");`. Not a single statement: not usable as
/// the body of an `if` or a loop without braces (it does not compile there).
#define APISTAMP_LOG_API_ENTRY(...)                                            \
  APISTAMP_LOG_API_ENTRY_AT_(APISTAMP_UNIQUE_ID_, __VA_ARGS__)
#define APISTAMP_LOG_API_ENTRY_AT_(N, ...)                                     \
  static ::apistamp::detail::Site APISTAMP_CONCAT_(ApistampEntrySite, N);      \
  const ::apistamp::APIEntryScope APISTAMP_CONCAT_(ApistampEntry, N);          \
  if (APISTAMP_UNLIKELY(APISTAMP_CONCAT_(ApistampEntry, N).outermost() &&      \
                        !APISTAMP_CONCAT_(ApistampEntrySite, N).done()))       \
  ::apistamp::detail::logSiteOnce(APISTAMP_CONCAT_(ApistampEntrySite, N),      \
                                  __VA_ARGS__)

/// Marks a library's internal entry point (a static initialiser, a start-up
/// routine that calls the library's own API): logs nothing, and until the
/// end of the enclosing block the calls of functions instrumented with
/// APISTAMP_LOG_API_ENTRY on this thread are nested, not outermost, so the
/// library's own start-up counts as no use. \p ... names the entry point
/// for apistamp (a string literal); it is not evaluated. At the start of a
/// function body, as APISTAMP_LOG_API_ENTRY: `APISTAMP_LIBRARY_INTERNAL("a");`.
#define APISTAMP_LIBRARY_INTERNAL(...)                                         \
  APISTAMP_LIBRARY_INTERNAL_AT_(APISTAMP_UNIQUE_ID_)
#define APISTAMP_LIBRARY_INTERNAL_AT_(N)                                       \
  const ::apistamp::APIEntryScope APISTAMP_CONCAT_(ApistampInternal, N)

#ifndef C10_LOG_API_USAGE_ONCE
/// c10's spelling of APISTAMP_LOG_API_USAGE_ONCE, defined only if nothing
/// (such as c10/util/Logging.h) defined it first.
#define C10_LOG_API_USAGE_ONCE(...) APISTAMP_LOG_API_USAGE_ONCE(__VA_ARGS__)
#endif

#endif // APISTAMP_API_USAGE_H
