//===- Insertion.cpp - Where and how the macro call is inserted -----------===//
//
// Works on the file's text after the body's '{': the call goes on a new line
// after the brace (after any comment that ends on the brace's line), indented
// like the body's first statement.
//
//===----------------------------------------------------------------------===//

#include "Insertion.h"
#include "llvm/Support/ConvertUTF.h"

using namespace llvm;

namespace apistamp {

/// Appends \p Byte as a three-digit octal escape: unlike a hex escape, it
/// cannot take a digit that follows it.
static void appendOctal(std::string &Quoted, unsigned char Byte) {
  Quoted += '\\';
  Quoted += static_cast<char>('0' + (Byte >> 6));
  Quoted += static_cast<char>('0' + ((Byte >> 3) & 7));
  Quoted += static_cast<char>('0' + (Byte & 7));
}

std::string quoteEvent(StringRef Event) {
  std::string Quoted = "\"";
  const auto *Bytes = reinterpret_cast<const UTF8 *>(Event.data());
  for (size_t I = 0; I < Event.size(); ++I) {
    unsigned char C = Event[I];
    if (C >= 0x80) {
      // Valid UTF-8 stays as it is (clang reads source as UTF-8); any other
      // byte is escaped, so that no mode warns about the encoding.
      unsigned Length = getNumBytesForUTF8(C);
      if (isLegalUTF8Sequence(Bytes + I, Bytes + Event.size())) {
        Quoted.append(Event.data() + I, Length);
        I += Length - 1;
      } else {
        appendOctal(Quoted, C);
      }
      continue;
    }
    switch (C) {
    case '"':
    case '\\':
    case '?': // "??/" and the other trigraphs cannot form from "\?\?/".
      Quoted += '\\';
      Quoted += C;
      break;
    case '\n':
      Quoted += "\\n";
      break;
    case '\r':
      Quoted += "\\r";
      break;
    case '\t':
      Quoted += "\\t";
      break;
    default:
      if (C < 0x20 || C == 0x7f)
        appendOctal(Quoted, C);
      else
        Quoted += C;
    }
  }
  return Quoted + "\"";
}

static size_t lineStart(StringRef Code, size_t Offset) {
  size_t NewLine = Code.rfind('\n', Offset == 0 ? 0 : Offset - 1);
  return (NewLine == StringRef::npos || Offset == 0) ? 0 : NewLine + 1;
}

static StringRef indentationOfLine(StringRef Code, size_t Offset) {
  size_t Start = lineStart(Code, Offset);
  size_t End = Code.find_first_not_of(" \t", Start);
  return Code.slice(Start, End == StringRef::npos ? Code.size() : End);
}

/// Skips whitespace and comments that end on the current line. Returns the
/// offset of the first character that is neither, or of the line break;
/// \p TriviaEnd is set to the end of the last comment skipped (\p Pos if
/// none): edits may replace whitespace after it, never a comment.
static size_t skipToLineEndOrCode(StringRef Code, size_t Pos,
                                  size_t &TriviaEnd) {
  TriviaEnd = Pos;
  while (Pos < Code.size()) {
    char C = Code[Pos];
    if (C == ' ' || C == '\t' || C == '\f' || C == '\v') {
      ++Pos;
    } else if (Code.substr(Pos).starts_with("//")) {
      size_t End = Code.find_first_of("\r\n", Pos);
      return End == StringRef::npos ? Code.size() : End;
    } else if (Code.substr(Pos).starts_with("/*")) {
      size_t End = Code.find("*/", Pos + 2);
      if (End == StringRef::npos || Code.slice(Pos, End).contains('\n'))
        return Pos; // A block comment running onto later lines.
      Pos = TriviaEnd = End + 2;
    } else {
      return Pos;
    }
  }
  return Pos;
}

static bool firstOnItsLine(StringRef Code, size_t Offset) {
  return Code.slice(lineStart(Code, Offset), Offset).trim(" \t").empty();
}

std::vector<TextEdit> makeInsertion(StringRef File, StringRef Code,
                                    unsigned DeclOffset, unsigned LBraceOffset,
                                    unsigned RBraceOffset, StringRef Macro,
                                    StringRef Event) {
  std::string Call = (Macro + "(" + quoteEvent(Event) + ");").str();
  // "{" on a line of its own sets the indentation; otherwise the line where
  // the definition starts does (not a continuation line of an init list).
  StringRef BraceIndent = firstOnItsLine(Code, LBraceOffset)
                              ? indentationOfLine(Code, LBraceOffset)
                              : indentationOfLine(Code, DeclOffset);
  std::string Unit = BraceIndent.contains('\t') ? "\t" : "  ";
  std::string Indent = BraceIndent.str() + Unit;
  size_t AfterBrace = LBraceOffset + 1;
  size_t TriviaEnd;
  size_t Stop = skipToLineEndOrCode(Code, AfterBrace, TriviaEnd);
  bool AtLineEnd =
      Stop == Code.size() || Code[Stop] == '\r' || Code[Stop] == '\n';
  size_t LineEnd = Code.find('\n', AfterBrace);
  std::string NewLine =
      (LineEnd != StringRef::npos && LineEnd > 0 && Code[LineEnd - 1] == '\r')
          ? "\r\n"
          : "\n";

  if (AtLineEnd) {
    // The body continues on a later line: indent like its first line.
    size_t Next = Code.find_first_not_of(" \t\r\n\f\v", Stop);
    if (Next != StringRef::npos && Next < RBraceOffset)
      Indent = indentationOfLine(Code, Next).str();
    // Before the line break: a '\r' stays with its '\n'.
    return {TextEdit{File.str(), static_cast<unsigned>(Stop), 0,
                     NewLine + Indent + Call}};
  }
  // Only the whitespace after the brace and its comments is replaced.
  if (Stop == RBraceOffset) // "{}", "{ }" or "{ /* nothing */ }"
    return {TextEdit{File.str(), static_cast<unsigned>(TriviaEnd),
                     static_cast<unsigned>(Stop - TriviaEnd),
                     NewLine + Indent + Call + NewLine + BraceIndent.str()}};
  // Code follows on the brace's line: "{ return 1; }".
  std::vector<TextEdit> Edits = {
      TextEdit{File.str(), static_cast<unsigned>(TriviaEnd),
               static_cast<unsigned>(Stop - TriviaEnd),
               NewLine + Indent + Call + NewLine + Indent}};
  // The spaces before '}' (find_last_not_of looks before RBraceOffset).
  size_t BeforeRBrace = Code.find_last_not_of(" \t", RBraceOffset) + 1;
  bool RBraceOnSameLine =
      !Code.slice(LBraceOffset, RBraceOffset).contains('\n');
  if (RBraceOnSameLine && BeforeRBrace > Stop)
    Edits.push_back(TextEdit{File.str(), static_cast<unsigned>(BeforeRBrace),
                             static_cast<unsigned>(RBraceOffset - BeforeRBrace),
                             NewLine + BraceIndent.str()});
  return Edits;
}

} // namespace apistamp
