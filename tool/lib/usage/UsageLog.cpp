//===- UsageLog.cpp - Read API usage logs into per-event counts -----------===//
//
// The files to read, split into parts that the reading threads share (a
// large plain file whose first line is a JSON log line; any other log is
// one part, its form decided by its lines); each part read through a
// mapping (plain files) or read(2) and a decoder, its lines counted by the
// thread's LineReader; the threads' counts, the parts' problems and the
// stderr logs merged.
//
//===----------------------------------------------------------------------===//

#include "UsageLog.h"
#include "../WorkerPool.h"
#include "LineReader.h"
#include "LogCounts.h"
#include "LogDecoder.h"
#include "LogMapping.h"
#include "UsagePartial.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

using namespace llvm;

namespace apistamp {

namespace {

/// Counts the lines of the plain log \p Fd of \p Size bytes that start in
/// [\p From, \p To) through a mapping (\p Size may be more than the file
/// has: a file that shrank). False when it is compressed or cannot be
/// mapped: read it instead.
bool readMapped(int Fd, uint64_t Size, uint64_t From, uint64_t To,
                LineReader &Lines, LogFileProblems &Problems) {
  if (Size <= 2 * LogLinePadding || Size > SIZE_MAX)
    return false;
  LogMapping Map(Fd, Size);
  if (!Map.mapped())
    return false;
  const char *Data = Map.data();
  if (formatOf(Data, Size) != Decoder::Plain)
    return false;
  Map.adviseSequential();
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
  for (uint64_t At = Start; At < Body && !Map.shrank();
       At += LogMapping::WindowBytes) {
    uint64_t Length = std::min<uint64_t>(LogMapping::WindowBytes, Body - At);
    Lines.consume(Data + At, Length);
    Map.dropRead(Data + At, Length);
  }
  if (!Map.shrank() && Stop > Body) {
    std::string Rest(Data + Body, Stop - Body);
    size_t Length = Rest.size();
    Rest.resize(Length + LogLinePadding);
    if (!Map.shrank())
      Lines.consume(Rest.data(), Length);
  }
  if (Map.shrank()) {
    // What was read is counted; the rest, zeros now, is not a line.
    Lines.discardPartialLine();
    Problems.Error = "the file shrank while it was read (rotated by "
                     "copytruncate?)";
  }
  return true;
}

/// Part of a log: the lines that start in [From, To) of a plain file, or
/// (To == 0) all of a log, however it is read. A part of a file read in
/// parts is JSON lines; any other log's form is decided by its lines.
struct LogPart {
  size_t File;
  uint64_t From = 0, To = 0;
  LogForm Form = LogForm::Undecided;
};

/// What reading a part found; line numbers count from the part's start.
struct PartResult {
  std::optional<LogFileProblems> Problems;
  uint64_t Lines = 0;
  std::optional<StderrLog> Stderr; ///< The log was in the stderr form.
};

/// The job of a log, should it be in the stderr form.
struct FileJob {
  std::optional<std::string> Job;
  bool NameUnmatched = false; ///< --stderr-job-from did not match.
};

/// \p Time as the runtime writes times: "2026-11-23T03:13:56.728117Z".
std::string isoTime(const struct timespec &Time) {
  struct tm Utc;
  time_t Seconds = Time.tv_sec;
  if (!gmtime_r(&Seconds, &Utc))
    return "1970-01-01T00:00:00.000000Z";
  return formatv("{0:D4}-{1:D2}-{2:D2}T{3:D2}:{4:D2}:{5:D2}.{6:D6}Z",
                 Utc.tm_year + 1900, Utc.tm_mon + 1, Utc.tm_mday, Utc.tm_hour,
                 Utc.tm_min, Utc.tm_sec, Time.tv_nsec / 1000)
      .str();
}

/// How the stderr log \p Path is counted: at \p Time, as one process of
/// its own (keyed by its name: a file is read once), in \p Job.
StderrSource stderrSource(StringRef Path, std::string Time,
                          const std::optional<std::string> &Job) {
  uint64_t Process = mix64(xxh3_64bits(Path) ^ 0x5354444552524C4FULL);
  uint64_t JobKey = Job ? xxh3_64bits(StringRef(*Job)) : ~Process;
  return {std::move(Time), {0, Process, JobKey}};
}

/// The jobs of \p Files, should they be stderr logs.
std::vector<FileJob> jobsOf(ArrayRef<std::string> Files,
                            const StderrJobs &Jobs) {
  std::vector<FileJob> Result(Files.size());
  if (!Jobs.JobId.empty()) {
    for (FileJob &J : Result)
      J.Job = Jobs.JobId;
    return Result;
  }
  if (Jobs.JobFrom.empty())
    return Result;
  Regex JobFrom(Jobs.JobFrom);
  // A pattern with a '/' is about the directories too (torchrun names every
  // rank's file stderr.log, in <run id>_<8 random>/attempt_N/<rank>/).
  bool WholePath = StringRef(Jobs.JobFrom).contains('/');
  for (size_t I = 0; I < Files.size(); ++I) {
    SmallVector<StringRef, 2> Groups;
    StringRef Name =
        WholePath ? StringRef(Files[I]) : sys::path::filename(Files[I]);
    if (JobFrom.match(Name, &Groups) && Groups.size() == 2 &&
        !Groups[1].empty())
      Result[I].Job = Groups[1].str();
    else
      Result[I].NameUnmatched = true;
  }
  return Result;
}

/// Whether the first line that is not blank of the plain log \p Fd, in
/// its first ChunkSize bytes, is a valid JSON log line: the log is then
/// JSON lines, and may be read in parts.
bool startsAsJsonLines(int Fd) {
  std::vector<char> Head(ChunkSize + LogLinePadding);
  ssize_t N = ::pread(Fd, Head.data(), ChunkSize, 0);
  if (N <= 0)
    return false;
  StringRef Text(Head.data(), size_t(N));
  for (size_t At = 0;;) {
    size_t End = Text.find('\n', At);
    if (End == StringRef::npos)
      return false;
    StringRef Line = Text.slice(At, End);
    if (Line.ends_with("\r"))
      Line = Line.drop_back();
    if (Line.find_first_not_of(" \t") == StringRef::npos) {
      At = End + 1;
      continue;
    }
    LogLineParser Parser;
    LogLine Fields;
    return Parser.parse(Line.data(), Line.size(), Head.size() - At, Fields) ==
           LogLineError::None;
  }
}

/// Reads all of the log \p Fd with read(2), decompressing it if it must,
/// into \p Lines. False with \p Problems' Error set when it could not be
/// read; a corrupt compressed log is read up to its corruption, and
/// \p Problems says so.
bool readStream(int Fd, LineReader &Lines, LogFileProblems &Problems) {
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
      Problems.Error = std::strerror(errno);
      return false;
    }
    if (N == 0)
      break;
    if (!Decode)
      Decode = std::make_unique<Decoder>(formatOf(In.data(), N));
    if (!Decode->feed(In.data(), N, Lines)) {
      // What was read is counted; the rest is lost, and said so.
      Problems.Error = Decode->Error;
      return true;
    }
  }
  if (Decode && !Decode->finish()) {
    Problems.Error = Decode->Error;
    Problems.Truncated = true;
  }
  return true;
}

/// Reads a part of one log (a file, or "-" for stdin) of form \p Form
/// into \p Counts, up to \p MappedSize bytes when it is not 0 (the size
/// the file had when it was split), and says what was wrong with it; a
/// stderr log's job is \p Job's.
PartResult readLogInto(ThreadCounts &Counts, StringRef Path,
                       const LogWindow &Window, const FileJob &Job,
                       LogForm Form = LogForm::Undecided, uint64_t From = 0,
                       uint64_t To = 0, uint64_t MappedSize = 0) {
  PartResult Result;
  LogFileProblems Problems;
  Problems.File = Path.str();
  // Opened without blocking, and only when it is a regular file: a FIFO
  // blocks, and a device may never end.
  int Fd = Path == "-" ? dup(STDIN_FILENO) : openRegularFile(Path);
  if (Fd < 0) {
    Problems.Unreadable = true;
    Problems.Error = errno == EINVAL && Path != "-"
                         ? "not a regular file (a FIFO or a device?)"
                         : std::strerror(errno);
    Result.Problems = std::move(Problems);
    return Result;
  }
  // A log is read up to the size it has when it is opened; a stderr log's
  // lines happened by the time it was last written.
  struct stat Status;
  bool Stated = fstat(Fd, &Status) == 0;
  std::string Time =
      isoTime(Stated ? Status.st_mtim : timespec{time(nullptr), 0});
  LineReader Lines(Counts, Problems, Window, Form,
                   stderrSource(Path, std::move(Time), Job.Job));
  uint64_t Size = 0;
  if (Path != "-" && Stated && S_ISREG(Status.st_mode))
    Size = MappedSize ? MappedSize : uint64_t(Status.st_size);
  bool Mapped =
      Size && readMapped(Fd, Size, From, To ? To : Size, Lines, Problems);
  if (!Mapped && From != 0) {
    // Mapped when it was split, not now: what it held is lost.
    ::close(Fd);
    Problems.Error = "the file could not be mapped again";
    Result.Problems = std::move(Problems);
    return Result;
  }
  bool Read = Mapped || readStream(Fd, Lines, Problems);
  ::close(Fd);
  if (!Read) {
    Problems.Unreadable = true;
    Result.Problems = std::move(Problems);
    return Result;
  }
  Lines.finish();
  // A file is counted once: by its first part.
  Counts.Files += From == 0;
  Result.Lines = Lines.lines();
  if (Lines.form() == LogForm::Stderr) {
    Result.Stderr = Lines.stderrLog();
    Result.Stderr->File = Path.str();
    Result.Stderr->Job = Job.Job;
    Result.Stderr->NameUnmatched = Job.NameUnmatched;
  }
  if (Problems.Malformed || !Problems.Error.empty())
    Result.Problems = std::move(Problems);
  return Result;
}

/// The problems of \p Parts (in file order), one entry per file: their
/// line numbers made the file's, the first few kept.
std::vector<LogFileProblems> mergeProblems(ArrayRef<LogPart> Parts,
                                           std::vector<PartResult> &Results) {
  std::vector<LogFileProblems> Merged;
  // Parts are in file order: one file's problems are merged in place.
  std::optional<LogFileProblems> Current;
  uint64_t LinesBefore = 0;
  for (size_t I = 0; I < Parts.size(); ++I) {
    if (Parts[I].From == 0) {
      if (Current)
        Merged.push_back(std::move(*Current));
      Current.reset();
      LinesBefore = 0;
    }
    if (std::optional<LogFileProblems> &P = Results[I].Problems) {
      if (!Current) {
        Current = LogFileProblems();
        Current->File = P->File;
      }
      Current->Unreadable |= P->Unreadable;
      if (Current->Error.empty()) {
        Current->Error = P->Error;
        Current->Truncated = P->Truncated;
      }
      Current->Malformed += P->Malformed;
      for (auto &[Line, Why] : P->First)
        if (Current->First.size() < FirstProblemsKept)
          Current->First.push_back({LinesBefore + Line, std::move(Why)});
    }
    LinesBefore += Results[I].Lines;
  }
  if (Current)
    Merged.push_back(std::move(*Current));
  return Merged;
}

/// File \p F of \p Size bytes in parts of \p PartBytes.
void appendParts(std::vector<LogPart> &Parts, size_t F, uint64_t Size,
                 uint64_t PartBytes) {
  for (uint64_t From = 0; From < Size; From += PartBytes)
    Parts.push_back(
        {F, From, std::min(Size, From + PartBytes), LogForm::JsonLines});
}

/// Splits plain files of at least two parts of \p PartBytes into parts,
/// so that threads share a large file; a part's lines are those that start
/// in it. Other logs are one part each.
std::vector<LogPart> splitLogs(ArrayRef<std::string> Files, uint64_t PartBytes,
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
      int Fd = openRegularFile(Files[F]);
      // Parts are JSON lines: a log that may be in the stderr form is read
      // whole, for its lines to decide.
      bool Plain =
          Fd >= 0 &&
          ::pread(Fd, Magic, sizeof Magic, 0) == ssize_t(sizeof Magic) &&
          formatOf(Magic, sizeof Magic) == Decoder::Plain &&
          startsAsJsonLines(Fd);
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
/// file whose planned size is not 0 is read up to that size, a stderr log
/// counted in its job of \p Jobs. With \p AsPartial, the events' keys go
/// there, uncounted, and the counts returned have no events.
UsageCounts readParts(ArrayRef<std::string> Files, ArrayRef<LogPart> Parts,
                      ArrayRef<uint64_t> PlannedSizes, const LogWindow &Window,
                      unsigned Threads, ArrayRef<FileJob> Jobs,
                      ArrayRef<EventAlias> Aliases,
                      UsagePartial *AsPartial = nullptr) {
  // Each thread counts the parts it takes; the problems are kept by part,
  // in order, and their line numbers made the file's.
  Threads = std::max(1u, std::min<unsigned>(Threads, Parts.size()));
  CounterIds Ids(Aliases);
  std::vector<std::unique_ptr<ThreadCounts>> Counts;
  for (unsigned I = 0; I < Threads; ++I)
    Counts.push_back(std::make_unique<ThreadCounts>(Ids, KeyBudget / Threads));
  std::vector<PartResult> Results(Parts.size());
  std::atomic<size_t> Next{0};
  WorkerOptions Workers;
  Workers.OnCallingThread = true;
  runWorkers(
      Threads,
      [&](unsigned Worker) {
        ThreadCounts &Thread = *Counts[Worker];
        for (size_t I = Next++; I < Parts.size(); I = Next++) {
          const LogPart &P = Parts[I];
          Results[I] = readLogInto(Thread, Files[P.File], Window, Jobs[P.File],
                                   P.Form, P.From, P.To, PlannedSizes[P.File]);
        }
        Thread.Keys.finish();
      },
      Workers);
  UsageCounts All;
  if (AsPartial) {
    AsPartial->Events = partialEventsOf(Ids, Counts);
    addInputs(All, Counts);
  } else {
    All = collect(Ids, Counts);
  }
  All.Problems = mergeProblems(Parts, Results);
  for (PartResult &R : Results)
    if (R.Stderr)
      All.StderrLogs.push_back(std::move(*R.Stderr));
  return All;
}

} // namespace

UsageCounts readUsageLog(StringRef Path, const LogWindow &Window) {
  return readUsageLogs({Path.str()}, Window, 1, DefaultLogPartBytes, {}, {});
}

std::string describeCounts(const UsageCounts &Counts) {
  std::string Out;
  raw_string_ostream OS(Out);
  OS << "files " << Counts.Files << ", lines " << Counts.Lines
     << ", event lines " << Counts.EventLines << ", malformed "
     << Counts.Malformed << ", outside " << Counts.OutsideWindow << ", jobs "
     << Counts.Jobs << "\n";
  for (const auto &[Name, E] : Counts.Events) {
    OS << "event '" << Name << "': jobs " << E.Jobs << ", processes "
       << E.Processes << ", hosts " << E.Hosts << ", first " << E.FirstSeen
       << ", last " << E.LastSeen << ", days";
    for (const auto &[Day, Jobs] : E.JobsByDay)
      OS << " " << Day << "=" << Jobs;
    OS << "\n";
  }
  for (const LogFileProblems &P : Counts.Problems) {
    OS << "problems of " << P.File << ": " << P.Malformed;
    for (const auto &[Line, Why] : P.First)
      OS << "; " << Line << ": " << Why;
    OS << "\n";
  }
  for (const StderrLog &L : Counts.StderrLogs)
    OS << "stderr log " << L.File << ": events " << L.Events << ", ignored "
       << L.Ignored << ", malformed " << L.Malformed << "\n";
  return Out;
}

UsageCounts readUsageText(StringRef Name, StringRef Text,
                          const LogWindow &Window, const StderrFileInfo &Stderr,
                          ArrayRef<EventAlias> Aliases,
                          const TextReading &How) {
  CounterIds Ids(Aliases);
  std::unique_ptr<ThreadCounts> Counts =
      std::make_unique<ThreadCounts>(Ids, KeyBudget);
  LogFileProblems Problems;
  Problems.File = Name.str();
  LineReader Lines(*Counts, Problems, Window, LogForm::Undecided,
                   stderrSource(Name, Stderr.Time, Stderr.Job));
  if (How.ValidatingOnly)
    Lines.validateEveryLine();
  size_t Piece = How.PieceBytes ? How.PieceBytes : Text.size();
  for (size_t At = 0; At < Text.size(); At += Piece) {
    // Exactly the piece and its padding: a read past them is caught by
    // AddressSanitizer, a pointer kept into them once they are freed too.
    StringRef Bytes = Text.substr(At, Piece);
    auto Padded = std::make_unique<char[]>(Bytes.size() + LogLinePadding);
    std::memcpy(Padded.get(), Bytes.data(), Bytes.size());
    std::memset(Padded.get() + Bytes.size(), 0, LogLinePadding);
    Lines.consume(Padded.get(), Bytes.size());
  }
  Lines.finish();
  Counts->Keys.finish();
  ++Counts->Files;
  UsageCounts Result = collect(Ids, Counts);
  if (Problems.Malformed)
    Result.Problems.push_back(std::move(Problems));
  if (Lines.form() == LogForm::Stderr) {
    StderrLog Log = Lines.stderrLog();
    Log.File = Name.str();
    Log.Time = Stderr.Time;
    Log.Job = Stderr.Job;
    Result.StderrLogs.push_back(std::move(Log));
  }
  return Result;
}

UsageCounts readUsageLogs(ArrayRef<std::string> Files, const LogWindow &Window,
                          unsigned Threads, uint64_t PartBytes,
                          const StderrJobs &Jobs,
                          ArrayRef<EventAlias> Aliases) {
  std::vector<uint64_t> PlannedSizes;
  std::vector<LogPart> Parts =
      splitLogs(Files, std::max<uint64_t>(PartBytes, 4096), PlannedSizes);
  return readParts(Files, Parts, PlannedSizes, Window, Threads,
                   jobsOf(Files, Jobs), Aliases);
}

UsagePartial readUsagePartial(ArrayRef<std::string> Files,
                              const LogWindow &Window, unsigned Threads,
                              uint64_t PartBytes, const StderrJobs &Jobs,
                              ArrayRef<EventAlias> Aliases) {
  std::vector<uint64_t> PlannedSizes;
  std::vector<LogPart> Parts =
      splitLogs(Files, std::max<uint64_t>(PartBytes, 4096), PlannedSizes);
  UsagePartial Partial;
  Partial.Settings = partialSettings(Window, Jobs, Aliases);
  Partial.Inputs = readParts(Files, Parts, PlannedSizes, Window, Threads,
                             jobsOf(Files, Jobs), Aliases, &Partial);
  return Partial;
}

UsageCounts readUsageLogShrunk(StringRef Path, uint64_t Size,
                               const LogWindow &Window, unsigned Threads,
                               uint64_t PartBytes) {
  std::string File = Path.str();
  std::vector<LogPart> Parts;
  appendParts(Parts, 0, Size, PartBytes);
  FileJob NoJob;
  return readParts(File, Parts, Size, Window, Threads, NoJob, {});
}

} // namespace apistamp
