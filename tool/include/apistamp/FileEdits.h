//===- FileEdits.h - Merge per-TU edits and apply them ---------*- C++ -*-===//
//
// Edits from several translation units are merged per file (a header reached
// from many TUs yields the same edit many times), each AddInclude becomes
// one #include placed by clang's HeaderIncludes, and the new content is
// computed in memory.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_FILEEDITS_H
#define APISTAMP_FILEEDITS_H

#include "apistamp/Site.h"
#include "llvm/Support/Error.h"

namespace apistamp {

/// The replacements that \p Edits (all for \p Path, possibly with
/// duplicates) make of \p Code: deduplicated and sorted, each AddInclude
/// turned into the insertion of its #include unless \p Code has it (in
/// either spelling), each RemoveInclude into the removal of its line if no
/// token of its macro is left once the other replacements are made.
/// Conflicting edits are an error.
llvm::Expected<std::vector<TextEdit>>
fileReplacements(llvm::StringRef Path, llvm::StringRef Code,
                 std::vector<TextEdit> Edits);

/// \p Code with \p Replacements (as fileReplacements returns them) applied.
std::string applyReplacements(llvm::StringRef Code,
                              llvm::ArrayRef<TextEdit> Replacements);

/// \p Code with \p Edits applied: fileReplacements, then applyReplacements.
llvm::Expected<std::string> applyEdits(llvm::StringRef Path,
                                       llvm::StringRef Code,
                                       std::vector<TextEdit> Edits);

} // namespace apistamp

#endif // APISTAMP_FILEEDITS_H
