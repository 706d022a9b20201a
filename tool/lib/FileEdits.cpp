//===- FileEdits.cpp - Merge per-TU edits and apply them to a file --------===//

#include "apistamp/FileEdits.h"
#include "apistamp/Rules.h"
#include "clang/Format/Format.h"
#include "clang/Lex/Lexer.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Inclusions/HeaderIncludes.h"

using namespace llvm;
using namespace clang;

namespace apistamp {

/// The file's line ending: "\r\n", a lone "\r" (old Mac files) or "\n".
static StringRef lineEnding(StringRef Code) {
  size_t Break = Code.find_first_of("\r\n");
  if (Break == StringRef::npos || Code[Break] == '\n')
    return "\n";
  return Break + 1 < Code.size() && Code[Break + 1] == '\n' ? "\r\n" : "\r";
}

/// Whether clang-format's include sorting (\p Style) leaves \p Line, an
/// #include line, where it is when it is inserted at \p Offset of \p Code.
/// Its sorted block, if it moves it, in \p Sorted.
static bool staysSorted(const format::FormatStyle &Style, StringRef Path,
                        StringRef Code, unsigned Offset, StringRef Line,
                        std::optional<tooling::Replacement> *Sorted = nullptr) {
  std::string New =
      (Code.take_front(Offset) + Line + Code.drop_front(Offset)).str();
  tooling::Replacements Sorting = format::sortIncludes(
      Style, New, {tooling::Range(Offset, Line.size())}, Path);
  for (const tooling::Replacement &R : Sorting)
    if (Sorted && R.getOffset() <= Offset &&
        Offset < R.getOffset() + R.getLength())
      *Sorted = R;
  return Sorting.empty();
}

/// The start of the line after the line of \p Code[\p Begin, \p End) whose
/// text is \p Text (\p After), or of that line; nullopt if there is none.
static std::optional<unsigned> besideLine(StringRef Code, unsigned Begin,
                                          unsigned End, StringRef Text,
                                          bool After) {
  for (unsigned Pos = Begin; Pos < End;) {
    size_t Break = Code.find('\n', Pos);
    unsigned Next = Break == StringRef::npos ? Code.size() : Break + 1;
    if (Code.slice(Pos, Next).rtrim("\r\n") == Text)
      return After ? Next : Pos;
    Pos = Next;
  }
  return std::nullopt;
}

/// Where and how to insert \p Line, an #include line, into \p Code so that
/// clang-format's include sorting (\p Style) leaves it as it is: at
/// \p Offset, HeaderIncludes' choice, if sorting keeps it there.
/// HeaderIncludes takes a header outside the first include block for the
/// main header (priority 0), which clang-format does not, and orders by
/// priority and case where a style may sort by SortPriority or ignoring
/// case; it never adds the blank line that regrouping (IncludeBlocks:
/// Regroup) puts between categories. Then the line goes after the include
/// that sorting puts before it, or before the one it puts after it, with a
/// blank line before or after it if regrouping wants one; where sorting
/// keeps it. In a block that was not sorted, nothing keeps it: \p Offset.
static std::pair<unsigned, std::string>
sortedInsertion(const format::FormatStyle &Style, StringRef Path,
                StringRef Code, unsigned Offset, StringRef Line) {
  std::optional<tooling::Replacement> Sorted;
  if (staysSorted(Style, Path, Code, Offset, Line, &Sorted) || !Sorted)
    return {Offset, Line.str()};
  // The block in Code, and its lines as sorting orders them.
  unsigned Begin = Sorted->getOffset();
  unsigned End = Begin + Sorted->getLength() - Line.size();
  SmallVector<StringRef> Lines;
  StringRef(Sorted->getReplacementText()).split(Lines, '\n');
  StringRef Own = Line.rtrim("\r\n");
  auto At =
      llvm::find_if(Lines, [&](StringRef L) { return L.rtrim("\r") == Own; });
  std::vector<unsigned> Offsets;
  auto Beside = [&](auto From, auto To, bool After) {
    for (auto I = From; I != To; ++I)
      if (!I->rtrim("\r").empty()) {
        if (std::optional<unsigned> Candidate =
                besideLine(Code, Begin, End, I->rtrim("\r"), After))
          Offsets.push_back(*Candidate);
        return;
      }
  };
  if (At != Lines.end()) {
    Beside(std::make_reverse_iterator(At), Lines.rend(), /*After=*/true);
    Beside(std::next(At), Lines.end(), /*After=*/false);
  }
  Offsets.push_back(Offset);
  for (std::string Text : {Line.str(), "\n" + Line.str(), Line.str() + "\n"})
    for (unsigned Candidate : Offsets)
      if ((Candidate != Offset || Text != Line) &&
          staysSorted(Style, Path, Code, Candidate, Text))
        return {Candidate, Text};
  return {Offset, Line.str()};
}

/// Whether \p Code, as clang's lexer reads it, has a token \p Name:
/// comments do not count, a string literal is a token of its own.
static bool namesIdentifier(StringRef Code, StringRef Name) {
  LangOptions Cxx;
  Cxx.CPlusPlus = Cxx.CPlusPlus11 = Cxx.CPlusPlus17 = true;
  std::string Copy = Code.str(); // The lexer reads up to a NUL after it.
  Lexer Lex(SourceLocation(), Cxx, Copy.data(), Copy.data(),
            Copy.data() + Copy.size());
  Token Tok;
  while (!Lex.LexFromRawLexer(Tok))
    if (Tok.is(tok::raw_identifier) && Tok.getRawIdentifier() == Name)
      return true;
  return Tok.is(tok::raw_identifier) && Tok.getRawIdentifier() == Name;
}

/// Where a file's own preprocessor prelude puts its include block, when
/// HeaderIncludes would insert at \p Offset above it: HeaderIncludes' region
/// ends at the first directive that is not an #include, so a leading
/// `#define _GLIBCXX_USE_CXX11_ABI 0`, `#ifdef HAVE_CONFIG_H` block or
/// `#define _CRT_SECURE_NO_WARNINGS` would end up below the new #include
/// (and not apply to what it includes). Scanning the directives that follow
/// \p Offset up to the first code at depth 0: the start of the line of the
/// first unconditional #include after such a directive (the main include
/// block), or, without one, the end of the last directive (the prelude's
/// end); nullopt when there is no prelude: an #include comes first, above
/// \p Offset or below it (#pragma once is none).
struct BelowPrelude {
  unsigned Offset;
  bool IncludeBlock; ///< The main include block's start, else the end.
};
static std::optional<BelowPrelude> afterPrelude(StringRef Code,
                                                unsigned Offset) {
  LangOptions Cxx;
  Cxx.CPlusPlus = Cxx.CPlusPlus11 = Cxx.CPlusPlus17 = true;
  std::string Copy = Code.str(); // The lexer reads up to a NUL after it.
  Lexer Lex(SourceLocation(), Cxx, Copy.data(), Copy.data() + Offset,
            Copy.data() + Copy.size());
  Lex.SetCommentRetentionState(false);
  auto LineStart = [&](unsigned At) {
    size_t Break =
        At == 0 ? StringRef::npos : Code.find_last_of("\r\n", At - 1);
    return Break == StringRef::npos ? 0u : unsigned(Break + 1);
  };
  // An #include above Offset: the file starts with its include block, which
  // HeaderIncludes saw; a directive after it is no prelude.
  std::string Head = Code.take_front(Offset).str(); // NUL-terminated too.
  Lexer Above(SourceLocation(), Cxx, Head.data(), Head.data(),
              Head.data() + Head.size());
  Token Tok;
  for (bool Directive = false; !Above.LexFromRawLexer(Tok);) {
    if (Directive && Tok.is(tok::raw_identifier) &&
        Tok.getRawIdentifier() == "include")
      return std::nullopt;
    Directive = Tok.isAtStartOfLine() && Tok.is(tok::hash);
  }
  bool Prelude = false;
  unsigned Depth = 0, LastDirectiveEnd = Offset;
  Lex.LexFromRawLexer(Tok);
  while (Tok.isNot(tok::eof)) {
    if (!(Tok.isAtStartOfLine() && Tok.is(tok::hash))) {
      if (Depth == 0)
        break; // Code: the prelude, if any, is over.
      Lex.LexFromRawLexer(Tok);
      continue;
    }
    unsigned Hash = Lex.getCurrentBufferOffset() - Tok.getLength();
    Lex.LexFromRawLexer(Tok);
    StringRef Name = Tok.is(tok::raw_identifier) ? Tok.getRawIdentifier() : "";
    bool Pragma = Name == "pragma";
    if (Name == "include" && Depth == 0)
      return Prelude ? std::optional(BelowPrelude{LineStart(Hash), true})
                     : std::nullopt;
    if (Name.starts_with("if"))
      ++Depth;
    else if (Name == "endif" && Depth > 0)
      --Depth;
    bool Include = Name == "include" || Name == "import";
    // The rest of the directive, continued lines included.
    std::string Rest;
    unsigned End = Lex.getCurrentBufferOffset();
    while (true) {
      Lex.LexFromRawLexer(Tok);
      if (Tok.is(tok::eof) || Tok.isAtStartOfLine())
        break;
      End = Lex.getCurrentBufferOffset();
      if (Pragma && Tok.is(tok::raw_identifier))
        Rest += Tok.getRawIdentifier().str() + " ";
    }
    if (!Include && !(Pragma && Rest == "once "))
      Prelude = true;
    size_t Break = Code.find('\n', End);
    LastDirectiveEnd =
        Break == StringRef::npos ? unsigned(Code.size()) : unsigned(Break + 1);
  }
  if (!Prelude || Depth != 0)
    return std::nullopt;
  return BelowPrelude{LastDirectiveEnd, false};
}

/// The include to insert for \p Header, unless \p Code includes it already
/// (with either spelling): in the include block HeaderIncludes chooses, where
/// clang-format's include sorting would keep it.
static std::optional<tooling::Replacement> includeInsertion(StringRef Path,
                                                            StringRef Code,
                                                            StringRef Header,
                                                            bool Angled) {
  Expected<format::FormatStyle> Style = format::getStyle(
      format::DefaultFormatStyle, Path, format::DefaultFallbackStyle, Code);
  if (!Style) {
    consumeError(Style.takeError());
    Style = format::getLLVMStyle();
  }
  tooling::HeaderIncludes Includes(Path, Code, Style->IncludeStyle);
  std::optional<tooling::Replacement> Insertion =
      Includes.insert(Header, Angled, tooling::IncludeDirective::Include);
  if (!Insertion ||
      !Includes.insert(Header, !Angled, tooling::IncludeDirective::Include))
    return std::nullopt;
  // Below the file's prelude: in its main include block, as HeaderIncludes
  // places it there, or at the prelude's end.
  if (std::optional<BelowPrelude> Below =
          afterPrelude(Code, Insertion->getOffset())) {
    if (Below->IncludeBlock) {
      tooling::HeaderIncludes Main(Path, Code.drop_front(Below->Offset),
                                   Style->IncludeStyle);
      std::optional<tooling::Replacement> There =
          Main.insert(Header, Angled, tooling::IncludeDirective::Include);
      if (!There ||
          !Main.insert(Header, !Angled, tooling::IncludeDirective::Include))
        return std::nullopt;
      Insertion = tooling::Replacement(Path, Below->Offset + There->getOffset(),
                                       0, There->getReplacementText());
    } else {
      Insertion = tooling::Replacement(Path, Below->Offset, 0,
                                       Insertion->getReplacementText());
    }
  }
  std::string Line = Insertion->getReplacementText().str();
  if (StringRef(Line).starts_with("#include")) {
    auto [Offset, Text] =
        sortedInsertion(*Style, Path, Code, Insertion->getOffset(), Line);
    Insertion = tooling::Replacement(Path, Offset, 0, Text);
  }
  StringRef Ending = lineEnding(Code);
  if (Ending == "\n")
    return Insertion;
  std::string Text;
  for (char C : Insertion->getReplacementText()) {
    if (C == '\n')
      Text += Ending;
    else
      Text += C;
  }
  return tooling::Replacement(Path, Insertion->getOffset(),
                              Insertion->getLength(), Text);
}

Expected<std::vector<TextEdit>> fileReplacements(StringRef Path, StringRef Code,
                                                 std::vector<TextEdit> Edits) {
  llvm::sort(Edits);
  Edits.erase(std::unique(Edits.begin(), Edits.end()), Edits.end());
  tooling::Replacements Replaces;
  for (const TextEdit &E : Edits) {
    if (E.Kind != TextEdit::Replace)
      continue;
    if (E.Offset + E.Length > Code.size())
      return createStringError(inconvertibleErrorCode(),
                               "edit beyond the end of '" + Path + "'");
    if (Error Err = Replaces.add(
            tooling::Replacement(Path, E.Offset, E.Length, E.Text)))
      return createStringError(inconvertibleErrorCode(),
                               "conflicting edits in '" + Path +
                                   "': " + toString(std::move(Err)) +
                                   "; the file is left unchanged");
  }
  for (const TextEdit &E : Edits) {
    if (E.Kind != TextEdit::RemoveInclude || E.Offset + E.Length > Code.size())
      continue;
    Expected<std::string> After = tooling::applyAllReplacements(Code, Replaces);
    if (!After) {
      consumeError(After.takeError());
      continue;
    }
    // The rules' #include provides their macro and the internal entry
    // point's marker: it stays while the file names either.
    if (!namesIdentifier(*After, E.Text) &&
        !namesIdentifier(*After, InternalEntryMacro))
      consumeError(Replaces.add(tooling::Replacement(Path, E.Offset, E.Length,
                                                     ""))); // Kept if not.
  }
  for (const TextEdit &E : Edits) {
    if (E.Kind != TextEdit::AddInclude)
      continue;
    if (std::optional<tooling::Replacement> Include =
            includeInsertion(Path, Code, E.Text, E.Angled))
      if (Error Err = Replaces.add(*Include))
        return createStringError(inconvertibleErrorCode(),
                                 "cannot insert #include in '" + Path +
                                     "': " + toString(std::move(Err)));
  }
  std::vector<TextEdit> Result;
  for (const tooling::Replacement &R : Replaces)
    Result.push_back(TextEdit{Path.str(), R.getOffset(), R.getLength(),
                              R.getReplacementText().str()});
  return Result;
}

std::string applyReplacements(StringRef Code, ArrayRef<TextEdit> Replacements) {
  std::string Result;
  size_t Done = 0;
  for (const TextEdit &E : Replacements) { // Sorted, not overlapping.
    Result.append(Code.data() + Done, E.Offset - Done);
    Result += E.Text;
    Done = E.Offset + E.Length;
  }
  Result.append(Code.data() + Done, Code.size() - Done);
  return Result;
}

Expected<std::string> applyEdits(StringRef Path, StringRef Code,
                                 std::vector<TextEdit> Edits) {
  Expected<std::vector<TextEdit>> Replacements =
      fileReplacements(Path, Code, std::move(Edits));
  if (!Replacements)
    return Replacements.takeError();
  return applyReplacements(Code, *Replacements);
}

} // namespace apistamp
