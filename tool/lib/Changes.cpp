//===- Changes.cpp - Compute file changes and write them safely -----------===//

#include "Changes.h"
#include "apistamp/FileEdits.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include <map>

using namespace llvm;

namespace apistamp {

ChangeSet computeChanges(ArrayRef<Site> Sites,
                         const std::map<std::string, std::string> &Parsed) {
  std::map<std::string, std::vector<TextEdit>> EditsByFile;
  for (const Site &S : Sites)
    for (const TextEdit &E : S.Edits)
      EditsByFile[E.File].push_back(E);

  ChangeSet Result;
  for (auto &[Path, Edits] : EditsByFile) {
    auto Contents = Parsed.find(Path);
    if (Contents == Parsed.end()) {
      Result.Problems.push_back({Path, FileProblem::ChangedDuringRun, ""});
      continue;
    }
    StringRef Before = Contents->second;
    Expected<std::vector<TextEdit>> Replacements =
        fileReplacements(Path, Before, std::move(Edits));
    if (!Replacements) {
      Result.Problems.push_back(
          {Path, FileProblem::BadEdits, toString(Replacements.takeError())});
      continue;
    }
    std::string After = applyReplacements(Before, *Replacements);
    if (After != Before)
      Result.Changes.push_back(
          {Path, Before.str(), std::move(After), std::move(*Replacements)});
  }
  return Result;
}

/// Opens \p Path and locks it; retries if another process replaced the file
/// (rename) between the open and the lock. Returns the locked descriptor.
static Expected<int> openLocked(StringRef Path) {
  for (;;) {
    int FD;
    // fcntl's write locks need a descriptor open for writing.
    if (std::error_code EC = sys::fs::openFileForReadWrite(
            Path, FD, sys::fs::CD_OpenExisting, sys::fs::OF_None))
      return errorCodeToError(EC);
    if (std::error_code EC = sys::fs::lockFile(FD)) {
      sys::Process::SafelyCloseFileDescriptor(FD);
      return errorCodeToError(EC);
    }
    sys::fs::file_status Locked;
    sys::fs::UniqueID Current;
    if (!sys::fs::status(FD, Locked) && !sys::fs::getUniqueID(Path, Current) &&
        Locked.getUniqueID() == Current)
      return FD;
    sys::fs::unlockFile(FD);
    sys::Process::SafelyCloseFileDescriptor(FD);
  }
}

WriteResult writeChanges(ArrayRef<FileChange> Changes) {
  WriteResult Result;
  for (const FileChange &C : Changes) {
    Expected<int> FD = openLocked(C.Path);
    if (!FD) {
      Result.Problems.push_back(
          {C.Path, FileProblem::CannotOpen, toString(FD.takeError())});
      continue;
    }
    auto Unlock = llvm::make_scope_exit([&] {
      sys::fs::unlockFile(*FD);
      sys::Process::SafelyCloseFileDescriptor(*FD);
    });
    ErrorOr<std::unique_ptr<MemoryBuffer>> Now =
        MemoryBuffer::getFile(C.Path, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (Now && (*Now)->getBuffer() == C.After)
      continue; // Another run made the same change.
    if (!Now || (*Now)->getBuffer() != C.Before) {
      Result.Problems.push_back({C.Path, FileProblem::ChangedBeforeWrite, ""});
      continue;
    }
    if (Error E = writeToOutput(C.Path, [&C](raw_ostream &OS) {
          OS << C.After;
          return Error::success();
        })) {
      Result.Problems.push_back(
          {C.Path, FileProblem::CannotWrite, toString(std::move(E))});
      continue;
    }
    ++Result.Written;
  }
  return Result;
}

} // namespace apistamp
