//===- ResultCache.cpp - Reuse the analysis of unchanged TUs --------------===//

#include "ResultCache.h"
#include "Matcher.h"
#include "SafeWrite.h"
#include "SiteFieldVisitor.h"
#include "SitesFromFacts.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace apistamp {

// The JSON form of a cached parse: each model type is mapped field by field
// from its list in SiteFields.def, both ways, so that a field the list
// declares cannot be left out. Only facts are stored: which definitions are
// sites is decided from them by the rules of the run that uses the entry,
// and a site's status and fix from its facts and the file's bytes.

} // namespace apistamp

namespace llvm::json {
/// Offsets, lines and counts are unsigned.
static bool fromJSON(const Value &E, unsigned &Out, Path P) {
  std::optional<uint64_t> V = E.getAsUINT64();
  if (!V || *V > std::numeric_limits<unsigned>::max()) {
    P.report("expected an unsigned number");
    return false;
  }
  Out = unsigned(*V);
  return true;
}
} // namespace llvm::json

namespace apistamp {

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
static json::Value fieldToJSON(const std::vector<MacroUse> &V) {
  json::Array Uses;
  for (const MacroUse &U : V)
    Uses.push_back(fieldsToJSON(U));
  return Uses;
}

/// \p V as a JSON object of the fields SiteFields.def lists for its type.
template <typename T> static json::Value fieldsToJSON(const T &V) {
  json::Object Fields;
  forEachField<T>([&](StringLiteral Key, auto Field) {
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
  forEachField<T>([&](StringLiteral Key, auto Field) {
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
static bool fromJSON(const json::Value &E, DeclFacts &V, json::Path P) {
  return fieldsFromJSON(E, V, P);
}
static json::Value toJSON(const Candidate &V) { return fieldsToJSON(V); }
static bool fromJSON(const json::Value &E, Candidate &V, json::Path P) {
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

/// A file a TU read and the xxh3 of its bytes, in hex.
struct Dependency {
  std::string File, Hash;
};
static bool fromJSON(const json::Value &V, Dependency &D, json::Path P) {
  const json::Array *A = V.getAsArray();
  if (!A || A->size() != 2 || !(*A)[0].getAsString() ||
      !(*A)[1].getAsString()) {
    P.report("expected [file, hash]");
    return false;
  }
  D = {(*A)[0].getAsString()->str(), (*A)[1].getAsString()->str()};
  return true;
}

/// A cache entry: what a TU read (with hashes), what its parse found, and
/// under which rules (the xxh3 of their text, in hex).
struct Entry {
  std::vector<Dependency> Dependencies;
  std::string RulesHash;
  TUFacts Facts;
  unsigned SkippedBodies = 0;
  std::vector<std::string> Absent;
};

static json::Value toJSON(const Entry &E) {
  json::Array Deps;
  for (const Dependency &D : E.Dependencies)
    Deps.push_back(json::Array{D.File, D.Hash});
  return json::Object{{"deps", std::move(Deps)},
                      {"rules", E.RulesHash},
                      {"bodiesSkippedIn", E.Facts.BodiesSkippedIn},
                      {"candidates", E.Facts.Candidates},
                      {"suppressions", E.Facts.Suppressions},
                      {"expectations", E.Facts.Expectations},
                      {"skippedBodies", E.SkippedBodies},
                      {"absent", E.Absent}};
}
static bool fromJSON(const json::Value &V, Entry &E, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("deps", E.Dependencies) && O.map("rules", E.RulesHash) &&
         O.map("bodiesSkippedIn", E.Facts.BodiesSkippedIn) &&
         O.map("candidates", E.Facts.Candidates) &&
         O.map("suppressions", E.Facts.Suppressions) &&
         O.map("expectations", E.Facts.Expectations) &&
         O.map("skippedBodies", E.SkippedBodies) && O.map("absent", E.Absent);
}

namespace {

/// xxh3 of \p Path's bytes: fast enough for apistamp's own 50 MB binary
/// on every run, and any rebuild changes it.
std::string hashOfFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return "";
  return utohexstr(xxh3_64bits((*Buffer)->getBuffer()));
}

} // namespace

const std::string &apistampIdentity() {
  // Any rebuild of apistamp (or of the libraries it is linked into the same
  // binary with) gives another identity, and so a cold cache.
  static const std::string Identity =
      std::string(APISTAMP_VERSION) + ":" +
      hashOfFile(sys::fs::getMainExecutable(nullptr, nullptr));
  return Identity;
}

ResultCache::ResultCache(std::string Dir) : Directory(std::move(Dir)) {
  Identity = apistampIdentity();
  removeStaleTemporariesIn(Directory); // Of runs that were killed.
}

std::string ResultCache::keyFor(const RuleSet &Rules,
                                const clang::tooling::CompileCommand &Command,
                                bool SkipBodies) {
  SHA256 Key;
  auto Add = [&Key](StringRef Part) {
    Key.update(Part);
    Key.update(StringRef("\0", 1));
  };
  Add(Identity);
  // What of the rules the parse depends on. The rest (selectors, events,
  // which files' bodies the parse needs) is decided on the stored facts.
  Add(Rules.Root);
  Add(Rules.Macro);
  std::vector<const CompiledMatcher *> Matchers = matchersOf(Rules);
  Add(std::to_string(Matchers.size()) + " matchers");
  for (const CompiledMatcher *M : Matchers)
    Add(M->Text);
  Add(SkipBodies ? "skip-bodies" : "every-body");
  Add(Command.Directory);
  Add(Command.Filename);
  for (const std::string &Arg : Command.CommandLine)
    Add(Arg);
  // What else decides which headers the TU finds: the environment clang's
  // driver reads, and the toolchain it resolves (its resource directory and
  // the compiler named by the command, which locates the GCC installation).
  for (const char *Variable :
       {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
        "OBJCPLUS_INCLUDE_PATH", "CCC_OVERRIDE_OPTIONS", "COMPILER_PATH",
        "SDKROOT", "SOURCE_DATE_EPOCH"}) {
    const char *Value = std::getenv(Variable);
    Add(Variable);
    Add(Value ? "=" + std::string(Value) : "unset");
  }
  Add(APISTAMP_CLANG_RESOURCE_DIR);
  if (!Command.CommandLine.empty()) {
    ErrorOr<std::string> Compiler =
        sys::findProgramByName(Command.CommandLine.front());
    Add(Compiler ? canonicalPath(*Compiler) : "not found");
  }
  return toHex(Key.final(), /*LowerCase=*/true);
}

bool ResultCache::stillAbsent(const std::string &Path) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Absent.find(Path);
    if (It != Absent.end())
      return It->second;
  }
  bool Missing = !sys::path::is_absolute(Path) ? false : !sys::fs::exists(Path);
  std::lock_guard<std::mutex> Lock(Mutex);
  Absent[Path] = Missing;
  return Missing;
}

std::optional<uint64_t>
ResultCache::currentHash(const std::string &Path,
                         std::shared_ptr<const std::string> *Bytes) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Files.find(Path);
    if (It != Files.end() && (!Bytes || It->second.Bytes)) {
      if (Bytes)
        *Bytes = It->second.Bytes;
      return It->second.Hash;
    }
  }
  FileState State;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (Buffer) {
    State.Hash = xxh3_64bits((*Buffer)->getBuffer());
    if (Bytes)
      State.Bytes =
          std::make_shared<const std::string>((*Buffer)->getBuffer().str());
  }
  if (Bytes)
    *Bytes = State.Bytes;
  std::lock_guard<std::mutex> Lock(Mutex);
  Files[Path] = State;
  return State.Hash;
}

/// Real entries nest 5 deep; an entry nested deeper than this is tampered
/// with (llvm::json's parser recurses once per level).
constexpr unsigned MaxEntryNesting = 16;

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

/// Where clang's lexer finds braces and the macro's name in a file: what
/// the offsets of an untrusted entry must point at. A '{' in a string
/// literal or a comment is no brace.
struct LexedFile {
  llvm::DenseSet<unsigned> LBraces, RBraces, MacroNames;
  /// Every token, in order: what a body's braces must be preceded by.
  std::vector<std::pair<unsigned, clang::tok::TokenKind>> Tokens;
  /// Each '{' token's matching '}' (by token nesting).
  llvm::DenseMap<unsigned, unsigned> MatchingBrace;

  /// \p Code is a std::string: clang's lexer needs the NUL after it.
  LexedFile(const std::string &Code, StringRef Macro) {
    clang::LangOptions Cxx;
    Cxx.CPlusPlus = Cxx.CPlusPlus11 = Cxx.CPlusPlus17 = true;
    clang::Lexer Lex(clang::SourceLocation(), Cxx, Code.data(), Code.data(),
                     Code.data() + Code.size());
    clang::Token Tok;
    std::vector<unsigned> Open;
    do {
      Lex.LexFromRawLexer(Tok);
      unsigned Offset =
          unsigned(Lex.getBufferLocation() - Code.data()) - Tok.getLength();
      Tokens.push_back({Offset, Tok.getKind()});
      if (Tok.is(clang::tok::l_brace)) {
        LBraces.insert(Offset);
        Open.push_back(Offset);
      } else if (Tok.is(clang::tok::r_brace)) {
        RBraces.insert(Offset);
        if (!Open.empty())
          MatchingBrace[Open.back()] = Offset;
        if (!Open.empty())
          Open.pop_back();
      } else if (Tok.is(clang::tok::raw_identifier) &&
                 Tok.getRawIdentifier() == Macro) {
        MacroNames.insert(Offset);
      }
    } while (Tok.isNot(clang::tok::eof));
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
           Lexed.MacroNames.count(U.Offset) &&
           (!U.HasArgRange ||
            (U.Offset < U.ArgBegin && U.ArgBegin <= U.ArgEnd &&
             U.ArgEnd < B.RBraceOffset));
  });
}

std::optional<TUResult> ResultCache::lookup(StringRef Key, const RuleSet &Rules,
                                            bool Unselected) {
  SmallString<256> Path(Directory);
  sys::path::append(Path, Key + ".json");
  auto Miss = [this](std::atomic<unsigned> &Cause) -> std::optional<TUResult> {
    ++Cause;
    return std::nullopt;
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return Miss(NoEntry);
  // llvm::json's parser recurses once per nesting level: a tampered entry
  // of nested brackets would overflow the stack. Real entries nest 5 deep.
  if (jsonNestingDepth((*Buffer)->getBuffer()) > MaxEntryNesting)
    return Miss(Untrusted);
  Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return Miss(Untrusted);
  }
  // The entry is untrusted input (a CI cache can be tampered with): it is
  // used only if everything it says checks out against the files now.
  Entry E;
  json::Path::Root Root;
  if (!fromJSON(*Parsed, E, Root) || E.Dependencies.empty()) {
    if (getenv("APISTAMP_DEBUG_CACHE"))
      errs() << "DEBUG " << toString(Root.getError()) << "\n";
    return Miss(Untrusted);
  }
  const std::string &RootDir = Rules.Root;
  // The files whose bytes the rules may need: each candidate's and each
  // includer's, under the root.
  StringSet<> Needed;
  for (const Candidate &C : E.Facts.Candidates) {
    std::optional<StringRef> Relative = pathUnder(C.File, RootDir);
    if (!Relative || *Relative != C.Facts.RelativePath ||
        (C.Suppression && *C.Suppression >= E.Facts.Suppressions.size()) ||
        (!C.Includer.empty() && !pathUnder(C.Includer, RootDir)))
      return Miss(Untrusted);
    Needed.insert(C.File);
    if (!C.Includer.empty())
      Needed.insert(C.Includer);
  }
  StringSet<> Deps;
  FileBytes Contents;
  std::vector<std::shared_ptr<const std::string>> Held;
  for (const Dependency &D : E.Dependencies) {
    std::shared_ptr<const std::string> Bytes;
    std::optional<uint64_t> Now =
        currentHash(D.File, Needed.contains(D.File) ? &Bytes : nullptr);
    if (!Now || D.Hash != utohexstr(*Now))
      return Miss(Changed); // Changed or deleted.
    Deps.insert(D.File);
    if (Bytes) {
      Contents[D.File] = *Bytes;
      Held.push_back(std::move(Bytes));
    }
  }
  for (const std::string &Path : E.Absent)
    if (!stillAbsent(Path))
      return Miss(Changed); // A header earlier on the include path, say.
  if (Contents.size() != Needed.size())
    return Miss(Untrusted); // A candidate in a file that the TU did not read.
  // Bodies the parse did not parse: rules that can select something there
  // need a parse.
  for (const std::string &File : E.Facts.BodiesSkippedIn) {
    std::optional<StringRef> Relative = pathUnder(File, RootDir);
    if (!Relative || !Deps.contains(File))
      return Miss(Untrusted);
    if (fileCanBeSelected(Rules, *Relative))
      return Miss(BodiesNeeded);
  }
  TUResult Result;
  sitesFromFacts(E.Facts, Rules, Unselected, Contents, Result);
  std::map<std::string, LexedFile> Lexed;
  for (const Site &S : Result.Sites) {
    auto Code = Result.FileContents.find(S.File);
    if (Code == Result.FileContents.end())
      return Miss(Untrusted);
    const LexedFile &Tokens =
        Lexed.try_emplace(S.File, Code->second, Rules.Macro).first->second;
    if (!plausibleBody(S, Code->second, Tokens) ||
        (!S.IncludeFile.empty() && !Result.FileContents.count(S.IncludeFile)))
      return Miss(Untrusted);
  }
  Result.Facts = std::move(E.Facts);
  Result.SkippedBodies = E.SkippedBodies;
  ++Hits;
  if (E.RulesHash != utohexstr(Rules.TextHash))
    ++Redecided;
  return Result;
}

CacheCounts ResultCache::counts() const {
  CacheCounts C;
  C.Hits = Hits;
  C.Redecided = Redecided;
  C.NoEntry = NoEntry;
  C.Changed = Changed;
  C.BodiesNeeded = BodiesNeeded;
  C.Untrusted = Untrusted;
  return C;
}

void ResultCache::store(StringRef Key, const TUResult &Result,
                        const RuleSet &Rules) {
  if (Result.ParseFailed)
    return;
  Entry E;
  for (const auto &[File, Hash] : Result.Dependencies) {
    // A file the TU only looked up is hashed now: every dependency of an
    // entry is checked when it is used.
    std::optional<uint64_t> Known = Hash ? Hash : currentHash(File);
    if (!Known)
      return;
    E.Dependencies.push_back({File, utohexstr(*Known)});
  }
  E.RulesHash = utohexstr(Rules.TextHash);
  E.Facts = Result.Facts;
  std::vector<std::string> &Skipped = E.Facts.BodiesSkippedIn;
  llvm::sort(Skipped);
  Skipped.erase(std::unique(Skipped.begin(), Skipped.end()), Skipped.end());
  E.SkippedBodies = Result.SkippedBodies;
  E.Absent = Result.Absent;
  json::Value Value = toJSON(E);
  if (std::error_code EC = sys::fs::create_directories(Directory)) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (WriteError.empty())
      WriteError = Directory + ": " + EC.message();
    return;
  }
  SmallString<256> Path(Directory);
  sys::path::append(Path, Key + ".json");
  std::string Text;
  raw_string_ostream(Text) << Value;
  if (Error E = writeFileAtomically(Path, Text)) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (WriteError.empty())
      WriteError = Path.str().str() + ": " + toString(std::move(E));
  }
}

} // namespace apistamp
