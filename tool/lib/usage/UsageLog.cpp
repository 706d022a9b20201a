//===- UsageLog.cpp - Read API usage logs into per-event counts -----------===//

#include "UsageLog.h"
#include "LogLine.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include <atomic>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <thread>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

using namespace llvm;

namespace apistamp {

void HashSet64::insert(uint64_t Key) {
  if (Key == 0) {
    HasZero = true;
    return;
  }
  // At most 5/8 full: linear probing stays short.
  if ((Count + 1) * 8 > Slots.size() * 5)
    grow();
  size_t Mask = Slots.size() - 1;
  for (size_t I = slotOf(Key);; I = (I + 1) & Mask) {
    if (Slots[I] == Key)
      return;
    if (Slots[I] == 0) {
      Slots[I] = Key;
      ++Count;
      return;
    }
  }
}

void HashSet64::grow() {
  std::vector<uint64_t> Old(Slots.empty() ? 8 : Slots.size() * 2, 0);
  Old.swap(Slots);
  Shift = 64 - unsigned(llvm::countr_zero(Slots.size()));
  size_t Mask = Slots.size() - 1;
  for (uint64_t Key : Old) {
    if (!Key)
      continue;
    size_t I = slotOf(Key);
    while (Slots[I])
      I = (I + 1) & Mask;
    Slots[I] = Key;
  }
}

void HashSet64::merge(HashSet64 &&Other) {
  if (Other.size() > size())
    std::swap(*this, Other);
  HasZero |= Other.HasZero;
  for (uint64_t Key : Other.Slots)
    if (Key)
      insert(Key);
}

void EventUsage::merge(EventUsage &&Other) {
  Jobs.merge(std::move(Other.Jobs));
  Processes.merge(std::move(Other.Processes));
  Hosts.merge(std::move(Other.Hosts));
  if (!Other.FirstSeen.empty() &&
      (FirstSeen.empty() || Other.FirstSeen < FirstSeen))
    FirstSeen = std::move(Other.FirstSeen);
  if (Other.LastSeen > LastSeen)
    LastSeen = std::move(Other.LastSeen);
  for (auto &[Day, DayJobs] : Other.JobsByDay)
    JobsByDay[Day].merge(std::move(DayJobs));
  LastDaySet = Other.LastDaySet = nullptr;
}

void UsageTable::merge(UsageTable &&Other) { merge(std::move(Other), 1); }

void UsageTable::merge(UsageTable &&Other, unsigned Threads) {
  if (Events.empty())
    std::swap(Events, Other.Events);
  // Events only one side has move over; the others' sets are merged, the
  // largest first, on \p Threads threads (events are independent).
  std::vector<std::pair<EventUsage *, EventUsage *>> Both;
  for (auto &Entry : Other.Events) {
    auto [It, New] = Events.try_emplace(Entry.first());
    if (New)
      std::swap(It->second, Entry.second);
    else
      Both.push_back({&It->second, &Entry.second});
  }
  auto Size = [](const std::pair<EventUsage *, EventUsage *> &P) {
    return std::min(P.first->Processes.size(), P.second->Processes.size()) +
           std::min(P.first->Jobs.size(), P.second->Jobs.size());
  };
  llvm::sort(Both, [&](const auto &L, const auto &R) { return Size(L) > Size(R); });
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    for (size_t I = Next++; I < Both.size(); I = Next++)
      Both[I].first->merge(std::move(*Both[I].second));
  };
  std::vector<std::thread> Workers;
  for (unsigned I = 1; I < std::min<size_t>(Threads, Both.size()); ++I)
    Workers.emplace_back(Work);
  Work();
  for (std::thread &T : Workers)
    T.join();
  Files += Other.Files;
  Lines += Other.Lines;
  EventLines += Other.EventLines;
  Malformed += Other.Malformed;
  OutsideWindow += Other.OutsideWindow;
  for (LogFileProblems &P : Other.Problems)
    Problems.push_back(std::move(P));
}

namespace {

constexpr size_t ChunkSize = 1 << 20;
constexpr size_t FirstProblemsKept = 5;

/// Splits decompressed bytes into lines and counts each line's event.
class LineReader {
public:
  LineReader(UsageTable &Table, LogFileProblems &Problems,
             const LogWindow &Window)
      : Table(Table), Problems(Problems), Window(Window) {}
  ~LineReader() { flushPending(); }

  /// \p Data has SIMDJSON_PADDING readable bytes after \p Size.
  void consume(const char *Data, size_t Size) {
    const char *End = Data + Size;
    const char *Line = Data;
    while (Line < End) {
      const char *Newline =
          static_cast<const char *>(memchr(Line, '\n', End - Line));
      if (!Newline) {
        Carry.append(Line, End - Line);
        return;
      }
      if (!Carry.empty()) {
        Carry.append(Line, Newline - Line);
        parseCarry();
      } else {
        parse(Line, Newline - Line, (End - Line) + LogLinePadding);
      }
      Line = Newline + 1;
    }
  }

  /// The last line, without its newline (a crashed process's, perhaps).
  void finish() {
    if (Carry.empty())
      return;
    LastLine = true;
    parseCarry();
  }

private:
  void parseCarry() {
    size_t Length = Carry.size();
    Carry.resize(Length + LogLinePadding);
    parse(Carry.data(), Length, Carry.size());
    Carry.clear();
  }

  void malformed(const std::string &Why) {
    ++Table.Malformed;
    if (Problems.Malformed++ < FirstProblemsKept)
      Problems.First.push_back({LineNumber, Why});
  }

  void parse(const char *Data, size_t Length, size_t Capacity) {
    ++LineNumber;
    if (Length && Data[Length - 1] == '\r')
      --Length;
    bool Blank = true;
    for (size_t I = 0; I < Length && Blank; ++I)
      Blank = Data[I] == ' ' || Data[I] == '\t';
    if (Blank)
      return;
    ++Table.Lines;
    assert(Capacity >= Length + LogLinePadding && "the parsers read ahead");
    LogLine Fields;
    // The runtime's own lines take the fast path; anything else, and
    // every bad line, goes through the validating DOM parser.
    if (!parseRuntimeLogLine(Data, Length, Fields)) {
      LogLineError Error = Slow.parse(Data, Length, Capacity, Fields);
      if (Error == LogLineError::NotJson && LastLine) {
        malformed("not JSON (a truncated last line, without a newline: a "
                  "process that was killed?)");
        return;
      }
      if (Error != LogLineError::None) {
        malformed(describe(Error));
        return;
      }
    }
    count(Fields);
  }

  /// A string's hash, remembered for the next line: consecutive lines
  /// mostly share their host, exe and job (a job's ranks write together).
  struct CachedHash {
    std::string Text;
    uint64_t Hash = xxh3_64bits(StringRef());

    uint64_t of(std::string_view S) {
      if (S != std::string_view(Text)) {
        Text.assign(S);
        Hash = xxh3_64bits(StringRef(S.data(), S.size()));
      }
      return Hash;
    }
  };

  /// A bijection of 64-bit keys that spreads their bits (MurmurHash3's
  /// finalizer).
  static uint64_t mix(uint64_t Key) {
    Key ^= Key >> 33;
    Key *= 0xff51afd7ed558ccdULL;
    Key ^= Key >> 33;
    Key *= 0xc4ceb9fe1a85ec53ULL;
    Key ^= Key >> 33;
    return Key;
  }

  /// Remembers recently inserted keys: a key seen here is already in its
  /// sets, and the inserts (cache misses in large sets) are skipped. A
  /// job's lines come together, so its (event, day) pairs repeat nearby.
  class RecentKeys {
  public:
    /// True when \p Key was inserted recently; remembers it.
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

  void count(const LogLine &Line) {
    std::string_view Time = Line.Time;
    if ((!Window.Since.empty() && Time < std::string_view(Window.Since)) ||
        (!Window.Until.empty() && Time >= std::string_view(Window.Until))) {
      ++Table.OutsideWindow;
      return;
    }
    ++Table.EventLines;
    uint64_t Host = HostHash.of(Line.Host);
    uint64_t Process =
        mix(Host ^ llvm::rotl(ExeHash.of(Line.Exe), 29) ^
            uint64_t(Line.Pid) * 0x9E3779B97F4A7C15ULL);
    // A line without a job id counts its process as its own job.
    uint64_t JobKey = Line.HasJob ? JobHash.of(Line.Job) : ~Process;
    EventUsage &Usage =
        Table.Events[StringRef(Line.Event.data(), Line.Event.size())];
    defer(Usage.Processes, Process);
    if (!RecentHosts.seen(mix(reinterpret_cast<uintptr_t>(&Usage) ^ Host)))
      defer(Usage.Hosts, Host);
    if (Usage.FirstSeen.empty() || Time < std::string_view(Usage.FirstSeen))
      Usage.FirstSeen.assign(Time);
    if (Time > std::string_view(Usage.LastSeen))
      Usage.LastSeen.assign(Time);
    // Lines of one event tend to come day after day: the set of the
    // event's last day is kept (std::map's nodes never move).
    std::string_view Day = Time.substr(0, 10);
    if (!Usage.LastDaySet || Day != std::string_view(Usage.LastDay)) {
      auto It = Usage.JobsByDay.find(std::string(Day));
      if (It == Usage.JobsByDay.end())
        It = Usage.JobsByDay.emplace(std::string(Day), HashSet64()).first;
      Usage.LastDay = It->first;
      Usage.LastDaySet = &It->second;
    }
    // (event, day, job) seen recently: (event, job) was inserted too.
    if (RecentJobs.seen(
            mix(reinterpret_cast<uintptr_t>(Usage.LastDaySet) ^ JobKey)))
      return;
    defer(Usage.Jobs, JobKey);
    defer(*Usage.LastDaySet, JobKey);
  }

  /// Inserts \p Key into \p Set a few lines later, its slot prefetched
  /// now: the cache misses of many lines overlap instead of adding up.
  void defer(HashSet64 &Set, uint64_t Key) {
    Set.prefetch(Key);
    Pending[PendingCount++] = {&Set, Key};
    if (PendingCount == PendingMax)
      flushPending();
  }

  void flushPending() {
    for (size_t I = 0; I < PendingCount; ++I)
      Pending[I].first->insert(Pending[I].second);
    PendingCount = 0;
  }

  UsageTable &Table;
  LogFileProblems &Problems;
  const LogWindow &Window;
  LogLineParser Slow;
  std::string Carry;
  CachedHash HostHash, ExeHash, JobHash;
  RecentKeys RecentHosts, RecentJobs;
  static constexpr size_t PendingMax = 64; ///< 16 lines' inserts.
  std::pair<HashSet64 *, uint64_t> Pending[PendingMax];
  size_t PendingCount = 0;
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

/// Reads one log (a file, or "-" for stdin) into \p Table; returns its
/// problems when it has some (unreadable, corrupt, malformed lines).
std::optional<LogFileProblems>
readLogInto(UsageTable &Table, StringRef Path, const LogWindow &Window) {
  LogFileProblems Problems;
  Problems.File = Path.str();
  int Fd = Path == "-" ? dup(STDIN_FILENO)
                       : ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC);
  auto Fail = [&](std::string Why) {
    Problems.Unreadable = true;
    Problems.Error = std::move(Why);
    return std::optional<LogFileProblems>(std::move(Problems));
  };
  if (Fd < 0)
    return Fail(std::strerror(errno));
  // A hint for the kernel's read-ahead; harmless where it does not apply.
  (void)posix_fadvise(Fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  // Padded: the line parsers read past the end of a line, and plain text is
  // parsed where it was read.
  std::vector<char> In(ChunkSize + LogLinePadding);
  std::unique_ptr<Decoder> Decode;
  LineReader Lines(Table, Problems, Window);
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
  ++Table.Files;
  if (Problems.Malformed || !Problems.Error.empty())
    return Problems;
  return std::nullopt;
}

} // namespace

UsageTable readUsageLog(StringRef Path, const LogWindow &Window) {
  UsageTable Table;
  if (std::optional<LogFileProblems> Problems =
          readLogInto(Table, Path, Window))
    Table.Problems.push_back(std::move(*Problems));
  return Table;
}

UsageTable readUsageText(StringRef Name, StringRef Text,
                         const LogWindow &Window) {
  UsageTable Table;
  LogFileProblems Problems;
  Problems.File = Name.str();
  std::string Padded = Text.str();
  Padded.resize(Text.size() + LogLinePadding);
  {
    LineReader Lines(Table, Problems, Window);
    Lines.consume(Padded.data(), Text.size());
    Lines.finish();
  }
  ++Table.Files;
  if (Problems.Malformed)
    Table.Problems.push_back(std::move(Problems));
  return Table;
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

UsageTable readUsageLogs(ArrayRef<std::string> Files, const LogWindow &Window,
                         unsigned Threads) {
  // Each thread counts the files it takes into a table of its own (no
  // per-file table to merge); the problems are kept by file, in order.
  Threads = std::max(1u, std::min<unsigned>(Threads, Files.size()));
  std::vector<UsageTable> Tables(Threads);
  std::vector<std::optional<LogFileProblems>> Problems(Files.size());
  std::atomic<size_t> Next{0};
  auto Work = [&](UsageTable &Table) {
    for (size_t I = Next++; I < Files.size(); I = Next++)
      Problems[I] = readLogInto(Table, Files[I], Window);
  };
  std::vector<std::thread> Workers;
  for (unsigned I = 1; I < Threads; ++I)
    Workers.emplace_back(Work, std::ref(Tables[I]));
  Work(Tables[0]);
  for (std::thread &T : Workers)
    T.join();
  UsageTable All;
  for (UsageTable &T : Tables)
    All.merge(std::move(T), Threads);
  for (std::optional<LogFileProblems> &P : Problems)
    if (P)
      All.Problems.push_back(std::move(*P));
  return All;
}

} // namespace apistamp
