//===- ChangedLines.h - Lines changed since a git revision ------*- C++ -*-===//
//
// For `--changed-since <ref>`: only definitions whose lines changed since the
// revision are checked or fixed (incremental CI on large repositories).
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_CHANGEDLINES_H
#define APISTAMP_CHANGEDLINES_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <utility>
#include <vector>

namespace apistamp {

/// Changed line ranges per file (canonical absolute paths).
class ChangedLines {
public:
  /// Reads `git diff -U0` output; paths in it are relative to \p Toplevel.
  /// A deletion marks the lines on both sides of it.
  static ChangedLines fromUnifiedDiff(llvm::StringRef Diff,
                                      llvm::StringRef Toplevel);
  /// Marks every line of \p File (an untracked, new file).
  void addWholeFile(llvm::StringRef File);
  /// Whether any line of \p File changed.
  bool touches(llvm::StringRef File) const { return Ranges.count(File); }
  /// Whether a line in [Begin, End] of \p File changed.
  bool intersects(llvm::StringRef File, unsigned Begin, unsigned End) const;

private:
  llvm::StringMap<std::vector<std::pair<unsigned, unsigned>>> Ranges;
};

/// Runs git in \p Directory: the lines changed between \p Ref and the working
/// tree, untracked files included. Errors carry git's message.
llvm::Expected<ChangedLines> changedLinesSince(llvm::StringRef Ref,
                                               llvm::StringRef Directory);

} // namespace apistamp

#endif // APISTAMP_CHANGEDLINES_H
