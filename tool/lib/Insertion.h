//===- Insertion.h - Where and how the macro call is inserted ---*- C++ -*-===//

#ifndef APISTAMP_LIB_INSERTION_H
#define APISTAMP_LIB_INSERTION_H

#include "apistamp/Analysis.h"

namespace apistamp {

/// "\"event\"" as a C++ string literal.
std::string quoteEvent(llvm::StringRef Event);

/// The edit that makes `Macro("Event");` the first statement of the body
/// whose '{' is at \p BraceOffset in \p Code (the contents of \p File): on a
/// line of its own, indented like the body, with the file's line endings.
TextEdit makeInsertion(llvm::StringRef File, llvm::StringRef Code,
                       unsigned BraceOffset, llvm::StringRef Macro,
                       llvm::StringRef Event);

} // namespace apistamp

#endif // APISTAMP_LIB_INSERTION_H
