//===- InstalledFiles.h - What a CMake build installs -----------*- C++ -*-===//
//
// The files and directories a build tree's cmake_install.cmake scripts
// install: an edit in an installed header reaches every user of the library.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_INSTALLEDFILES_H
#define APISTAMP_LIB_INSTALLEDFILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace apistamp {

/// Source-tree paths that `cmake --install` copies, canonical.
struct InstalledFiles {
  std::vector<std::string> Files;
  /// install(DIRECTORY ...): everything under them is installed.
  std::vector<std::string> Directories;
  /// Main files of the compilation database that the lists above cover:
  /// sources, whatever `install()` copies (torchvision installs its .cpp
  /// files with its headers), sorted.
  std::vector<std::string> Compiled;

  /// Whether \p Path (canonical) is installed, and no TU's main file.
  bool contains(llvm::StringRef Path) const;
  /// Notes which of \p DatabaseFiles (as the database lists them) the
  /// lists cover.
  void setCompiled(llvm::ArrayRef<std::string> DatabaseFiles);
};

/// Reads the `file(INSTALL ... FILES ...)` commands of every
/// cmake_install.cmake under \p BuildDir; empty for a tree without them.
InstalledFiles readInstalledFiles(llvm::StringRef BuildDir);

/// The same from the text of one cmake_install.cmake (for tests).
void parseCMakeInstallScript(llvm::StringRef Text, InstalledFiles &Into);

} // namespace apistamp

#endif // APISTAMP_LIB_INSTALLEDFILES_H
