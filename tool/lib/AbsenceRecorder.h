//===- AbsenceRecorder.h - The paths a parse looked for in vain -*- C++ -*-===//
//
// A file system that records every path a parse looked for and did not
// find: an earlier directory of the include path, a __has_include. If one
// appears later, the TU may parse differently, so a stored result or
// preamble depends on each staying absent.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_ABSENCERECORDER_H
#define APISTAMP_LIB_ABSENCERECORDER_H

#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <string>
#include <vector>

namespace apistamp {

/// Records, absolute and without dots, the paths that status() or
/// openFileForRead() did not find in the file system it wraps.
class AbsenceRecorder : public llvm::vfs::ProxyFileSystem {
public:
  AbsenceRecorder(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
                  std::vector<std::string> &Absent)
      : ProxyFileSystem(std::move(FS)), Absent(Absent) {}

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine &Path) override {
    llvm::ErrorOr<llvm::vfs::Status> S = ProxyFileSystem::status(Path);
    if (!S)
      note(Path);
    return S;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &Path) override {
    llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> F =
        ProxyFileSystem::openFileForRead(Path);
    if (!F)
      note(Path);
    return F;
  }

private:
  void note(const llvm::Twine &Path) {
    llvm::SmallString<256> Absolute;
    Path.toVector(Absolute);
    if (makeAbsolute(Absolute))
      return;
    llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
    Absent.push_back(Absolute.str().str());
  }
  std::vector<std::string> &Absent;
};

/// Sorts \p Paths and removes duplicates.
inline void sortUnique(std::vector<std::string> &Paths) {
  llvm::sort(Paths);
  Paths.erase(std::unique(Paths.begin(), Paths.end()), Paths.end());
}

} // namespace apistamp

#endif // APISTAMP_LIB_ABSENCERECORDER_H
