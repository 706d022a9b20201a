//===- Preamble.h - Parse a TU on top of its stored preamble ----*- C++ -*-===//
//
// A TU's preamble (its include prefix) is built once with clang's
// PrecompiledPreamble, skipping the same bodies as the analysis, and kept in
// the PreambleStore with what apistamp records in that region. A later parse
// of the TU loads it and parses only the main file; the region's facts are
// restored from the store (checked against the bytes) and its definitions
// under the root are read from the PCH, so the analysis sees what a full
// parse sees.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PREAMBLE_H
#define APISTAMP_LIB_PREAMBLE_H

#include "PreambleStore.h"
#include "SourceRecorders.h"
#include "apistamp/Rules.h"
#include "clang/AST/ASTContext.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/PCHContainerOperations.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <optional>

namespace apistamp {

/// How a TU's parse uses the store.
struct PreambleRequest {
  PreambleStore *Store = nullptr;
  const RuleSet *Rules = nullptr;
  bool SkipBodies = true;
  /// Build and store a preamble if none is stored (else only reuse one).
  bool Build = true;
};

/// A preamble a parse is configured to use.
struct ActivePreamble {
  std::string Key;
  LoadedPreamble Loaded;
  std::unique_ptr<llvm::MemoryBuffer> MainFile; ///< The bytes parsed.
};

/// The stored or newly built preamble for \p Invocation (whose main file
/// \p Main holds), or none: no include prefix, a C or Objective-C TU, a
/// preamble that does not build cleanly, or a miss with Build unset.
std::optional<ActivePreamble>
preambleFor(const clang::CompilerInvocation &Invocation,
            std::unique_ptr<llvm::MemoryBuffer> Main,
            llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
            std::shared_ptr<clang::PCHContainerOperations> PCHOps,
            const PreambleRequest &Request);

/// Configures \p Invocation to parse its main file on top of \p P, and
/// returns the file system that serves the PCH (over \p FS).
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
usePreamble(clang::CompilerInvocation &Invocation, const ActivePreamble &P,
            llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS);

/// Whether \p Path is where a parse on a preamble reads its PCH.
bool isPreamblePath(llvm::StringRef Path);

/// What the preamble's region adds to a parse on top of it.
struct RestoredRegion {
  /// The region's definitions under the root and the main file's own
  /// declarations, as the top-level declarations to traverse, in TU order.
  std::vector<clang::Decl *> Scope;
};

/// Restores \p Region's macro uses and directive comments (each read again
/// from the bytes and checked) into \p Uses and \p Comments, ahead of the
/// main file's, and finds the declarations to traverse; false if the stored
/// facts do not match the PCH and the files (the parse must be redone
/// without the preamble).
bool restoreRegion(clang::ASTContext &Ctx, clang::Preprocessor &PP,
                   const RegionFacts &Region, const RuleSet &Rules,
                   MacroUses &Uses, std::vector<DirectiveComment> &Comments,
                   RestoredRegion &Restored);

} // namespace apistamp

#endif // APISTAMP_LIB_PREAMBLE_H
