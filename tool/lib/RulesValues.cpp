//===- RulesValues.cpp - The shapes of a rules file's values --------------===//
//
// Unknown and repeated keys, strings without control characters, lists of
// strings and words from a fixed set, each problem reported where it is.
//
//===----------------------------------------------------------------------===//

#include "RulesValues.h"
#include "Suggestions.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace llvm;

namespace apistamp {
namespace rulesfile {

void ValueParser::checkKeys(const YAML::Node &Map, ArrayRef<StringRef> Known,
                            StringRef Where) {
  StringMap<int> FirstLine;
  for (const auto &Entry : Map) {
    if (!Entry.first.IsScalar()) {
      Diags.error(Entry.first, "keys must be plain words");
      continue;
    }
    std::string Key = Entry.first.Scalar();
    // yaml-cpp keeps both entries of a repeated key, and lookups find the
    // first: the second would be ignored.
    auto [First, New] = FirstLine.try_emplace(Key, Entry.first.Mark().line);
    if (!New) {
      Diags.error(Entry.first, "duplicate key '" + printable(Key) + "' in " +
                                   Where + "; the first is on line " +
                                   Twine(First->second + 1));
      continue;
    }
    if (is_contained(Known, Key))
      continue;
    std::string Suggestion = closestWord(Key, Known);
    Diags.error(Entry.first,
                "unknown key '" + printable(Key) + "' in " + Where +
                    (Suggestion.empty()
                         ? "; known keys: " + join(Known, ", ")
                         : "; did you mean '" + Suggestion + "'?"));
  }
}

bool ValueParser::printableValue(const YAML::Node &N, StringRef Key,
                                 StringRef Value, bool Multiline) {
  size_t Bad = findUnprintable(Value, Multiline);
  if (Bad == StringRef::npos)
    return true;
  DecodedChar C = decodeUTF8(Value.substr(Bad));
  // yaml-cpp decodes the escapes \N and \_ to bytes that are not UTF-8.
  Diags.error(N,
              "'" + Key + "' " +
                  (C.Valid ? "may not contain control characters (found '"
                           : "is not valid UTF-8 (found byte '") +
                  printable(Value.substr(Bad, C.Length)) + "')",
              Diags.valueOffset(N, Bad));
  return false;
}

std::optional<std::string> ValueParser::scalar(const YAML::Node &N,
                                               StringRef Key, bool Multiline) {
  if (!N.IsScalar()) {
    Diags.error(N, "'" + Key + "' must be a string");
    return std::nullopt;
  }
  if (!printableValue(N, Key, N.Scalar(), Multiline))
    return std::nullopt;
  return N.Scalar();
}

std::vector<std::pair<std::string, YAML::Node>>
ValueParser::stringList(const YAML::Node &N, StringRef Key) {
  std::vector<std::pair<std::string, YAML::Node>> Result;
  if (N.IsScalar()) {
    if (printableValue(N, Key, N.Scalar()))
      Result.emplace_back(N.Scalar(), N);
    return Result;
  }
  if (!N.IsSequence()) {
    Diags.error(N, "'" + Key + "' must be a string or a list of strings");
    return Result;
  }
  for (const YAML::Node &Item : N) {
    if (!Item.IsScalar())
      Diags.error(Item, "'" + Key + "' must be a string or a list of strings");
    else if (printableValue(Item, Key, Item.Scalar()))
      Result.emplace_back(Item.Scalar(), Item);
  }
  if (Result.empty() && N.size() == 0)
    Diags.error(N,
                "'" + Key + "' is an empty list; omit the key to not filter");
  return Result;
}

std::optional<std::string> ValueParser::oneOf(const YAML::Node &N,
                                              StringRef Key,
                                              ArrayRef<StringRef> Allowed) {
  std::optional<std::string> Value = scalar(N, Key);
  if (!Value)
    return std::nullopt;
  if (is_contained(Allowed, *Value))
    return Value;
  std::string Suggestion = closestWord(*Value, Allowed);
  Diags.error(
      N,
      "'" + Key + "' must be one of " + join(Allowed, ", ") + ", not '" +
          printable(*Value) + "'" +
          (Suggestion.empty() ? "" : "; did you mean '" + Suggestion + "'?"),
      Diags.valueOffset(N));
  return std::nullopt;
}

} // namespace rulesfile
} // namespace apistamp
