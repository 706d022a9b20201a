//===- Paths.h - Canonical file paths ---------------------------*- C++ -*-===//

#ifndef APISTAMP_PATHS_H
#define APISTAMP_PATHS_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace apistamp {

/// The canonical spelling of a path: absolute, with symlinks and ".."
/// resolved when the file exists. Files are identified by it everywhere.
std::string canonicalPath(llvm::StringRef Path);

} // namespace apistamp

#endif // APISTAMP_PATHS_H
