//===- UnifiedDiff.h - Render a unified diff of two texts -------*- C++ -*-===//

#ifndef APISTAMP_UNIFIEDDIFF_H
#define APISTAMP_UNIFIEDDIFF_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace apistamp {

/// A unified diff ("diff -u" format, \p Context lines of context) from
/// \p Before to \p After of the file at \p Path, relative to the directory
/// the diff applies from: its headers are "--- a/Path" and "+++ b/Path", as
/// git writes them (quoted as git quotes a path if it has a control
/// character, a double quote or a backslash), so that `git apply` and
/// `patch -p1` take it. Empty if the texts are equal.
std::string unifiedDiff(llvm::StringRef Before, llvm::StringRef After,
                        llvm::StringRef Path, unsigned Context = 3);

} // namespace apistamp

#endif // APISTAMP_UNIFIEDDIFF_H
