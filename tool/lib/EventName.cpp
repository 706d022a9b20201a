//===- EventName.cpp - Event name templates -------------------------------===//

#include "apistamp/EventName.h"
#include "Suggestions.h"
#include "apistamp/Selection.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace apistamp {

ArrayRef<StringRef> EventTemplate::placeholders() {
  static const StringRef Names[] = {"qualified", "namespace", "class",
                                    "name",      "path",      "file",
                                    "signature", "module"};
  return Names;
}

Expected<EventTemplate> EventTemplate::parse(StringRef Text,
                                             size_t &ErrorColumn) {
  auto Fail = [&](size_t Column, const Twine &Message) {
    ErrorColumn = Column;
    return createStringError(inconvertibleErrorCode(), Message);
  };
  if (Text.size() > MaxLength)
    return Fail(0, "event template is " + Twine(Text.size()) +
                       " bytes long; at most " + Twine(MaxLength) +
                       " are allowed");
  if (size_t Bad = findUnprintable(Text); Bad != StringRef::npos) {
    DecodedChar C = decodeUTF8(Text.substr(Bad));
    if (!C.Valid)
      return Fail(Bad, "event template is not valid UTF-8 (found byte '" +
                           printable(Text.substr(Bad, 1)) + "')");
    return Fail(Bad, "event template may not contain control characters "
                     "(found '" +
                         printable(Text.substr(Bad, C.Length)) + "')");
  }
  if (size_t Bad = Text.find_first_of("\"\\"); Bad != StringRef::npos)
    return Fail(Bad, "event template may not contain quotes or backslashes");
  EventTemplate Result;
  Result.Text = Text.str();
  Result.Pieces.clear();
  if (Text.trim().empty())
    return Fail(0, "event template is empty");
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t Open = Text.find_first_of("{}", Pos);
    if (Open == StringRef::npos) {
      Result.Pieces.push_back({false, Text.substr(Pos).str()});
      break;
    }
    if (Text[Open] == '}')
      return Fail(Open,
                  "unmatched '}' in event template '" + printable(Text) + "'");
    if (Open > Pos)
      Result.Pieces.push_back({false, Text.slice(Pos, Open).str()});
    size_t Close = Text.find('}', Open);
    if (Close == StringRef::npos)
      return Fail(Open, "unterminated placeholder in event template '" +
                            printable(Text) + "'");
    StringRef Name = Text.slice(Open + 1, Close);
    if (!is_contained(placeholders(), Name)) {
      std::string Message =
          "unknown placeholder '{" + printable(Name) + "}' in event template";
      std::string Suggestion = closestWord(Name, placeholders());
      if (!Suggestion.empty())
        Message += "; did you mean '{" + Suggestion + "}'?";
      else
        Message += "; known: {qualified} {namespace} {class} {name} {path} "
                   "{file} {signature}";
      return Fail(Open, Message);
    }
    Result.Pieces.push_back({true, Name.str()});
    Pos = Close + 1;
  }
  return Result;
}

static std::string placeholderValue(StringRef Name, const DeclFacts &Facts) {
  if (Name == "name")
    return Facts.Name;
  if (Name == "signature")
    return "(" + join(Facts.ParameterTypes, ", ") + ")";
  if (Name == "namespace")
    return join(Facts.Namespaces, ".");
  if (Name == "class")
    return join(Facts.Classes, ".");
  if (Name == "module")
    return Facts.Module;
  if (Name == "qualified") {
    std::vector<std::string> Parts = Facts.Namespaces;
    if (!Facts.Module.empty())
      Parts.insert(Parts.begin(), Facts.Module);
    append_range(Parts, Facts.Classes);
    // A constructor is named after its class, which Classes already ends in.
    if (Facts.Kind != DeclKind::Constructor || Facts.Classes.empty())
      Parts.push_back(Facts.Name);
    return join(Parts, ".");
  }
  StringRef Path = Facts.RelativePath;
  if (Name == "file")
    return sys::path::stem(Path, sys::path::Style::posix).str();
  assert(Name == "path" && "placeholder not validated");
  SmallString<128> WithoutExtension(Path);
  sys::path::replace_extension(WithoutExtension, "", sys::path::Style::posix);
  std::string Dotted(WithoutExtension.str());
  std::replace(Dotted.begin(), Dotted.end(), '/', '.');
  return Dotted;
}

std::string EventTemplate::expand(const DeclFacts &Facts) const {
  std::string Event;
  for (const Piece &P : Pieces)
    Event += P.IsPlaceholder ? placeholderValue(P.Text, Facts) : P.Text;
  return Event;
}

} // namespace apistamp
