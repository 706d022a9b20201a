//===- Rules.cpp - Load and validate apistamp rules files -----------------===//
//
// yaml-cpp reports problems with exceptions; they are caught here and nowhere
// else, and turned into "file:line:col: error: ..." diagnostics.
//
//===----------------------------------------------------------------------===//

#include "apistamp/Rules.h"
#include "Matcher.h"
#include "Suggestions.h"
#include "apistamp/Paths.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include <yaml-cpp/yaml.h>

using namespace llvm;

namespace apistamp {

StringRef kindName(DeclKind Kind) {
  switch (Kind) {
  case DeclKind::Function:
    return "function";
  case DeclKind::Method:
    return "method";
  case DeclKind::Constructor:
    return "constructor";
  }
  llvm_unreachable("unknown DeclKind");
}

Expected<NameRegex> NameRegex::create(StringRef Pattern) {
  NameRegex Result;
  Result.Pattern = Pattern.str();
  Result.Compiled = std::make_shared<Regex>("^(" + Pattern.str() + ")$");
  std::string Error;
  if (!Result.Compiled->isValid(Error))
    return createStringError(inconvertibleErrorCode(),
                             "bad regular expression '" + Pattern +
                                 "': " + Error);
  return Result;
}

bool NameRegex::matches(StringRef Text) const { return Compiled->match(Text); }

static bool isIdentifier(StringRef S) {
  if (S.empty() || !(isAlpha(S[0]) || S[0] == '_'))
    return false;
  return all_of(S, [](char C) { return isAlnum(C) || C == '_'; });
}

Expected<NamespacePattern> NamespacePattern::create(StringRef Pattern) {
  NamespacePattern Result;
  Result.Pattern = Pattern.str();
  StringRef Text = Pattern.trim();
  Text.consume_front("::");
  if (Text == "**") {
    Result.Nested = true;
    return Result;
  }
  if (Text.consume_back("::**"))
    Result.Nested = true;
  SmallVector<StringRef, 4> Parts;
  if (!Text.empty())
    Text.split(Parts, "::");
  for (StringRef Part : Parts)
    if (!isIdentifier(Part) && Part != "(anonymous namespace)")
      return createStringError(
          inconvertibleErrorCode(),
          "bad namespace '" + Pattern +
              "': expected 'a::b', 'a::b::**' (it or any nested namespace), "
              "'::' (global) or '**' (any)");
  Result.Prefix = Text.str();
  return Result;
}

bool NamespacePattern::matches(StringRef Namespace) const {
  if (!Nested)
    return Namespace == Prefix;
  if (Prefix.empty())
    return true;
  return Namespace == Prefix ||
         (Namespace.starts_with(Prefix) &&
          Namespace.substr(Prefix.size()).starts_with("::"));
}

namespace {

/// Collects diagnostics while walking the YAML document.
class RulesParser {
public:
  explicit RulesParser(StringRef Path) : Path(Path.str()) {}

  Expected<RuleSet> parse(StringRef Text);

private:
  void error(const YAML::Mark &M, const Twine &Message, unsigned Offset = 0) {
    Errors.push_back(Path + ":" + std::to_string(M.line + 1) + ":" +
                     std::to_string(M.column + 1 + Offset) +
                     ": error: " + Message.str());
  }
  void error(const YAML::Node &N, const Twine &Message, unsigned Offset = 0) {
    error(N.Mark(), Message, Offset);
  }

  /// Reports keys of \p Map not in \p Known, with a suggestion.
  void checkKeys(const YAML::Node &Map, ArrayRef<StringRef> Known,
                 StringRef Where);
  std::optional<std::string> scalar(const YAML::Node &N, StringRef Key);
  /// A string or a list of strings.
  std::vector<std::pair<std::string, YAML::Node>>
  stringList(const YAML::Node &N, StringRef Key);
  std::optional<std::string> oneOf(const YAML::Node &N, StringRef Key,
                                   ArrayRef<StringRef> Allowed);
  void parseRule(const YAML::Node &N, RuleSet &Rules, StringSet<> &Ids);
  void parseMatcher(const YAML::Node &N, Rule &R);

  std::string Path;
  std::vector<StringRef> Lines; ///< Of the rules file, for block scalars.
  std::vector<std::string> Errors;
};

std::string listOf(ArrayRef<StringRef> Words) {
  std::string Result;
  for (StringRef W : Words)
    Result += (Result.empty() ? "" : ", ") + W.str();
  return Result;
}

/// Column offset of a scalar's text: quoted scalars start after the quote.
unsigned textOffset(const YAML::Node &N) { return N.Tag() == "!" ? 1 : 0; }

void RulesParser::checkKeys(const YAML::Node &Map, ArrayRef<StringRef> Known,
                            StringRef Where) {
  for (const auto &Entry : Map) {
    if (!Entry.first.IsScalar()) {
      error(Entry.first, "keys must be plain words");
      continue;
    }
    std::string Key = Entry.first.Scalar();
    if (is_contained(Known, Key))
      continue;
    std::string Suggestion = closestWord(Key, Known);
    error(Entry.first,
          "unknown key '" + Key + "' in " + Where +
              (Suggestion.empty() ? "; known keys: " + listOf(Known)
                                  : "; did you mean '" + Suggestion + "'?"));
  }
}

std::optional<std::string> RulesParser::scalar(const YAML::Node &N,
                                               StringRef Key) {
  if (!N.IsScalar()) {
    error(N, "'" + Key + "' must be a string");
    return std::nullopt;
  }
  return N.Scalar();
}

std::vector<std::pair<std::string, YAML::Node>>
RulesParser::stringList(const YAML::Node &N, StringRef Key) {
  std::vector<std::pair<std::string, YAML::Node>> Result;
  if (N.IsScalar()) {
    Result.emplace_back(N.Scalar(), N);
    return Result;
  }
  if (!N.IsSequence()) {
    error(N, "'" + Key + "' must be a string or a list of strings");
    return Result;
  }
  for (const YAML::Node &Item : N) {
    if (!Item.IsScalar())
      error(Item, "'" + Key + "' must be a string or a list of strings");
    else
      Result.emplace_back(Item.Scalar(), Item);
  }
  if (Result.empty() && N.size() == 0)
    error(N, "'" + Key + "' is an empty list; omit the key to not filter");
  return Result;
}

std::optional<std::string> RulesParser::oneOf(const YAML::Node &N,
                                              StringRef Key,
                                              ArrayRef<StringRef> Allowed) {
  std::optional<std::string> Value = scalar(N, Key);
  if (!Value)
    return std::nullopt;
  if (is_contained(Allowed, *Value))
    return Value;
  std::string Suggestion = closestWord(*Value, Allowed);
  error(N,
        "'" + Key + "' must be one of " + listOf(Allowed) + ", not '" + *Value +
            "'" +
            (Suggestion.empty() ? "" : "; did you mean '" + Suggestion + "'?"),
        textOffset(N));
  return std::nullopt;
}

const StringRef RuleKeys[] = {
    "id",        "where",  "files",         "exclude_files", "declared_in",
    "namespace", "name",   "exclude_names", "class",         "derived_from",
    "linkage",   "access", "event",         "matcher"};

/// Keys that `matcher:` replaces.
const StringRef SelectionKeys[] = {"where",        "declared_in",   "namespace",
                                   "name",         "exclude_names", "class",
                                   "derived_from", "linkage",       "access"};

void RulesParser::parseMatcher(const YAML::Node &N, Rule &R) {
  YAML::Node M = N["matcher"];
  std::optional<std::string> Code = scalar(M, "matcher");
  if (!Code)
    return;
  for (StringRef Key : SelectionKeys)
    if (YAML::Node Replaced = N[Key.str()])
      error(Replaced, "'" + Key +
                          "' cannot be combined with 'matcher', which does "
                          "all the selecting; say it in the matcher (only "
                          "'files', 'exclude_files' and 'event' apply too)");
  MatcherErrorPosition At;
  Expected<std::shared_ptr<const CompiledMatcher>> Compiled =
      parseFunctionMatcher(*Code, At);
  if (Compiled) {
    R.Matcher = std::move(*Compiled);
    return;
  }
  YAML::Mark Mark = M.Mark();
  StringRef MarkLine = Mark.line >= 0 && size_t(Mark.line) < Lines.size()
                           ? Lines[Mark.line]
                           : StringRef();
  bool Block = Mark.column >= 0 && size_t(Mark.column) < MarkLine.size() &&
               (MarkLine[Mark.column] == '|' || MarkLine[Mark.column] == '>');
  if (!Block || At.Line == 1) {
    unsigned Offset = Block ? 0 : textOffset(M) + At.Column - 1;
    error(M, toString(Compiled.takeError()), Offset);
    return;
  }
  // A literal block: the expression's line N is the file's line N after the
  // indicator's, and its columns start after the block's indentation.
  size_t Line = Mark.line + At.Line;
  StringRef First =
      size_t(Mark.line + 1) < Lines.size() ? Lines[Mark.line + 1] : "";
  size_t Indent = First.size() - First.ltrim().size();
  Errors.push_back(Path + ":" + std::to_string(Line + 1) + ":" +
                   std::to_string(Indent + At.Column) +
                   ": error: " + toString(Compiled.takeError()));
}

void RulesParser::parseRule(const YAML::Node &N, RuleSet &Rules,
                            StringSet<> &Ids) {
  if (!N.IsMap()) {
    error(N, "each rule must be a mapping with at least an 'id'");
    return;
  }
  Rule R;
  R.Line = N.Mark().line + 1;
  YAML::Node IdNode = N["id"];
  if (!IdNode) {
    error(N, "rule has no 'id'");
  } else if (std::optional<std::string> Id = scalar(IdNode, "id")) {
    R.Id = *Id;
    if (R.Id.empty())
      error(IdNode, "'id' must not be empty");
    else if (!Ids.insert(R.Id).second)
      error(IdNode, "duplicate rule id '" + R.Id + "'");
  }
  std::string Where = "rule '" + R.Id + "'";
  checkKeys(N, RuleKeys, Where);

  if (YAML::Node W = N["where"])
    if (std::optional<std::string> Kind =
            oneOf(W, "where", {"function", "method", "constructor"}))
      R.Where = *Kind == "function" ? DeclKind::Function
                : *Kind == "method" ? DeclKind::Method
                                    : DeclKind::Constructor;
  // A string or list of strings, each compiled by Create into Out.
  auto EachString = [&](StringRef Key, auto Create, auto &Out) {
    if (YAML::Node Node = N[Key.str()])
      for (auto &[Text, Item] : stringList(Node, Key)) {
        auto Compiled = Create(Text);
        if (Compiled)
          Out.push_back(std::move(*Compiled));
        else
          error(Item, toString(Compiled.takeError()), textOffset(Item));
      }
  };
  EachString("files", PathGlob::create, R.Files);
  EachString("exclude_files", PathGlob::create, R.ExcludeFiles);
  EachString("declared_in", PathGlob::create, R.DeclaredIn);
  EachString("namespace", NamespacePattern::create, R.Namespaces);
  EachString("exclude_names", NameRegex::create, R.ExcludeNames);
  auto OneRegex = [&](StringRef Key, std::optional<NameRegex> &Out) {
    if (YAML::Node Node = N[Key.str()])
      if (std::optional<std::string> Text = scalar(Node, Key)) {
        if (Expected<NameRegex> Re = NameRegex::create(*Text))
          Out = std::move(*Re);
        else
          error(Node, toString(Re.takeError()), textOffset(Node));
      }
  };
  OneRegex("name", R.Name);
  OneRegex("class", R.Class);
  if (YAML::Node D = N["derived_from"])
    if (std::optional<std::string> Base = scalar(D, "derived_from")) {
      StringRef Name = StringRef(*Base).trim();
      Name.consume_front("::");
      if (Name.empty())
        error(D, "'derived_from' must name a class, e.g. 'torch::nn::Module'");
      else
        R.DerivedFrom = Name.str();
    }
  if (YAML::Node L = N["linkage"])
    if (std::optional<std::string> V = oneOf(L, "linkage", {"external", "any"}))
      R.ExternalLinkageOnly = *V == "external";
  if (YAML::Node A = N["access"])
    if (std::optional<std::string> V = oneOf(A, "access", {"public", "any"}))
      R.PublicOnly = *V == "public";
  if (N["matcher"])
    parseMatcher(N, R);
  if (YAML::Node E = N["event"])
    if (std::optional<std::string> Text = scalar(E, "event")) {
      size_t Column = 0;
      if (Expected<EventTemplate> T = EventTemplate::parse(*Text, Column))
        R.Event = std::move(*T);
      else
        error(E, toString(T.takeError()), textOffset(E) + Column);
    }
  Rules.Rules.push_back(std::move(R));
}

Expected<RuleSet> RulesParser::parse(StringRef Text) {
  RuleSet Rules;
  Rules.Path = Path;
  Rules.TextHash = xxh3_64bits(Text);
  SmallVector<StringRef, 64> Split;
  Text.split(Split, '\n');
  Lines.assign(Split.begin(), Split.end());
  YAML::Node Doc;
  try {
    Doc = YAML::Load(Text.str());
  } catch (const YAML::Exception &E) {
    error(E.mark, E.msg);
    return createStringError(inconvertibleErrorCode(), Errors.front());
  }
  if (!Doc.IsMap()) {
    error(Doc.Mark().is_null() ? YAML::Mark() : Doc.Mark(),
          "a rules file is a mapping with 'version: 1' and 'rules:'");
    return createStringError(inconvertibleErrorCode(), Errors.front());
  }
  try {
    checkKeys(Doc, {"version", "macro", "include", "rules"}, "the rules file");
    YAML::Node Version = Doc["version"];
    if (!Version)
      error(Doc, "missing 'version: 1'");
    else if (!Version.IsScalar() || Version.Scalar() != "1")
      error(Version, "unsupported rules version; this apistamp reads "
                     "'version: 1'");
    if (YAML::Node Macro = Doc["macro"])
      if (std::optional<std::string> Name = scalar(Macro, "macro")) {
        if (isIdentifier(*Name))
          Rules.Macro = *Name;
        else
          error(Macro, "'macro' must be an identifier, not '" + *Name + "'",
                textOffset(Macro));
      }
    if (YAML::Node Include = Doc["include"])
      if (!Include.IsNull())
        if (std::optional<std::string> Header = scalar(Include, "include")) {
          StringRef H = StringRef(*Header).trim();
          if (H.starts_with("<") && H.ends_with(">")) {
            Rules.IncludeAngled = true;
            H = H.drop_front().drop_back();
          } else if (H.starts_with("\"") && H.ends_with("\"") && H.size() > 1) {
            H = H.drop_front().drop_back();
          }
          if (H.find_first_of("<>\" \t") != StringRef::npos)
            error(Include,
                  "'include' must be a header path such as "
                  "c10/util/Logging.h or <c10/util/Logging.h>",
                  textOffset(Include));
          Rules.Include = H.str();
        }
    YAML::Node RuleList = Doc["rules"];
    StringSet<> Ids;
    if (!RuleList)
      error(Doc, "missing 'rules:' (a list of rules)");
    else if (!RuleList.IsSequence())
      error(RuleList, "'rules' must be a list of rules");
    else if (RuleList.size() == 0)
      error(RuleList, "'rules' is empty; a rules file needs at least one rule");
    else
      for (const YAML::Node &R : RuleList)
        parseRule(R, Rules, Ids);
  } catch (const YAML::Exception &E) {
    error(E.mark, E.msg);
  }
  if (!Errors.empty()) {
    Error All = Error::success();
    for (const std::string &Message : Errors)
      All = joinErrors(std::move(All),
                       createStringError(inconvertibleErrorCode(), Message));
    return std::move(All);
  }
  return Rules;
}

} // namespace

Expected<RuleSet> parseRules(StringRef Text, StringRef Path) {
  return RulesParser(Path).parse(Text);
}

Expected<RuleSet> loadRules(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return createStringError(Buffer.getError(),
                             "error: cannot read rules file '" + Path +
                                 "': " + Buffer.getError().message());
  Expected<RuleSet> Rules = parseRules((*Buffer)->getBuffer(), Path);
  if (!Rules)
    return Rules.takeError();
  Rules->Path = canonicalPath(Path);
  Rules->Root = sys::path::parent_path(Rules->Path).str();
  return Rules;
}

std::string findRulesFileFor(StringRef File) {
  SmallString<256> Dir(File);
  sys::fs::make_absolute(Dir);
  sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  if (!sys::fs::is_directory(Dir))
    sys::path::remove_filename(Dir);
  for (StringRef D = Dir; !D.empty(); D = sys::path::parent_path(D)) {
    SmallString<256> Candidate(D);
    sys::path::append(Candidate, ".apistamp.yaml");
    if (sys::fs::is_regular_file(Candidate))
      return std::string(Candidate);
  }
  return "";
}

} // namespace apistamp
