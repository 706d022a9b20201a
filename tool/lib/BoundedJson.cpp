//===- BoundedJson.cpp - JSON from untrusted files, nesting bounded -------===//

#include "BoundedJson.h"

using namespace llvm;

namespace apistamp {

unsigned jsonNestingDepth(StringRef Text) {
  unsigned Depth = 0, Deepest = 0;
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (InString) {
      if (C == '\\')
        ++I;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      Deepest = std::max(Deepest, ++Depth);
    } else if ((C == ']' || C == '}') && Depth > 0) {
      --Depth;
    }
  }
  return Deepest;
}

Expected<json::Value> parseBoundedJson(StringRef Text, unsigned MaxDepth) {
  if (unsigned Depth = jsonNestingDepth(Text); Depth > MaxDepth)
    return createStringError(inconvertibleErrorCode(),
                             "JSON nested " + std::to_string(Depth) +
                                 " deep, deeper than the " +
                                 std::to_string(MaxDepth) + " allowed");
  return json::parse(Text);
}

} // namespace apistamp
