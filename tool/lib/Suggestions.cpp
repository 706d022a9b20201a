//===- Suggestions.cpp - Text for diagnostics -----------------------------===//

#include "Suggestions.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

namespace apistamp {

std::string closestWord(llvm::StringRef Word,
                        llvm::ArrayRef<llvm::StringRef> Candidates) {
  std::string Best;
  unsigned BestDistance = std::max<unsigned>(2, Word.size() / 3) + 1;
  for (llvm::StringRef Candidate : Candidates) {
    unsigned Distance =
        Word.edit_distance(Candidate, /*AllowReplacements=*/true, BestDistance);
    // Rewriting every character ('<<' into 'id') is no typo.
    if (Distance < BestDistance && Distance < Word.size()) {
      BestDistance = Distance;
      Best = Candidate.str();
    }
  }
  return Best;
}

std::string closestOption(llvm::StringRef Word,
                          llvm::ArrayRef<llvm::StringRef> Candidates) {
  for (llvm::StringRef Candidate : Candidates)
    if (Word.equals_insensitive(Candidate))
      return Candidate.str();
  if (Word.size() < 3)
    return "";
  std::string Best, Lower = Word.lower();
  unsigned BestDistance = (Word.size() + 1) / 3 + 1;
  for (llvm::StringRef Candidate : Candidates) {
    unsigned Distance = llvm::StringRef(Lower).edit_distance(
        Candidate.lower(), /*AllowReplacements=*/true, BestDistance);
    if (Distance < BestDistance) {
      BestDistance = Distance;
      Best = Candidate.str();
    }
  }
  return Best;
}

DecodedChar decodeUTF8(llvm::StringRef Text) {
  DecodedChar Result;
  auto *Begin = reinterpret_cast<const llvm::UTF8 *>(Text.data());
  Result.CodePoint = *Begin;
  if (*Begin < 0x80) {
    Result.Valid = true;
    return Result;
  }
  unsigned Length = llvm::getNumBytesForUTF8(*Begin);
  if (Length > Text.size())
    return Result;
  const llvm::UTF8 *Source = Begin;
  llvm::UTF32 CodePoint;
  if (llvm::convertUTF8Sequence(&Source, Begin + Length, &CodePoint,
                                llvm::strictConversion) != llvm::conversionOK)
    return Result;
  Result.CodePoint = CodePoint;
  Result.Length = Length;
  Result.Valid = true;
  return Result;
}

bool isControl(uint32_t CodePoint) {
  return CodePoint < 0x20 || (CodePoint >= 0x7f && CodePoint <= 0x9f) ||
         CodePoint == 0x061c || CodePoint == 0x200e || CodePoint == 0x200f ||
         (CodePoint >= 0x2028 && CodePoint <= 0x202e) ||
         (CodePoint >= 0x2066 && CodePoint <= 0x2069);
}

size_t findUnprintable(llvm::StringRef Text, bool AllowWhitespace) {
  for (size_t Pos = 0; Pos < Text.size();) {
    DecodedChar C = decodeUTF8(Text.substr(Pos));
    bool Whitespace =
        C.CodePoint == '\t' || C.CodePoint == '\n' || C.CodePoint == '\r';
    if (!C.Valid ||
        (isControl(C.CodePoint) && !(AllowWhitespace && Whitespace)))
      return Pos;
    Pos += C.Length;
  }
  return llvm::StringRef::npos;
}

std::string printable(llvm::StringRef Text, size_t MaxLength) {
  std::string Result;
  llvm::raw_string_ostream OS(Result);
  for (size_t Pos = 0; Pos < Text.size();) {
    if (Pos >= MaxLength) {
      OS << "...";
      break;
    }
    DecodedChar C = decodeUTF8(Text.substr(Pos));
    if (!C.Valid || C.CodePoint < 0x20 || C.CodePoint == 0x7f) {
      switch (C.CodePoint) {
      case '\n':
        OS << "\\n";
        break;
      case '\r':
        OS << "\\r";
        break;
      case '\t':
        OS << "\\t";
        break;
      default:
        OS << llvm::format("\\x%02x", unsigned(uint8_t(Text[Pos])));
      }
    } else if (isControl(C.CodePoint)) {
      OS << llvm::format("\\u%04x", C.CodePoint);
    } else {
      OS << Text.substr(Pos, C.Length);
    }
    Pos += C.Length;
  }
  return Result;
}

std::string printableLine(llvm::StringRef Text) {
  std::string Start;
  if (Text.starts_with("::")) {
    Start = "\\x3a";
    Text = Text.drop_front();
  }
  if (findUnprintable(Text) == llvm::StringRef::npos) // The usual case.
    return Start + Text.str();
  return Start + printable(Text, std::string::npos);
}

std::string printableLines(llvm::StringRef Text) {
  std::string Result;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Result += printableLine(Line);
    if (Line.size() < Text.size())
      Result += '\n';
    Text = Rest;
  }
  return Result;
}

} // namespace apistamp
