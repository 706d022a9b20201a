//===- Changes.h - Compute file changes and write them safely ---*- C++ -*-===//
//
// The last stage of fix and diff: the new contents of every file, computed in
// memory from the bytes that were parsed, and written so that nothing is
// lost, also when several runs write one file at once. Problems are returned
// as data; the commands print them.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_CHANGES_H
#define APISTAMP_LIB_CHANGES_H

#include "apistamp/Site.h"
#include <map>
#include <set>
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

/// A file that was not (or could not be) changed, and why.
struct FileProblem {
  std::string Path;
  enum KindType {
    ChangedDuringRun,   ///< TUs saw different bytes; nothing was computed.
    ChangedBeforeWrite, ///< Its bytes are no longer the ones parsed.
    BadEdits,           ///< Conflicting or out-of-range edits (Message).
    CannotWrite,        ///< Message: the system's reason.
  };
  KindType Kind = ChangedDuringRun;
  std::string Message;
};

/// The changes of a run.
struct ChangeSet {
  std::vector<FileChange> Changes; ///< By path.
  std::vector<FileProblem> Problems;
};

/// The new contents of every file with edits in \p Sites, computed from
/// \p Parsed, the bytes that were parsed (edits are offsets into them). A
/// file missing from \p Parsed (TUs saw different bytes) is a problem.
ChangeSet computeChanges(llvm::ArrayRef<Site> Sites,
                         const std::map<std::string, std::string> &Parsed);

/// What writing the changes did.
struct WriteResult {
  unsigned Written = 0; ///< Files replaced.
  std::vector<FileProblem> Problems;
};

/// Writes every change whose file still holds what was parsed, with
/// replaceFileContents: concurrent runs (two pre-commit batches sharing a
/// header) cannot lose an update (the file is locked, re-read and compared
/// before it is replaced, and a file that another run already changed to
/// the same result counts as done), and a failed write leaves the file as
/// it was.
WriteResult writeChanges(llvm::ArrayRef<FileChange> Changes);

} // namespace apistamp

#endif // APISTAMP_LIB_CHANGES_H
