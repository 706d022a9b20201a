//===- Paths.h - Canonical file paths ---------------------------*- C++ -*-===//

#ifndef APISTAMP_PATHS_H
#define APISTAMP_PATHS_H

#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace apistamp {

/// The canonical spelling of a path: absolute, with symlinks and ".."
/// resolved when the file exists. Files are identified by it everywhere.
std::string canonicalPath(llvm::StringRef Path);

/// \p Path relative to \p Directory if it is inside it (both canonical,
/// \p Directory without a trailing '/'), else std::nullopt: the one test of
/// "is this file under the root".
std::optional<llvm::StringRef> pathUnder(llvm::StringRef Path,
                                         llvm::StringRef Directory);

/// The current directory, canonical; "" if it cannot be read.
std::string currentDirectory();

} // namespace apistamp

#endif // APISTAMP_PATHS_H
