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

void ParsedFiles::absorb(const RuleSet *Rules, TUResult &Result) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!Result.ParseFailed)
    for (auto &[Path, Contents] : Result.FileContents) {
      auto It = Files.find(Path);
      if (It == Files.end())
        Files.try_emplace(Path, File{Rules, std::move(Contents)});
      else if (It->second.Contents != Contents)
        Inconsistent.insert(Path); // It changed between two TUs' parses.
    }
  Result.FileContents.clear();
}

const std::string *ParsedFiles::contents(StringRef Path) const {
  auto It = Files.find(Path);
  if (It == Files.end() || Inconsistent.count(Path))
    return nullptr;
  return &It->second.Contents;
}

const RuleSet *ParsedFiles::rules(StringRef Path) const {
  auto It = Files.find(Path);
  return It == Files.end() ? nullptr : It->second.Rules;
}

std::vector<FileChange> computeChanges(ArrayRef<Site> Sites,
                                       const ParsedFiles &Parsed,
                                       const PathDisplay &Display,
                                       raw_ostream &Err, bool &Errors) {
  std::map<std::string, std::vector<TextEdit>> EditsByFile;
  for (const Site &S : Sites)
    for (const TextEdit &E : S.Edits)
      EditsByFile[E.File].push_back(E);

  std::vector<FileChange> Changes;
  for (auto &[Path, Edits] : EditsByFile) {
    const std::string *Contents = Parsed.contents(Path);
    if (!Contents) {
      Err << "apistamp: error: '" << Display(Path)
          << "' changed while apistamp ran; it was not changed\n";
      Errors = true;
      continue;
    }
    const RuleSet &Rules = *Parsed.rules(Path);
    StringRef Before = *Contents;
    Expected<std::vector<TextEdit>> Replacements = fileReplacements(
        Path, Before, std::move(Edits), Rules.Include, Rules.IncludeAngled);
    Expected<std::string> After =
        Replacements ? applyEdits(Path, Before, *Replacements, "", false)
                     : Replacements.takeError();
    if (!After) {
      Err << "apistamp: error: " << toString(After.takeError()) << "\n";
      Errors = true;
      continue;
    }
    if (*After != Before)
      Changes.push_back(
          {Path, Before.str(), std::move(*After), std::move(*Replacements)});
  }
  return Changes;
}

/// Writes each change atomically, unless the file changed since it was read.
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

unsigned writeChanges(ArrayRef<FileChange> Changes, const PathDisplay &Display,
                      raw_ostream &Err, bool &Errors) {
  unsigned Written = 0;
  for (const FileChange &C : Changes) {
    Expected<int> FD = openLocked(C.Path);
    if (!FD) {
      Err << "apistamp: error: cannot open '" << Display(C.Path)
          << "': " << toString(FD.takeError()) << "\n";
      Errors = true;
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
      Err << "apistamp: error: '" << Display(C.Path)
          << "' changed while apistamp ran; it was not written\n";
      Errors = true;
      continue;
    }
    if (Error E = writeToOutput(C.Path, [&C](raw_ostream &OS) {
          OS << C.After;
          return Error::success();
        })) {
      Err << "apistamp: error: cannot write '" << Display(C.Path)
          << "': " << toString(std::move(E)) << "\n";
      Errors = true;
      continue;
    }
    ++Written;
  }
  return Written;
}

} // namespace apistamp
