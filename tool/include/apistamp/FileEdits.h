//===- FileEdits.h - Merge per-TU edits and apply them to a file -*- C++
//-*-===//
//
// Edits from several translation units are merged per file (a header reached
// from many TUs yields the same edit many times), the include is added once
// with clang's HeaderIncludes, and the new content is computed in memory.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_FILEEDITS_H
#define APISTAMP_FILEEDITS_H

#include "apistamp/Analysis.h"
#include "llvm/Support/Error.h"

namespace apistamp {

/// The edits that turn \p Code into what applyEdits returns: \p Edits
/// (all for \p Path, possibly with duplicates) deduplicated and sorted, and,
/// if \p Header is not empty, the insertion of its #include unless \p Code
/// has it. Conflicting edits are an error.
llvm::Expected<std::vector<TextEdit>>
fileReplacements(llvm::StringRef Path, llvm::StringRef Code,
                 std::vector<TextEdit> Edits, llvm::StringRef Header,
                 bool HeaderAngled);

/// Applies \p Edits and the #include of \p Header to \p Code, as
/// fileReplacements computes them.
llvm::Expected<std::string> applyEdits(llvm::StringRef Path,
                                       llvm::StringRef Code,
                                       std::vector<TextEdit> Edits,
                                       llvm::StringRef Header,
                                       bool HeaderAngled);

} // namespace apistamp

#endif // APISTAMP_FILEEDITS_H
