//===- SafeWrite.h - Replace files without ever losing a byte ---*- C++ -*-===//
//
// Every file apistamp writes (sources, cache entries, exported fixes) is
// written to a temporary file beside it, checked write by write, synced, and
// renamed over the original only when all of that succeeded; on any error
// the original is untouched and the temporary removed. Sources are also
// locked against concurrent runs and re-checked just before the rename, and
// keep their mode and owner.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SAFEWRITE_H
#define APISTAMP_LIB_SAFEWRITE_H

#include "llvm/Support/Error.h"
#include <string>

namespace apistamp {

/// How a guarded replacement ended.
enum class ReplaceOutcome {
  Written,     ///< The file now holds the new bytes.
  AlreadyDone, ///< It held them already (another run made the change).
  Changed,     ///< It holds neither the expected nor the new bytes: untouched.
};

/// Replaces \p Path's bytes by \p After if they are \p Before, under an
/// exclusive lock held until after the rename, keeping its mode and owner.
/// A file with several hard links is refused (a rename would split them).
/// Errors carry the system's reason; \p Path is then byte-identical.
llvm::Expected<ReplaceOutcome> replaceFileContents(llvm::StringRef Path,
                                                   llvm::StringRef Before,
                                                   llvm::StringRef After);

/// Writes \p Contents to \p Path atomically (temporary file, checked
/// writes, fsync, rename): afterwards \p Path holds all of it or what it
/// held before. New files get mode 0644 less the umask; missing parent
/// directories are created.
llvm::Error writeFileAtomically(llvm::StringRef Path, llvm::StringRef Contents);

/// Writes \p Contents to an output the user named (report -o, --emit-partial,
/// --export-fixes, tu -o and --depfile, ninja -o): a regular file or a new
/// one atomically (writeFileAtomically); "-" is standard output; a
/// character device or a FIFO (/dev/null, a pipe) is written as a stream,
/// never replaced. A symbolic link, a directory, a block device or a socket
/// is refused (the link is not followed: name its target).
llvm::Error writeOutputFile(llvm::StringRef Path, llvm::StringRef Contents);

/// Removes the temporary files that a killed apistamp left beside \p Path
/// (".NAME.apistamp-tmp-PID-START-N" whose process is gone: no process has
/// the pid, or the one that has it started at another time than START).
void removeStaleTemporaries(llvm::StringRef Path);

/// Removes every such stale temporary file in \p Directory.
void removeStaleTemporariesIn(llvm::StringRef Directory);

/// The prefix of the temporary files of \p Path, in its directory.
std::string temporaryPrefix(llvm::StringRef Path);

} // namespace apistamp

#endif // APISTAMP_LIB_SAFEWRITE_H
