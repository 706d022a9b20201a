//===- FileEdits.cpp - Merge per-TU edits and apply them to a file --------===//

#include "apistamp/FileEdits.h"
#include "clang/Format/Format.h"
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

/// The include to insert for \p Header, unless \p Code includes it already
/// (with either spelling).
static std::optional<tooling::Replacement> includeInsertion(StringRef Path,
                                                            StringRef Code,
                                                            StringRef Header,
                                                            bool Angled) {
  Expected<format::FormatStyle> Style = format::getStyle(
      format::DefaultFormatStyle, Path, format::DefaultFallbackStyle, Code);
  format::FormatStyle Fallback = format::getLLVMStyle();
  if (!Style)
    consumeError(Style.takeError());
  tooling::HeaderIncludes Includes(
      Path, Code, Style ? Style->IncludeStyle : Fallback.IncludeStyle);
  std::optional<tooling::Replacement> Insertion =
      Includes.insert(Header, Angled, tooling::IncludeDirective::Include);
  if (!Insertion ||
      !Includes.insert(Header, !Angled, tooling::IncludeDirective::Include))
    return std::nullopt;
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
