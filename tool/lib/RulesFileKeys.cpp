//===- RulesFileKeys.cpp - The file-level keys of a rules file ------------===//
//
// The key table of a rules file and the parser of each key's value: the
// macro, the include, the file-level globs and policies, and the rules.
//
//===----------------------------------------------------------------------===//

#include "RulesKeys.h"
#include "Suggestions.h"
#include "apistamp/Glob.h"
#include "python/PythonSyntax.h"
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/IdentifierTable.h"
#include "clang/Basic/LangOptions.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace apistamp {
namespace rulesfile {

namespace {

/// Whether \p Name is a keyword of C or C++ as clang knows them (the latest
/// standards with GNU extensions: 'typeof', '__asm__'), an alternative
/// operator spelling ('and') or 'defined', which no macro may be named.
bool isKeyword(StringRef Name) {
  static const auto Languages = [] {
    std::vector<clang::LangOptions> Result(2);
    std::vector<std::string> Includes;
    llvm::Triple Host(llvm::sys::getProcessTriple());
    clang::LangOptions::setLangDefaults(Result[0], clang::Language::CXX, Host,
                                        Includes,
                                        clang::LangStandard::lang_gnucxx26);
    clang::LangOptions::setLangDefaults(Result[1], clang::Language::C, Host,
                                        Includes,
                                        clang::LangStandard::lang_gnu2y);
    Result[0].CXXOperatorNames = true; // As the driver sets it for C++.
    return Result;
  }();
  if (Name == "defined")
    return true;
  for (const clang::LangOptions &Language : Languages) {
    clang::IdentifierTable Table(Language);
    const clang::IdentifierInfo &Info = Table.get(Name);
    if (Info.isKeyword(Language) || Info.isCPlusPlusOperatorKeyword())
      return true;
  }
  return false;
}

/// Reserved to the implementation in C and C++ ([lex.name]): "__" anywhere,
/// or "_" and an uppercase letter first. _Pragma, __VA_ARGS__, __LINE__ and
/// __has_include are among them: as `macro:` they would emit a pragma or
/// expand to something other than a call.
bool isReservedIdentifier(StringRef Name) {
  return Name.contains("__") ||
         (Name.size() > 1 && Name[0] == '_' && isUpper(Name[1]));
}

} // namespace

/// Every file-level key, in the order they are listed and parsed.
const FileParser::Key FileParser::Keys[] = {
    {"version", "missing 'version: 1'", &FileParser::version},
    {"macro", nullptr, &FileParser::macro},
    {"former_macros", nullptr, &FileParser::formerMacros},
    {"former_calls", nullptr, &FileParser::formerCalls},
    {"include", nullptr, &FileParser::include},
    {"keep_events", nullptr, &FileParser::keepEvents},
    {"layers", nullptr, &FileParser::layers},
    {"pairs", nullptr, &FileParser::pairs},
    {"aliases", nullptr, &FileParser::aliases},
    {"exclude_files", nullptr, &FileParser::excludeFiles},
    {"compile_commands", nullptr, &FileParser::compileCommands},
    {"public_headers", nullptr, &FileParser::publicHeaders},
    {"public_header_edits", nullptr, &FileParser::publicHeaderEdits},
    {"public_surface", nullptr, &FileParser::publicSurface},
    {"python", nullptr, &FileParser::python},
    {"rules", "missing 'rules:' (a list of rules)", &FileParser::rules},
};

ArrayRef<FileParser::Key> FileParser::keys() { return Keys; }

std::vector<StringRef> FileParser::keyNames() {
  std::vector<StringRef> Names;
  for (const Key &K : Keys)
    Names.push_back(K.Name);
  return Names;
}

void FileParser::version(const YAML::Node &Value, RuleSet &) {
  if (!Value.IsScalar() || Value.Scalar() != "1")
    Diags.error(Value, "unsupported rules version; this apistamp reads "
                       "'version: 1'");
}

/// Why \p Name cannot be the name of an API-usage macro (under \p Key);
/// "" if it can.
static std::string macroNameError(StringRef Name, StringRef Key) {
  if (!clang::isValidAsciiIdentifier(Name))
    return "'" + Key.str() + "' must be an identifier, not '" +
           printable(Name) + "'";
  if (isKeyword(Name))
    return "'" + Key.str() + "' must name a macro, not the C or C++ keyword '" +
           Name.str() + "'";
  if (isReservedIdentifier(Name))
    return "'" + Key.str() + "' must name the project's logging macro, not '" +
           Name.str() +
           "': identifiers with '__', or '_' and a capital letter first, are "
           "reserved to the implementation (_Pragma, __VA_ARGS__, __LINE__, "
           "__has_include)";
  return "";
}

void FileParser::macro(const YAML::Node &Value, RuleSet &Rules) {
  std::optional<std::string> Name = P.scalar(Value, "macro");
  if (!Name)
    return;
  if (std::string Error = macroNameError(*Name, "macro"); !Error.empty())
    Diags.error(Value, Error, Diags.valueOffset(Value));
  else
    Rules.Macro = *Name;
}

void FileParser::formerMacros(const YAML::Node &Value, RuleSet &Rules) {
  for (auto &[Name, Item] : P.stringList(Value, "former_macros")) {
    if (std::string Error = macroNameError(Name, "former_macros");
        !Error.empty())
      Diags.error(Item, Error, Diags.valueOffset(Item));
    else if (!llvm::is_contained(Rules.FormerMacros, Name))
      Rules.FormerMacros.push_back(Name);
  }
}

void FileParser::formerCalls(const YAML::Node &Value, RuleSet &Rules) {
  for (auto &[Name, Item] : P.stringList(Value, "former_calls")) {
    if (!python::isDottedName(Name))
      Diags.error(Item,
                  "'former_calls' takes Python callees, dotted names such as "
                  "'log_usage' or 'torch._C._log_api_usage_once', not '" +
                      Name + "'",
                  Diags.valueOffset(Item));
    else if (!llvm::is_contained(Rules.FormerCalls, Name))
      Rules.FormerCalls.push_back(Name);
  }
}

void FileParser::include(const YAML::Node &Value, RuleSet &Rules) {
  if (Value.IsNull())
    return;
  std::optional<std::string> Header = P.scalar(Value, "include");
  if (!Header)
    return;
  StringRef H = StringRef(*Header).trim();
  bool Angled = H.size() > 1 && H.starts_with("<") && H.ends_with(">");
  bool Quoted = H.size() > 1 && H.starts_with("\"") && H.ends_with("\"");
  if (Angled || Quoted)
    H = H.drop_front().drop_back();
  unsigned Offset = Diags.valueOffset(Value);
  if (H.empty())
    return Diags.error(
        Value,
        Angled || Quoted
            ? "'include' names no header; omit the key to insert none"
            : "'include' is empty; omit the key to insert none",
        Offset);
  if (H.find_first_of("<>\" \t") != StringRef::npos)
    return Diags.error(Value,
                       "'include' must be a header path such as "
                       "c10/util/Logging.h or <c10/util/Logging.h>, not '" +
                           printable(*Header) + "'",
                       Offset);
  Rules.Include = H.str();
  Rules.IncludeAngled = Angled;
}

void FileParser::keepEvents(const YAML::Node &Value, RuleSet &Rules) {
  P.eachString(Value, "keep_events", &EventGlob::create, Rules.KeepEvents);
}

void FileParser::layers(const YAML::Node &Value, RuleSet &Rules) {
  if (!Value.IsMap()) {
    Diags.error(Value, "'layers' must map each layer's name to the globs of "
                       "the events it logs (a string or a list of strings)");
    return;
  }
  if (Value.size() == 0) {
    Diags.error(Value, "'layers' is empty; omit the key to declare none");
    return;
  }
  StringMap<int> FirstLine;
  for (const auto &Entry : Value) {
    if (!Entry.first.IsScalar()) {
      Diags.error(Entry.first, "a layer's name must be a string");
      continue;
    }
    std::string Name = Entry.first.Scalar();
    if (!isLayerName(Name)) {
      Diags.error(Entry.first,
                  "layer name '" + printable(Name) +
                      "' must be ASCII letters, digits, '.', '_' and '-', a "
                      "letter or a digit first");
      continue;
    }
    auto [First, New] = FirstLine.try_emplace(Name, Entry.first.Mark().line);
    if (!New) {
      Diags.error(Entry.first, "duplicate layer '" + Name +
                                   "'; the first is on line " +
                                   Twine(First->second + 1));
      continue;
    }
    EventLayer Layer;
    Layer.Name = Name;
    auto Create = [](StringRef Pattern) -> Expected<EventGlob> {
      if (Pattern.empty())
        return createStringError(inconvertibleErrorCode(),
                                 "an empty glob matches no event");
      return EventGlob::create(Pattern);
    };
    P.eachString(Entry.second, "layers: " + Name, Create, Layer.Globs);
    if (!Layer.Globs.empty())
      Rules.Layers.push_back(std::move(Layer));
  }
}

void FileParser::pairs(const YAML::Node &Value, RuleSet &Rules) {
  if (!Value.IsSequence() || Value.size() == 0) {
    Diags.error(Value, "'pairs' must be a list of entries with 'python' and "
                       "'cxx' (the globs of one API's events on each side)");
    return;
  }
  auto Create = [](StringRef Pattern) -> Expected<EventGlob> {
    if (Pattern.empty())
      return createStringError(inconvertibleErrorCode(),
                               "an empty glob matches no event");
    return EventGlob::create(Pattern);
  };
  auto Name = [](StringRef Text) -> Expected<std::string> {
    if (Text.empty() || Text.contains('.'))
      return createStringError(inconvertibleErrorCode(),
                               "'" + printable(Text.str()) +
                                   "' must be a function's name, the last "
                                   "component of its events");
    return Text.str();
  };
  for (const YAML::Node &Entry : Value) {
    if (!Entry.IsMap()) {
      Diags.error(Entry, "an entry of 'pairs' must be a mapping with "
                         "'python' and 'cxx'");
      continue;
    }
    P.checkKeys(Entry, {"python", "cxx", "python_only", "cxx_only"},
                "an entry of 'pairs'");
    EventPair Pair;
    Pair.Line = Entry.Mark().line + 1;
    Pair.Column = Entry.Mark().column + 1;
    for (auto [Key, Slot] :
         {std::pair<const char *, std::optional<EventGlob> *>{"python",
                                                              &Pair.Python},
          {"cxx", &Pair.Cxx}}) {
      YAML::Node Glob = Entry[Key];
      if (!Glob)
        Diags.error(Entry, std::string("an entry of 'pairs' needs '") + Key +
                               "' (the glob of its events on that side)");
      else
        P.oneString(Glob, Key, Create, *Slot);
    }
    if (YAML::Node Only = Entry["python_only"])
      P.eachString(Only, "python_only", Name, Pair.PythonOnly);
    if (YAML::Node Only = Entry["cxx_only"])
      P.eachString(Only, "cxx_only", Name, Pair.CxxOnly);
    if (Pair.Python && Pair.Cxx)
      Rules.Pairs.push_back(std::move(Pair));
  }
}

std::optional<EventAlias> FileParser::alias(const YAML::Node &FromNode,
                                            const YAML::Node &ToNode,
                                            StringMap<int> &FirstLine) {
  std::optional<std::string> From = P.scalar(FromNode, "aliases");
  std::optional<std::string> To = P.scalar(ToNode, "aliases");
  if (!From || !To)
    return std::nullopt;
  if (From->empty() || To->empty()) {
    Diags.error(From->empty() ? FromNode : ToNode,
                "an alias maps an old event name to the current one; "
                "neither can be empty");
    return std::nullopt;
  }
  if (StringRef(*To).find_first_of(" \t?[]{}\\") != StringRef::npos) {
    Diags.error(ToNode,
                "the current event '" + printable(*To) +
                    "' must be an event name, not a glob (a '*' may take "
                    "what the old name's '*' matched)",
                Diags.valueOffset(ToNode));
    return std::nullopt;
  }
  if (*From == *To) {
    Diags.error(FromNode, "'" + printable(*From) + "' is mapped to itself");
    return std::nullopt;
  }
  auto [First, New] = FirstLine.try_emplace(*From, FromNode.Mark().line);
  if (!New) {
    Diags.error(FromNode, "duplicate alias '" + printable(*From) +
                              "'; the first is on line " +
                              Twine(First->second + 1));
    return std::nullopt;
  }
  Expected<EventGlob> Glob = EventGlob::create(*From);
  if (!Glob) {
    Diags.error(FromNode, toString(Glob.takeError()),
                Diags.valueOffset(FromNode));
    return std::nullopt;
  }
  EventAlias Alias{std::move(*Glob), *To, unsigned(FromNode.Mark().line + 1),
                   "", ""};
  size_t Star = To->find('*');
  if (Star == std::string::npos)
    return Alias;
  StringRef Old = *From;
  size_t OldStar = Old.find('*');
  if (count(*To, '*') != 1 || count(Old, '*') != 1 ||
      Old.find_first_of("?[]{}\\") != StringRef::npos) {
    Diags.error(ToNode,
                "a '*' in the current event takes what the one '*' of "
                "the old name matched: write both with one '*' and no "
                "other glob character, such as 'torch.script.*: "
                "torch.jit.*'",
                Diags.valueOffset(ToNode, Star));
    return std::nullopt;
  }
  Alias.Prefix = Old.take_front(OldStar).str();
  Alias.Suffix = Old.drop_front(OldStar + 1).str();
  return Alias;
}

void FileParser::aliases(const YAML::Node &Value, RuleSet &Rules) {
  if (!Value.IsMap()) {
    Diags.error(Value, "'aliases' must map each old event name (or glob) to "
                       "the event it is now, such as "
                       "'lib.decode_jpeg_cuda: lib.decode_jpegs_cuda'");
    return;
  }
  if (Value.size() == 0) {
    Diags.error(Value, "'aliases' is empty; omit the key to declare none");
    return;
  }
  StringMap<int> FirstLine;
  std::vector<YAML::Node> Targets;
  for (const auto &Entry : Value)
    if (std::optional<EventAlias> Alias =
            alias(Entry.first, Entry.second, FirstLine)) {
      Targets.push_back(Entry.second);
      Rules.Aliases.push_back(std::move(*Alias));
    }
  // One step maps an old name to the current one: a chain would make the
  // event's name depend on the order of the entries (and the report and
  // the usage gate disagreed). A current event with a '*' names every
  // event between its prefix and suffix: it chains if another old name
  // may match one of them (its literal ends are compatible with these).
  auto MayMatchOneOf = [](const EventGlob &Old, StringRef To) {
    size_t Star = To.find('*');
    if (Star == StringRef::npos)
      return Old.matches(To);
    StringRef Prefix = To.take_front(Star), Suffix = To.drop_front(Star + 1);
    StringRef Pattern = Old.pattern();
    size_t First = Pattern.find_first_of("*?[]{}\\");
    if (First == StringRef::npos)
      return Pattern.size() >= Prefix.size() + Suffix.size() &&
             Pattern.starts_with(Prefix) && Pattern.ends_with(Suffix);
    StringRef Head = Pattern.take_front(First);
    StringRef Tail = Pattern.drop_front(Pattern.find_last_of("*?[]{}\\") + 1);
    return (Head.starts_with(Prefix) || Prefix.starts_with(Head)) &&
           (Tail.ends_with(Suffix) || Suffix.ends_with(Tail));
  };
  for (size_t I = 0; I < Rules.Aliases.size(); ++I) {
    const EventAlias &A = Rules.Aliases[I];
    for (const EventAlias &Other : Rules.Aliases)
      if ((&Other != &A || A.To.find('*') == std::string::npos) &&
          MayMatchOneOf(Other.From, A.To)) {
        bool Glob = A.To.find('*') != std::string::npos;
        Diags.error(Targets[I],
                    "'" + printable(A.To) +
                        (Glob ? "' names events that may be old names too "
                                "(line " +
                                    Twine(Other.Line) + " maps '" +
                                    printable(Other.From.pattern()) + "' to '" +
                                    printable(Other.To) +
                                    "'): map each old name straight to its "
                                    "current event"
                              : "' is itself an old name (line " +
                                    Twine(Other.Line) + " maps it to '" +
                                    printable(Other.To) + "'): map '" +
                                    printable(A.From.pattern()) +
                                    "' straight to the current event"),
                    Diags.valueOffset(Targets[I]));
        break;
      }
  }
}

void FileParser::excludeFiles(const YAML::Node &Value, RuleSet &Rules) {
  P.eachString(Value, "exclude_files", &PathGlob::create, Rules.ExcludeFiles);
}

void FileParser::compileCommands(const YAML::Node &Value, RuleSet &Rules) {
  if (std::optional<std::string> Dir = P.scalar(Value, "compile_commands")) {
    if (Dir->empty())
      Diags.error(Value, "'compile_commands' is empty; name the build "
                         "directory that holds compile_commands.json");
    else
      Rules.CompileCommandsDir = *Dir;
  }
}

void FileParser::publicHeaders(const YAML::Node &Value, RuleSet &Rules) {
  P.eachString(Value, "public_headers", &PathGlob::create, Rules.PublicHeaders);
}

void FileParser::publicHeaderEdits(const YAML::Node &Value, RuleSet &Rules) {
  if (std::optional<std::string> V =
          P.oneOf(Value, "public_header_edits", {"warn", "forbid", "allow"}))
    Rules.PublicHeaderEdits =
        *V == "forbid"  ? RuleSet::PublicHeaderPolicy::Forbid
        : *V == "allow" ? RuleSet::PublicHeaderPolicy::Allow
                        : RuleSet::PublicHeaderPolicy::Warn;
}

void FileParser::publicSurface(const YAML::Node &Value, RuleSet &Rules) {
  if (!Value.IsMap()) {
    Diags.error(Value, "'public_surface' must be a mapping with 'headers', "
                       "'exclude_namespaces', 'exclude_names' and "
                       "'exclude_files' (each a string or a list of strings)");
    return;
  }
  P.checkKeys(
      Value,
      {"headers", "exclude_namespaces", "exclude_names", "exclude_files"},
      "'public_surface'");
  PublicSurface &Surface = Rules.Surface;
  if (YAML::Node Headers = Value["headers"])
    P.eachString(Headers, "public_surface: headers", &PathGlob::create,
                 Surface.Headers);
  if (YAML::Node Namespaces = Value["exclude_namespaces"])
    P.eachString(Namespaces, "public_surface: exclude_namespaces",
                 &NameRegex::create, Surface.ExcludeNamespaces);
  if (YAML::Node Names = Value["exclude_names"])
    P.eachString(Names, "public_surface: exclude_names", &NameRegex::create,
                 Surface.ExcludeNames);
  if (YAML::Node Files = Value["exclude_files"])
    P.eachString(Files, "public_surface: exclude_files", &PathGlob::create,
                 Surface.ExcludeFiles);
}

void FileParser::python(const YAML::Node &Value, RuleSet &Rules) {
  if (!Value.IsMap()) {
    Diags.error(Value, "'python' must be a mapping with 'path' (the "
                       "directories under the root that are on Python's "
                       "path)");
    return;
  }
  P.checkKeys(Value, {"path"}, "'python'");
  YAML::Node Path = Value["path"];
  if (!Path)
    return;
  auto Create = [](StringRef Dir) -> Expected<std::string> {
    StringRef D = Dir.trim();
    while (D.size() > 1 && D.ends_with("/"))
      D = D.drop_back();
    if (D.empty() || D.starts_with("/") || D == ".." || D.starts_with("../") ||
        D.contains("/../") || D.ends_with("/.."))
      return createStringError(inconvertibleErrorCode(),
                               "bad Python path entry '" + printable(Dir) +
                                   "': a directory under the root, relative "
                                   "to it ('.', 'src')");
    return D.str();
  };
  std::vector<std::string> Dirs;
  P.eachString(Path, "python: path", Create, Dirs);
  if (!Dirs.empty())
    Rules.PythonPath = std::move(Dirs);
}

void FileParser::rules(const YAML::Node &Value, RuleSet &Rules) {
  StringSet<> Ids;
  if (!Value.IsSequence())
    Diags.error(Value, "'rules' must be a list of rules");
  else if (Value.size() == 0)
    Diags.error(Value,
                "'rules' is empty; a rules file needs at least one rule");
  else
    for (const YAML::Node &R : Value)
      OneRule.parse(R, Rules, Ids);
}

} // namespace rulesfile
} // namespace apistamp
