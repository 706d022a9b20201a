//===- Insertion.h - Where and how the macro call is inserted ---*- C++ -*-===//

#ifndef APISTAMP_LIB_INSERTION_H
#define APISTAMP_LIB_INSERTION_H

#include "apistamp/Site.h"

namespace apistamp {

/// \p Event as a C++ string literal that means exactly \p Event in every
/// language mode: '"', '\\' and '?' (so that no trigraph forms) are escaped,
/// control characters and bytes that are not UTF-8 are written as escapes.
std::string quoteEvent(llvm::StringRef Event);

/// The offset just after the body's opening brace token at \p LBraceOffset
/// of \p Code: '{', or the digraph "<%" or the trigraph "??<" (with
/// -trigraphs) that clang reads as '{'.
unsigned afterOpeningBrace(llvm::StringRef Code, unsigned LBraceOffset);

/// The edits that make `Macro("Event");` the first statement of the body
/// whose braces are at \p LBraceOffset and \p RBraceOffset in \p Code (the
/// contents of \p File), in a definition starting at \p DeclOffset: on a
/// line of its own after the comments that follow '{', indented like the
/// body, with the file's line endings ("\r\n", "\n" or "\r"). A body written
/// on one line is split so that '}' gets a line of its own, unless a comment
/// ends that line (a "// NOLINT" stays on the line of '{'): then the call
/// goes on that line, before the code. The edits only add the call and
/// whitespace; they never remove a token or a comment.
std::vector<TextEdit> makeInsertion(llvm::StringRef File, llvm::StringRef Code,
                                    unsigned DeclOffset, unsigned LBraceOffset,
                                    unsigned RBraceOffset,
                                    llvm::StringRef Macro,
                                    llvm::StringRef Event);

} // namespace apistamp

#endif // APISTAMP_LIB_INSERTION_H
