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
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

namespace apistamp {
namespace detail {

namespace {

/// Returns the value of \p Name if it is set and non-empty, else null.
const char *getNonEmptyEnv(const char *Name) {
  const char *Value = std::getenv(Name);
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

void appendJsonString(std::string &Out, const std::string &Text) {
  static const char Hex[] = "0123456789abcdef";
  Out += '"';
  const unsigned char *S = reinterpret_cast<const unsigned char *>(Text.data());
  std::size_t Size = Text.size();
  for (std::size_t I = 0; I < Size;) {
    unsigned char C = S[I];
    if (C >= 0x80) {
      std::size_t Length = utf8SequenceLength(S + I, Size - I);
      if (Length == 0) {
        Out += "\\ufffd";
        ++I;
      } else {
        Out.append(reinterpret_cast<const char *>(S + I), Length);
        I += Length;
      }
      continue;
    }
    switch (C) {
    case '"':
      Out += "\\\"";
      break;
    case '\\':
      Out += "\\\\";
      break;
    case '\n':
      Out += "\\n";
      break;
    case '\r':
      Out += "\\r";
      break;
    case '\t':
      Out += "\\t";
      break;
    default:
      if (C < 0x20) {
        Out += "\\u00";
        Out += Hex[C >> 4];
        Out += Hex[C & 0xF];
      } else {
        Out += static_cast<char>(C);
      }
    }
    ++I;
  }
  Out += '"';
}

bool writeLine(int Fd, const std::string &Line, bool MayBePipe) {
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
  while (Done < Line.size()) {
    ssize_t N = write(Fd, Line.data() + Done, Line.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
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

/// Opens the log at \p Path for one append, blocking (a FIFO's reader may
/// be slow), close-on-exec; -1 with errno set if it cannot be opened.
static int openLog(const std::string &Path) {
  int Fd;
  // O_NONBLOCK for the open only: opening a FIFO nobody reads fails instead
  // of hanging (it has no effect on regular files).
  do
    Fd = open(Path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
                                O_NONBLOCK,
              0666);
  while (Fd < 0 && errno == EINTR);
  if (Fd < 0)
    return -1;
  int Flags = fcntl(Fd, F_GETFL);
  if (Flags < 0 || fcntl(Fd, F_SETFL, Flags & ~O_NONBLOCK) < 0) {
    int Error = errno;
    close(Fd);
    errno = Error;
    return -1;
  }
  return Fd;
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
  int Fd = openLog(Path);
  if (Fd < 0) {
    reportError("cannot open API usage log '" + Path +
                "': " + std::strerror(errno) + "; not writing it");
    return;
  }
  close(Fd);
  LogEnabled = true;

  FixedFields += ",\"host\":";
  appendJsonString(FixedFields, hostName());
  FixedFields += ",\"exe\":";
  appendJsonString(FixedFields, executablePath());
  FixedFields += ",\"rank\":";
  const char *Rank = getNonEmptyEnv("RANK");
  if (!Rank)
    Rank = getNonEmptyEnv("LOCAL_RANK");
  FixedFields += Rank ? rankJson(Rank) : "null";
  FixedFields += ",\"job_id\":";
  const char *JobIdEnv = getNonEmptyEnv("APISTAMP_JOB_ID_ENV");
  const char *JobId = firstSetVariable(
      JobIdEnv ? JobIdEnv : "SLURM_JOB_ID,TORCHELASTIC_RUN_ID");
  if (JobId)
    appendJsonString(FixedFields, JobId);
  else
    FixedFields += "null";
}

void EnvSinks::writeStderr(const std::string &Event) const {
  writeLine(STDERR_FILENO, "PYTORCH_API_USAGE " + Event + "\n", StderrIsPipe);
}

void EnvSinks::writeJson(
    const std::string &Event,
    const std::map<std::string, std::string> *Metadata) const {
  if (!LogEnabled)
    return;
  std::string Line = "{\"event\":";
  appendJsonString(Line, Event);
  Line += ",\"time\":\"" + isoTimeNow() + "\",\"pid\":";
  Line += std::to_string(static_cast<long long>(getpid()));
  Line += FixedFields;
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
  Line += "}\n";
  // Opened and closed per line: the host program never sees a descriptor
  // of ours (tests that count descriptors, close-on-exec checks).
  int Fd = openLog(Path);
  const char *Failure = "open";
  int Error = errno;
  if (Fd >= 0) {
    Failure = writeLine(Fd, Line, isPipeOrSocket(Fd)) ? nullptr : "write";
    Error = errno;
    close(Fd);
  }
  if (Failure && !WriteErrorReported.exchange(true, std::memory_order_relaxed))
    reportError(std::string("cannot ") + Failure + " API usage log '" + Path +
                "': " + std::strerror(Error) + "; events may be missing");
}

} // namespace detail
} // namespace apistamp
