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
/// a value in a message:
/// - C0 controls (U+0000 to U+001F) and DEL: line feed, carriage return and
///   tab as \n, \r and \t, the others as \xNN (ESC is \x1b). Tab too: it
///   can line up forged columns, and it reads as spaces that the value does
///   not have;
/// - C1 controls (U+0080 to U+009F written in UTF-8), the bidirectional-text
///   controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)
///   and the line and paragraph separators (U+2028, U+2029) as \uNNNN;
/// - every byte that is not part of valid UTF-8, a lone 0x80 to 0x9F (a C1
///   control to some terminals) included, as \xNN.
/// Everything else, other characters of valid UTF-8 included, is kept.
/// Backslashes are kept as they are, so escaping twice changes nothing (a
/// whole message may be escaped again); a value's exact bytes are in the
/// JSON outputs. Text longer than \p MaxLength bytes is cut there (at a
/// character boundary) and ends in "...".
std::string printable(llvm::StringRef Text, size_t MaxLength = 200);

/// \p Text whole (never cut), escaped as printable() escapes it: for a value
/// from an input (an event name or a time from a log or a source, a file
/// name, a rule id of a saved catalog, a message quoting them) in a line of
/// text output that a person or a CI log reads. It holds no line break, so it
/// cannot start a line of its own (a forged summary, or a CI system's
/// workflow command such as "::error::"), and no terminal control sequence.
/// Nor does it start with "::" (its first ':' is written "\x3a"): a value
/// that starts an output line (a file name, the catalog's event column)
/// would otherwise be a workflow command itself.
std::string printableLine(llvm::StringRef Text);

/// \p Text, lines that end in '\n' (a compiler's diagnostics, an error that
/// spans lines), with each line escaped as printableLine() escapes it and the
/// line feeds between them kept.
std::string printableLines(llvm::StringRef Text);

} // namespace apistamp

#endif // APISTAMP_LIB_SUGGESTIONS_H
