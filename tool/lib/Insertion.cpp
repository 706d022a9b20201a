//===- Insertion.cpp - Where and how the macro call is inserted -----------===//
//
// Works on the file's text after the body's '{': the call goes on a new line
// after the brace (after any comments that follow it, and the lines a
// backslash joins to a '//' comment), indented like the body's first
// statement. The edits only ever add the call and whitespace.
//
//===----------------------------------------------------------------------===//

#include "Insertion.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
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

static bool isHorizontalSpace(char C) {
  return C == ' ' || C == '\t' || C == '\f' || C == '\v';
}

static bool isLineBreak(char C) { return C == '\n' || C == '\r'; }

/// The start of the line holding \p Offset: "\r\n", "\n" and a lone "\r"
/// each end a line.
static size_t lineStart(StringRef Code, size_t Offset) {
  size_t Break = Code.find_last_of("\r\n", Offset); // Looks before Offset.
  return Break == StringRef::npos ? 0 : Break + 1;
}

static StringRef indentationOfLine(StringRef Code, size_t Offset) {
  size_t Start = lineStart(Code, Offset);
  size_t End = Code.find_first_not_of(" \t", Start);
  return Code.slice(Start, End == StringRef::npos ? Code.size() : End);
}

static bool firstOnItsLine(StringRef Code, size_t Offset) {
  return Code.slice(lineStart(Code, Offset), Offset).trim(" \t").empty();
}

/// The line ending of the file: "\r\n", "\n" or "\r" (old Mac OS), as the
/// line holding \p Offset ends, else as the file's last line does.
static StringRef lineEnding(StringRef Code, size_t Offset) {
  size_t Break = Code.find_first_of("\r\n", Offset);
  if (Break == StringRef::npos)
    Break = Code.find_last_of("\r\n");
  if (Break == StringRef::npos)
    return "\n";
  if (Code[Break] == '\n')
    return Break > 0 && Code[Break - 1] == '\r' ? "\r\n" : "\n";
  return Code.substr(Break).starts_with("\r\n") ? "\r\n" : "\r";
}

/// The end of the '//' comment at \p Pos: the line break that ends its last
/// line, after the lines that a backslash at the end of a line (spaces may
/// follow it) joins to it. Sets \p Ambiguous if a line of it ends in "??/",
/// which joins the next line only with trigraphs.
static size_t lineCommentEnd(StringRef Code, size_t Pos, bool &Ambiguous) {
  while (true) {
    size_t Break = Code.find_first_of("\r\n", Pos);
    if (Break == StringRef::npos)
      return Code.size();
    StringRef Line = Code.slice(Pos, Break).rtrim(" \t\f\v");
    Ambiguous |= Line.ends_with("?\?/");
    if (!Line.ends_with("\\"))
      return Break;
    Pos = Break + (Code.substr(Break).starts_with("\r\n") ? 2 : 1);
  }
}

namespace {
/// What follows the body's '{'.
struct AfterBrace {
  /// The first character that is neither whitespace nor a comment (code or
  /// the '}'), or the line break that ends the line where the comments after
  /// the brace end.
  size_t Stop;
  /// The end of the last comment before Stop, else just after the brace:
  /// edits may replace the whitespace from here to Stop, nothing before.
  size_t TriviaEnd;
  /// A '//' comment that runs onto the next line only with trigraphs.
  size_t AmbiguousComment = StringRef::npos;
};
} // namespace

static AfterBrace scanAfterBrace(StringRef Code, size_t Pos) {
  AfterBrace Result{Pos, Pos};
  while (Pos < Code.size()) {
    StringRef Rest = Code.substr(Pos);
    if (isHorizontalSpace(Code[Pos])) {
      ++Pos;
    } else if (Rest.starts_with("//")) {
      bool Ambiguous = false;
      Result.Stop = Result.TriviaEnd = lineCommentEnd(Code, Pos, Ambiguous);
      if (Ambiguous)
        Result.AmbiguousComment = Pos;
      return Result;
    } else if (Rest.starts_with("/*")) {
      // A block comment may run onto later lines: the brace's line then
      // continues where it ends.
      size_t End = Code.find("*/", Pos + 2);
      if (End == StringRef::npos)
        break;
      Pos = Result.TriviaEnd = End + 2;
    } else {
      break;
    }
  }
  Result.Stop = Pos;
  return Result;
}

/// Whether the '"' at \p Pos opens a raw string literal (R"x(...)x").
static bool opensRawString(StringRef Code, size_t Pos) {
  size_t Start = Pos;
  while (Start > 0 && (isAlnum(Code[Start - 1]) || Code[Start - 1] == '_'))
    --Start;
  return is_contained({"R", "LR", "uR", "UR", "u8R"}, Code.slice(Start, Pos));
}

/// Whether the '\'' at \p Pos separates digits of a number (1'000).
static bool separatesDigits(StringRef Code, size_t Pos) {
  size_t Start = Pos;
  while (Start > 0 && (isAlnum(Code[Start - 1]) || Code[Start - 1] == '_' ||
                       Code[Start - 1] == '.' || Code[Start - 1] == '\''))
    --Start;
  StringRef Token = Code.slice(Start, Pos);
  return !Token.empty() &&
         (isDigit(Token[0]) ||
          (Token.size() > 1 && Token[0] == '.' && isDigit(Token[1])));
}

/// Whether a comment starts between \p Pos and the end of its line. String
/// and character literals are skipped; where this errs, the call only goes
/// elsewhere in the body (before \p Pos on its line, or on a line of its
/// own), still as its first statement.
static bool commentBeforeLineEnd(StringRef Code, size_t Pos) {
  while (Pos < Code.size() && !isLineBreak(Code[Pos])) {
    StringRef Rest = Code.substr(Pos);
    char C = Code[Pos];
    if (Rest.starts_with("//") || Rest.starts_with("/*"))
      return true;
    if (C == '"' && opensRawString(Code, Pos)) {
      size_t Open = Code.find('(', Pos);
      if (Open == StringRef::npos)
        return false;
      std::string Close = (")" + Code.slice(Pos + 1, Open) + "\"").str();
      size_t End = Code.find(Close, Open);
      if (End == StringRef::npos ||
          Code.slice(Pos, End).find_first_of("\r\n") != StringRef::npos)
        return false; // The rest of the line is on a later line.
      Pos = End + Close.size();
    } else if (C == '"' || (C == '\'' && !separatesDigits(Code, Pos))) {
      for (++Pos; Pos < Code.size() && Code[Pos] != C; ++Pos)
        if (isLineBreak(Code[Pos]))
          return false;
        else if (Code[Pos] == '\\')
          ++Pos;
      ++Pos;
    } else {
      ++Pos;
    }
  }
  return false;
}

/// The offset of the first code in [\p From, \p End) that is on a line
/// that is neither a preprocessor directive nor only a comment; npos if
/// none.
static size_t firstStatementLine(StringRef Code, size_t From, size_t End) {
  size_t Pos = Code.find_first_not_of(" \t\r\n\f\v", From);
  while (Pos != StringRef::npos && Pos < End) {
    StringRef Rest = Code.substr(Pos);
    size_t LineEnd;
    if (Rest.starts_with("#") || Rest.starts_with("//")) {
      // To the end of the line, following backslash continuations.
      LineEnd = Pos;
      do
        LineEnd = Code.find_first_of("\r\n", LineEnd + 1);
      while (LineEnd != StringRef::npos && Code[LineEnd - 1] == '\\');
    } else if (Rest.starts_with("/*")) {
      size_t Close = Code.find("*/", Pos + 2);
      if (Close == StringRef::npos)
        return StringRef::npos;
      LineEnd = Close + 2;
      // Code after the comment on its line is a statement line.
      size_t After = Code.find_first_not_of(" \t", LineEnd);
      if (After != StringRef::npos && After < End && !isLineBreak(Code[After]))
        return After;
    } else {
      return Pos;
    }
    if (LineEnd == StringRef::npos)
      return StringRef::npos;
    Pos = Code.find_first_not_of(" \t\r\n\f\v", LineEnd);
  }
  return StringRef::npos;
}

unsigned afterOpeningBrace(StringRef Code, unsigned LBraceOffset) {
  StringRef Brace = Code.substr(LBraceOffset);
  if (Brace.starts_with("<%"))
    return LBraceOffset + 2;
  if (Brace.starts_with("?\?<"))
    return LBraceOffset + 3;
  return LBraceOffset + 1;
}

std::vector<TextEdit> makeInsertion(StringRef File, StringRef Code,
                                    unsigned DeclOffset, unsigned LBraceOffset,
                                    unsigned RBraceOffset, StringRef Macro,
                                    StringRef Event) {
  std::string Call = (Macro + "(" + quoteEvent(Event) + ");").str();
  auto Edit = [&](size_t Offset, size_t Length, const Twine &Text) {
    return TextEdit{File.str(), static_cast<unsigned>(Offset),
                    static_cast<unsigned>(Length), Text.str()};
  };
  // On the line of the code that follows: "{ Macro("Event"); return 1; }".
  auto OnTheLine = [&](size_t Offset) -> std::vector<TextEdit> {
    bool Space = Offset > 0 && isSpace(Code[Offset - 1]);
    return {Edit(Offset, 0, Twine(Space ? "" : " ") + Call + " ")};
  };
  // "{" on a line of its own sets the indentation; otherwise the line where
  // the definition starts does (not a continuation line of an init list).
  StringRef BraceIndent = firstOnItsLine(Code, LBraceOffset)
                              ? indentationOfLine(Code, LBraceOffset)
                              : indentationOfLine(Code, DeclOffset);
  std::string Unit = BraceIndent.contains('\t') ? "\t" : "  ";
  std::string Indent = BraceIndent.str() + Unit;
  StringRef NewLine = lineEnding(Code, LBraceOffset);
  AfterBrace After =
      scanAfterBrace(Code, afterOpeningBrace(Code, LBraceOffset));

  // "{ // x ??/": before the comment, the call is code with or without
  // trigraphs; after it, only without.
  if (After.AmbiguousComment != StringRef::npos)
    return OnTheLine(After.AmbiguousComment);
  if (After.Stop == Code.size() || isLineBreak(Code[After.Stop])) {
    // The body continues on a later line: indent like its first statement
    // (not like a preprocessor line or a comment, often at column 0).
    size_t Next = firstStatementLine(Code, After.Stop, RBraceOffset);
    if (Next != StringRef::npos)
      Indent = indentationOfLine(Code, Next).str();
    // Before the line break, so that a "\r\n" stays whole.
    return {Edit(After.Stop, 0, NewLine + Indent + Call)};
  }
  // Code or '}' follows on the line: the call goes on that line, before it
  // ("{ return 1; }" becomes "{ Macro("Event"); return 1; }"), so that
  // removing it gives the line back as it was, and a comment at the end of
  // the line (a "// NOLINT") stays on the brace's line. Only "{}" opens:
  // "{\n  Macro("Event");\n}", which a removal closes again.
  if (After.Stop != RBraceOffset || After.Stop != After.TriviaEnd ||
      commentBeforeLineEnd(Code, After.Stop))
    return OnTheLine(After.Stop);
  return {Edit(After.TriviaEnd, 0,
               NewLine + Indent + Call + NewLine + BraceIndent)};
}

} // namespace apistamp
