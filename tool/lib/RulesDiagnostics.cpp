//===- RulesDiagnostics.cpp - Errors of one rules file --------------------===//
//
// Diagnostics at yaml-cpp's marks, and the columns of characters inside a
// quoted value (escape sequences and doubled quotes counted as yaml-cpp
// decodes them).
//
//===----------------------------------------------------------------------===//

#include "RulesDiagnostics.h"
#include "Suggestions.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <tuple>

using namespace llvm;

namespace apistamp {
namespace rulesfile {

namespace {

/// The first code points that take two, three and four bytes in UTF-8.
constexpr uint32_t FirstTwoByteCodePoint = 0x80;
constexpr uint32_t FirstThreeByteCodePoint = 0x800;
constexpr uint32_t FirstFourByteCodePoint = 0x10000;

/// Bytes that \p CodePoint takes in UTF-8.
size_t utf8Length(uint32_t CodePoint) {
  return CodePoint < FirstTwoByteCodePoint     ? 1
         : CodePoint < FirstThreeByteCodePoint ? 2
         : CodePoint < FirstFourByteCodePoint  ? 3
                                               : 4;
}

/// The backslash and the letter that start every escape sequence.
constexpr size_t EscapeIntroducerLength = 2;
/// Bytes of U+2028 and U+2029 (the escapes \L and \P) in UTF-8.
constexpr size_t LineSeparatorLength = 3;

/// Hexadecimal digits after the escape letter \p Kind: \xNN, \uNNNN,
/// \UNNNNNNNN; none after the others.
size_t escapeDigits(char Kind) {
  return Kind == 'x' ? 2 : Kind == 'u' ? 4 : Kind == 'U' ? 8 : 0;
}

/// Bytes of the value that the escape sequence at the start of \p Escape (a
/// backslash, in a double-quoted scalar) stands for, as yaml-cpp decodes it;
/// \p Length receives its length in the file.
size_t decodedEscapeLength(StringRef Escape, size_t &Length) {
  char Kind = Escape.size() > 1 ? Escape[1] : 0;
  size_t Digits = escapeDigits(Kind);
  Length = EscapeIntroducerLength + Digits;
  if (Kind == 'L' || Kind == 'P') // U+2028, U+2029
    return LineSeparatorLength;
  unsigned CodePoint = 0;
  if (Digits && !Escape.substr(EscapeIntroducerLength, Digits)
                     .getAsInteger(16, CodePoint))
    return utf8Length(CodePoint);
  return 1; // '\n', and '\N' and '\_', which yaml-cpp writes as one byte.
}

} // namespace

Diagnostics::Diagnostics(StringRef Path, StringRef Text) : Path(Path.str()) {
  SmallVector<StringRef, 64> Split;
  Text.split(Split, '\n');
  Lines.assign(Split.begin(), Split.end());
  // yaml-cpp does not count a byte order mark in columns.
  Lines.front().consume_front(ByteOrderMark);
}

void Diagnostics::error(const YAML::Mark &M, const Twine &Message,
                        unsigned Offset) {
  // yaml-cpp's columns are 0-based.
  errorAt(M.line, M.column + 1 + Offset, Message);
}

void Diagnostics::errorAt(size_t Line, size_t Column, const Twine &Message) {
  Errors.push_back(
      {Line, Column,
       printable(Path + ":" + std::to_string(Line + 1) + ":" +
                     std::to_string(Column) + ": error: " + Message.str(),
                 std::string::npos)});
}

bool Diagnostics::isBlockScalar(const YAML::Mark &M) const {
  StringRef Line = line(M.line);
  return M.column >= 0 && size_t(M.column) < Line.size() &&
         (Line[M.column] == '|' || Line[M.column] == '>');
}

Error Diagnostics::first() const {
  return createStringError(inconvertibleErrorCode(), sorted().front()->Text);
}

Error Diagnostics::all() const {
  Error All = Error::success();
  for (const Located *E : sorted())
    All = joinErrors(std::move(All),
                     createStringError(inconvertibleErrorCode(), E->Text));
  return All;
}

std::vector<const Diagnostics::Located *> Diagnostics::sorted() const {
  std::vector<const Located *> Sorted;
  for (const Located &E : Errors)
    Sorted.push_back(&E);
  llvm::stable_sort(Sorted, [](const Located *L, const Located *R) {
    return std::tie(L->Line, L->Column) < std::tie(R->Line, R->Column);
  });
  return Sorted;
}

unsigned Diagnostics::valueOffset(const YAML::Node &N, size_t Offset) const {
  YAML::Mark M = N.Mark();
  StringRef Line = line(M.line);
  if (M.column < 0 || size_t(M.column) >= Line.size())
    return 0;
  if (isBlockScalar(M)) // A block scalar starts on the next line.
    return 0;
  char Quote = Line[M.column];
  if (Quote != '"' && Quote != '\'')
    return M.column + Offset < Line.size() ? Offset : 0;
  StringRef Text = Line.substr(M.column + 1);
  size_t Decoded = 0, I = 0;
  while (Decoded < Offset) {
    if (I >= Text.size())
      return 0;
    size_t Length = 1;
    if (Quote == '\'' && Text[I] == '\'') {
      if (!Text.substr(I).starts_with("''"))
        return 0; // The closing quote: the offset is on another line.
      Length = 2;
      ++Decoded;
    } else if (Quote == '"' && Text[I] == '"') {
      return 0;
    } else if (Quote == '"' && Text[I] == '\\') {
      Decoded += decodedEscapeLength(Text.substr(I), Length);
    } else {
      ++Decoded;
    }
    I += Length;
  }
  return 1 + I; // The opening quote, then the value's first I bytes.
}

} // namespace rulesfile
} // namespace apistamp
