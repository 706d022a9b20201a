//===- StoredFacts.cpp - A parse's facts, stored and read back ------------===//

#include "StoredFacts.h"
#include "SiteFieldVisitor.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include <limits>
#include <map>

using namespace llvm;

namespace apistamp {

// The JSON form of stored facts: each model type is mapped field by field
// from its list in SiteFields.def, both ways, so that a field the list
// declares cannot be left out. Only facts are stored: which definitions are
// sites is decided from them by the rules of the run that uses the entry,
// and a site's status and fix from its facts and the file's bytes.

/// An enumeration stored as its number, checked against its last value.
template <typename Enum, Enum Last>
static bool enumFromJSON(const json::Value &E, Enum &Out, json::Path P) {
  std::optional<int64_t> V = E.getAsInteger();
  if (!V || *V < 0 || *V > int64_t(Last)) {
    P.report("expected an enumerator");
    return false;
  }
  Out = Enum(*V);
  return true;
}
static bool fromJSON(const json::Value &E, DeclKind &Out, json::Path P) {
  return enumFromJSON<DeclKind, DeclKind::Constructor>(E, Out, P);
}
static bool fromJSON(const json::Value &E, Language &Out, json::Path P) {
  return enumFromJSON<Language, Language::Python>(E, Out, P);
}
static bool fromJSON(const json::Value &E, BodyShape &Out, json::Path P) {
  return enumFromJSON<BodyShape, BodyShape::Unrecognised>(E, Out, P);
}
static bool fromJSON(const json::Value &E, ConstexprKind &Out, json::Path P) {
  return enumFromJSON<ConstexprKind, ConstexprKind::Consteval>(E, Out, P);
}
static bool fromJSON(const json::Value &E, Expectation::KindType &Out,
                     json::Path P) {
  return enumFromJSON<Expectation::KindType, Expectation::Skipped>(E, Out, P);
}

/// A field's JSON value: enumerations as their numbers.
template <typename T> static json::Value fieldToJSON(const T &V) {
  if constexpr (std::is_enum_v<T>)
    return int(V);
  else
    return V;
}

template <typename T> static json::Value fieldsToJSON(const T &V);

/// An optional body or index: null when there is none.
static json::Value fieldToJSON(const std::optional<BodyLocation> &V) {
  return V ? fieldsToJSON(*V) : json::Value(nullptr);
}
static json::Value fieldToJSON(const std::optional<unsigned> &V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}
static json::Value fieldToJSON(const DeclFacts &V) { return fieldsToJSON(V); }
static json::Value fieldToJSON(const std::vector<PythonFromImport> &V) {
  json::Array Imports;
  for (const PythonFromImport &I : V)
    Imports.push_back(fieldsToJSON(I));
  return Imports;
}
static json::Value fieldToJSON(const std::optional<PythonBody> &V) {
  return V ? fieldsToJSON(*V) : json::Value(nullptr);
}
static json::Value fieldToJSON(const std::vector<MacroUse> &V) {
  json::Array Uses;
  for (const MacroUse &U : V)
    Uses.push_back(fieldsToJSON(U));
  return Uses;
}

/// \p V as a JSON object of the fields SiteFields.def lists for its type.
template <typename T> static json::Value fieldsToJSON(const T &V) {
  json::Object Fields;
  forEachField<T>([&](llvm::StringLiteral Key, auto Field) {
    Fields[Key] = fieldToJSON(V.*Field);
  });
  return Fields;
}

/// Reads the fields SiteFields.def lists for \p V's type; false (with the
/// path of the first problem) if one is missing or of another type.
template <typename T>
static bool fieldsFromJSON(const json::Value &E, T &V, json::Path P) {
  json::ObjectMapper O(E, P);
  bool Read = bool(O);
  forEachField<T>([&](llvm::StringLiteral Key, auto Field) {
    Read = Read && O.map(Key, V.*Field);
  });
  return Read;
}

// The overloads llvm::json finds for members and arrays of these types.
static bool fromJSON(const json::Value &E, MacroUse &V, json::Path P) {
  return fieldsFromJSON(E, V, P);
}
static bool fromJSON(const json::Value &E, BodyLocation &V, json::Path P) {
  return fieldsFromJSON(E, V, P);
}
static bool fromJSON(const json::Value &E, PythonFromImport &V, json::Path P) {
  return fieldsFromJSON(E, V, P);
}
static bool fromJSON(const json::Value &E, PythonBody &V, json::Path P) {
  return fieldsFromJSON(E, V, P);
}
static bool fromJSON(const json::Value &E, DeclFacts &V, json::Path P) {
  return fieldsFromJSON(E, V, P);
}
json::Value toJSON(const Candidate &V) { return fieldsToJSON(V); }
bool fromJSON(const json::Value &E, Candidate &V, json::Path P) {
  return fieldsFromJSON(E, V, P);
}
static json::Value toJSON(const Suppression &V) { return fieldsToJSON(V); }
static bool fromJSON(const json::Value &E, Suppression &V, json::Path P) {
  return fieldsFromJSON(E, V, P);
}
static json::Value toJSON(const Expectation &V) { return fieldsToJSON(V); }
static bool fromJSON(const json::Value &E, Expectation &V, json::Path P) {
  return fieldsFromJSON(E, V, P);
}

void addFacts(json::Object &Object, const TUFacts &Facts) {
  Object["bodiesSkippedIn"] = Facts.BodiesSkippedIn;
  Object["candidates"] = Facts.Candidates;
  Object["suppressions"] = Facts.Suppressions;
  Object["expectations"] = Facts.Expectations;
}

bool mapFacts(json::ObjectMapper &Object, TUFacts &Facts) {
  return Object.map("bodiesSkippedIn", Facts.BodiesSkippedIn) &&
         Object.map("candidates", Facts.Candidates) &&
         Object.map("suppressions", Facts.Suppressions) &&
         Object.map("expectations", Facts.Expectations);
}

/// Where clang's lexer finds braces and the macro's name in a file: what
/// the offsets of an untrusted entry must point at. A '{' in a string
/// literal or a comment is no brace.
struct LexedFile {
  llvm::DenseSet<unsigned> LBraces, RBraces;
  /// The recognised macros (the rules' first), and where each is named.
  std::vector<std::string> Macros;
  llvm::DenseMap<unsigned, unsigned> MacroNames;
  /// Every token, in order: what a body's braces must be preceded by.
  std::vector<std::pair<unsigned, clang::tok::TokenKind>> Tokens;
  /// Each '{' token's matching '}' (by token nesting).
  llvm::DenseMap<unsigned, unsigned> MatchingBrace;

  /// \p Code is a std::string: clang's lexer needs the NUL after it.
  LexedFile(const std::string &Code, std::vector<std::string> Recognised)
      : Macros(std::move(Recognised)) {
    clang::LangOptions Cxx;
    Cxx.CPlusPlus = Cxx.CPlusPlus11 = Cxx.CPlusPlus17 = true;
    clang::Lexer Lex(clang::SourceLocation(), Cxx, Code.data(), Code.data(),
                     Code.data() + Code.size());
    clang::Token Tok;
    std::vector<unsigned> Open;
    // Preprocessor directives are no code: their tokens are skipped (a
    // `#define LBRACE {` is no brace). Each branch of a conditional group
    // starts from the nesting at its #if, and after #endif the nesting is
    // the first branch's: a body whose inner lines are written once per
    // branch (`#ifdef X` `if (a) {` `#else` `if (b) {` `#endif`, as
    // protobuf writes them) and a definition written once per branch (one
    // per configuration) both match their braces.
    struct Group {
      std::vector<unsigned> AtIf;
      std::optional<std::vector<unsigned>> AfterFirstBranch;
    };
    std::vector<Group> Groups;
    bool InDirective = false;
    Lex.LexFromRawLexer(Tok);
    for (;;) {
      unsigned Offset =
          unsigned(Lex.getBufferLocation() - Code.data()) - Tok.getLength();
      if (Tok.isAtStartOfLine())
        InDirective = false;
      if (Tok.is(clang::tok::hash) && Tok.isAtStartOfLine()) {
        InDirective = true;
        Lex.LexFromRawLexer(Tok);
        if (!Tok.isAtStartOfLine() && Tok.is(clang::tok::raw_identifier)) {
          StringRef Directive = Tok.getRawIdentifier();
          if (Directive.starts_with("if")) {
            Groups.push_back({Open, std::nullopt});
          } else if ((Directive == "else" || Directive.starts_with("elif")) &&
                     !Groups.empty()) {
            if (!Groups.back().AfterFirstBranch)
              Groups.back().AfterFirstBranch = Open;
            Open = Groups.back().AtIf;
          } else if (Directive == "endif" && !Groups.empty()) {
            if (Groups.back().AfterFirstBranch)
              Open = std::move(*Groups.back().AfterFirstBranch);
            Groups.pop_back();
          }
          Lex.LexFromRawLexer(Tok);
        }
        continue;
      }
      if (!InDirective) {
        Tokens.push_back({Offset, Tok.getKind()});
        if (Tok.is(clang::tok::l_brace)) {
          LBraces.insert(Offset);
          Open.push_back(Offset);
        } else if (Tok.is(clang::tok::r_brace)) {
          RBraces.insert(Offset);
          if (!Open.empty()) {
            MatchingBrace[Open.back()] = Offset;
            Open.pop_back();
          }
        } else if (Tok.is(clang::tok::raw_identifier)) {
          auto Named = llvm::find(Macros, Tok.getRawIdentifier());
          if (Named != Macros.end())
            MacroNames[Offset] = unsigned(Named - Macros.begin());
        }
      }
      if (Tok.is(clang::tok::eof))
        break;
      Lex.LexFromRawLexer(Tok);
    }
  }

  /// Whether \p Use's offset names the macro it says it calls.
  bool namesMacroOf(const MacroUse &Use) const {
    auto It = MacroNames.find(Use.Offset);
    return It != MacroNames.end() &&
           (Use.Macro.empty()
                ? It->second == 0
                : It->second != 0 && Macros[It->second] == Use.Macro);
  }

  /// Whether the braces of \p B delimit a function's body as tokens read:
  /// they match each other, and from the start of the definition the '{' is
  /// the first brace at nesting depth 0 after a parameter list that is not
  /// a member initializer's, with no ';' before it (a class body, a lambda
  /// or an initializer list is none).
  bool isFunctionBody(const BodyLocation &B) const {
    auto Match = MatchingBrace.find(B.LBraceOffset);
    if (Match == MatchingBrace.end() || Match->second != B.RBraceOffset)
      return false;
    auto Begin = llvm::partition_point(
        Tokens, [&](const auto &T) { return T.first < B.DeclOffset; });
    if (B.DeclOffset == B.LBraceOffset) // The head is in another file.
      return Begin != Tokens.begin() &&
             (std::prev(Begin)->second == clang::tok::r_paren ||
              std::prev(Begin)->second == clang::tok::r_brace);
    int Depth = 0;
    bool Parameters = false, Initializers = false;
    for (auto T = Begin; T != Tokens.end() && T->first <= B.LBraceOffset; ++T) {
      using namespace clang::tok;
      TokenKind Previous = T == Tokens.begin() ? unknown : std::prev(T)->second;
      switch (T->second) {
      case l_paren:
      case l_square:
        ++Depth;
        break;
      case r_paren:
        Parameters |= Depth == 1;
        --Depth;
        break;
      case r_square:
        --Depth;
        break;
      case colon:
        Initializers |= Depth == 0 && Parameters;
        break;
      case semi:
        if (Depth == 0)
          return false;
        break;
      case l_brace:
        if (Depth == 0 && T->first == B.LBraceOffset)
          // After the initializers `m{1}` and `Base<T>{x}`, the body's '{'
          // follows a ')', a '}' or a '...'.
          return Parameters && (!Initializers || Previous == r_paren ||
                                Previous == r_brace || Previous == ellipsis);
        if (Depth == 0 && !Initializers)
          return false; // A body or a class before it.
        ++Depth;
        break;
      case r_brace:
        --Depth;
        break;
      default:
        break;
      }
      if (Depth < 0)
        return false;
    }
    return false;
  }
};

/// Whether the facts of \p S, a Python site read from an untrusted entry,
/// lie in \p Code: its offsets inside the file. (Such facts only ever say
/// that nothing needs to change: a Python file an edit would change is
/// parsed afresh, never edited from an entry: analyseJob.)
static bool plausiblePythonBody(const Site &S, StringRef Code,
                                const RuleSet &Rules) {
  const PythonBody &B = *S.Python;
  // A call's statement starts with a callee of the rules, or is the `if`
  // of its guard.
  auto CallAt = [&](const MacroUse &U) {
    StringRef At = Code.substr(U.Offset);
    if (U.Guarded)
      return At.starts_with("if") && U.StatementBegin <= U.Offset &&
             U.Offset < U.StatementEnd;
    return llvm::any_of(Rules.Rules, [&](const Rule &R) {
      return R.Lang == Language::Python && At.starts_with(R.Call.Callee);
    });
  };
  auto In = [&](unsigned Offset) { return Offset <= Code.size(); };
  return In(B.Inline) && In(B.InsertAfterDocstring) &&
         In(B.FirstAfterDocstring) && In(B.InsertAfterSuper) &&
         In(B.FirstAfterSuper) && In(B.ImportOffset) &&
         llvm::all_of(S.Calls, [&](const MacroUse &U) {
           return U.Offset < Code.size() && U.ArgBegin <= U.ArgEnd &&
                  In(U.ArgEnd) && U.StatementBegin <= U.StatementEnd &&
                  In(U.StatementEnd) && CallAt(U);
         });
}

/// Whether the facts of \p S, read from an untrusted entry, describe a body
/// in \p Code that decideSite can work on: offsets inside the file, on
/// brace tokens (\p Lexed), the calls inside the body and on the macro's
/// name; none for a body that is no block.
static bool plausibleBody(const Site &S, StringRef Code,
                          const LexedFile &Lexed) {
  if (!S.Body)
    return S.Calls.empty() && S.Shape != BodyShape::Block;
  const BodyLocation &B = *S.Body;
  if (S.Shape != BodyShape::Block ||
      !(B.DeclOffset <= B.LBraceOffset && B.LBraceOffset < B.RBraceOffset &&
        B.RBraceOffset < Code.size() && Lexed.LBraces.count(B.LBraceOffset) &&
        Lexed.RBraces.count(B.RBraceOffset) && Lexed.isFunctionBody(B)))
    return false;
  return llvm::all_of(S.Calls, [&](const MacroUse &U) {
    return B.LBraceOffset < U.Offset && U.Offset < B.RBraceOffset &&
           Lexed.namesMacroOf(U) &&
           (!U.HasArgRange ||
            (U.Offset < U.ArgBegin && U.ArgBegin <= U.ArgEnd &&
             U.ArgEnd < B.RBraceOffset));
  });
}

std::optional<StringSet<>> filesFactsNeed(const TUFacts &Facts,
                                          StringRef Root) {
  StringSet<> Needed;
  for (const Candidate &C : Facts.Candidates) {
    std::optional<StringRef> Relative = pathUnder(C.File, Root);
    if (!Relative || *Relative != C.Facts.RelativePath ||
        (C.Suppression && *C.Suppression >= Facts.Suppressions.size()) ||
        (!C.Includer.empty() && !pathUnder(C.Includer, Root)))
      return std::nullopt;
    Needed.insert(C.File);
    if (!C.Includer.empty())
      Needed.insert(C.Includer);
  }
  return Needed;
}

std::shared_ptr<const LexedFile>
LexedFiles::get(const std::string &Path, const SharedBytes &Bytes,
                const std::vector<std::string> &Macros) {
  std::pair<std::string, std::vector<std::string>> Key{Path, Macros};
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Files.find(Key);
    if (It != Files.end() && It->second.Bytes == Bytes)
      return It->second.Tokens;
  }
  auto Tokens = std::make_shared<const LexedFile>(Bytes.text(), Macros);
  std::lock_guard<std::mutex> Lock(Mutex);
  Files[Key] = {Bytes, Tokens};
  return Tokens;
}

StoredFactsUse decideStoredFacts(const TUFacts &Facts, const RuleSet &Rules,
                                 bool Unselected, const FileBytes &Contents,
                                 function_ref<bool(StringRef)> WasRead,
                                 TUResult &Result, LexedFiles *Memo) {
  // Bodies the parse did not parse: rules that can select something there
  // need a parse.
  for (const std::string &File : Facts.BodiesSkippedIn) {
    std::optional<StringRef> Relative = pathUnder(File, Rules.Root);
    if (!Relative || !WasRead(File))
      return StoredFactsUse::Untrusted;
    if (fileCanBeSelected(Rules, *Relative))
      return StoredFactsUse::BodiesNeeded;
  }
  sitesFromFacts(Facts, Rules, Unselected, Contents, Result);
  std::map<std::string, std::shared_ptr<const LexedFile>> Lexed;
  std::vector<std::string> Macros = Rules.recognisedMacros();
  for (const Site &S : Result.Sites) {
    auto Code = Result.FileContents.find(S.File);
    if (Code == Result.FileContents.end())
      return StoredFactsUse::Untrusted;
    if (S.Python) {
      if (!plausiblePythonBody(S, Code->second, Rules))
        return StoredFactsUse::Untrusted;
      continue;
    }
    auto [It, New] = Lexed.try_emplace(S.File);
    if (New)
      It->second =
          Memo ? Memo->get(S.File, Code->second, Macros)
               : std::make_shared<const LexedFile>(Code->second.text(), Macros);
    const LexedFile &Tokens = *It->second;
    if (!plausibleBody(S, Code->second, Tokens) ||
        (!S.IncludeFile.empty() && !Result.FileContents.count(S.IncludeFile)))
      return StoredFactsUse::Untrusted;
  }
  return StoredFactsUse::Usable;
}

} // namespace apistamp
