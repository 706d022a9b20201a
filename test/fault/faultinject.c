/* faultinject.c - LD_PRELOAD shim that makes apistamp's file writes fail.
 *
 * Only files whose name contains APISTAMP_FAULT_MATCH (default
 * ".apistamp-tmp-", the temporary files apistamp writes before renaming)
 * are affected. APISTAMP_FAULT selects the fault:
 *   enospc[:N]  write() fails with ENOSPC after N bytes (default 0)
 *   edquot[:N]  the same with EDQUOT
 *   eio[:N]     the same with EIO
 *   short       every write() writes at most 1 byte (a correct writer loops)
 *   eintr       every other write() fails with EINTR before writing
 *   fsync-eio   fsync() fails with EIO
 *   close-eio   close() fails with EIO (after closing)
 *   rename-eio  rename() or renameat2() of a matching file fails with EIO
 *   delay:MS    rename() or renameat2() from or onto a matching file first
 *               sleeps MS milliseconds (a slow disk: widens the window of a
 *               race; an editor saves in it)
 *   open-delay:MS:N  the Nth open() or openat() of a matching file (from 1)
 *               first creates the file APISTAMP_FAULT_SIGNAL names, if set,
 *               then sleeps MS milliseconds (a file read late: the test
 *               replaces it once the signal file is there)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FDS 65536
static char Tracked[MAX_FDS];
static long long Written[MAX_FDS];
static int Calls;

static const char *fault(void) {
  const char *F = getenv("APISTAMP_FAULT");
  return F ? F : "";
}

/* A path through a directory descriptor ("/proc/self/fd/N/NAME", as the
   tool writes sources) is matched as the directory's own path. */
static int matches(const char *Path) {
  const char *Match = getenv("APISTAMP_FAULT_MATCH");
  char Resolved[4096];
  static const char Prefix[] = "/proc/self/fd/";
  if (Path && strncmp(Path, Prefix, sizeof Prefix - 1) == 0) {
    const char *Rest = strchr(Path + sizeof Prefix - 1, '/');
    char Link[64];
    size_t Length = Rest ? (size_t)(Rest - Path) : strlen(Path);
    if (Length < sizeof Link) {
      memcpy(Link, Path, Length);
      Link[Length] = 0;
      ssize_t Size = readlink(Link, Resolved, sizeof Resolved - 1);
      if (Size > 0 && (size_t)Size + (Rest ? strlen(Rest) : 0) < sizeof Resolved) {
        Resolved[Size] = 0;
        if (Rest)
          strcat(Resolved, Rest);
        Path = Resolved;
      }
    }
  }
  return Path && strstr(Path, Match && *Match ? Match : ".apistamp-tmp-");
}

/* open-delay:MS:N: the Nth open of a matching file waits. */
static void delayOpen(const char *Path) {
  static int Opens;
  const char *F = fault();
  if (strncmp(F, "open-delay:", 11) != 0 || !matches(Path))
    return;
  const char *Count = strchr(F + 11, ':');
  /* The tool's worker threads open files too. */
  if (!Count || __atomic_add_fetch(&Opens, 1, __ATOMIC_SEQ_CST) != atoi(Count + 1))
    return;
  const char *Signal = getenv("APISTAMP_FAULT_SIGNAL");
  if (Signal && *Signal) {
    FILE *Marker = fopen(Signal, "w");
    if (Marker)
      fclose(Marker);
  }
  usleep(atoi(F + 11) * 1000);
}

static void track(int FD, const char *Path) {
  if (FD >= 0 && FD < MAX_FDS) {
    Tracked[FD] = matches(Path);
    Written[FD] = 0;
  }
}

#define REAL(Name)                                                             \
  static __typeof__(&Name) Real_##Name;                                        \
  if (!Real_##Name)                                                            \
  Real_##Name = (__typeof__(&Name))dlsym(RTLD_NEXT, #Name)

int open(const char *Path, int Flags, ...) {
  REAL(open);
  mode_t Mode = 0;
  if (Flags & (O_CREAT | O_TMPFILE)) {
    va_list Args;
    va_start(Args, Flags);
    Mode = va_arg(Args, mode_t);
    va_end(Args);
  }
  delayOpen(Path);
  int FD = Real_open(Path, Flags, Mode);
  track(FD, Path);
  return FD;
}
int open64(const char *Path, int Flags, ...) __attribute__((alias("open")));

int openat(int Dir, const char *Path, int Flags, ...) {
  REAL(openat);
  mode_t Mode = 0;
  if (Flags & (O_CREAT | O_TMPFILE)) {
    va_list Args;
    va_start(Args, Flags);
    Mode = va_arg(Args, mode_t);
    va_end(Args);
  }
  delayOpen(Path);
  int FD = Real_openat(Dir, Path, Flags, Mode);
  track(FD, Path);
  return FD;
}
int openat64(int Dir, const char *Path, int Flags, ...)
    __attribute__((alias("openat")));

static int failAfter(const char *Name, int *Errno, long long *Limit) {
  size_t Length = strlen(Name);
  const char *F = fault();
  if (strncmp(F, Name, Length) != 0 || (F[Length] && F[Length] != ':'))
    return 0;
  *Limit = F[Length] == ':' ? atoll(F + Length + 1) : 0;
  return 1;
}

ssize_t write(int FD, const void *Data, size_t Size) {
  REAL(write);
  if (FD < 0 || FD >= MAX_FDS || !Tracked[FD])
    return Real_write(FD, Data, Size);
  long long Limit;
  int Errno = 0;
  if (failAfter("enospc", &Errno, &Limit))
    Errno = ENOSPC;
  else if (failAfter("edquot", &Errno, &Limit))
    Errno = EDQUOT;
  else if (failAfter("eio", &Errno, &Limit))
    Errno = EIO;
  if (Errno) {
    if (Written[FD] >= Limit) {
      errno = Errno;
      return -1;
    }
    if ((long long)Size > Limit - Written[FD])
      Size = Limit - Written[FD]; /* A short write, then the failure. */
  } else if (!strcmp(fault(), "short")) {
    Size = Size > 1 ? 1 : Size;
  } else if (!strcmp(fault(), "eintr") && (Calls++ % 2 == 0)) {
    errno = EINTR;
    return -1;
  }
  ssize_t Result = Real_write(FD, Data, Size);
  if (Result > 0)
    Written[FD] += Result;
  return Result;
}

int fsync(int FD) {
  REAL(fsync);
  if (FD >= 0 && FD < MAX_FDS && Tracked[FD] && !strcmp(fault(), "fsync-eio")) {
    errno = EIO;
    return -1;
  }
  return Real_fsync(FD);
}

int close(int FD) {
  REAL(close);
  int WasTracked = FD >= 0 && FD < MAX_FDS && Tracked[FD];
  if (FD >= 0 && FD < MAX_FDS)
    Tracked[FD] = 0;
  int Result = Real_close(FD);
  if (Result == 0 && WasTracked && !strcmp(fault(), "close-eio")) {
    errno = EIO;
    return -1;
  }
  return Result;
}

int rename(const char *From, const char *To) {
  REAL(rename);
  if (matches(From) && !strcmp(fault(), "rename-eio")) {
    errno = EIO;
    return -1;
  }
  if ((matches(From) || matches(To)) && !strncmp(fault(), "delay:", 6))
    usleep(atoi(fault() + 6) * 1000);
  return Real_rename(From, To);
}

int renameat2(int FromDir, const char *From, int ToDir, const char *To,
              unsigned Flags) {
  REAL(renameat2);
  if (matches(From) && !strcmp(fault(), "rename-eio")) {
    errno = EIO;
    return -1;
  }
  if ((matches(From) || matches(To)) && !strncmp(fault(), "delay:", 6))
    usleep(atoi(fault() + 6) * 1000);
  return Real_renameat2(FromDir, From, ToDir, To, Flags);
}
