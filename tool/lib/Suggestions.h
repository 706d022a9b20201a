//===- Suggestions.h - Text for diagnostics ---------------------*- C++ -*-===//
//
// "did you mean ...?" for near-miss words and options, and values from input
// files made safe to print in a message.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_SUGGESTIONS_H
#define APISTAMP_LIB_SUGGESTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>

namespace apistamp {

/// The candidate closest to \p Word by edit distance, if it is close enough
/// to be a typo of it (at most max(2, |Word| / 3) edits, and fewer than
/// |Word|), else "".
std::string closestWord(llvm::StringRef Word,
                        llvm::ArrayRef<llvm::StringRef> Candidates);

/// The candidate that \p Word, a name on the command line, is a likely typo
/// of: one that differs only in case; else, for a word of three characters
/// or more, the closest within one edit per three characters (a one-letter
/// option is a different option, not a typo). "" if there is none.
std::string closestOption(llvm::StringRef Word,
                          llvm::ArrayRef<llvm::StringRef> Candidates);

/// One character decoded from UTF-8.
struct DecodedChar {
  uint32_t CodePoint = 0;
  unsigned Length = 1; ///< Bytes it takes; 1 for a byte that is not UTF-8.
  bool Valid = false;  ///< False: the byte at the start is not valid UTF-8.
};

/// The character at the start of non-empty \p Text. Overlong forms,
/// surrogates and code points above U+10FFFF are not valid.
DecodedChar decodeUTF8(llvm::StringRef Text);

/// Whether \p CodePoint is a control character: C0 (below U+0020), DEL, C1
/// (U+0080 to U+009F), a Unicode bidirectional-text control or the line or
/// paragraph separator (printed raw, those reorder or break the line).
bool isControl(uint32_t CodePoint);

/// Offset of the first control character or invalid UTF-8 byte in \p Text,
/// or npos; \p AllowWhitespace lets tab, line feed and carriage return pass.
size_t findUnprintable(llvm::StringRef Text, bool AllowWhitespace = false);

/// \p Text with everything that could upset a terminal escaped, for quoting
/// a value in a message: control characters as \n, \r, \t, \xNN (C0, DEL)
/// or \uNNNN (the others), and bytes that are not valid UTF-8 as \xNN.
/// Backslashes are kept as they are, so escaping twice changes nothing.
/// Text longer than \p MaxLength bytes is cut there (at a character
/// boundary) and ends in "...".
std::string printable(llvm::StringRef Text, size_t MaxLength = 200);

} // namespace apistamp

#endif // APISTAMP_LIB_SUGGESTIONS_H
