//===- Rules.cpp - Load and validate apistamp rules files -----------------===//
//
// yaml-cpp reports problems with exceptions; they are caught here and nowhere
// else, and turned into "file:line:col: error: ..." diagnostics.
//
// Three small parsers: FileParser walks the file-level keys, RuleParser the
// keys of one rule, ValueParser the shapes a value can take. Each key is
// listed once, in a table that names how its value is parsed; the tables
// drive parsing, the unknown-key suggestions and the "known keys" listings.
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

std::string listOf(ArrayRef<StringRef> Words) {
  std::string Result;
  for (StringRef W : Words)
    Result += (Result.empty() ? "" : ", ") + W.str();
  return Result;
}

/// Column offset of a scalar's text: quoted scalars start after the quote.
unsigned textOffset(const YAML::Node &N) { return N.Tag() == "!" ? 1 : 0; }

/// Collects the "path:line:col: error: ..." diagnostics of one rules file.
class Diagnostics {
public:
  Diagnostics(StringRef Path, StringRef Text) : Path(Path.str()) {
    SmallVector<StringRef, 64> Split;
    Text.split(Split, '\n');
    Lines.assign(Split.begin(), Split.end());
  }

  /// An error at \p M, \p Offset columns to the right.
  void error(const YAML::Mark &M, const Twine &Message, unsigned Offset = 0) {
    errorAt(M.line, M.column + 1 + Offset, Message);
  }
  void error(const YAML::Node &N, const Twine &Message, unsigned Offset = 0) {
    error(N.Mark(), Message, Offset);
  }
  /// An error at 0-based \p Line and 1-based \p Column.
  void errorAt(size_t Line, size_t Column, const Twine &Message) {
    Errors.push_back(Path + ":" + std::to_string(Line + 1) + ":" +
                     std::to_string(Column) + ": error: " + Message.str());
  }

  /// Line \p Line (0-based) of the file, or "".
  StringRef line(int Line) const {
    return Line >= 0 && size_t(Line) < Lines.size() ? Lines[Line] : StringRef();
  }

  bool empty() const { return Errors.empty(); }
  /// The first error alone.
  Error first() const {
    return createStringError(inconvertibleErrorCode(), Errors.front());
  }
  /// Every error, joined.
  Error all() const {
    Error All = Error::success();
    for (const std::string &Message : Errors)
      All = joinErrors(std::move(All),
                       createStringError(inconvertibleErrorCode(), Message));
    return All;
  }

private:
  std::string Path;
  std::vector<StringRef> Lines; ///< Of the rules file, for block scalars.
  std::vector<std::string> Errors;
};

/// Parsers for the shapes a value can take. Each reports what is wrong with
/// a value and then gives nothing.
class ValueParser {
public:
  explicit ValueParser(Diagnostics &Diags) : Diags(Diags) {}

  Diagnostics &Diags;

  /// Reports keys of \p Map not in \p Known, with a suggestion.
  void checkKeys(const YAML::Node &Map, ArrayRef<StringRef> Known,
                 StringRef Where);
  std::optional<std::string> scalar(const YAML::Node &N, StringRef Key);
  /// A string or a list of strings.
  std::vector<std::pair<std::string, YAML::Node>>
  stringList(const YAML::Node &N, StringRef Key);
  std::optional<std::string> oneOf(const YAML::Node &N, StringRef Key,
                                   ArrayRef<StringRef> Allowed);

  /// A string or list of strings, each made by \p Create into \p Out.
  template <typename T, typename CreateFn>
  void eachString(const YAML::Node &N, StringRef Key, CreateFn Create,
                  std::vector<T> &Out) {
    for (auto &[Text, Item] : stringList(N, Key)) {
      Expected<T> Made = Create(Text);
      if (Made)
        Out.push_back(std::move(*Made));
      else
        Diags.error(Item, toString(Made.takeError()), textOffset(Item));
    }
  }
  /// One string made by \p Create into \p Out.
  template <typename T, typename CreateFn>
  void oneString(const YAML::Node &N, StringRef Key, CreateFn Create,
                 std::optional<T> &Out) {
    if (std::optional<std::string> Text = scalar(N, Key)) {
      Expected<T> Made = Create(*Text);
      if (Made)
        Out = std::move(*Made);
      else
        Diags.error(N, toString(Made.takeError()), textOffset(N));
    }
  }
};

void ValueParser::checkKeys(const YAML::Node &Map, ArrayRef<StringRef> Known,
                            StringRef Where) {
  for (const auto &Entry : Map) {
    if (!Entry.first.IsScalar()) {
      Diags.error(Entry.first, "keys must be plain words");
      continue;
    }
    std::string Key = Entry.first.Scalar();
    if (is_contained(Known, Key))
      continue;
    std::string Suggestion = closestWord(Key, Known);
    Diags.error(Entry.first,
                "unknown key '" + Key + "' in " + Where +
                    (Suggestion.empty()
                         ? "; known keys: " + listOf(Known)
                         : "; did you mean '" + Suggestion + "'?"));
  }
}

std::optional<std::string> ValueParser::scalar(const YAML::Node &N,
                                               StringRef Key) {
  if (!N.IsScalar()) {
    Diags.error(N, "'" + Key + "' must be a string");
    return std::nullopt;
  }
  return N.Scalar();
}

std::vector<std::pair<std::string, YAML::Node>>
ValueParser::stringList(const YAML::Node &N, StringRef Key) {
  std::vector<std::pair<std::string, YAML::Node>> Result;
  if (N.IsScalar()) {
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
    else
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
      "'" + Key + "' must be one of " + listOf(Allowed) + ", not '" + *Value +
          "'" +
          (Suggestion.empty() ? "" : "; did you mean '" + Suggestion + "'?"),
      textOffset(N));
  return std::nullopt;
}

/// Parses one rule: each key through the parser the key table names.
class RuleParser {
public:
  explicit RuleParser(ValueParser &P) : P(P), Diags(P.Diags) {}

  /// Parses \p N into a rule of \p Rules; \p Ids are the ids seen so far.
  void parse(const YAML::Node &N, RuleSet &Rules, StringSet<> &Ids);

private:
  /// Parses the value of \p Key into \p R; \p Map is the whole rule.
  using KeyParser = void (RuleParser::*)(StringRef Key, const YAML::Node &Value,
                                         const YAML::Node &Map, Rule &R);
  /// A key a rule may have.
  struct Key {
    StringRef Name;
    /// Selects definitions, so `matcher:` (which does all the selecting)
    /// cannot be combined with it.
    bool Selects;
    /// Null for 'id', which is parsed first: it names the rule in messages.
    KeyParser Parse;
  };
  static const Key Keys[];
  static std::vector<StringRef> keyNames();

  /// A string or list of strings, each made by \p Create into \p Field.
  template <auto Field, auto Create>
  void strings(StringRef Key, const YAML::Node &Value, const YAML::Node &,
               Rule &R) {
    P.eachString(Value, Key, Create, R.*Field);
  }
  /// One regular expression into \p Field.
  template <auto Field>
  void regex(StringRef Key, const YAML::Node &Value, const YAML::Node &,
             Rule &R) {
    P.oneString(Value, Key, NameRegex::create, R.*Field);
  }
  void where(StringRef Key, const YAML::Node &Value, const YAML::Node &,
             Rule &R);
  void derivedFrom(StringRef Key, const YAML::Node &Value, const YAML::Node &,
                   Rule &R);
  void linkage(StringRef Key, const YAML::Node &Value, const YAML::Node &,
               Rule &R);
  void access(StringRef Key, const YAML::Node &Value, const YAML::Node &,
              Rule &R);
  void matcher(StringRef Key, const YAML::Node &Value, const YAML::Node &Map,
               Rule &R);
  void event(StringRef Key, const YAML::Node &Value, const YAML::Node &,
             Rule &R);

  void id(const YAML::Node &N, Rule &R, StringSet<> &Ids);

  ValueParser &P;
  Diagnostics &Diags;
};

/// Every key of a rule, in the order they are listed and parsed.
const RuleParser::Key RuleParser::Keys[] = {
    {"id", false, nullptr},
    {"where", true, &RuleParser::where},
    {"files", false, &RuleParser::strings<&Rule::Files, &PathGlob::create>},
    {"exclude_files", false,
     &RuleParser::strings<&Rule::ExcludeFiles, &PathGlob::create>},
    {"declared_in", true,
     &RuleParser::strings<&Rule::DeclaredIn, &PathGlob::create>},
    {"namespace", true,
     &RuleParser::strings<&Rule::Namespaces, &NamespacePattern::create>},
    {"name", true, &RuleParser::regex<&Rule::Name>},
    {"exclude_names", true,
     &RuleParser::strings<&Rule::ExcludeNames, &NameRegex::create>},
    {"class", true, &RuleParser::regex<&Rule::Class>},
    {"derived_from", true, &RuleParser::derivedFrom},
    {"linkage", true, &RuleParser::linkage},
    {"access", true, &RuleParser::access},
    {"event", false, &RuleParser::event},
    {"matcher", false, &RuleParser::matcher},
};

std::vector<StringRef> RuleParser::keyNames() {
  std::vector<StringRef> Names;
  for (const Key &K : Keys)
    Names.push_back(K.Name);
  return Names;
}

void RuleParser::where(StringRef Key, const YAML::Node &Value,
                       const YAML::Node &, Rule &R) {
  if (std::optional<std::string> Kind =
          P.oneOf(Value, Key, {"function", "method", "constructor"}))
    R.Where = *Kind == "function" ? DeclKind::Function
              : *Kind == "method" ? DeclKind::Method
                                  : DeclKind::Constructor;
}

void RuleParser::derivedFrom(StringRef Key, const YAML::Node &Value,
                             const YAML::Node &, Rule &R) {
  if (std::optional<std::string> Base = P.scalar(Value, Key)) {
    StringRef Name = StringRef(*Base).trim();
    Name.consume_front("::");
    if (Name.empty())
      Diags.error(Value,
                  "'derived_from' must name a class, e.g. 'torch::nn::Module'");
    else
      R.DerivedFrom = Name.str();
  }
}

void RuleParser::linkage(StringRef Key, const YAML::Node &Value,
                         const YAML::Node &, Rule &R) {
  if (std::optional<std::string> V = P.oneOf(Value, Key, {"external", "any"}))
    R.ExternalLinkageOnly = *V == "external";
}

void RuleParser::access(StringRef Key, const YAML::Node &Value,
                        const YAML::Node &, Rule &R) {
  if (std::optional<std::string> V = P.oneOf(Value, Key, {"public", "any"}))
    R.PublicOnly = *V == "public";
}

void RuleParser::event(StringRef Key, const YAML::Node &Value,
                       const YAML::Node &, Rule &R) {
  if (std::optional<std::string> Text = P.scalar(Value, Key)) {
    size_t Column = 0;
    if (Expected<EventTemplate> T = EventTemplate::parse(*Text, Column))
      R.Event = std::move(*T);
    else
      Diags.error(Value, toString(T.takeError()), textOffset(Value) + Column);
  }
}

void RuleParser::matcher(StringRef Key, const YAML::Node &M,
                         const YAML::Node &Map, Rule &R) {
  std::optional<std::string> Code = P.scalar(M, Key);
  if (!Code)
    return;
  for (const RuleParser::Key &K : Keys)
    if (K.Selects)
      if (YAML::Node Replaced = Map[K.Name.str()])
        Diags.error(Replaced, "'" + K.Name +
                                  "' cannot be combined with 'matcher', which "
                                  "does all the selecting; say it in the "
                                  "matcher (only 'files', 'exclude_files' and "
                                  "'event' apply too)");
  MatcherErrorPosition At;
  Expected<std::shared_ptr<const CompiledMatcher>> Compiled =
      parseFunctionMatcher(*Code, At);
  if (Compiled) {
    R.Matcher = std::move(*Compiled);
    return;
  }
  YAML::Mark Mark = M.Mark();
  StringRef MarkLine = Diags.line(Mark.line);
  bool Block = Mark.column >= 0 && size_t(Mark.column) < MarkLine.size() &&
               (MarkLine[Mark.column] == '|' || MarkLine[Mark.column] == '>');
  if (!Block || At.Line == 1) {
    unsigned Offset = Block ? 0 : textOffset(M) + At.Column - 1;
    Diags.error(M, toString(Compiled.takeError()), Offset);
    return;
  }
  // A literal block: the expression's line N is the file's line N after the
  // indicator's, and its columns start after the block's indentation.
  StringRef First = Diags.line(Mark.line + 1);
  size_t Indent = First.size() - First.ltrim().size();
  Diags.errorAt(Mark.line + At.Line, Indent + At.Column,
                toString(Compiled.takeError()));
}

void RuleParser::id(const YAML::Node &N, Rule &R, StringSet<> &Ids) {
  YAML::Node IdNode = N["id"];
  if (!IdNode) {
    Diags.error(N, "rule has no 'id'");
  } else if (std::optional<std::string> Id = P.scalar(IdNode, "id")) {
    R.Id = *Id;
    if (R.Id.empty())
      Diags.error(IdNode, "'id' must not be empty");
    else if (!Ids.insert(R.Id).second)
      Diags.error(IdNode, "duplicate rule id '" + R.Id + "'");
  }
}

void RuleParser::parse(const YAML::Node &N, RuleSet &Rules, StringSet<> &Ids) {
  if (!N.IsMap()) {
    Diags.error(N, "each rule must be a mapping with at least an 'id'");
    return;
  }
  Rule R;
  R.Line = N.Mark().line + 1;
  id(N, R, Ids);
  P.checkKeys(N, keyNames(), "rule '" + R.Id + "'");
  for (const Key &K : Keys)
    if (K.Parse)
      if (YAML::Node Value = N[K.Name.str()])
        (this->*K.Parse)(K.Name, Value, N, R);
  Rules.Rules.push_back(std::move(R));
}

/// Parses a whole rules file: the file-level keys through the key table.
class FileParser {
public:
  FileParser(StringRef Path, StringRef Text)
      : Path(Path), Text(Text), Diags(Path, Text), P(Diags), OneRule(P) {}

  Expected<RuleSet> parse();

private:
  /// Parses the value of a file-level key into \p Rules.
  using KeyParser = void (FileParser::*)(const YAML::Node &Value,
                                         RuleSet &Rules);
  /// A key a rules file may have.
  struct Key {
    StringRef Name;
    /// The error when the key is absent, or null if it is optional.
    const char *Missing;
    KeyParser Parse;
  };
  static const Key Keys[];

  void version(const YAML::Node &Value, RuleSet &Rules);
  void macro(const YAML::Node &Value, RuleSet &Rules);
  void include(const YAML::Node &Value, RuleSet &Rules);
  void rules(const YAML::Node &Value, RuleSet &Rules);

  StringRef Path, Text;
  Diagnostics Diags;
  ValueParser P;
  RuleParser OneRule;
};

/// Every file-level key, in the order they are listed and parsed.
const FileParser::Key FileParser::Keys[] = {
    {"version", "missing 'version: 1'", &FileParser::version},
    {"macro", nullptr, &FileParser::macro},
    {"include", nullptr, &FileParser::include},
    {"rules", "missing 'rules:' (a list of rules)", &FileParser::rules},
};

void FileParser::version(const YAML::Node &Value, RuleSet &) {
  if (!Value.IsScalar() || Value.Scalar() != "1")
    Diags.error(Value, "unsupported rules version; this apistamp reads "
                       "'version: 1'");
}

void FileParser::macro(const YAML::Node &Value, RuleSet &Rules) {
  if (std::optional<std::string> Name = P.scalar(Value, "macro")) {
    if (isIdentifier(*Name))
      Rules.Macro = *Name;
    else
      Diags.error(Value, "'macro' must be an identifier, not '" + *Name + "'",
                  textOffset(Value));
  }
}

void FileParser::include(const YAML::Node &Value, RuleSet &Rules) {
  if (Value.IsNull())
    return;
  std::optional<std::string> Header = P.scalar(Value, "include");
  if (!Header)
    return;
  StringRef H = StringRef(*Header).trim();
  if (H.starts_with("<") && H.ends_with(">")) {
    Rules.IncludeAngled = true;
    H = H.drop_front().drop_back();
  } else if (H.starts_with("\"") && H.ends_with("\"") && H.size() > 1) {
    H = H.drop_front().drop_back();
  }
  if (H.find_first_of("<>\" \t") != StringRef::npos)
    Diags.error(Value,
                "'include' must be a header path such as "
                "c10/util/Logging.h or <c10/util/Logging.h>",
                textOffset(Value));
  Rules.Include = H.str();
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

Expected<RuleSet> FileParser::parse() {
  RuleSet Rules;
  Rules.Path = Path.str();
  Rules.TextHash = xxh3_64bits(Text);
  YAML::Node Doc;
  try {
    Doc = YAML::Load(Text.str());
  } catch (const YAML::Exception &E) {
    Diags.error(E.mark, E.msg);
    return Diags.first();
  }
  if (!Doc.IsMap()) {
    Diags.error(Doc.Mark().is_null() ? YAML::Mark() : Doc.Mark(),
                "a rules file is a mapping with 'version: 1' and 'rules:'");
    return Diags.first();
  }
  try {
    std::vector<StringRef> Names;
    for (const Key &K : Keys)
      Names.push_back(K.Name);
    P.checkKeys(Doc, Names, "the rules file");
    for (const Key &K : Keys) {
      if (YAML::Node Value = Doc[K.Name.str()])
        (this->*K.Parse)(Value, Rules);
      else if (K.Missing)
        Diags.error(Doc, K.Missing);
    }
  } catch (const YAML::Exception &E) {
    Diags.error(E.mark, E.msg);
  }
  if (!Diags.empty())
    return Diags.all();
  return Rules;
}

} // namespace

Expected<RuleSet> parseRules(StringRef Text, StringRef Path) {
  return FileParser(Path, Text).parse();
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
