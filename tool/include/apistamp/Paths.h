//===- Paths.h - Canonical file paths ---------------------------*- C++ -*-===//

#ifndef APISTAMP_PATHS_H
#define APISTAMP_PATHS_H

#include "llvm/ADT/StringRef.h"
#include <functional>
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

/// Maps a canonical path to the spelling shown to the user.
using PathDisplay = std::function<std::string(llvm::StringRef)>;

/// Paths under \p Directory relative to it, others as they are.
PathDisplay relativeTo(std::string Directory);

} // namespace apistamp

#endif // APISTAMP_PATHS_H
