//===- UsageLog.cpp - Read API usage logs into per-event counts -----------===//

#include "UsageLog.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <simdjson.h>
#include <thread>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

using namespace llvm;

namespace apistamp {

void EventUsage::merge(EventUsage &&Other) {
  Jobs.insert(Other.Jobs.begin(), Other.Jobs.end());
  Processes.insert(Other.Processes.begin(), Other.Processes.end());
  Hosts.insert(Other.Hosts.begin(), Other.Hosts.end());
  if (!Other.FirstSeen.empty() &&
      (FirstSeen.empty() || Other.FirstSeen < FirstSeen))
    FirstSeen = std::move(Other.FirstSeen);
  if (Other.LastSeen > LastSeen)
    LastSeen = std::move(Other.LastSeen);
  for (auto &[Day, DayJobs] : Other.JobsByDay)
    JobsByDay[Day].insert(DayJobs.begin(), DayJobs.end());
}

void UsageTable::merge(UsageTable &&Other) {
  for (auto &Entry : Other.Events)
    Events[Entry.first()].merge(std::move(Entry.second));
  Files += Other.Files;
  Lines += Other.Lines;
  EventLines += Other.EventLines;
  Malformed += Other.Malformed;
  OutsideWindow += Other.OutsideWindow;
  for (LogFileProblems &P : Other.Problems)
    Problems.push_back(std::move(P));
}

namespace {

/// "YYYY-MM-DD", alone or followed by 'T' and the time of day, as the
/// runtime writes it: the day names the trend's period, and times are
/// compared as text.
bool isIsoTime(std::string_view Time) {
  if (Time.size() < 10 || Time[4] != '-' || Time[7] != '-' ||
      (Time.size() > 10 && Time[10] != 'T'))
    return false;
  for (size_t I : {0, 1, 2, 3, 5, 6, 8, 9})
    if (Time[I] < '0' || Time[I] > '9')
      return false;
  return true;
}

constexpr size_t ChunkSize = 1 << 20;
constexpr size_t FirstProblemsKept = 5;

/// Splits decompressed bytes into lines and counts each line's event.
class LineReader {
public:
  LineReader(UsageTable &Table, LogFileProblems &Problems,
             const LogWindow &Window)
      : Table(Table), Problems(Problems), Window(Window) {}

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
        parse(Line, Newline - Line, (End - Line) + simdjson::SIMDJSON_PADDING);
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
    Carry.resize(Length + simdjson::SIMDJSON_PADDING);
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
    // The DOM parser: it validates the whole line (UTF-8 included) and
    // picks the best SIMD implementation at run time.
    simdjson::dom::element Doc;
    if (Parser.parse(Data, Length, /*realloc_if_needed=*/Capacity <
                                       Length + simdjson::SIMDJSON_PADDING)
            .get(Doc)) {
      malformed(LastLine ? "not JSON (a truncated last line, without a "
                           "newline: a process that was killed?)"
                         : "not JSON");
      return;
    }
    simdjson::dom::object Object;
    if (Doc.get_object().get(Object)) {
      malformed("not a JSON object");
      return;
    }
    std::string_view Event, Time, Host, Exe, Job;
    std::string JobNumber;
    bool HasEvent = false, HasTime = false, HasPid = false, HasJob = false;
    int64_t Pid = 0;
    using Type = simdjson::dom::element_type;
    for (simdjson::dom::key_value_pair Field : Object) {
      std::string_view Key = Field.key;
      simdjson::dom::element Value = Field.value;
      if (Key == "event") {
        if (Value.get_string().get(Event) || Event.empty()) {
          malformed("'event' is not a non-empty string");
          return;
        }
        HasEvent = true;
      } else if (Key == "time") {
        if (Value.get_string().get(Time)) {
          malformed("'time' is not a string");
          return;
        }
        if (!isIsoTime(Time)) {
          malformed("'time' is not an ISO 8601 time (YYYY-MM-DDThh:mm:ss)");
          return;
        }
        HasTime = true;
      } else if (Key == "pid") {
        if (Value.get_int64().get(Pid)) {
          malformed("'pid' is not an integer");
          return;
        }
        HasPid = true;
      } else if (Key == "host" || Key == "exe") {
        std::string_view &Into = Key == "host" ? Host : Exe;
        if (!Value.is_null() && Value.get_string().get(Into)) {
          malformed("'" + std::string(Key) + "' is not a string or null");
          return;
        }
      } else if (Key == "job_id") {
        Type T = Value.type();
        if (T == Type::STRING) {
          Job = Value.get_string().value_unsafe();
          HasJob = true;
        } else if (T == Type::INT64 || T == Type::UINT64) {
          JobNumber = T == Type::INT64
                          ? std::to_string(Value.get_int64().value_unsafe())
                          : std::to_string(Value.get_uint64().value_unsafe());
          Job = JobNumber;
          HasJob = true;
        } else if (T != Type::NULL_VALUE) {
          malformed("'job_id' is not a string, integer or null");
          return;
        }
      }
    }
    if (!HasEvent || !HasTime || !HasPid) {
      malformed(!HasEvent  ? "no 'event'"
                : !HasTime ? "no 'time'"
                           : "no 'pid'");
      return;
    }
    if ((!Window.Since.empty() && Time < std::string_view(Window.Since)) ||
        (!Window.Until.empty() && Time >= std::string_view(Window.Until))) {
      ++Table.OutsideWindow;
      return;
    }
    ++Table.EventLines;
    ProcessKey.assign(Host);
    ProcessKey += '\0';
    ProcessKey += std::to_string(Pid);
    ProcessKey += '\0';
    ProcessKey += Exe;
    uint64_t Process = xxh3_64bits(ProcessKey);
    uint64_t JobHash =
        HasJob ? xxh3_64bits(StringRef("j:" + std::string(Job))) : ~Process;
    EventUsage &Usage = Table.Events[StringRef(Event.data(), Event.size())];
    Usage.Jobs.insert(JobHash);
    Usage.Processes.insert(Process);
    Usage.Hosts.insert(xxh3_64bits(StringRef(Host.data(), Host.size())));
    if (Usage.FirstSeen.empty() || Time < std::string_view(Usage.FirstSeen))
      Usage.FirstSeen.assign(Time);
    if (Time > std::string_view(Usage.LastSeen))
      Usage.LastSeen.assign(Time);
    std::string_view Day = Time.substr(0, 10);
    auto It = Usage.JobsByDay.find(std::string(Day));
    if (It == Usage.JobsByDay.end())
      It = Usage.JobsByDay.emplace(std::string(Day), DenseSet<uint64_t>())
               .first;
    It->second.insert(JobHash);
  }

  UsageTable &Table;
  LogFileProblems &Problems;
  const LogWindow &Window;
  simdjson::dom::parser Parser;
  std::string Carry;
  std::string ProcessKey;
  uint64_t LineNumber = 0;
  bool LastLine = false; ///< Parsing the last line, which had no newline.
};

/// Decompresses (or passes through) what is read from a file descriptor.
class Decoder {
public:
  enum Format { Plain, Gzip, Zstd };
  explicit Decoder(Format F) : Kind(F), Out(ChunkSize + simdjson::SIMDJSON_PADDING) {
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
  bool feed(const char *In, size_t Size, LineReader &Lines) {
    if (Kind == Plain) {
      // Copied into a padded buffer: simdjson reads past the end of a line.
      for (size_t Done = 0; Done < Size;) {
        size_t N = std::min(Size - Done, ChunkSize);
        std::memcpy(Out.data(), In + Done, N);
        Lines.consume(Out.data(), N);
        Done += N;
      }
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

UsageTable readUsageLog(StringRef Path, const LogWindow &Window) {
  UsageTable Table;
  LogFileProblems Problems;
  Problems.File = Path.str();
  int Fd = Path == "-" ? dup(STDIN_FILENO)
                       : ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC);
  auto Fail = [&](std::string Why) {
    Problems.Unreadable = true;
    Problems.Error = std::move(Why);
    Table.Problems.push_back(std::move(Problems));
    return std::move(Table);
  };
  if (Fd < 0)
    return Fail(std::strerror(errno));
  std::vector<char> In(ChunkSize);
  std::unique_ptr<Decoder> Decode;
  LineReader Lines(Table, Problems, Window);
  for (;;) {
    ssize_t N = ::read(Fd, In.data(), In.size());
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
    Table.Problems.push_back(std::move(Problems));
  return Table;
}

UsageTable readUsageText(StringRef Name, StringRef Text,
                         const LogWindow &Window) {
  UsageTable Table;
  LogFileProblems Problems;
  Problems.File = Name.str();
  std::string Padded = Text.str();
  Padded.resize(Text.size() + simdjson::SIMDJSON_PADDING);
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
  std::vector<UsageTable> Tables(Files.size());
  std::atomic<size_t> Next{0};
  auto Work = [&] {
    for (size_t I = Next++; I < Files.size(); I = Next++)
      Tables[I] = readUsageLog(Files[I], Window);
  };
  Threads = std::max(1u, std::min<unsigned>(Threads, Files.size()));
  std::vector<std::thread> Workers;
  for (unsigned I = 1; I < Threads; ++I)
    Workers.emplace_back(Work);
  Work();
  for (std::thread &T : Workers)
    T.join();
  UsageTable All;
  for (UsageTable &T : Tables)
    All.merge(std::move(T));
  return All;
}

} // namespace apistamp
