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
#include "clang/Basic/CharInfo.h"
#include "clang/Basic/IdentifierTable.h"
#include "clang/Basic/LangOptions.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

using namespace llvm;

namespace apistamp {

/// Largest rules file read, in bytes; rules files are written by hand.
constexpr size_t MaxRulesFileSize = 1 << 20;

/// Bytes read from a rules file at a time.
constexpr size_t ReadChunkSize = 1 << 16;

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
                             "bad regular expression '" + printable(Pattern) +
                                 "': " + Error);
  return Result;
}

bool NameRegex::matches(StringRef Text) const { return Compiled->match(Text); }

/// Whether \p Name is a keyword of C or C++ as clang knows them (the latest
/// standards with GNU extensions: 'typeof', '__asm__'), an alternative
/// operator spelling ('and') or 'defined', which no macro may be named.
static bool isKeyword(StringRef Name) {
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

/// How clang names an anonymous namespace in a qualified name.
static constexpr StringRef AnonymousNamespace = "(anonymous namespace)";

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
    if (!clang::isValidAsciiIdentifier(Part) && Part != AnonymousNamespace)
      return createStringError(
          inconvertibleErrorCode(),
          "bad namespace '" + printable(Pattern) +
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

/// The first code points that take two, three and four bytes in UTF-8.
constexpr uint32_t FirstTwoByteCodePoint = 0x80;
constexpr uint32_t FirstThreeByteCodePoint = 0x800;
constexpr uint32_t FirstFourByteCodePoint = 0x10000;

/// Bytes that \p CodePoint takes in UTF-8.
size_t utf8Length(uint32_t CodePoint) {
  return CodePoint < FirstTwoByteCodePoint     ? 1
         : CodePoint < FirstThreeByteCodePoint ? 2
         : CodePoint < FirstFourByteCodePoint  ? 3
                                               : 4;
}

/// The backslash and the letter that start every escape sequence.
constexpr size_t EscapeIntroducerLength = 2;
/// Bytes of U+2028 and U+2029 (the escapes \L and \P) in UTF-8.
constexpr size_t LineSeparatorLength = 3;

/// Hexadecimal digits after the escape letter \p Kind: \xNN, \uNNNN,
/// \UNNNNNNNN; none after the others.
size_t escapeDigits(char Kind) {
  return Kind == 'x' ? 2 : Kind == 'u' ? 4 : Kind == 'U' ? 8 : 0;
}

/// Bytes of the value that the escape sequence at the start of \p Escape (a
/// backslash, in a double-quoted scalar) stands for, as yaml-cpp decodes it;
/// \p Length receives its length in the file.
size_t decodedEscapeLength(StringRef Escape, size_t &Length) {
  char Kind = Escape.size() > 1 ? Escape[1] : 0;
  size_t Digits = escapeDigits(Kind);
  Length = EscapeIntroducerLength + Digits;
  if (Kind == 'L' || Kind == 'P') // U+2028, U+2029
    return LineSeparatorLength;
  unsigned CodePoint = 0;
  if (Digits && !Escape.substr(EscapeIntroducerLength, Digits)
                     .getAsInteger(16, CodePoint))
    return utf8Length(CodePoint);
  return 1; // '\n', and '\N' and '\_', which yaml-cpp writes as one byte.
}

/// UTF-8's byte order mark, which may start a rules file.
constexpr StringRef ByteOrderMark = "\xEF\xBB\xBF";
/// Byte order marks of UTF-16, big- and little-endian.
constexpr StringRef UTF16BigEndianMark = "\xFE\xFF";
constexpr StringRef UTF16LittleEndianMark = "\xFF\xFE";
/// How big-endian UTF-32 starts: with its byte order mark or ASCII text.
constexpr StringRef UTF32BigEndianStart("\0\0", 2);

/// Collects the "path:line:col: error: ..." diagnostics of one rules file.
class Diagnostics {
public:
  Diagnostics(StringRef Path, StringRef Text) : Path(Path.str()) {
    SmallVector<StringRef, 64> Split;
    Text.split(Split, '\n');
    Lines.assign(Split.begin(), Split.end());
    // yaml-cpp does not count a byte order mark in columns.
    Lines.front().consume_front(ByteOrderMark);
  }

  /// An error at \p M, \p Offset columns to the right.
  void error(const YAML::Mark &M, const Twine &Message, unsigned Offset = 0) {
    errorAt(M.line, M.column + 1 + Offset, Message); // 0-based columns.
  }
  void error(const YAML::Node &N, const Twine &Message, unsigned Offset = 0) {
    error(N.Mark(), Message, Offset);
  }
  /// An error at 0-based \p Line and 1-based \p Column. Nothing from the
  /// rules file reaches the terminal raw: the message is made printable.
  void errorAt(size_t Line, size_t Column, const Twine &Message) {
    Errors.push_back(
        {Line, Column,
         printable(Path + ":" + std::to_string(Line + 1) + ":" +
                       std::to_string(Column) + ": error: " + Message.str(),
                   std::string::npos)});
  }

  /// Columns from \p N's mark to byte \p Offset of its value: a quoted value
  /// starts after the quote, and an escape sequence or a doubled quote is one
  /// character of the value but several of the file. An offset that is not
  /// on the value's first line is the value's start.
  unsigned valueOffset(const YAML::Node &N, size_t Offset = 0) const;

  /// Line \p Line (0-based) of the file, or "".
  StringRef line(int Line) const {
    return Line >= 0 && size_t(Line) < Lines.size() ? Lines[Line] : StringRef();
  }

  bool empty() const { return Errors.empty(); }
  /// The first error by position alone.
  Error first() const {
    return createStringError(inconvertibleErrorCode(), sorted().front()->Text);
  }
  /// Every error, joined, by line and column (keys are checked in the
  /// order of their tables, not of the file).
  Error all() const {
    Error All = Error::success();
    for (const Located *E : sorted())
      All = joinErrors(std::move(All),
                       createStringError(inconvertibleErrorCode(), E->Text));
    return All;
  }

private:
  struct Located {
    size_t Line, Column;
    std::string Text;
  };
  std::vector<const Located *> sorted() const {
    std::vector<const Located *> Sorted;
    for (const Located &E : Errors)
      Sorted.push_back(&E);
    llvm::stable_sort(Sorted, [](const Located *L, const Located *R) {
      return std::tie(L->Line, L->Column) < std::tie(R->Line, R->Column);
    });
    return Sorted;
  }

  std::string Path;
  std::vector<StringRef> Lines; ///< Of the rules file, for block scalars.
  std::vector<Located> Errors;
};

unsigned Diagnostics::valueOffset(const YAML::Node &N, size_t Offset) const {
  YAML::Mark M = N.Mark();
  StringRef Line = line(M.line);
  if (M.column < 0 || size_t(M.column) >= Line.size())
    return 0;
  char Quote = Line[M.column];
  if (Quote == '|' || Quote == '>') // A block scalar starts on the next line.
    return 0;
  if (Quote != '"' && Quote != '\'')
    return M.column + Offset < Line.size() ? Offset : 0;
  StringRef Text = Line.substr(M.column + 1);
  size_t Decoded = 0, I = 0;
  while (Decoded < Offset) {
    if (I >= Text.size())
      return 0;
    size_t Length = 1;
    if (Quote == '\'' && Text[I] == '\'') {
      if (!Text.substr(I).starts_with("''"))
        return 0; // The closing quote: the offset is on another line.
      Length = 2;
      ++Decoded;
    } else if (Quote == '"' && Text[I] == '"') {
      return 0;
    } else if (Quote == '"' && Text[I] == '\\') {
      Decoded += decodedEscapeLength(Text.substr(I), Length);
    } else {
      ++Decoded;
    }
    I += Length;
  }
  return 1 + I; // The opening quote, then the value's first I bytes.
}

/// Parsers for the shapes a value can take. Each reports what is wrong with
/// a value and then gives nothing.
class ValueParser {
public:
  explicit ValueParser(Diagnostics &Diags) : Diags(Diags) {}

  Diagnostics &Diags;

  /// Reports keys of \p Map not in \p Known, with a suggestion.
  void checkKeys(const YAML::Node &Map, ArrayRef<StringRef> Known,
                 StringRef Where);
  /// A string; one that spans lines (\p Multiline) may hold tabs and line
  /// breaks, but no string holds other control characters.
  std::optional<std::string> scalar(const YAML::Node &N, StringRef Key,
                                    bool Multiline = false);
  /// Whether \p Value, of \p N, has no control characters (but tabs and
  /// line breaks if \p Multiline); reports the first.
  bool printableValue(const YAML::Node &N, StringRef Key, StringRef Value,
                      bool Multiline = false);
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
        Diags.error(Item, toString(Made.takeError()), Diags.valueOffset(Item));
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
        Diags.error(N, toString(Made.takeError()), Diags.valueOffset(N));
    }
  }
};

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
    {"name", true, &RuleParser::strings<&Rule::Names, &NameRegex::create>},
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
  // Internal linkage is never API: say so rather than suggest the opposite.
  if (Value.IsScalar() && Value.Scalar() == "internal") {
    Diags.error(Value,
                "'linkage: internal' is not supported: 'static' functions and "
                "those in an anonymous namespace cannot be called from "
                "outside their file, so they are not API; use 'external' (the "
                "default) or 'any'",
                Diags.valueOffset(Value));
    return;
  }
  if (std::optional<std::string> V = P.oneOf(Value, Key, {"external", "any"}))
    R.ExternalLinkageOnly = *V == "external";
}

void RuleParser::access(StringRef Key, const YAML::Node &Value,
                        const YAML::Node &, Rule &R) {
  if (std::optional<std::string> V =
          P.oneOf(Value, Key, {"public", "protected", "any"}))
    R.Access = *V == "public"      ? Rule::AccessFilter::Public
               : *V == "protected" ? Rule::AccessFilter::Protected
                                   : Rule::AccessFilter::Any;
}

void RuleParser::event(StringRef Key, const YAML::Node &Value,
                       const YAML::Node &, Rule &R) {
  if (std::optional<std::string> Text = P.scalar(Value, Key)) {
    size_t Column = 0;
    if (Expected<EventTemplate> T = EventTemplate::parse(*Text, Column))
      R.Event = std::move(*T);
    else
      Diags.error(Value, toString(T.takeError()),
                  Diags.valueOffset(Value, Column));
  }
}

void RuleParser::matcher(StringRef Key, const YAML::Node &M,
                         const YAML::Node &Map, Rule &R) {
  std::optional<std::string> Code = P.scalar(M, Key, /*Multiline=*/true);
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
    unsigned Offset =
        Block ? 0 : Diags.valueOffset(M, At.Line == 1 ? At.Column - 1 : 0);
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
      Diags.error(IdNode, "duplicate rule id '" + printable(R.Id) + "'");
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
  P.checkKeys(N, keyNames(), "rule '" + printable(R.Id) + "'");
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

  /// Whether the file's bytes are fit to parse: not too many, UTF-8, no
  /// control characters but tabs and line breaks.
  bool checkText();
  /// Loads the one YAML document into \p Doc; false on a syntax error.
  bool load(YAML::Node &Doc);
  /// Where the document \p Second starts: its '---' line if it has one.
  YAML::Mark documentStart(const YAML::Node &Second) const;

  void version(const YAML::Node &Value, RuleSet &Rules);
  void macro(const YAML::Node &Value, RuleSet &Rules);
  void include(const YAML::Node &Value, RuleSet &Rules);
  void keepEvents(const YAML::Node &Value, RuleSet &Rules);
  void excludeFiles(const YAML::Node &Value, RuleSet &Rules);
  void compileCommands(const YAML::Node &Value, RuleSet &Rules);
  void publicHeaders(const YAML::Node &Value, RuleSet &Rules);
  void publicHeaderEdits(const YAML::Node &Value, RuleSet &Rules);
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
    {"keep_events", nullptr, &FileParser::keepEvents},
    {"exclude_files", nullptr, &FileParser::excludeFiles},
    {"compile_commands", nullptr, &FileParser::compileCommands},
    {"public_headers", nullptr, &FileParser::publicHeaders},
    {"public_header_edits", nullptr, &FileParser::publicHeaderEdits},
    {"rules", "missing 'rules:' (a list of rules)", &FileParser::rules},
};

void FileParser::version(const YAML::Node &Value, RuleSet &) {
  if (!Value.IsScalar() || Value.Scalar() != "1")
    Diags.error(Value, "unsupported rules version; this apistamp reads "
                       "'version: 1'");
}

void FileParser::macro(const YAML::Node &Value, RuleSet &Rules) {
  std::optional<std::string> Name = P.scalar(Value, "macro");
  if (!Name)
    return;
  if (!clang::isValidAsciiIdentifier(*Name))
    Diags.error(Value,
                "'macro' must be an identifier, not '" + printable(*Name) + "'",
                Diags.valueOffset(Value));
  else if (isKeyword(*Name))
    Diags.error(Value,
                "'macro' must name a macro, not the C or C++ keyword '" +
                    *Name + "'",
                Diags.valueOffset(Value));
  else
    Rules.Macro = *Name;
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
  P.eachString(
      Value, "keep_events",
      [](StringRef Glob) -> Expected<std::string> {
        if (Expected<GlobPattern> Valid = GlobPattern::create(Glob); !Valid)
          return Valid.takeError();
        return Glob.str();
      },
      Rules.KeepEvents);
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

bool FileParser::checkText() {
  if (Text.size() > MaxRulesFileSize) {
    Diags.errorAt(0, 1,
                  "the rules file is " + Twine(Text.size()) +
                      " bytes; apistamp reads at most " +
                      Twine(MaxRulesFileSize));
    return false;
  }
  // yaml-cpp would read UTF-16 and UTF-32 (with a byte order mark, or ASCII
  // text with zero bytes between); everything else here counts UTF-8 bytes.
  if (Text.starts_with(UTF16BigEndianMark) ||
      Text.starts_with(UTF16LittleEndianMark) ||
      (Text.size() >= 2 && (Text[0] == 0) != (Text[1] == 0)) ||
      Text.starts_with(UTF32BigEndianStart)) {
    Diags.errorAt(0, 1,
                  "the rules file is not UTF-8 (it looks like UTF-16 or "
                  "UTF-32); save it as UTF-8");
    return false;
  }
  StringRef Body = Text;
  Body.consume_front(ByteOrderMark);
  size_t Bad = findUnprintable(Body, /*AllowWhitespace=*/true);
  if (Bad == StringRef::npos)
    return true;
  size_t LineStart = Body.rfind('\n', Bad) + 1; // npos + 1 == 0
  DecodedChar C = decodeUTF8(Body.substr(Bad));
  Diags.errorAt(Body.take_front(Bad).count('\n'), Bad - LineStart + 1,
                C.Valid ? "the rules file may not contain control characters "
                          "other than tab and line breaks (found '" +
                              printable(Body.substr(Bad, C.Length)) + "')"
                        : "the rules file is not valid UTF-8 (found byte '" +
                              printable(Body.substr(Bad, 1)) + "')");
  return false;
}

YAML::Mark FileParser::documentStart(const YAML::Node &Second) const {
  YAML::Mark Start = Second.Mark();
  if (Start.is_null())
    return YAML::Mark();
  // The nearest document marker at or above the node: its '---', unless the
  // previous document ended with '...' and this one has none.
  for (int Line = Start.line; Line >= 0; --Line) {
    StringRef Text = Diags.line(Line).rtrim("\r");
    auto IsMarker = [&](StringRef Marker) {
      return Text.starts_with(Marker) &&
             (Text.size() == Marker.size() || Text[Marker.size()] == ' ' ||
              Text[Marker.size()] == '\t');
    };
    if (IsMarker("..."))
      break;
    if (IsMarker("---")) {
      YAML::Mark Marker;
      Marker.line = Line;
      return Marker;
    }
  }
  return Start;
}

bool FileParser::load(YAML::Node &Doc) {
  std::vector<YAML::Node> Docs;
  try {
    Docs = YAML::LoadAll(Text.str());
  } catch (const YAML::DeepRecursion &E) {
    // Its message is "bad file".
    Diags.error(E.mark, "the YAML nests too deeply: yaml-cpp stops at " +
                            Twine(E.depth()) + " levels");
    return false;
  } catch (const YAML::Exception &E) {
    Diags.error(E.mark, E.msg);
    return false;
  }
  if (Docs.size() > 1)
    Diags.error(documentStart(Docs[1]),
                "a rules file is one YAML document; a second one starts here");
  if (!Docs.empty())
    Doc = Docs.front();
  return true;
}

Expected<RuleSet> FileParser::parse() {
  RuleSet Rules;
  Rules.Path = Path.str();
  Rules.TextHash = xxh3_64bits(Text);
  YAML::Node Doc;
  if (!checkText() || !load(Doc))
    return Diags.first();
  if (!Doc.IsMap()) {
    Diags.error(Doc.Mark().is_null() ? YAML::Mark() : Doc.Mark(),
                "a rules file is a mapping with 'version: 1' and 'rules:'");
    return Diags.all();
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
  for (Rule &R : Rules.Rules)
    llvm::append_range(R.ExcludeFiles, Rules.ExcludeFiles);
  return Rules;
}

} // namespace

Expected<RuleSet> parseRules(StringRef Text, StringRef Path) {
  return FileParser(Path, Text).parse();
}

/// The first \p Limit + 1 bytes of the file at \p Path at most: enough to
/// tell that it is too long without reading all of /dev/zero.
static Expected<std::string> readAtMost(StringRef Path, size_t Limit) {
  Expected<sys::fs::file_t> File = sys::fs::openNativeFileForRead(Path);
  if (!File)
    return File.takeError();
  std::string Bytes;
  char Chunk[ReadChunkSize];
  Error Err = Error::success();
  while (Bytes.size() <= Limit) {
    Expected<size_t> Read = sys::fs::readNativeFile(*File, Chunk);
    if (!Read) {
      Err = Read.takeError();
      break;
    }
    if (*Read == 0)
      break;
    Bytes.append(Chunk, *Read);
  }
  sys::fs::closeFile(*File);
  if (Err)
    return std::move(Err);
  return Bytes;
}

Expected<RuleSet> loadRules(StringRef Path) {
  Expected<std::string> Text = readAtMost(Path, MaxRulesFileSize);
  if (!Text) {
    std::error_code EC = errorToErrorCode(Text.takeError());
    return createStringError(EC, "error: cannot read rules file '" +
                                     printable(Path, std::string::npos) +
                                     "': " + EC.message());
  }
  if (Text->size() > MaxRulesFileSize)
    return createStringError(inconvertibleErrorCode(),
                             printable(Path, std::string::npos) +
                                 ":1:1: error: the rules file is larger than " +
                                 Twine(MaxRulesFileSize) +
                                 " bytes, the most apistamp reads");
  Expected<RuleSet> Rules = parseRules(*Text, Path);
  if (!Rules)
    return Rules.takeError();
  Rules->Path = canonicalPath(Path);
  Rules->Root = sys::path::parent_path(Rules->Path).str();
  if (!Rules->CompileCommandsDir.empty() &&
      !sys::path::is_absolute(Rules->CompileCommandsDir)) {
    SmallString<256> Dir(Rules->Root);
    sys::path::append(Dir, Rules->CompileCommandsDir);
    Rules->CompileCommandsDir = std::string(Dir);
  }
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
