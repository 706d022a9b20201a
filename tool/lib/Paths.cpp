//===- Paths.cpp - Canonical file paths -----------------------------------===//

#include "apistamp/Paths.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace apistamp {

std::string canonicalPath(llvm::StringRef Path) {
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(Path, Real))
    return std::string(Real);
  llvm::SmallString<256> Absolute(Path);
  llvm::sys::fs::make_absolute(Absolute);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
  return std::string(Absolute);
}

std::optional<llvm::StringRef> pathUnder(llvm::StringRef Path,
                                         llvm::StringRef Directory) {
  if (Directory.empty() || !Path.consume_front(Directory) ||
      !Path.consume_front("/") || Path.empty())
    return std::nullopt;
  return Path;
}

std::string currentDirectory() {
  llvm::SmallString<256> CWD;
  if (llvm::sys::fs::current_path(CWD))
    return "";
  return canonicalPath(CWD);
}

PathDisplay relativeTo(std::string Directory) {
  return [Directory = std::move(Directory)](llvm::StringRef Path) {
    if (std::optional<llvm::StringRef> Relative = pathUnder(Path, Directory))
      return Relative->str();
    return Path.str();
  };
}

} // namespace apistamp
