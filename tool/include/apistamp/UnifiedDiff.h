//===- UnifiedDiff.h - Render a unified diff of two texts -------*- C++ -*-===//

#ifndef APISTAMP_UNIFIEDDIFF_H
#define APISTAMP_UNIFIEDDIFF_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace apistamp {

/// A unified diff ("diff -u" format, \p Context lines of context) from
/// \p Before to \p After, with \p Label in the "---"/"+++" headers (quoted
/// as git quotes a path if it has a control character, a double quote or a
/// backslash). Empty if the texts are equal.
std::string unifiedDiff(llvm::StringRef Before, llvm::StringRef After,
                        llvm::StringRef Label, unsigned Context = 3);

} // namespace apistamp

#endif // APISTAMP_UNIFIEDDIFF_H
