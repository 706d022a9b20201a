//===- SafeWrite.cpp - Replace files without ever losing a byte -----------===//
//
// POSIX calls on purpose: every one of them is checked, which
// llvm::writeToOutput does not do (it renames a temporary file over the
// destination even after a failed write).
//
//===----------------------------------------------------------------------===//

#include "SafeWrite.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <optional>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

using namespace llvm;

namespace apistamp {

namespace {

Error systemError(const Twine &What, int Errno) {
  return createStringError(std::error_code(Errno, std::generic_category()),
                           What + ": " + std::strerror(Errno));
}

/// Writes all of \p Data to \p FD, retrying interrupted and short writes.
Error writeAll(int FD, StringRef Data) {
  while (!Data.empty()) {
    ssize_t Written = ::write(FD, Data.data(), Data.size());
    if (Written < 0) {
      if (errno == EINTR)
        continue;
      return systemError("write", errno);
    }
    if (Written == 0)
      return systemError("write", EIO);
    Data = Data.drop_front(Written);
  }
  return Error::success();
}

/// All bytes of \p FD from offset 0, through pread (the offset stays).
Expected<std::string> readAll(int FD) {
  std::string Contents;
  char Buffer[1 << 16];
  for (off_t Offset = 0;;) {
    ssize_t Read = ::pread(FD, Buffer, sizeof(Buffer), Offset);
    if (Read < 0) {
      if (errno == EINTR)
        continue;
      return systemError("read", errno);
    }
    if (Read == 0)
      return Contents;
    Contents.append(Buffer, Read);
    Offset += Read;
  }
}

Expected<std::string> readPath(StringRef Path) {
  int FD = ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC);
  if (FD < 0)
    return systemError("open", errno);
  auto Close = make_scope_exit([FD] { ::close(FD); });
  return readAll(FD);
}

std::atomic<unsigned> TemporaryCounter{0};

/// When process \p Pid started (clock ticks since boot, /proc/PID/stat's
/// 22nd field), if /proc says: with its pid, it names the process even after
/// the pid is reused.
std::optional<uint64_t> processStartTime(pid_t Pid) {
  std::string Path = "/proc/" + std::to_string(Pid) + "/stat";
  int FD = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (FD < 0)
    return std::nullopt;
  char Buffer[1024];
  ssize_t Size = ::read(FD, Buffer, sizeof Buffer);
  ::close(FD);
  if (Size <= 0)
    return std::nullopt;
  // The name, in parentheses, may hold anything: fields follow the last ')'.
  StringRef Stat(Buffer, size_t(Size));
  size_t NameEnd = Stat.rfind(')');
  if (NameEnd == StringRef::npos)
    return std::nullopt;
  SmallVector<StringRef, 24> Fields;
  Stat.substr(NameEnd + 1).split(Fields, ' ', -1, /*KeepEmpty=*/false);
  uint64_t Start; // Fields[0] is the 3rd field (the state), so 22 is 19.
  if (Fields.size() < 20 || Fields[19].getAsInteger(10, Start))
    return std::nullopt;
  return Start;
}

/// This process's "PID-START": who owns a temporary file.
const std::string &temporaryOwner() {
  static const std::string Owner = [] {
    pid_t Self = ::getpid();
    std::optional<uint64_t> Start = processStartTime(Self);
    return std::to_string(Self) + "-" + std::to_string(Start.value_or(0));
  }();
  return Owner;
}

/// A new temporary file beside \p Path: ".NAME.apistamp-tmp-PID-START-N".
Expected<std::pair<int, std::string>> createTemporary(StringRef Path,
                                                      mode_t Mode) {
  for (unsigned Attempt = 0; Attempt < 100; ++Attempt) {
    std::string Name = temporaryPrefix(Path) + temporaryOwner() + "-" +
                       std::to_string(TemporaryCounter++);
    int FD =
        ::open(Name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, Mode);
    if (FD >= 0)
      return std::make_pair(FD, Name);
    if (errno != EEXIST)
      return systemError("cannot create a temporary file beside it", errno);
  }
  return systemError("cannot create a temporary file beside it", EEXIST);
}

/// Fills the temporary file \p FD with \p Contents and makes it durable;
/// closes it in every case.
Error fillTemporary(int FD, StringRef Contents) {
  Error Written = writeAll(FD, Contents);
  if (!Written && ::fsync(FD) != 0)
    Written = systemError("fsync", errno);
  if (::close(FD) != 0 && !Written)
    Written = systemError("close", errno);
  return Written;
}

/// Syncs \p Path's directory, so that a rename survives a crash.
void syncDirectory(StringRef Path) {
  SmallString<256> Directory(Path);
  sys::path::remove_filename(Directory);
  if (Directory.empty())
    Directory = ".";
  int FD = ::open(Directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (FD >= 0) {
    ::fsync(FD);
    ::close(FD);
  }
}

/// \p Path's directory, opened by a walk from "/" that follows no symbolic
/// link, and the name of \p Path in it: "/proc/self/fd/N/NAME" then names
/// the same file for as long as the descriptor is open, whatever is renamed
/// or linked on the way meanwhile.
class PinnedDirectory {
public:
  static Expected<PinnedDirectory> open(StringRef Path) {
    if (!sys::path::is_absolute(Path))
      return createStringError(inconvertibleErrorCode(),
                               "not an absolute path; not written");
    int FD = ::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (FD < 0)
      return systemError("open /", errno);
    StringRef Name = sys::path::filename(Path);
    StringRef Parent = sys::path::parent_path(Path);
    for (auto It = sys::path::begin(Parent), End = sys::path::end(Parent);
         It != End; ++It) {
      if (*It == "/")
        continue;
      if (*It == "." || *It == "..") {
        ::close(FD);
        return createStringError(inconvertibleErrorCode(),
                                 "not a canonical path; not written");
      }
      int Next = ::openat(FD, It->str().c_str(),
                          O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      int Errno = errno;
      ::close(FD);
      if (Next < 0)
        return Errno == ENOTDIR || Errno == ELOOP
                   ? createStringError(
                         inconvertibleErrorCode(),
                         "'" + *It +
                             "' on its path is a symbolic link or not a "
                             "directory now; not written")
                   : systemError("open its directory", Errno);
      FD = Next;
    }
    return PinnedDirectory(FD, Name);
  }
  PinnedDirectory(PinnedDirectory &&Other)
      : FD(std::exchange(Other.FD, -1)), Path(std::move(Other.Path)) {}
  PinnedDirectory(const PinnedDirectory &) = delete;
  ~PinnedDirectory() {
    if (FD >= 0)
      ::close(FD);
  }
  /// The file, through the pinned directory.
  StringRef path() const { return Path; }

private:
  PinnedDirectory(int FD, StringRef Name)
      : FD(FD), Path("/proc/self/fd/" + std::to_string(FD) + "/" + Name.str()) {
  }
  int FD;
  std::string Path;
};

/// Opens \p Path and takes an exclusive flock (tied to this open file, so
/// closing other descriptors of the file does not drop it, unlike fcntl
/// locks). Retries if another process renamed a new file into place
/// between the open and the lock.
Expected<int> openLocked(StringRef Path) {
  for (;;) {
    int FD = ::open(Path.str().c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (FD < 0)
      return errno == ELOOP
                 ? createStringError(inconvertibleErrorCode(),
                                     "it is a symbolic link now; not written")
                 : systemError("open", errno);
    int Locked;
    do
      Locked = ::flock(FD, LOCK_EX);
    while (Locked != 0 && errno == EINTR);
    if (Locked != 0) {
      int Errno = errno;
      ::close(FD);
      return systemError("lock", Errno);
    }
    struct stat Held, Now;
    if (::fstat(FD, &Held) == 0 && ::lstat(Path.str().c_str(), &Now) == 0 &&
        Held.st_dev == Now.st_dev && Held.st_ino == Now.st_ino)
      return FD;
    ::close(FD);
  }
}

} // namespace

/// Copies every extended attribute of \p From to \p To: user.* attributes,
/// and the POSIX ACL (system.posix_acl_access), which the rename would
/// otherwise drop (the owning group gained access, named users lost it). A
/// file system without extended attributes has nothing to copy; an
/// attribute that cannot be set is an error (the file is not written).
static Error copyExtendedAttributes(int From, int To) {
  ssize_t Size = ::flistxattr(From, nullptr, 0);
  if (Size < 0)
    return errno == ENOTSUP
               ? Error::success()
               : systemError("cannot list its extended attributes", errno);
  std::string Names(Size, '\0');
  Size = ::flistxattr(From, Names.data(), Names.size());
  if (Size < 0)
    return systemError("cannot list its extended attributes", errno);
  Names.resize(Size);
  for (StringRef Rest = Names; !Rest.empty();) {
    auto [Name, Next] = Rest.split('\0');
    Rest = Next;
    std::string Key = Name.str();
    ssize_t Length = ::fgetxattr(From, Key.c_str(), nullptr, 0);
    std::string Value(Length > 0 ? Length : 0, '\0');
    if (Length < 0 ||
        (Length = ::fgetxattr(From, Key.c_str(), Value.data(), Value.size())) <
            0 ||
        ::fsetxattr(To, Key.c_str(), Value.data(), Length, 0) != 0)
      return systemError("cannot keep its extended attribute '" + Key + "'",
                         errno);
  }
  return Error::success();
}

std::string temporaryPrefix(StringRef Path) {
  SmallString<256> Prefix(Path);
  sys::path::remove_filename(Prefix);
  sys::path::append(Prefix, "." + sys::path::filename(Path) + ".apistamp-tmp-");
  return std::string(Prefix);
}

/// True when the process that named a temporary file "...apistamp-tmp-
/// \p Owner" (PID-START-N, or an older PID-N) is gone: no process has the
/// pid, or the one that has it started at another time (the pid reused).
static bool ownerIsGone(StringRef Owner) {
  SmallVector<StringRef, 3> Parts;
  Owner.split(Parts, '-');
  pid_t Pid;
  if (Parts.size() < 2 || Parts[0].getAsInteger(10, Pid) || Pid <= 0)
    return false; // Not a name of ours.
  if (Pid == ::getpid())
    return Parts.size() == 3 &&
           Parts[0].str() + "-" + Parts[1].str() != temporaryOwner();
  if (::kill(Pid, 0) != 0 && errno == ESRCH)
    return true;
  uint64_t Start;
  if (Parts.size() != 3 || Parts[1].getAsInteger(10, Start) || Start == 0)
    return false; // No start time to tell a reused pid by.
  std::optional<uint64_t> Now = processStartTime(Pid);
  return Now && *Now != Start;
}

/// Removes the entries of \p Directory named "<NamePrefix>...apistamp-tmp-
/// OWNER" whose process is gone (ownerIsGone).
static void removeStale(StringRef Directory, StringRef NamePrefix) {
  DIR *Dir = ::opendir(Directory.str().c_str());
  if (!Dir)
    return;
  auto Close = make_scope_exit([Dir] { ::closedir(Dir); });
  while (struct dirent *Entry = ::readdir(Dir)) {
    StringRef Candidate = Entry->d_name;
    if (!Candidate.starts_with(NamePrefix))
      continue;
    size_t Marker = Candidate.rfind(".apistamp-tmp-");
    if (Marker == StringRef::npos)
      continue;
    if (ownerIsGone(Candidate.substr(Marker + 14))) {
      SmallString<256> Stale(Directory);
      sys::path::append(Stale, Entry->d_name);
      ::unlink(Stale.c_str());
    }
  }
}

void removeStaleTemporaries(StringRef Path) {
  SmallString<256> Directory(Path);
  sys::path::remove_filename(Directory);
  if (Directory.empty())
    Directory = ".";
  removeStale(Directory, sys::path::filename(temporaryPrefix(Path)));
}

void removeStaleTemporariesIn(StringRef Directory) {
  removeStale(Directory, ".");
}

Error writeFileAtomically(StringRef Path, StringRef Contents) {
  SmallString<256> Parent(Path);
  sys::path::remove_filename(Parent);
  if (!Parent.empty())
    if (std::error_code EC = sys::fs::create_directories(Parent))
      return systemError("cannot create directory '" + Parent + "'",
                         EC.value());
  // open() applies the umask.
  Expected<std::pair<int, std::string>> Temporary = createTemporary(Path, 0644);
  if (!Temporary)
    return Temporary.takeError();
  auto [FD, Name] = *Temporary;
  Error Written = fillTemporary(FD, Contents);
  if (!Written && ::rename(Name.c_str(), Path.str().c_str()) != 0)
    Written = systemError("rename", errno);
  if (Written) {
    ::unlink(Name.c_str());
    return Written;
  }
  syncDirectory(Path);
  return Error::success();
}

Error writeOutputFile(StringRef Path, StringRef Contents) {
  if (Path == "-")
    return writeAll(STDOUT_FILENO, Contents);
  struct stat Status;
  if (::lstat(Path.str().c_str(), &Status) != 0) {
    if (errno != ENOENT)
      return systemError("stat", errno);
    removeStaleTemporaries(Path); // Of runs killed while writing it.
    return writeFileAtomically(Path, Contents);
  }
  auto Refused = [](StringRef What) {
    return createStringError(inconvertibleErrorCode(),
                             "it is " + What + "; not written");
  };
  if (S_ISREG(Status.st_mode)) {
    removeStaleTemporaries(Path); // Of runs killed while writing it.
    return writeFileAtomically(Path, Contents);
  }
  if (S_ISLNK(Status.st_mode))
    return Refused("a symbolic link, which is not followed (name the file "
                   "it points to)");
  if (S_ISDIR(Status.st_mode))
    return Refused("a directory");
  if (!S_ISCHR(Status.st_mode) && !S_ISFIFO(Status.st_mode))
    return Refused("neither a regular file, a character device nor a FIFO");
  // A device or a pipe: written as a stream, in place.
  int FD;
  do
    FD = ::open(Path.str().c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  while (FD < 0 && errno == EINTR);
  if (FD < 0)
    return systemError("open", errno);
  Error Written = writeAll(FD, Contents);
  if (::close(FD) != 0 && !Written)
    Written = systemError("close", errno);
  return Written;
}

/// Whether \p Path is still the file \p Status describes (the same inode)
/// with the bytes \p Before; an error if it cannot be read.
static Expected<bool> holdsOriginal(StringRef Path, const struct stat &Status,
                                    StringRef Before) {
  Expected<std::string> Now = readPath(Path);
  if (!Now)
    return Now.takeError();
  struct stat Current;
  return ::lstat(Path.str().c_str(), &Current) == 0 &&
         Current.st_ino == Status.st_ino && Current.st_dev == Status.st_dev &&
         *Now == Before;
}

/// Puts the temporary \p Name in place of \p Path by an exchange: the
/// temporary's name then holds what was at Path, which must still be the
/// original (an editor may have saved, in place or by a rename of its own,
/// since the last look). If it is not, the exchange is undone and the
/// editor's save wins. \p KeepTemporary is set when Name must not be
/// removed: it is the file now, or it holds the editor's save. \p Shown
/// names Path in messages.
static Expected<ReplaceOutcome>
exchangeIntoPlace(StringRef Path, StringRef Shown, const std::string &Name,
                  const struct stat &Status, StringRef Before,
                  bool &KeepTemporary) {
  std::string Target = Path.str();
  if (::renameat2(AT_FDCWD, Name.c_str(), AT_FDCWD, Target.c_str(),
                  RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS)
      return systemError("rename", errno);
    // A file system without RENAME_EXCHANGE: a plain rename.
    if (::rename(Name.c_str(), Target.c_str()) != 0)
      return systemError("rename", errno);
    KeepTemporary = true;
    syncDirectory(Path);
    return ReplaceOutcome::Written;
  }
  Expected<bool> Original = holdsOriginal(Name, Status, Before);
  if (!Original)
    consumeError(Original.takeError());
  if (!Original || !*Original) {
    if (::renameat2(AT_FDCWD, Name.c_str(), AT_FDCWD, Target.c_str(),
                    RENAME_EXCHANGE) != 0) {
      KeepTemporary = true; // It holds the editor's save.
      SmallString<256> Saved = sys::path::parent_path(Shown);
      sys::path::append(Saved, sys::path::filename(Name));
      return systemError("an editor saved it while apistamp replaced it; "
                         "its save is in '" +
                             Saved + "'",
                         errno);
    }
    return ReplaceOutcome::Changed;
  }
  // The caller removes the temporary: the original, under its name now.
  syncDirectory(Path);
  return ReplaceOutcome::Written;
}

/// replaceFileContents on \p Path, the file through its pinned directory;
/// \p Shown is its name in messages.
static Expected<ReplaceOutcome> replacePinned(StringRef Path, StringRef Shown,
                                              StringRef Before,
                                              StringRef After);

Expected<ReplaceOutcome> replaceFileContents(StringRef Path, StringRef Before,
                                             StringRef After) {
  // The path is canonical (the analysis resolved it, under the root): a
  // symbolic link on it now is someone else's, and is not followed.
  Expected<PinnedDirectory> Directory = PinnedDirectory::open(Path);
  if (!Directory)
    return Directory.takeError();
  return replacePinned(Directory->path(), Path, Before, After);
}

static Expected<ReplaceOutcome> replacePinned(StringRef Path, StringRef Shown,
                                              StringRef Before,
                                              StringRef After) {
  Expected<int> FD = openLocked(Path);
  if (!FD)
    return FD.takeError();
  auto Unlock = make_scope_exit([&] { ::close(*FD); });
  // Read through the locked descriptor.
  Expected<std::string> Now = readAll(*FD);
  if (!Now)
    return Now.takeError();
  if (*Now == After)
    return ReplaceOutcome::AlreadyDone;
  if (*Now != Before)
    return ReplaceOutcome::Changed;
  struct stat Status;
  if (::fstat(*FD, &Status) != 0)
    return systemError("stat", errno);
  if (Status.st_nlink > 1)
    return createStringError(
        inconvertibleErrorCode(),
        "it has " + std::to_string(Status.st_nlink) +
            " hard links, which replacing it would split; not written "
            "(break the links, or add the event by hand)");
  // A file its owner made read-only (a version-control checkout not opened
  // for edit, a generated file) is not replaced, as clang-format -i and
  // editors do not replace it. Root may write anything: the mode decides.
  if ((Status.st_mode & 0222) == 0 || ::access(Path.str().c_str(), W_OK) != 0) {
    char Mode[8];
    std::snprintf(Mode, sizeof Mode, "%04o", unsigned(Status.st_mode & 07777));
    return createStringError(
        inconvertibleErrorCode(),
        std::string("it is read-only (mode ") + Mode +
            "); not written (make it writable, e.g. open it for edit in "
            "your version control, then run again)");
  }

  removeStaleTemporaries(Path);
  Expected<std::pair<int, std::string>> Temporary = createTemporary(Path, 0600);
  if (!Temporary)
    return Temporary.takeError();
  int TempFD = Temporary->first;
  std::string Name = Temporary->second;
  auto RemoveTemporary = make_scope_exit([&Name] { ::unlink(Name.c_str()); });
  // The same owner and mode before any byte is written: a 0600 file is never
  // readable by others, not even for a moment.
  if (::fchown(TempFD, Status.st_uid, Status.st_gid) != 0) {
    int Errno = errno;
    ::close(TempFD);
    return systemError("cannot keep its owner", Errno);
  }
  if (::fchmod(TempFD, Status.st_mode & 07777) != 0) {
    int Errno = errno;
    ::close(TempFD);
    return systemError("cannot keep its mode", Errno);
  }
  if (Error E = copyExtendedAttributes(*FD, TempFD)) {
    ::close(TempFD);
    return E;
  }
  if (Error E = fillTemporary(TempFD, After))
    return E;
  // Last look before the rename: an editor may have saved meanwhile.
  Expected<bool> Unchanged = holdsOriginal(Path, Status, Before);
  if (!Unchanged)
    return Unchanged.takeError();
  if (!*Unchanged)
    return ReplaceOutcome::Changed;
  bool KeepTemporary = false;
  Expected<ReplaceOutcome> Outcome =
      exchangeIntoPlace(Path, Shown, Name, Status, Before, KeepTemporary);
  if (KeepTemporary)
    RemoveTemporary.release();
  return Outcome;
}

} // namespace apistamp
