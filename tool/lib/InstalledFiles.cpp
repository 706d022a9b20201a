//===- InstalledFiles.cpp - What a CMake build installs -------------------===//

#include "InstalledFiles.h"
#include "apistamp/Paths.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace apistamp {

/// Whether \p Path (canonical) is in \p Into's lists.
static bool listed(const InstalledFiles &Into, StringRef Path) {
  if (llvm::is_contained(Into.Files, Path))
    return true;
  return llvm::any_of(Into.Directories, [Path](const std::string &Directory) {
    return pathUnder(Path, Directory).has_value();
  });
}

bool InstalledFiles::contains(StringRef Path) const {
  return listed(*this, Path) &&
         !std::binary_search(Compiled.begin(), Compiled.end(), Path);
}

void InstalledFiles::setCompiled(ArrayRef<std::string> DatabaseFiles) {
  Compiled.clear();
  if (Files.empty() && Directories.empty())
    return;
  // Only a name an installed file has, or any under an installed
  // directory, is made canonical (a path each: a large database).
  StringSet<> Names;
  for (const std::string &File : Files)
    Names.insert(sys::path::filename(File));
  for (const std::string &File : DatabaseFiles)
    if (!Directories.empty() || Names.contains(sys::path::filename(File)))
      if (std::string Path = canonicalPath(File); listed(*this, Path))
        Compiled.push_back(Path);
  llvm::sort(Compiled);
}

/// The words of one CMake command's arguments: quoted strings unquoted,
/// up to the closing parenthesis.
static std::vector<std::string> commandArguments(StringRef Text, size_t &Pos) {
  std::vector<std::string> Words;
  while (Pos < Text.size() && Text[Pos] != ')') {
    char C = Text[Pos];
    if (isspace(static_cast<unsigned char>(C))) {
      ++Pos;
    } else if (C == '"') {
      std::string Word;
      for (++Pos; Pos < Text.size() && Text[Pos] != '"'; ++Pos) {
        if (Text[Pos] == '\\' && Pos + 1 < Text.size())
          ++Pos;
        Word += Text[Pos];
      }
      ++Pos;
      Words.push_back(std::move(Word));
    } else {
      size_t End = Text.find_first_of(" \t\r\n)\"", Pos);
      if (End == StringRef::npos)
        End = Text.size();
      Words.push_back(Text.slice(Pos, End).str());
      Pos = End;
    }
  }
  return Words;
}

void parseCMakeInstallScript(StringRef Text, InstalledFiles &Into) {
  for (size_t At = Text.find("file(INSTALL"); At != StringRef::npos;
       At = Text.find("file(INSTALL", At)) {
    size_t Pos = At + strlen("file(INSTALL");
    std::vector<std::string> Words = commandArguments(Text, Pos);
    At = Pos;
    bool Directory = false, InFiles = false;
    for (size_t I = 0; I < Words.size(); ++I) {
      const std::string &W = Words[I];
      if (W == "TYPE" && I + 1 < Words.size()) {
        Directory = Words[I + 1] == "DIRECTORY";
        InFiles = false;
      } else if (W == "FILES") {
        InFiles = true;
      } else if (InFiles && sys::path::is_absolute(W)) {
        std::string Path = canonicalPath(StringRef(W).rtrim('/'));
        (Directory ? Into.Directories : Into.Files).push_back(Path);
      } else if (!W.empty() && isupper(static_cast<unsigned char>(W[0]))) {
        InFiles = false; // Another keyword (FILES_MATCHING, PATTERN...).
      }
    }
  }
}

InstalledFiles readInstalledFiles(StringRef BuildDir) {
  InstalledFiles Installed;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(BuildDir, EC), End;
       It != End && !EC; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (It->type() == sys::fs::file_type::directory_file &&
        (Name == "CMakeFiles" || Name.starts_with("."))) {
      It.no_push();
      continue;
    }
    if (Name != "cmake_install.cmake")
      continue;
    // Opened without blocking, and read only when it is a regular file: a
    // FIFO of that name blocked `check -p` for ever.
    int Fd = ::open(It->path().c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (Fd < 0)
      continue;
    struct stat Status;
    if (fstat(Fd, &Status) == 0 && S_ISREG(Status.st_mode))
      if (ErrorOr<std::unique_ptr<MemoryBuffer>> Script =
              MemoryBuffer::getOpenFile(Fd, It->path(), Status.st_size))
        parseCMakeInstallScript((*Script)->getBuffer(), Installed);
    ::close(Fd);
  }
  llvm::sort(Installed.Files);
  return Installed;
}

} // namespace apistamp
