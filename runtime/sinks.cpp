//===- sinks.cpp - The runtime's stderr and JSON-lines sinks --------------===//

#include "sinks.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace apistamp {
namespace detail {

namespace {

/// Returns the value of \p Name if it is set and non-empty, else null. In a
/// set-user-ID or set-group-ID program (or one with file capabilities) the
/// environment is its caller's: secure_getenv ignores it there, so that a
/// user cannot make a privileged program write a log where they choose.
const char *getNonEmptyEnv(const char *Name) {
  const char *Value = secure_getenv(Name);
  return Value && *Value ? Value : nullptr;
}

bool isPipeOrSocket(int Fd) {
  struct stat St;
  return fstat(Fd, &St) == 0 && (S_ISFIFO(St.st_mode) || S_ISSOCK(St.st_mode));
}

/// A JSON value for a rank: a number if \p Value is a decimal integer, the
/// string itself otherwise.
std::string rankJson(const char *Value) {
  const char *P = Value;
  if (*P == '-')
    ++P;
  std::size_t Digits = std::strspn(P, "0123456789");
  if (Digits > 0 && Digits <= 18 && P[Digits] == '\0' &&
      (Digits == 1 || *P != '0'))
    return Value;
  std::string Out;
  appendJsonString(Out, Value);
  return Out;
}

/// The rank given to setGlobalRank(), or -1 (none: the environment's).
std::atomic<std::int64_t> GlobalRank(-1);

/// The value of the first set variable among the comma-separated \p Names.
const char *firstSetVariable(const std::string &Names) {
  std::size_t Begin = 0;
  while (Begin <= Names.size()) {
    std::size_t End = Names.find(',', Begin);
    if (End == std::string::npos)
      End = Names.size();
    std::string Name = Names.substr(Begin, End - Begin);
    // Tolerate spaces around names: "A, B".
    std::size_t First = Name.find_first_not_of(" \t");
    std::size_t Last = Name.find_last_not_of(" \t");
    if (First != std::string::npos)
      if (const char *Value =
              getNonEmptyEnv(Name.substr(First, Last - First + 1).c_str()))
        return Value;
    Begin = End + 1;
  }
  return nullptr;
}

std::string hostName() {
  char Buffer[HOST_NAME_MAX + 1];
  if (gethostname(Buffer, sizeof(Buffer)) != 0)
    return std::string();
  Buffer[HOST_NAME_MAX] = '\0';
  return Buffer;
}

std::string executablePath() {
  char Buffer[PATH_MAX];
  ssize_t N = readlink("/proc/self/exe", Buffer, sizeof(Buffer));
  if (N > 0 && static_cast<std::size_t>(N) < sizeof(Buffer))
    return std::string(Buffer, static_cast<std::size_t>(N));
  return std::string();
}

/// The current time in ISO 8601, UTC, with microseconds.
std::string isoTimeNow() {
  struct timespec Now;
  clock_gettime(CLOCK_REALTIME, &Now);
  struct tm Utc;
  gmtime_r(&Now.tv_sec, &Utc);
  char Buffer[96];
  std::snprintf(Buffer, sizeof(Buffer), "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ",
                Utc.tm_year + 1900, Utc.tm_mon + 1, Utc.tm_mday, Utc.tm_hour,
                Utc.tm_min, Utc.tm_sec, static_cast<long>(Now.tv_nsec / 1000));
  return Buffer;
}

/// The length of the valid UTF-8 sequence at \p S (of \p Size bytes), or 0.
std::size_t utf8SequenceLength(const unsigned char *S, std::size_t Size) {
  unsigned char C = S[0];
  std::size_t Length;
  unsigned Min;
  unsigned CodePoint;
  if (C >= 0xC2 && C <= 0xDF) {
    Length = 2;
    Min = 0x80;
    CodePoint = C & 0x1F;
  } else if (C >= 0xE0 && C <= 0xEF) {
    Length = 3;
    Min = 0x800;
    CodePoint = C & 0x0F;
  } else if (C >= 0xF0 && C <= 0xF4) {
    Length = 4;
    Min = 0x10000;
    CodePoint = C & 0x07;
  } else {
    return 0;
  }
  if (Size < Length)
    return 0;
  for (std::size_t I = 1; I < Length; ++I) {
    if ((S[I] & 0xC0) != 0x80)
      return 0;
    CodePoint = (CodePoint << 6) | (S[I] & 0x3F);
  }
  if (CodePoint < Min || CodePoint > 0x10FFFF ||
      (CodePoint >= 0xD800 && CodePoint <= 0xDFFF))
    return 0;
  return Length;
}

} // namespace

bool appendJsonString(std::string &Out, const std::string &Text,
                      std::size_t Limit) {
  static const char Hex[] = "0123456789abcdef";
  Out += '"';
  const unsigned char *S = reinterpret_cast<const unsigned char *>(Text.data());
  std::size_t Size = Text.size();
  char Unit[8];
  for (std::size_t I = 0; I < Size;) {
    unsigned char C = S[I];
    const char *Bytes = Unit;
    std::size_t Length = 1, Consumed = 1;
    if (C >= 0x80) {
      std::size_t Sequence = utf8SequenceLength(S + I, Size - I);
      if (Sequence == 0) {
        Bytes = "\\ufffd";
        Length = 6;
      } else {
        Bytes = reinterpret_cast<const char *>(S + I);
        Length = Consumed = Sequence;
      }
    } else {
      switch (C) {
      case '"':
        Bytes = "\\\"";
        Length = 2;
        break;
      case '\\':
        Bytes = "\\\\";
        Length = 2;
        break;
      case '\n':
        Bytes = "\\n";
        Length = 2;
        break;
      case '\r':
        Bytes = "\\r";
        Length = 2;
        break;
      case '\t':
        Bytes = "\\t";
        Length = 2;
        break;
      default:
        if (C < 0x20) {
          std::memcpy(Unit, "\\u00", 4);
          Unit[4] = Hex[C >> 4];
          Unit[5] = Hex[C & 0xF];
          Length = 6;
        } else {
          Unit[0] = static_cast<char>(C);
        }
      }
    }
    if (Limit != std::string::npos && Out.size() + Length + 1 > Limit) {
      Out += '"';
      return false;
    }
    Out.append(Bytes, Length);
    I += Consumed;
  }
  Out += '"';
  return true;
}

std::string ddpMembers(const std::map<std::string, std::string> &Strs,
                       const std::map<std::string, std::int64_t> &Ints) {
  std::string Out = ",\"ddp\":{\"strs\":{";
  bool First = true;
  for (const auto &Entry : Strs) {
    if (!First)
      Out += ',';
    First = false;
    appendJsonString(Out, Entry.first);
    Out += ':';
    appendJsonString(Out, Entry.second);
  }
  Out += "},\"ints\":{";
  First = true;
  for (const auto &Entry : Ints) {
    if (!First)
      Out += ',';
    First = false;
    appendJsonString(Out, Entry.first);
    Out += ':';
    Out += std::to_string(static_cast<long long>(Entry.second));
  }
  Out += "}}";
  return Out;
}

bool writeLine(int Fd, const std::string &Line, bool MayBePipe, int WaitMs) {
  sigset_t PipeSet, OldMask;
  bool WasPending = false;
  if (MayBePipe) {
    // Block SIGPIPE on this thread so that EPIPE is returned instead; if the
    // write raises it, consume it before unblocking.
    sigemptyset(&PipeSet);
    sigaddset(&PipeSet, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &PipeSet, &OldMask);
    sigset_t Pending;
    sigpending(&Pending);
    WasPending = sigismember(&Pending, SIGPIPE) == 1;
  }
  std::size_t Done = 0;
  int Error = 0;
  // A non-blocking descriptor waits for room at most WaitMs in all.
  struct timespec Start;
  clock_gettime(CLOCK_MONOTONIC, &Start);
  while (Done < Line.size()) {
    ssize_t N = write(Fd, Line.data() + Done, Line.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && WaitMs > 0) {
      struct timespec Now;
      clock_gettime(CLOCK_MONOTONIC, &Now);
      long Waited = (Now.tv_sec - Start.tv_sec) * 1000 +
                    (Now.tv_nsec - Start.tv_nsec) / 1000000;
      struct pollfd Room = {Fd, POLLOUT, 0};
      if (Waited < WaitMs && poll(&Room, 1, int(WaitMs - Waited)) >= 0)
        continue;
      errno = EAGAIN;
      N = -1;
    }
    if (N <= 0) {
      Error = N < 0 ? errno : EIO;
      break;
    }
    Done += static_cast<std::size_t>(N);
  }
  if (MayBePipe) {
    if (Error == EPIPE && !WasPending) {
      struct timespec Zero = {0, 0};
      while (sigtimedwait(&PipeSet, nullptr, &Zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &OldMask, nullptr);
  }
  errno = Error;
  return Done == Line.size();
}

namespace {

/// How long a line waits for room in a pipe whose reader is slow.
constexpr int PipeWaitMs = 1000;

/// Opening flags of the log. O_NONBLOCK for the open only: opening a FIFO
/// nobody reads fails instead of hanging (it has no effect on regular files).
constexpr int OpenFlags =
    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK;

/// Opens the log at \p Path; -1 with errno set if it cannot be opened. A
/// symbolic link at the path is not followed (ELOOP): one planted in a
/// shared log directory would make the job append to any file its user can
/// write. The system's own links (/dev/stderr, /proc/self/fd/N), in
/// directories only root writes, are followed.
int openLog(const std::string &Path) {
  bool System =
      Path.compare(0, 5, "/dev/") == 0 || Path.compare(0, 6, "/proc/") == 0;
  int Fd;
  do
    Fd = open(Path.c_str(), OpenFlags | (System ? 0 : O_NOFOLLOW), 0666);
  while (Fd < 0 && errno == EINTR);
  return Fd;
}

/// A descriptor the JSON sink has open for one line, linked into a list
/// while it is open; the node lives on the writing thread's stack.
struct OpenLine {
  int Fd;
  OpenLine *Next;
};

/// Guards LinesOpen. Held across open()+link and unlink+close(), never
/// across a write, and across fork() (the prepare handler), so that a child
/// knows every descriptor its parent had open for a line.
pthread_mutex_t LinesMutex = PTHREAD_MUTEX_INITIALIZER;
OpenLine *LinesOpen = nullptr;

/// Opens the log and records the descriptor in \p Node (Fd -1 on failure).
void openLine(const std::string &Path, OpenLine &Node) {
  pthread_mutex_lock(&LinesMutex);
  Node.Fd = openLog(Path);
  int Error = errno;
  if (Node.Fd >= 0) {
    Node.Next = LinesOpen;
    LinesOpen = &Node;
  }
  pthread_mutex_unlock(&LinesMutex);
  errno = Error;
}

void closeLine(OpenLine &Node) {
  pthread_mutex_lock(&LinesMutex);
  for (OpenLine **Link = &LinesOpen; *Link; Link = &(*Link)->Next)
    if (*Link == &Node) {
      *Link = Node.Next;
      break;
    }
  close(Node.Fd);
  pthread_mutex_unlock(&LinesMutex);
}

/// Blanks the \p Written bytes of a line that a write cut short, ending at
/// the descriptor's offset: spaces and a final newline, written in place,
/// so that the file keeps no partial line and needs no new space. The bytes
/// are this line's own (an O_APPEND write reserves them), so another
/// process's lines are never touched; truncating back instead could cut
/// off a line that another process appended after ours. Returns false if
/// the bytes could not be rewritten.
bool blankPartialLine(int Fd, std::size_t Written) {
  off_t End = lseek(Fd, 0, SEEK_CUR);
  if (End < static_cast<off_t>(Written))
    return false;
  // pwrite on an O_APPEND descriptor appends on Linux: clear it first (the
  // descriptor is ours alone).
  if (fcntl(Fd, F_SETFL, O_WRONLY) < 0)
    return false;
  std::string Blank(Written, ' ');
  Blank.back() = '\n';
  off_t At = End - static_cast<off_t>(Written);
  std::size_t Done = 0;
  while (Done < Written) {
    ssize_t N = pwrite(Fd, Blank.data() + Done, Written - Done,
                       At + static_cast<off_t>(Done));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Done += static_cast<std::size_t>(N);
  }
  return true;
}

} // namespace

void lockSinkDescriptorsForFork() { pthread_mutex_lock(&LinesMutex); }
void unlockSinkDescriptorsInParent() { pthread_mutex_unlock(&LinesMutex); }
void closeSinkDescriptorsInChild() {
  // The nodes are on the stacks of the parent's threads, copied into the
  // child with the rest of its memory.
  for (OpenLine *Node = LinesOpen; Node; Node = Node->Next)
    close(Node->Fd);
  LinesOpen = nullptr;
  pthread_mutex_unlock(&LinesMutex);
}

void reportError(const std::string &Message) {
  writeLine(STDERR_FILENO, "apistamp: " + Message + "\n",
            isPipeOrSocket(STDERR_FILENO));
}

EnvSinks::EnvSinks() {
  Stderr = getNonEmptyEnv("PYTORCH_API_USAGE_STDERR") != nullptr;
  StderrIsPipe = isPipeOrSocket(STDERR_FILENO);

  const char *LogPath = getNonEmptyEnv("APISTAMP_API_USAGE_LOG");
  if (!LogPath)
    return;
  Path = LogPath;
  // A relative path is resolved once, here (at the first event), against
  // the working directory of that moment: a later chdir() must not move the
  // log. (Keeping a descriptor open instead would survive a chdir too, but
  // the host program would see it, and a rotated log would not be
  // followed.)
  if (Path[0] != '/') {
    char Cwd[PATH_MAX];
    if (!getcwd(Cwd, sizeof(Cwd))) {
      reportError("cannot resolve the relative API usage log '" + Path +
                  "' (working directory: " + std::strerror(errno) +
                  "); not writing it");
      return;
    }
    std::string Dir = Cwd;
    Path = (Dir == "/" ? Dir : Dir + "/") + Path;
  }
  // Created while the runtime's state lock is held, which fork() also
  // takes: no child can inherit this descriptor.
  int Fd = openLog(Path);
  if (Fd >= 0) {
    close(Fd);
  } else if (int Error = errno; Error == EMFILE || Error == ENFILE ||
                                Error == ENOENT || Error == ENOMEM ||
                                Error == ENOSPC || Error == EDQUOT) {
    // A passing failure (a burst of descriptors, the log's directory not
    // made yet): the log stays on, and each event opens it again.
    reportError("cannot open API usage log '" + Path + "' now: " +
                std::strerror(Error) + "; trying again at each event");
    WriteErrorReported.store(true, std::memory_order_relaxed); // Said once.
  } else {
    reportError("cannot open API usage log '" + Path +
                "': " + std::strerror(Error) + "; not writing it");
    return;
  }
  LogEnabled = true;

  HostAndExe += ",\"host\":";
  appendJsonString(HostAndExe, hostName());
  HostAndExe += ",\"exe\":";
  appendJsonString(HostAndExe, executablePath());
  const char *Rank = getNonEmptyEnv("RANK");
  if (!Rank)
    Rank = getNonEmptyEnv("LOCAL_RANK");
  EnvRank = Rank ? rankJson(Rank) : "null";
  JobId = ",\"job_id\":";
  const char *JobIdEnv = getNonEmptyEnv("APISTAMP_JOB_ID_ENV");
  const char *JobIdValue = firstSetVariable(
      JobIdEnv ? JobIdEnv : "SLURM_JOB_ID,TORCHELASTIC_RUN_ID");
  if (JobIdValue)
    appendJsonString(JobId, JobIdValue);
  else
    JobId += "null";
}

std::string EnvSinks::fixedFields() const {
  std::int64_t Rank = GlobalRank.load(std::memory_order_relaxed);
  return HostAndExe + ",\"rank\":" +
         (Rank == -1 ? EnvRank : std::to_string(static_cast<long long>(Rank))) +
         JobId;
}

void setGlobalRank(std::int64_t Rank) {
  GlobalRank.store(Rank, std::memory_order_relaxed);
}

void EnvSinks::writeStderr(const std::string &Event) const {
  writeLine(STDERR_FILENO, "PYTORCH_API_USAGE " + Event + "\n", StderrIsPipe);
}

std::string
EnvSinks::jsonLine(const std::string &Event,
                   const std::map<std::string, std::string> *Metadata, long Pid,
                   std::size_t Limit, const std::string *Extra) const {
  std::string Middle = ",\"time\":\"" + isoTimeNow() + "\",\"pid\":";
  Middle += std::to_string(static_cast<long long>(Pid));
  std::string Line = "{\"event\":";
  appendJsonString(Line, Event);
  Line += Middle;
  std::string Fixed = fixedFields();
  Line += Fixed;
  if (Metadata) {
    Line += ",\"metadata\":{";
    bool First = true;
    for (const auto &Entry : *Metadata) {
      if (!First)
        Line += ',';
      First = false;
      appendJsonString(Line, Entry.first);
      Line += ':';
      appendJsonString(Line, Entry.second);
    }
    Line += '}';
  }
  if (Extra)
    Line += *Extra;
  Line += "}\n";
  if (Line.size() <= Limit)
    return Line;

  // Too long: cut the event name, keep the metadata entries that still fit
  // whole, and say so. (The fixed fields go too if they leave no room.)
  static const char Mark[] = ",\"truncated\":true}\n";
  const std::size_t MarkSize = sizeof(Mark) - 1;
  const std::size_t MinEvent = 64;
  if (9 + MinEvent + Middle.size() + Fixed.size() + MarkSize > Limit)
    Fixed.clear();
  Line = "{\"event\":";
  appendJsonString(Line, Event,
                   Limit - Middle.size() - Fixed.size() - MarkSize);
  Line += Middle;
  Line += Fixed;
  if (Metadata) {
    std::string Entries;
    for (const auto &Entry : *Metadata) {
      std::string One = Entries.empty() ? "" : ",";
      appendJsonString(One, Entry.first);
      One += ':';
      appendJsonString(One, Entry.second);
      // ,"metadata":{ ... }
      if (Line.size() + 13 + Entries.size() + One.size() + 1 + MarkSize > Limit)
        break;
      Entries += One;
    }
    if (Line.size() + 13 + Entries.size() + 1 + MarkSize <= Limit)
      Line += ",\"metadata\":{" + Entries + "}";
  }
  if (Extra && Line.size() + Extra->size() + MarkSize <= Limit)
    Line += *Extra;
  Line += Mark;
  return Line;
}

void EnvSinks::writeJson(const std::string &Event,
                         const std::map<std::string, std::string> *Metadata,
                         long Pid, const std::string *Extra) const {
  if (!LogEnabled)
    return;
  // Opened and closed per line: the host program never sees a descriptor
  // of ours (tests that count descriptors, close-on-exec checks), and a
  // forked child closes the ones its parent had open (see OpenLine).
  OpenLine Node;
  openLine(Path, Node);
  const char *Failure = "open";
  int Error = errno;
  std::string Detail;
  if (Node.Fd >= 0) {
    Failure = nullptr;
    struct stat St;
    bool Known = fstat(Node.Fd, &St) == 0;
    bool Regular = Known && S_ISREG(St.st_mode);
    bool Pipe = Known && (S_ISFIFO(St.st_mode) || S_ISSOCK(St.st_mode));
    // Lines to a pipe are at most PIPE_BUF bytes, the most that POSIX
    // writes to a pipe atomically: longer ones could interleave with other
    // writers' lines.
    std::string Line = jsonLine(Event, Metadata, Pid,
                                Pipe ? PIPE_BUF : std::string::npos, Extra);
    if (Regular && NeedsNewline.exchange(false, std::memory_order_relaxed))
      Line.insert(Line.begin(), '\n');
    if (Pipe) {
      // Non-blocking: a slow reader is waited for, up to PipeWaitMs a line;
      // a stalled one does not hang the program (later lines are dropped
      // at once until one goes through).
      bool Stalled = PipeStalled.load(std::memory_order_relaxed);
      if (writeLine(Node.Fd, Line, true, Stalled ? 0 : PipeWaitMs)) {
        PipeStalled.store(false, std::memory_order_relaxed);
      } else {
        Failure = "write";
        Error = errno;
        if (Error == EAGAIN) {
          PipeStalled.store(true, std::memory_order_relaxed);
          Detail = "its reader does not read (a pipe " +
                   std::to_string(PipeWaitMs) + " ms full)";
        }
      }
    } else if (!Regular) {
      // O_NONBLOCK was for the open (a FIFO without reader); writes to a
      // terminal or device block.
      if (fcntl(Node.Fd, F_SETFL, OpenFlags & ~O_NONBLOCK) < 0) {
        Failure = "write";
        Error = errno;
      } else if (!writeLine(Node.Fd, Line, false)) {
        Failure = "write";
        Error = errno;
      }
    } else {
      // One write: an O_APPEND write puts the whole line at the end of the
      // file, and a retry after a short write could land after another
      // process's line. A short write (disk full, file size limit) leaves
      // a partial line, which is blanked.
      ssize_t N;
      do
        N = write(Node.Fd, Line.data(), Line.size());
      while (N < 0 && errno == EINTR);
      if (N < 0) {
        Failure = "write";
        Error = errno;
      } else if (static_cast<std::size_t>(N) < Line.size()) {
        Failure = "write";
        Error = 0;
        Detail = "wrote " + std::to_string(static_cast<long long>(N)) + " of " +
                 std::to_string(Line.size()) +
                 " bytes (disk full or file size limit)";
        if (N > 0 && !blankPartialLine(Node.Fd, static_cast<std::size_t>(N))) {
          NeedsNewline.store(true, std::memory_order_relaxed);
          Detail += "; the partial line stays";
        } else if (N > 0) {
          Detail += "; the partial line was blanked";
        }
      }
    }
    closeLine(Node);
  }
  if (Failure && !WriteErrorReported.exchange(true, std::memory_order_relaxed))
    reportError(std::string("cannot ") + Failure + " API usage log '" + Path +
                "': " + (Detail.empty() ? std::strerror(Error) : Detail) +
                "; events may be missing");
}

} // namespace detail
} // namespace apistamp
