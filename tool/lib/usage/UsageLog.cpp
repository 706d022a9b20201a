//===- UsageLog.cpp - Read API usage logs into per-event counts -----------===//

#include "UsageLog.h"
#include "DistinctKeys.h"
#include "LogLine.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include <atomic>
#include <cassert>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <mutex>
#include <optional>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

using namespace llvm;

namespace apistamp {

namespace {

constexpr size_t ChunkSize = 1 << 16;
constexpr size_t FirstProblemsKept = 5;
constexpr uint64_t Golden = 0x9E3779B97F4A7C15ULL;
/// Keys buffered before they are deduplicated, over all threads: 16 Mi
/// records of 8 bytes (DistinctKeys).
constexpr size_t KeyBudget = size_t(16) << 20;

uint64_t load64(const char *P) {
  uint64_t V;
  std::memcpy(&V, P, sizeof V);
  return V;
}

/// What the distinct counters count: the first three of each event, then
/// one per (event, day).
enum CounterKind : uint32_t { JobsCounter, ProcessesCounter, HostsCounter };

/// Dense counter ids shared by the reading threads: an event's three
/// counters (Base + CounterKind) and its jobs per day. Asked only when a
/// thread meets an event or an (event, day) for the first time.
class CounterIds {
public:
  /// The first of \p Event's three counters.
  uint32_t event(StringRef Event) {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto [It, New] = Bases.try_emplace(Event, uint32_t(Counters.size()));
    if (New)
      for (uint32_t Kind : {JobsCounter, ProcessesCounter, HostsCounter})
        Counters.push_back({It->getKey(), Kind, ""});
    return It->second;
  }

  /// The counter of jobs on \p Day of the event whose counters start at
  /// \p Base.
  uint32_t day(uint32_t Base, StringRef Day) {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto [It, New] =
        Days.try_emplace({Base, Day.str()}, uint32_t(Counters.size()));
    if (New)
      Counters.push_back({Counters[Base].Event, JobsCounter, Day.str()});
    return It->second;
  }

  struct Counter {
    StringRef Event; ///< Owned by Bases.
    uint32_t Kind;
    std::string Day; ///< Empty but for jobs per day.
  };
  /// Every counter, by id (read once the threads are done).
  const std::vector<Counter> &counters() const { return Counters; }

private:
  std::mutex Mutex;
  StringMap<uint32_t> Bases;
  std::map<std::pair<uint32_t, std::string>, uint32_t> Days;
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
  /// The last line's day and its counter.
  uint64_t LastDay = 0;
  uint32_t LastDayCounter = ~0u;
  DenseMap<uint64_t, uint32_t> DayCounters;
};

/// A time's day, "2026-11-23", as its eight digits (isIsoTime checked
/// them, and the dashes).
uint64_t dayKey(std::string_view Time) {
  uint64_t Key;
  std::memcpy(&Key, Time.data(), 4);
  std::memcpy(reinterpret_cast<char *>(&Key) + 4, Time.data() + 5, 2);
  std::memcpy(reinterpret_cast<char *>(&Key) + 6, Time.data() + 8, 2);
  return Key;
}

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
    uint64_t Host = xxh3_64bits(StringRef(Line.Host.data(), Line.Host.size()));
    uint64_t Exe = xxh3_64bits(StringRef(Line.Exe.data(), Line.Exe.size()));
    uint64_t Process =
        mix64(Host ^ llvm::rotl(Exe, 29) ^ uint64_t(Line.Pid) * Golden);
    uint64_t Job =
        Line.HasJob ? xxh3_64bits(StringRef(Line.Job.data(), Line.Job.size()))
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

void TailCache::store(Entry &E, const char *Tail, size_t Length,
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
  StringMap<LocalEvent> Events;
  TailCache Tails;
  RecentKeys RecentHosts, RecentJobs;
  LogLineParser Slow;
  unsigned Files = 0;
  uint64_t Lines = 0, EventLines = 0, Malformed = 0, OutsideWindow = 0;

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
    auto [It, New] = Events.try_emplace(StringRef(Name.data(), Name.size()));
    if (New) {
      It->second.Base = Ids.event(It->getKey());
      std::string &Padded = It->second.PaddedName;
      Padded.assign(Name);
      Padded.resize(Name.size() + 16);
      It->second.PlainName = isPlainText(Padded.data(), Name.size()) &&
                             Name.find('"') == std::string_view::npos;
    }
    Slot = {std::string_view(It->second.PaddedName.data(), Name.size()),
            &It->second};
    return It->second;
  }

  /// Counts one line of \p Event at \p Time.
  void count(LocalEvent &Event, std::string_view Time, const LineKeys &Key) {
    ++EventLines;
    Keys.add(Event.Base + ProcessesCounter, Key.Process);
    if (!RecentHosts.seen(mix64(Key.Host ^ Event.Base * Golden)))
      Keys.add(Event.Base + HostsCounter, Key.Host);
    Event.seenAt(Time);
    uint64_t Day = dayKey(Time);
    if (Day != Event.LastDay || Event.LastDayCounter == ~0u) {
      auto [It, New] = Event.DayCounters.try_emplace(Day);
      if (New)
        It->second = Ids.day(Event.Base, StringRef(Time.data(), 10));
      Event.LastDay = Day;
      Event.LastDayCounter = It->second;
    }
    // (event, day, job) seen recently: (event, job) was added too.
    if (RecentJobs.seen(mix64(Key.Job ^ Event.LastDayCounter * Golden)))
      return;
    Keys.add(Event.Base + JobsCounter, Key.Job);
    Keys.add(Event.LastDayCounter, Key.Job);
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

/// Splits one log's decompressed bytes into lines and counts them.
class LineReader {
public:
  LineReader(ThreadCounts &Counts, LogFileProblems &Problems,
             const LogWindow &Window)
      : Counts(Counts), Problems(Problems), Window(Window) {}

  /// \p Data has LogLinePadding readable bytes after \p Size.
  void consume(const char *Data, size_t Size) {
    const char *End = Data + Size;
    const char *Line = Data;
    while (Line < End) {
      if (Carry.empty())
        if (const char *Next = countCachedLine(Line, End)) {
          Line = Next;
          continue;
        }
      const char *Newline =
          static_cast<const char *>(memchr(Line, '\n', End - Line));
      if (!Newline) {
        Carry.append(Line, End - Line);
        return;
      }
      if (!Carry.empty()) {
        Carry.append(Line, Newline - Line);
        parseCarry(/*Newline=*/true);
      } else {
        parse(Line, Newline - Line, (End - Line) + LogLinePadding,
              /*Newline=*/true);
      }
      Line = Newline + 1;
    }
  }

  /// Forgets the partial line read last (the file ended in a way that
  /// makes it no line at all).
  void discardPartialLine() { Carry.clear(); }

  /// Lines seen so far, blank ones included.
  uint64_t lines() const { return LineNumber; }

  /// The last line, without its newline (a crashed process's, perhaps).
  void finish() {
    if (Carry.empty())
      return;
    LastLine = true;
    parseCarry(/*Newline=*/false);
  }

private:
  /// Counts the line at \p Line when it has the runtime's shape, its event
  /// is in the cache with a plain name and its tail, newline included, is
  /// cached: the line's end is then known without looking for it. Returns
  /// where the next line starts, or null when this line is not one of
  /// those. \p End: the end of the bytes read, followed by LogLinePadding
  /// readable ones.
  const char *countCachedLine(const char *Line, const char *End) {
    LogHead Head;
    if (!scanRuntimeLogHead(Line, End - Line, Head) ||
        !isPlainText(Head.Time.data(), Head.Time.size()))
      return nullptr;
    LocalEvent *Event = Counts.cachedEvent(Head.Event);
    if (!Event || !Event->PlainName)
      return nullptr;
    const char *Tail = Line + Head.TailOffset;
    const TailCache::Entry &Cached = Counts.Tails.slot(Tail);
    if (!TailCache::holds(Cached, Tail, End - Tail))
      return nullptr;
    ++LineNumber;
    ++Counts.Lines;
    if (inWindow(Head.Time))
      Counts.count(*Event, Head.Time,
                   {Cached.Host, Cached.Process, Cached.Job});
    return Tail + Cached.Length;
  }

  void parseCarry(bool Newline) {
    size_t Length = Carry.size();
    Carry.resize(Length + LogLinePadding);
    parse(Carry.data(), Length, Carry.size(), Newline);
    Carry.clear();
  }

  void malformed(const std::string &Why) {
    ++Counts.Malformed;
    if (Problems.Malformed++ < FirstProblemsKept)
      Problems.First.push_back({LineNumber, Why});
  }

  bool inWindow(std::string_view Time) {
    if ((!Window.Since.empty() && Time < std::string_view(Window.Since)) ||
        (!Window.Until.empty() && Time >= std::string_view(Window.Until))) {
      ++Counts.OutsideWindow;
      return false;
    }
    return true;
  }

  /// Parses the line of \p Length bytes at \p Data, which a newline ended
  /// when \p Newline is set.
  void parse(const char *Data, size_t Length, size_t Capacity, bool Newline) {
    ++LineNumber;
    if (Length && Data[Length - 1] == '\r') {
      --Length;
      Newline = false; // Its tail is not followed by a newline.
    }
    bool Blank = true;
    for (size_t I = 0; I < Length && Blank; ++I)
      Blank = Data[I] == ' ' || Data[I] == '\t';
    if (Blank)
      return;
    ++Counts.Lines;
    assert(Capacity >= Length + LogLinePadding && "the parsers read ahead");
    LogLine Fields;
    size_t TailOffset = 0;
    // The runtime's own lines take the fast path, their tails mostly from
    // the cache; anything else, and every bad line, goes through the
    // validating DOM parser.
    if (parseRuntimeLogHead(Data, Length, Fields, TailOffset)) {
      const char *Tail = Data + TailOffset;
      size_t TailLength = Length - TailOffset;
      TailCache::Entry &Cached = Counts.Tails.slot(Tail);
      if (Newline && TailCache::holds(Cached, Tail, TailLength + 1))
        return countLine(Fields, {Cached.Host, Cached.Process, Cached.Job});
      if (parseRuntimeLogTail(Tail, TailLength, Fields)) {
        LineKeys Keys = LineKeys::of(Fields);
        if (Newline)
          TailCache::store(Cached, Tail, TailLength, Keys);
        return countLine(Fields, Keys);
      }
    }
    LogLineError Error = Counts.Slow.parse(Data, Length, Capacity, Fields);
    if (Error == LogLineError::NotJson && LastLine) {
      malformed("not JSON (a truncated last line, without a newline: a "
                "process that was killed?)");
      return;
    }
    if (Error != LogLineError::None) {
      malformed(describe(Error));
      return;
    }
    countLine(Fields, LineKeys::of(Fields));
  }

  void countLine(const LogLine &Fields, const LineKeys &Keys) {
    if (inWindow(Fields.Time))
      Counts.count(Counts.event(Fields.Event), Fields.Time, Keys);
  }

  ThreadCounts &Counts;
  LogFileProblems &Problems;
  const LogWindow &Window;
  std::string Carry;
  uint64_t LineNumber = 0;
  bool LastLine = false; ///< Parsing the last line, which had no newline.
};

/// Decompresses (or passes through) what is read from a file descriptor.
class Decoder {
public:
  enum Format { Plain, Gzip, Zstd };
  explicit Decoder(Format F) : Kind(F) {
    if (Kind != Plain)
      Out.resize(ChunkSize + LogLinePadding);
    if (Kind == Gzip) {
      Zlib = std::make_unique<z_stream>();
      std::memset(Zlib.get(), 0, sizeof(z_stream));
      inflateInit2(Zlib.get(), 16 + MAX_WBITS);
    } else if (Kind == Zstd) {
      ZstdStream = ZSTD_createDStream();
    }
  }
  ~Decoder() {
    if (Zlib)
      inflateEnd(Zlib.get());
    if (ZstdStream)
      ZSTD_freeDStream(ZstdStream);
  }

  /// Feeds \p Size bytes to \p Lines; false with Error set on bad data.
  /// \p In has SIMDJSON_PADDING readable bytes after \p Size.
  bool feed(const char *In, size_t Size, LineReader &Lines) {
    if (Kind == Plain) {
      // Parsed where it was read: \p In is padded.
      Lines.consume(In, Size);
      return true;
    }
    if (Kind == Gzip) {
      Zlib->next_in = reinterpret_cast<Bytef *>(const_cast<char *>(In));
      Zlib->avail_in = Size;
      while (Zlib->avail_in > 0) {
        Zlib->next_out = reinterpret_cast<Bytef *>(Out.data());
        Zlib->avail_out = ChunkSize;
        int Status = inflate(Zlib.get(), Z_NO_FLUSH);
        Lines.consume(Out.data(), ChunkSize - Zlib->avail_out);
        if (Status == Z_STREAM_END) {
          inflateReset(Zlib.get()); // Concatenated gzip members.
        } else if (Status != Z_OK && Status != Z_BUF_ERROR) {
          Error = "corrupt gzip data";
          return false;
        } else if (Status == Z_BUF_ERROR && Zlib->avail_out == ChunkSize) {
          break;
        }
      }
      return true;
    }
    ZSTD_inBuffer Input{In, Size, 0};
    while (Input.pos < Input.size) {
      ZSTD_outBuffer Output{Out.data(), ChunkSize, 0};
      size_t Status = ZSTD_decompressStream(ZstdStream, &Output, &Input);
      if (ZSTD_isError(Status)) {
        Error = std::string("corrupt zstd data: ") + ZSTD_getErrorName(Status);
        return false;
      }
      Lines.consume(Out.data(), Output.pos);
    }
    // Flush what the decoder still holds.
    for (;;) {
      ZSTD_inBuffer None{nullptr, 0, 0};
      ZSTD_outBuffer Output{Out.data(), ChunkSize, 0};
      size_t Status = ZSTD_decompressStream(ZstdStream, &Output, &None);
      if (ZSTD_isError(Status) || Output.pos == 0)
        break;
      Lines.consume(Out.data(), Output.pos);
    }
    return true;
  }

  std::string Error;

private:
  Format Kind;
  std::vector<char> Out;
  std::unique_ptr<z_stream> Zlib;
  ZSTD_DStream *ZstdStream = nullptr;
};

Decoder::Format formatOf(const char *Data, size_t Size) {
  if (Size >= 2 && uint8_t(Data[0]) == 0x1f && uint8_t(Data[1]) == 0x8b)
    return Decoder::Gzip;
  if (Size >= 4 && uint8_t(Data[0]) == 0x28 && uint8_t(Data[1]) == 0xb5 &&
      uint8_t(Data[2]) == 0x2f && uint8_t(Data[3]) == 0xfd)
    return Decoder::Zstd;
  return Decoder::Plain;
}

} // namespace

namespace {

/// Plain files are read through a mapping: the kernel's copy into a read
/// buffer was the largest single cost of reading logs in the page cache. A
/// file that shrinks while it is mapped (logrotate's copytruncate) raises
/// SIGBUS when a page past its new end is touched: the handler maps a page
/// of zeros there and flags the file, which is then read no further.
namespace mapped {

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

/// Installs onBus while logs are read (nested and concurrent uses share
/// it).
class BusHandler {
public:
  BusHandler() {
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
  ~BusHandler() {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (--Users == 0)
      sigaction(SIGBUS, &Previous, nullptr);
  }
};

/// The bytes mapped at a time. Unmapping a window read interrupts the other
/// reading threads (their TLBs are flushed): 1 MiB windows cost 6% more CPU
/// at -j2 than 8 MiB ones.
constexpr size_t Window = size_t(8) << 20;

/// Counts the lines of the plain log \p Fd of \p Size bytes that start in
/// [\p From, \p To) through a mapping (\p Size may be more than the file
/// has: a file that shrank). False when it is compressed or cannot be
/// mapped: read it instead.
bool read(int Fd, uint64_t Size, uint64_t From, uint64_t To, LineReader &Lines,
          LogFileProblems &Problems) {
  if (Size <= 2 * LogLinePadding || Size > SIZE_MAX)
    return false;
  void *Map = mmap(nullptr, Size, PROT_READ, MAP_SHARED, Fd, 0);
  if (Map == MAP_FAILED)
    return false;
  const char *Data = static_cast<const char *>(Map);
  Begin = Data;
  End = Data + Size;
  Shrank = 0;
  bool Plain = formatOf(Data, Size) == Decoder::Plain;
  if (Plain) {
    (void)madvise(Map, Size, MADV_SEQUENTIAL);
    // A line belongs to the range it starts in: the first '\n' at or after
    // a boundary's previous byte ends the range before it.
    auto LineStartAt = [&](uint64_t Boundary) -> uint64_t {
      if (Boundary == 0 || Boundary >= Size)
        return std::min<uint64_t>(Boundary, Size);
      const void *Newline =
          memchr(Data + Boundary - 1, '\n', Size - (Boundary - 1));
      return Newline ? static_cast<const char *>(Newline) - Data + 1 : Size;
    };
    uint64_t Start = LineStartAt(From), Stop = LineStartAt(To);
    // The parsers read past a line's end: the last bytes are copied into a
    // padded buffer.
    uint64_t Body = std::max(Start, std::min(Stop, Size - LogLinePadding));
    for (uint64_t At = Start; At < Body && !Shrank; At += Window) {
      uint64_t Length = std::min<uint64_t>(Window, Body - At);
      Lines.consume(Data + At, Length);
      // Read: unmapped (the pages stay in the page cache), so that the
      // process holds a window of the file, not all of it.
      uintptr_t First = uintptr_t(Data + At) & ~(PageSize - 1);
      uintptr_t Last = uintptr_t(Data + At + Length) & ~(PageSize - 1);
      if (Last > First)
        (void)madvise(reinterpret_cast<void *>(First), Last - First,
                      MADV_DONTNEED);
    }
    if (!Shrank && Stop > Body) {
      std::string Rest(Data + Body, Stop - Body);
      size_t Length = Rest.size();
      Rest.resize(Length + LogLinePadding);
      if (!Shrank)
        Lines.consume(Rest.data(), Length);
    }
    if (Shrank) {
      // What was read is counted; the rest, zeros now, is not a line.
      Lines.discardPartialLine();
      Problems.Error = "the file shrank while it was read (rotated by "
                       "copytruncate?)";
    }
  }
  Begin = End = nullptr;
  munmap(Map, Size);
  return Plain;
}

} // namespace mapped

/// Part of a log: the lines that start in [From, To) of a plain file, or
/// (To == 0) all of a log, however it is read.
struct LogPart {
  size_t File;
  uint64_t From = 0, To = 0;
};

/// What reading a part found; line numbers count from the part's start.
struct PartResult {
  std::optional<LogFileProblems> Problems;
  uint64_t Lines = 0;
};

/// Reads a part of one log (a file, or "-" for stdin) into \p Counts, up
/// to \p MappedSize bytes when it is not 0 (the size the file had when it
/// was split), and says what was wrong with it.
PartResult readLogInto(ThreadCounts &Counts, StringRef Path,
                       const LogWindow &Window, uint64_t From = 0,
                       uint64_t To = 0, uint64_t MappedSize = 0) {
  PartResult Result;
  LogFileProblems Problems;
  Problems.File = Path.str();
  int Fd = Path == "-" ? dup(STDIN_FILENO)
                       : ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC);
  auto Fail = [&](std::string Why) {
    Problems.Unreadable = true;
    Problems.Error = std::move(Why);
    Result.Problems = std::move(Problems);
    return std::move(Result);
  };
  if (Fd < 0)
    return Fail(std::strerror(errno));
  LineReader Lines(Counts, Problems, Window);
  // A log is read up to the size it has when it is opened.
  struct stat Status;
  uint64_t Size = 0;
  if (Path != "-" && fstat(Fd, &Status) == 0 && S_ISREG(Status.st_mode))
    Size = MappedSize ? MappedSize : uint64_t(Status.st_size);
  if (Size && mapped::read(Fd, Size, From, To ? To : Size, Lines, Problems)) {
    ::close(Fd);
    Lines.finish();
    Counts.Files += From == 0; // A file is counted by its first part.
    Result.Lines = Lines.lines();
    if (Problems.Malformed || !Problems.Error.empty())
      Result.Problems = std::move(Problems);
    return Result;
  }
  if (From != 0) {
    // Mapped when it was split, not now: what it held is lost.
    ::close(Fd);
    Problems.Error = "the file could not be mapped again";
    Result.Problems = std::move(Problems);
    return Result;
  }
  // A hint for the kernel's read-ahead; harmless where it does not apply.
  (void)posix_fadvise(Fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  // Padded: the line parsers read past the end of a line, and plain text is
  // parsed where it was read.
  std::vector<char> In(ChunkSize + LogLinePadding);
  std::unique_ptr<Decoder> Decode;
  for (;;) {
    ssize_t N = ::read(Fd, In.data(), ChunkSize);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      std::string Why = std::strerror(errno);
      ::close(Fd);
      return Fail(Why);
    }
    if (N == 0)
      break;
    if (!Decode)
      Decode = std::make_unique<Decoder>(formatOf(In.data(), N));
    if (!Decode->feed(In.data(), N, Lines)) {
      // What was read is counted; the rest is lost, and said so.
      Problems.Error = Decode->Error;
      break;
    }
  }
  ::close(Fd);
  Lines.finish();
  ++Counts.Files;
  Result.Lines = Lines.lines();
  if (Problems.Malformed || !Problems.Error.empty())
    Result.Problems = std::move(Problems);
  return Result;
}

/// The threads' counts as per-event counts.
UsageCounts collect(const CounterIds &Ids,
                    ArrayRef<std::unique_ptr<ThreadCounts>> Threads) {
  UsageCounts Counts;
  std::vector<DistinctKeys *> Keys;
  for (const std::unique_ptr<ThreadCounts> &T : Threads) {
    Keys.push_back(&T->Keys);
    Counts.Files += T->Files;
    Counts.Lines += T->Lines;
    Counts.EventLines += T->EventLines;
    Counts.Malformed += T->Malformed;
    Counts.OutsideWindow += T->OutsideWindow;
  }
  const std::vector<CounterIds::Counter> &Counters = Ids.counters();
  std::vector<uint64_t> Distinct = DistinctKeys::countDistinct(
      Keys, Counters.size(), unsigned(Threads.size()));
  for (size_t Id = 0; Id < Counters.size(); ++Id) {
    const CounterIds::Counter &C = Counters[Id];
    EventCounts &Event = Counts.Events[C.Event.str()];
    if (!C.Day.empty())
      Event.JobsByDay.push_back({C.Day, Distinct[Id]});
    else if (C.Kind == JobsCounter)
      Event.Jobs = Distinct[Id];
    else if (C.Kind == ProcessesCounter)
      Event.Processes = Distinct[Id];
    else
      Event.Hosts = Distinct[Id];
  }
  for (auto &[Name, Event] : Counts.Events)
    llvm::sort(Event.JobsByDay);
  for (const std::unique_ptr<ThreadCounts> &T : Threads)
    for (auto &Entry : T->Events) {
      EventCounts &Event = Counts.Events[Entry.getKey().str()];
      const LocalEvent &Local = Entry.second;
      if (Event.FirstSeen.empty() || Local.FirstSeen < Event.FirstSeen)
        Event.FirstSeen = Local.FirstSeen;
      if (Local.LastSeen > Event.LastSeen)
        Event.LastSeen = Local.LastSeen;
    }
  return Counts;
}

} // namespace

UsageCounts readUsageLog(StringRef Path, const LogWindow &Window) {
  return readUsageLogs({Path.str()}, Window, 1, DefaultLogPartBytes);
}

UsageCounts readUsageText(StringRef Name, StringRef Text,
                          const LogWindow &Window) {
  CounterIds Ids;
  std::unique_ptr<ThreadCounts> Counts =
      std::make_unique<ThreadCounts>(Ids, KeyBudget);
  LogFileProblems Problems;
  Problems.File = Name.str();
  std::string Padded = Text.str();
  Padded.resize(Text.size() + LogLinePadding);
  LineReader Lines(*Counts, Problems, Window);
  Lines.consume(Padded.data(), Text.size());
  Lines.finish();
  Counts->Keys.finish();
  ++Counts->Files;
  UsageCounts Result = collect(Ids, Counts);
  if (Problems.Malformed)
    Result.Problems.push_back(std::move(Problems));
  return Result;
}

static bool isLogName(StringRef Name) {
  return Name.ends_with(".jsonl") || Name.ends_with(".jsonl.gz") ||
         Name.ends_with(".jsonl.zst") || Name.ends_with(".jsonl.zstd");
}

std::vector<std::string> expandLogInputs(ArrayRef<std::string> Inputs,
                                         std::vector<std::string> &Missing) {
  std::vector<std::string> Files;
  for (const std::string &Input : Inputs) {
    if (Input == "-" || sys::fs::is_regular_file(Input)) {
      Files.push_back(Input);
      continue;
    }
    if (!sys::fs::is_directory(Input)) {
      Missing.push_back(Input);
      continue;
    }
    std::vector<std::string> Found;
    std::error_code EC;
    for (sys::fs::recursive_directory_iterator It(Input, EC), End;
         It != End && !EC; It.increment(EC))
      if (It->type() != sys::fs::file_type::directory_file &&
          isLogName(sys::path::filename(It->path())))
        Found.push_back(It->path());
    llvm::sort(Found);
    llvm::append_range(Files, Found);
  }
  return Files;
}

/// File \p F of \p Size bytes in parts of \p PartBytes.
static void appendParts(std::vector<LogPart> &Parts, size_t F, uint64_t Size,
                        uint64_t PartBytes) {
  for (uint64_t From = 0; From < Size; From += PartBytes)
    Parts.push_back({F, From, std::min(Size, From + PartBytes)});
}

/// Splits plain files of at least two parts of \p PartBytes into parts,
/// so that threads share a large file; a part's lines are those that start
/// in it. Other logs are one part each.
static std::vector<LogPart> splitLogs(ArrayRef<std::string> Files,
                                      uint64_t PartBytes,
                                      std::vector<uint64_t> &PlannedSizes) {
  std::vector<LogPart> Parts;
  PlannedSizes.assign(Files.size(), 0);
  for (size_t F = 0; F < Files.size(); ++F) {
    struct stat Status;
    char Magic[4] = {};
    uint64_t Size = 0;
    if (Files[F] != "-" && ::stat(Files[F].c_str(), &Status) == 0 &&
        S_ISREG(Status.st_mode))
      Size = uint64_t(Status.st_size);
    if (Size >= 2 * PartBytes) {
      int Fd = ::open(Files[F].c_str(), O_RDONLY | O_CLOEXEC);
      bool Plain =
          Fd >= 0 &&
          ::pread(Fd, Magic, sizeof Magic, 0) == ssize_t(sizeof Magic) &&
          formatOf(Magic, sizeof Magic) == Decoder::Plain;
      if (Fd >= 0)
        ::close(Fd);
      if (Plain) {
        PlannedSizes[F] = Size;
        appendParts(Parts, F, Size, PartBytes);
        continue;
      }
    }
    Parts.push_back({F, 0, 0});
  }
  return Parts;
}

/// Reads \p Parts of \p Files (in file order) on \p Threads threads; a
/// file whose planned size is not 0 is read up to that size.
static UsageCounts readParts(ArrayRef<std::string> Files,
                             ArrayRef<LogPart> Parts,
                             ArrayRef<uint64_t> PlannedSizes,
                             const LogWindow &Window, unsigned Threads) {
  // Each thread counts the parts it takes; the problems are kept by part,
  // in order, and their line numbers made the file's.
  Threads = std::max(1u, std::min<unsigned>(Threads, Parts.size()));
  CounterIds Ids;
  std::vector<std::unique_ptr<ThreadCounts>> Counts;
  for (unsigned I = 0; I < Threads; ++I)
    Counts.push_back(std::make_unique<ThreadCounts>(Ids, KeyBudget / Threads));
  std::vector<PartResult> Results(Parts.size());
  mapped::BusHandler Handler;
  std::atomic<size_t> Next{0};
  auto Work = [&](ThreadCounts &Thread) {
    for (size_t I = Next++; I < Parts.size(); I = Next++) {
      const LogPart &P = Parts[I];
      Results[I] = readLogInto(Thread, Files[P.File], Window, P.From, P.To,
                               PlannedSizes[P.File]);
    }
    Thread.Keys.finish();
  };
  std::vector<std::thread> Workers;
  for (unsigned I = 1; I < Threads; ++I)
    Workers.emplace_back(Work, std::ref(*Counts[I]));
  Work(*Counts[0]);
  for (std::thread &T : Workers)
    T.join();
  UsageCounts All = collect(Ids, Counts);
  // Parts are in file order: one file's problems are merged in place.
  std::optional<LogFileProblems> Current;
  uint64_t LinesBefore = 0;
  for (size_t I = 0; I < Parts.size(); ++I) {
    if (Parts[I].From == 0) {
      if (Current)
        All.Problems.push_back(std::move(*Current));
      Current.reset();
      LinesBefore = 0;
    }
    if (std::optional<LogFileProblems> &P = Results[I].Problems) {
      if (!Current) {
        Current = LogFileProblems();
        Current->File = P->File;
      }
      Current->Unreadable |= P->Unreadable;
      if (Current->Error.empty())
        Current->Error = P->Error;
      Current->Malformed += P->Malformed;
      for (auto &[Line, Why] : P->First)
        if (Current->First.size() < FirstProblemsKept)
          Current->First.push_back({LinesBefore + Line, std::move(Why)});
    }
    LinesBefore += Results[I].Lines;
  }
  if (Current)
    All.Problems.push_back(std::move(*Current));
  return All;
}

UsageCounts readUsageLogs(ArrayRef<std::string> Files, const LogWindow &Window,
                          unsigned Threads, uint64_t PartBytes) {
  std::vector<uint64_t> PlannedSizes;
  std::vector<LogPart> Parts =
      splitLogs(Files, std::max<uint64_t>(PartBytes, 4096), PlannedSizes);
  return readParts(Files, Parts, PlannedSizes, Window, Threads);
}

UsageCounts readUsageLogShrunk(StringRef Path, uint64_t Size,
                               const LogWindow &Window, unsigned Threads,
                               uint64_t PartBytes) {
  std::string File = Path.str();
  std::vector<LogPart> Parts;
  appendParts(Parts, 0, Size, PartBytes);
  return readParts(File, Parts, Size, Window, Threads);
}

} // namespace apistamp
