//===- LogCounts.h - What the threads reading logs count --------*- C++ -*-===//
//
// The per-thread state of reading usage logs: dense counter ids shared by
// the threads, each thread's events (first and last seen, counters per
// day), the distinct keys it buffers, and the small caches that spare the
// parsing and hashing of the lines that repeat (a process's tail, recent
// hosts and jobs, recent events). collect() turns the threads' counts into
// per-event counts once they are done.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_LOGCOUNTS_H
#define APISTAMP_LIB_USAGE_LOGCOUNTS_H

#include "DistinctKeys.h"
#include "LogLine.h"
#include "UsageLog.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <tuple>

namespace apistamp {

/// The bytes read(2) at a time from a log that is not mapped, and the
/// most one decompressing step gives.
constexpr size_t ChunkSize = 1 << 16;
/// The malformed lines of a file kept with their numbers (--verbose).
constexpr size_t FirstProblemsKept = 5;
/// 2^64 divided by the golden ratio: mixes a counter id into a hash.
constexpr uint64_t Golden = 0x9E3779B97F4A7C15ULL;
/// Keys buffered before they are deduplicated, over all threads: 16 Mi
/// records of 8 bytes (DistinctKeys).
constexpr size_t KeyBudget = size_t(16) << 20;

/// The 8 bytes at \p P, unaligned.
inline uint64_t load64(const char *P) {
  uint64_t V;
  std::memcpy(&V, P, sizeof V);
  return V;
}

/// A day, "2026-11-23" (or a time on it), as its eight digits (isIsoTime
/// or the partial reader checked them, and the dashes).
inline uint64_t dayKey(std::string_view Time) {
  uint64_t Key;
  std::memcpy(&Key, Time.data(), 4);
  std::memcpy(reinterpret_cast<char *>(&Key) + 4, Time.data() + 5, 2);
  std::memcpy(reinterpret_cast<char *>(&Key) + 6, Time.data() + 8, 2);
  return Key;
}

/// What the distinct counters count: the first three of each event, then
/// one per (event, day).
enum CounterKind : uint32_t { JobsCounter, ProcessesCounter, HostsCounter };

/// Dense counter ids shared by the reading threads: an event's three
/// counters (Base + CounterKind) and its jobs per day. Asked only when a
/// thread meets an event or an (event, day) for the first time.
class CounterIds {
public:
  /// Counters of events named as logged, or (\p Aliases) an old name's
  /// counted as its current event's: a job that logged both is one job.
  explicit CounterIds(llvm::ArrayRef<EventAlias> Aliases = {})
      : Aliases(Aliases) {
    for (uint32_t Kind : {JobsCounter, ProcessesCounter, HostsCounter})
      Counters.push_back({llvm::StringRef(), Kind, {}});
  }
  /// The counters of every event together (the event ""): the jobs that
  /// logged anything.
  static constexpr uint32_t AllEvents = 0;
  /// The first of the three counters of \p Event (as logged); AllEvents
  /// for "".
  uint32_t event(llvm::StringRef Event) {
    if (Event.empty())
      return AllEvents;
    std::lock_guard<std::mutex> Lock(Mutex);
    auto Known = Logged.find(Event);
    if (Known != Logged.end())
      return Known->second;
    // One step, whatever the order the names come in: an old name counts
    // as its current event, which counts as itself.
    std::string Current = currentEventName(Aliases, Event);
    auto [It, New] = Bases.try_emplace(Current, uint32_t(Counters.size()));
    if (New)
      for (uint32_t Kind : {JobsCounter, ProcessesCounter, HostsCounter})
        Counters.push_back({It->getKey(), Kind, {}});
    Logged.try_emplace(Event, It->second);
    return It->second;
  }

  /// The counter of jobs on \p Day of the event whose counters start at
  /// \p Base.
  /// \p Day is "YYYY-MM-DD".
  uint32_t day(uint32_t Base, llvm::StringRef Day) {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto [It, New] = Days.try_emplace(
        {Base, dayKey(std::string_view(Day.data(), DayLength))},
        uint32_t(Counters.size()));
    if (New) {
      Counter C{Counters[Base].Event, JobsCounter, {}};
      std::memcpy(C.Day, Day.data(), DayLength);
      Counters.push_back(C);
    }
    return It->second;
  }

  /// The length of "YYYY-MM-DD".
  static constexpr size_t DayLength = 10;
  /// 32 bytes: a counter per distinct event and day, over every line.
  struct Counter {
    llvm::StringRef Event; ///< The current name, owned by Bases.
    uint32_t Kind;
    char Day[DayLength]; ///< Zeros but for jobs per day.
    /// "YYYY-MM-DD" for jobs per day, else empty.
    llvm::StringRef day() const {
      return Day[0] ? llvm::StringRef(Day, DayLength) : llvm::StringRef();
    }
  };
  /// Every counter, by id (read once the threads are done).
  const std::vector<Counter> &counters() const { return Counters; }

private:
  llvm::ArrayRef<EventAlias> Aliases;
  std::mutex Mutex;
  /// Current event names, and names as logged, to their first counter.
  llvm::StringMap<uint32_t> Bases, Logged;
  llvm::DenseMap<std::pair<uint32_t, uint64_t>, uint32_t> Days;
  std::vector<Counter> Counters;
};

/// The first 16 bytes of a time (zeros past its end), ordered as the
/// times: when two prefixes differ, the times differ the same way.
struct TimePrefix {
  uint64_t High = 0, Low = 0;

  static TimePrefix of(std::string_view Time) {
    char Bytes[16] = {};
    std::memcpy(Bytes, Time.data(), std::min<size_t>(Time.size(), 16));
    return {llvm::byteswap(load64(Bytes)), llvm::byteswap(load64(Bytes + 8))};
  }
  bool operator<(const TimePrefix &Other) const {
    return std::tie(High, Low) < std::tie(Other.High, Other.Low);
  }
};

/// One thread's view of an event.
struct LocalEvent {
  uint32_t Base = 0; ///< CounterIds::event.
  /// The name is its own JSON string: a line whose event's bytes are these
  /// names this event.
  bool PlainName = false;
  /// The name, and 16 bytes of zeros for equalPadded.
  std::string PaddedName;
  std::string FirstSeen, LastSeen;
  /// Their prefixes: a time strictly between them changes neither.
  TimePrefix FirstPrefix, LastPrefix;

  /// Notes a line of this event at \p Time.
  void seenAt(std::string_view Time) {
    TimePrefix Prefix = TimePrefix::of(Time);
    if (FirstPrefix < Prefix && Prefix < LastPrefix)
      return;
    if (FirstSeen.empty() || Time < std::string_view(FirstSeen)) {
      FirstSeen.assign(Time);
      FirstPrefix = Prefix;
    }
    if (Time > std::string_view(LastSeen)) {
      LastSeen.assign(Time);
      LastPrefix = Prefix;
    }
  }
  /// The last line's day and its counter (ThreadCounts::DayCounters has
  /// the others).
  uint64_t LastDay = 0;
  uint32_t LastDayCounter = ~0u;
};

/// Remembers recently added keys: a key seen here is already counted, and
/// adding it again is skipped. A job's lines come together, so its
/// (event, day) pairs repeat nearby.
class RecentKeys {
public:
  /// True when \p Key was seen recently; remembers it.
  bool seen(uint64_t Key) {
    uint64_t &Slot = Slots[Key & (Size - 1)];
    if (Slot == Key)
      return true;
    Slot = Key;
    return false;
  }

private:
  static constexpr size_t Size = 4096;
  std::vector<uint64_t> Slots = std::vector<uint64_t>(Size, 0);
};

/// The hashes of a line's host, process (host, pid, exe) and job (its
/// process when it has none).
struct LineKeys {
  uint64_t Host, Process, Job;

  static LineKeys of(const LogLine &Line) {
    uint64_t Host =
        llvm::xxh3_64bits(llvm::StringRef(Line.Host.data(), Line.Host.size()));
    uint64_t Exe =
        llvm::xxh3_64bits(llvm::StringRef(Line.Exe.data(), Line.Exe.size()));
    uint64_t Process =
        mix64(Host ^ llvm::rotl(Exe, 29) ^ uint64_t(Line.Pid) * Golden);
    uint64_t Job = Line.HasJob ? llvm::xxh3_64bits(llvm::StringRef(
                                     Line.Job.data(), Line.Job.size()))
                               : ~Process;
    return {Host, Process, Job};
  }
};

/// The hashes a line's tail (,"pid":N,...}) gives, by its bytes and the
/// newline that ends it, for the last tails seen: a process's lines share
/// their tail, and the lines of a few processes interleave. A hit spares
/// parsing and hashing the tail, and looking for the line's end.
class TailCache {
public:
  /// The bytes read from a tail's start to choose its slot (the pid's
  /// digits and the host's first bytes, mostly): the caller has that many
  /// readable.
  static constexpr size_t KeyBytes = 39;
  static_assert(KeyBytes <= LogLinePadding, "a line's padding covers them");
  static constexpr size_t MaxLength = 224;
  struct Entry {
    uint32_t Length = 0; ///< The newline included; 0: empty.
    uint64_t Host = 0, Process = 0, Job = 0;
    char Bytes[MaxLength]; ///< Read 16 at a time by equalPadded.
  };
  static_assert(MaxLength % 16 == 0, "equalPadded reads whole blocks");

  /// The entry for the tail that starts at \p Tail: chosen by its bytes 7
  /// (past ,"pid":) to KeyBytes.
  Entry &slot(const char *Tail) {
    const char *Key = Tail + KeyBytes - 32;
    uint64_t Mixed = load64(Key) ^ llvm::rotl(load64(Key + 8), 17) ^
                     llvm::rotl(load64(Key + 16), 31) ^
                     llvm::rotl(load64(Key + 24), 47);
    return Entries[mix64(Mixed) >> (64 - Bits)];
  }

  /// True when \p E holds the tail at \p Tail, whose \p Available bytes
  /// may be more than its own and are followed by 15 readable ones.
  static bool holds(const Entry &E, const char *Tail, size_t Available) {
    return E.Length && E.Length <= Available &&
           equalPadded(E.Bytes, Tail, E.Length);
  }

  /// Remembers the tail of \p Length bytes at \p Tail, which a newline
  /// ended, and its hashes.
  static void store(Entry &E, const char *Tail, size_t Length,
                    const LineKeys &Keys);

private:
  static constexpr unsigned Bits = 9;
  std::vector<Entry> Entries = std::vector<Entry>(size_t(1) << Bits);
};

inline void TailCache::store(Entry &E, const char *Tail, size_t Length,
                             const LineKeys &Keys) {
  if (Length + 1 > MaxLength)
    return;
  E.Length = uint32_t(Length + 1);
  std::memcpy(E.Bytes, Tail, Length);
  E.Bytes[Length] = '\n';
  E.Host = Keys.Host;
  E.Process = Keys.Process;
  E.Job = Keys.Job;
}

/// What one reading thread counts, over all the files it reads.
class ThreadCounts {
public:
  ThreadCounts(CounterIds &Ids, size_t KeyBudget) : Ids(Ids), Keys(KeyBudget) {}

  CounterIds &Ids;
  DistinctKeys Keys;
  llvm::StringMap<LocalEvent> Events;
  /// The counter of each (LocalEvent::Base, dayKey) met: one table for all
  /// events, as most events have a few days (a table each took 1 KiB).
  llvm::DenseMap<std::pair<uint32_t, uint64_t>, uint32_t> DayCounters;
  TailCache Tails;
  RecentKeys RecentHosts, RecentJobs;
  /// Any line not of the runtime's shape (a log collector's), and every
  /// bad line.
  LogLineParser Slow;
  unsigned Files = 0;
  uint64_t Lines = 0, EventLines = 0, Malformed = 0, OutsideWindow = 0;

  /// Empties the cache of recent events (before Events loses entries).
  void forgetRecentEvents() {
    std::fill(EventCache.begin(), EventCache.end(), CachedEvent());
  }

  /// \p Name's entry when the cache of recent events has it; \p Name has
  /// 15 readable bytes past its end.
  LocalEvent *cachedEvent(std::string_view Name) {
    CachedEvent &Slot = EventCache[eventSlot(Name)];
    return Slot.Event && Slot.Name.size() == Name.size() &&
                   equalPadded(Slot.Name.data(), Name.data(), Name.size())
               ? Slot.Event
               : nullptr;
  }

  /// The thread's entry of \p Name, from a small cache of recent events.
  LocalEvent &event(std::string_view Name) {
    CachedEvent &Slot = EventCache[eventSlot(Name)];
    if (Slot.Event && Slot.Name == Name)
      return *Slot.Event;
    auto [It, New] =
        Events.try_emplace(llvm::StringRef(Name.data(), Name.size()));
    if (New) {
      It->second.Base = Ids.event(It->getKey());
      std::string &Padded = It->second.PaddedName;
      Padded.assign(Name);
      Padded.resize(Name.size() + EqualPaddedBlock); // equalPadded's reach.
      It->second.PlainName = isPlainText(Padded.data(), Name.size()) &&
                             Name.find('"') == std::string_view::npos;
    }
    Slot = {std::string_view(It->second.PaddedName.data(), Name.size()),
            &It->second};
    return It->second;
  }

  /// True when \p Time is on the day of \p Event's last line counted.
  static bool onLastDay(const LocalEvent &Event, std::string_view Time) {
    return Event.LastDayCounter != ~0u && dayKey(Time) == Event.LastDay;
  }

  /// Counts one line of \p Event at \p Time; its host only when
  /// \p HasHost (a stderr log names none).
  void count(LocalEvent &Event, std::string_view Time, const LineKeys &Key,
             bool HasHost = true) {
    ++EventLines;
    Keys.add(Event.Base + ProcessesCounter, Key.Process);
    if (HasHost && !RecentHosts.seen(mix64(Key.Host ^ Event.Base * Golden)))
      Keys.add(Event.Base + HostsCounter, Key.Host);
    Event.seenAt(Time);
    uint64_t Day = dayKey(Time);
    if (Day != Event.LastDay || Event.LastDayCounter == ~0u) {
      auto [It, New] = DayCounters.try_emplace({Event.Base, Day});
      if (New)
        It->second = Ids.day(Event.Base, llvm::StringRef(Time.data(), 10));
      Event.LastDay = Day;
      Event.LastDayCounter = It->second;
    }
    // (event, day, job) seen recently: (event, job) was added too.
    if (RecentJobs.seen(mix64(Key.Job ^ Event.LastDayCounter * Golden)))
      return;
    Keys.add(Event.Base + JobsCounter, Key.Job);
    Keys.add(Event.LastDayCounter, Key.Job);
    Keys.add(CounterIds::AllEvents + JobsCounter, Key.Job);
  }

private:
  static size_t eventSlot(std::string_view Name) {
    uint64_t First = 0, Last = 0;
    if (Name.size() >= 8) {
      First = load64(Name.data());
      Last = load64(Name.data() + Name.size() - 8);
    } else {
      std::memcpy(&First, Name.data(), Name.size());
    }
    return mix64(First ^ llvm::rotl(Last, 23) ^ Name.size()) >>
           (64 - EventCacheBits);
  }

  struct CachedEvent {
    std::string_view Name; ///< LocalEvent::PaddedName's.
    LocalEvent *Event = nullptr;
  };
  static constexpr unsigned EventCacheBits = 12;
  std::vector<CachedEvent> EventCache =
      std::vector<CachedEvent>(size_t(1) << EventCacheBits);
};

/// The distinct keys of \p Keys counted per event, on \p Threads threads,
/// into \p Counts (first and last seen left as they are there); empties
/// \p Keys.
UsageCounts countKeys(const CounterIds &Ids,
                      llvm::ArrayRef<DistinctKeys *> Keys, unsigned Threads,
                      UsageCounts Counts = {});

/// Adds the files and lines \p Threads read to \p Into's.
void addInputs(UsageCounts &Into,
               llvm::ArrayRef<std::unique_ptr<ThreadCounts>> Threads);

/// Widens [\p FirstSeen, \p LastSeen] to take [\p First, \p Last] (an
/// empty FirstSeen is none yet).
void widenSeen(std::string &FirstSeen, std::string &LastSeen,
               const std::string &First, const std::string &Last);

/// The threads' counts as per-event counts; every thread's Keys finished.
/// Empties the threads' Events.
UsageCounts collect(const CounterIds &Ids,
                    llvm::ArrayRef<std::unique_ptr<ThreadCounts>> Threads);

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_LOGCOUNTS_H
