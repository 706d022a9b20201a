//===- StoreEviction.cpp - Keep an on-disk store under a size -------------===//

#include "StoreEviction.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include <chrono>

using namespace llvm;

namespace apistamp {

void touchStoredFile(StringRef File) {
  int FD;
  if (sys::fs::openFileForWrite(File, FD, sys::fs::CD_OpenExisting,
                                sys::fs::OF_Append))
    return;
  (void)sys::fs::setLastAccessAndModificationTime(
      FD, std::chrono::system_clock::now());
  sys::Process::SafelyCloseFileDescriptor(FD);
}

std::vector<StoredFile> storedFiles(StringRef Directory,
                                    ArrayRef<StringRef> Suffixes) {
  std::vector<StoredFile> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Directory, EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (llvm::none_of(Suffixes,
                      [&](StringRef Suffix) { return Name.ends_with(Suffix); }))
      continue;
    sys::fs::file_status Status;
    if (sys::fs::status(It->path(), Status, /*Follow=*/false) ||
        Status.type() != sys::fs::file_type::regular_file)
      continue;
    Files.push_back(
        {It->path(), Status.getSize(), Status.getLastModificationTime()});
  }
  return Files;
}

std::vector<std::string> evictPastLimit(
    std::vector<StoredFile> Files, uint64_t LimitBytes,
    function_ref<bool(const StoredFile &, const StoredFile &)> RemoveFirst) {
  uint64_t Total = 0;
  for (const StoredFile &F : Files)
    Total += F.Size;
  std::vector<std::string> Removed;
  if (Total <= LimitBytes)
    return Removed;
  llvm::sort(Files, [&](const StoredFile &A, const StoredFile &B) {
    if (A.Used != B.Used)
      return A.Used < B.Used;
    return RemoveFirst(A, B);
  });
  for (const StoredFile &F : Files) {
    if (Total <= LimitBytes)
      break;
    if (!sys::fs::remove(F.Path)) {
      Total -= F.Size;
      Removed.push_back(F.Path);
    }
  }
  return Removed;
}

} // namespace apistamp
