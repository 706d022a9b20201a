//===- Changes.h - Compute file changes and write them safely ---*- C++ -*-===//
//
// The last stage of fix and diff: the new contents of every file, computed in
// memory from the bytes that were parsed, and written so that nothing is
// lost, also when several runs write one file at once.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_CHANGES_H
#define APISTAMP_LIB_CHANGES_H

#include "Report.h"
#include "apistamp/Analysis.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include <mutex>
#include <string>
#include <vector>

namespace apistamp {

/// A file to change: what the analysis saw and what it becomes.
struct FileChange {
  std::string Path;
  std::string Before;
  std::string After;
  /// What turns Before into After, the #include included.
  std::vector<TextEdit> Replacements;
};

/// One copy of the bytes each file with sites had when it was parsed, taken
/// from the TUs as they finish (a header is seen by many).
class ParsedFiles {
public:
  /// Takes \p Result's FileContents (analysed under \p Rules).
  void absorb(const RuleSet *Rules, TUResult &Result);
  /// What \p Path held when parsed, or null if TUs saw different bytes.
  const std::string *contents(llvm::StringRef Path) const;
  /// The rules of the first TU that had sites in \p Path.
  const RuleSet *rules(llvm::StringRef Path) const;

private:
  struct File {
    const RuleSet *Rules;
    std::string Contents;
  };
  std::mutex Mutex;
  llvm::StringMap<File> Files;
  llvm::StringSet<> Inconsistent;
};

/// The new contents of every file with edits, computed from the bytes that
/// were parsed (edits are offsets into them). A file that TUs saw with
/// different bytes is left alone and reported on \p Err.
std::vector<FileChange> computeChanges(llvm::ArrayRef<Site> Sites,
                                       const ParsedFiles &Parsed,
                                       const PathDisplay &Display,
                                       llvm::raw_ostream &Err, bool &Errors);

/// Writes every change whose file still holds what was parsed; returns how
/// many files were written. Concurrent runs (two pre-commit batches sharing
/// a header) cannot lose an update: the file is locked, re-read and compared
/// before it is replaced, and a file that another run already changed to
/// the same result counts as done.
unsigned writeChanges(llvm::ArrayRef<FileChange> Changes,
                      const PathDisplay &Display, llvm::raw_ostream &Err,
                      bool &Errors);

} // namespace apistamp

#endif // APISTAMP_LIB_CHANGES_H
