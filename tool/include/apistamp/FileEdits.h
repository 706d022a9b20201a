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

/// Applies \p Edits (all for \p Path, possibly with duplicates) to \p Code
/// and, if \p Header is not empty, makes sure \p Code includes it.
/// Conflicting edits are an error.
llvm::Expected<std::string> applyEdits(llvm::StringRef Path,
                                       llvm::StringRef Code,
                                       std::vector<TextEdit> Edits,
                                       llvm::StringRef Header,
                                       bool HeaderAngled);

} // namespace apistamp

#endif // APISTAMP_FILEEDITS_H
