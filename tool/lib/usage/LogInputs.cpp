//===- LogInputs.cpp - The log files a report reads -----------------------===//
//
// The files and directories named on the command line made a list of log
// files: directories walked by hand, not by a library iterator, so that a
// FIFO or a device named *.jsonl is never opened (reading one blocks or
// never ends), a symbolic link loop is entered once, a file reached by two
// paths is read once, and whatever is left out is said.
//
//===----------------------------------------------------------------------===//

#include "UsageLog.h"
#include "llvm/ADT/STLExtras.h"
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace apistamp {

namespace {

bool isLogName(StringRef Name) {
  return Name.ends_with(".jsonl") || Name.ends_with(".jsonl.gz") ||
         Name.ends_with(".jsonl.zst") || Name.ends_with(".jsonl.zstd");
}

/// A walk of the directories named by the inputs.
class LogWalk {
public:
  LogWalk(std::vector<std::string> &Skipped) : Skipped(Skipped) {}

  /// Takes the log \p Path, whose status is \p S, unless it was taken.
  void file(const std::string &Path, const struct stat &S,
            std::vector<std::string> &Found) {
    if (!S_ISREG(S.st_mode))
      return skip(Path, "not a regular file (a FIFO, a device or a socket?)");
    if (!Seen.insert({S.st_dev, S.st_ino}).second)
      return skip(Path, "the same file as another log read (a link?)");
    Found.push_back(Path);
  }

  /// Searches the directory \p Path, whose status is \p S, for logs.
  void directory(const std::string &Path, const struct stat &S,
                 std::vector<std::string> &Found) {
    if (!Seen.insert({S.st_dev, S.st_ino}).second)
      return skip(Path, "a directory already searched (a symbolic link "
                        "loop?)");
    DIR *Dir = opendir(Path.c_str());
    if (!Dir)
      return skip(Path, std::string("cannot read the directory: ") +
                            std::strerror(errno));
    std::vector<std::string> Names;
    while (struct dirent *Entry = readdir(Dir))
      if (std::strcmp(Entry->d_name, ".") && std::strcmp(Entry->d_name, ".."))
        Names.push_back(Entry->d_name);
    closedir(Dir);
    llvm::sort(Names);
    for (const std::string &Name : Names) {
      std::string Child =
          Path + (StringRef(Path).ends_with("/") ? "" : "/") + Name;
      struct stat ChildStatus;
      if (::stat(Child.c_str(), &ChildStatus) != 0) {
        if (isLogName(Name))
          skip(Child, std::strerror(errno));
        continue;
      }
      if (S_ISDIR(ChildStatus.st_mode))
        directory(Child, ChildStatus, Found);
      else if (isLogName(Name))
        file(Child, ChildStatus, Found);
    }
  }

private:
  void skip(const std::string &Path, const std::string &Why) {
    Skipped.push_back(Path + ": " + Why + "; skipped");
  }

  std::vector<std::string> &Skipped;
  std::set<std::pair<dev_t, ino_t>> Seen;
};

} // namespace

std::vector<std::string> expandLogInputs(ArrayRef<std::string> Inputs,
                                         std::vector<std::string> &Missing,
                                         std::vector<std::string> &Skipped) {
  std::vector<std::string> Files;
  LogWalk Walk(Skipped);
  for (const std::string &Input : Inputs) {
    struct stat S;
    if (Input == "-") {
      Files.push_back(Input);
    } else if (::stat(Input.c_str(), &S) != 0) {
      Missing.push_back(Input);
    } else if (S_ISDIR(S.st_mode)) {
      std::vector<std::string> Found;
      Walk.directory(Input, S, Found);
      llvm::sort(Found);
      llvm::append_range(Files, Found);
    } else {
      Walk.file(Input, S, Files);
    }
  }
  return Files;
}

int openRegularFile(StringRef Path) {
  int Fd = ::open(Path.str().c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (Fd < 0)
    return -1;
  struct stat S;
  if (fstat(Fd, &S) != 0 || !S_ISREG(S.st_mode)) {
    ::close(Fd);
    errno = EINVAL;
    return -1;
  }
  // Regular files never block; reads are plain from here on.
  int Flags = fcntl(Fd, F_GETFL);
  if (Flags >= 0)
    (void)fcntl(Fd, F_SETFL, Flags & ~O_NONBLOCK);
  return Fd;
}

} // namespace apistamp
