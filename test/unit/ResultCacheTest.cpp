//===- ResultCacheTest.cpp - Tests for the TU result cache ----------------===//

#include "ResultCache.h"
#include "Matcher.h"
#include "SiteDecision.h"
#include "TestSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "gtest/gtest.h"

using namespace apistamp;

namespace {

class ResultCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("apistamp-cache", Dir));
    Source = (Dir + "/a.cpp").str();
    write(Source, Code);
    Rules = rules("  - id: api\n");
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  /// Rules of \p Yaml (the rules' list), under the fixture's root.
  RuleSet rules(llvm::StringRef Yaml) {
    RuleSet R = valueOrFail(parseRules(
        ("version: 1\nmacro: LOG\nformer_macros: [OLD_LOG]\ninclude: "
         "<log.h>\nrules:\n" +
         Yaml)
            .str(),
        "rules.yaml"));
    R.Root = Dir.str().str();
    return R;
  }

  static void write(const std::string &Path, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }

  /// The candidate lib::f, whose body calls LOG("old"): a rule that selects
  /// it expects "lib.f".
  Candidate wrongCandidate() {
    Candidate C;
    C.File = Source;
    C.Offset = 21;
    C.Line = 1;
    C.Column = 22;
    C.BeginLine = 1;
    C.EndLine = 3;
    C.QualifiedName = "lib::f";
    C.Facts.Kind = DeclKind::Function;
    C.Facts.Name = "f";
    C.Facts.Namespaces = {"lib"};
    C.Facts.RelativePath = "a.cpp";
    C.Facts.DeclaredIn = {"a.cpp"};
    C.Body = BodyLocation{16, unsigned(Code.find("{ LOG")),
                          unsigned(Code.find("; }") + 2)};
    MacroUse Use;
    Use.Offset = Code.find("LOG");
    Use.Event = "old";
    Use.HasArgRange = true;
    Use.ArgBegin = Code.find("\"old");
    Use.ArgEnd = Code.find(");");
    C.Calls = {Use};
    return C;
  }

  /// A parse of a.cpp whose only candidate is \p C.
  TUResult parsed(Candidate C) {
    TUResult R;
    R.Dependencies = {{Source, llvm::xxh3_64bits(Code)}};
    R.Facts.Candidates = {std::move(C)};
    return R;
  }

  /// A parse in which every field of SiteFields.def is set to something
  /// other than its default in some candidate, suppression or expectation.
  TUResult fullResult() {
    TUResult R = parsed(wrongCandidate());
    Candidate &C = R.Facts.Candidates[0];
    C.Includer = Source;
    C.Facts.ParameterTypes = {"int"};
    C.Facts.Classes = {"W"};
    C.Facts.Bases = {"lib::Base"};
    C.Matches = {0};
    MacroUse Function;
    Function.Offset = C.Calls.front().Offset; // A function named LOG.
    Function.FunctionCall = true;
    // Python's statement facts (no Python candidate here: the fields
    // round-trip all the same).
    Function.StatementBegin = 1;
    Function.StatementEnd = 2;
    Function.Guarded = true;
    C.Calls.push_back(Function);
    MacroUse Former; // Of a macro the rules named before.
    Former.Offset = Code.find("OLD_LOG");
    Former.Event = "old";
    Former.Macro = "OLD_LOG";
    C.Calls.push_back(Former);
    Candidate Other;
    Other.File = Source;
    Other.Offset = 10;
    Other.Line = 1;
    Other.Column = 11;
    Other.QualifiedName = "lib::g";
    Other.Facts.Kind = DeclKind::Constructor;
    Other.Facts.RelativePath = "a.cpp";
    Other.Facts.ExternalLinkage = false;
    Other.Facts.Public = false;
    Other.Facts.PublicOrProtected = false;
    // Python's facts (a Python candidate's DeclFacts, not cached yet, but
    // the fields round-trip like the others).
    Other.Facts.Lang = Language::Python;
    Other.Facts.Module = "lib.mod";
    Other.Facts.Decorators = {"torch.jit.unused"};
    Other.Python.emplace();
    Other.Python->Indent = "    ";
    Other.Python->FromImports = {{"lib.utils", 12}};
    Other.Suppression = 0;
    Other.Constexpr = ConstexprKind::Consteval;
    Other.Shape = BodyShape::FromMacro;
    Other.BodyMacro = "BODY";
    Other.OnlyFails = true;
    R.Facts.Candidates.push_back(Other);
    R.Facts.Suppressions = {Suppression{Source, 3, 4, 5, "why", true}};
    Expectation E;
    E.Kind = Expectation::Skipped;
    E.File = Source;
    E.Line = 6;
    E.Column = 7;
    E.Value = "constexpr";
    E.DefinitionLine = 8;
    E.DefinitionColumn = 9;
    E.Definition = "lib::g";
    R.Facts.Expectations = {E};
    R.SkippedBodies = 42;
    return R;
  }

  /// The stored entry of \p Key as JSON, changed by \p Tamper.
  void tamper(llvm::StringRef Key,
              llvm::function_ref<void(llvm::json::Object &)> Tamper) {
    std::string Path = (Dir + "/cache/" + Key + ".json").str();
    auto Buffer = llvm::MemoryBuffer::getFile(Path);
    ASSERT_TRUE(bool(Buffer));
    llvm::Expected<llvm::json::Value> Entry =
        llvm::json::parse((*Buffer)->getBuffer());
    ASSERT_TRUE(bool(Entry));
    Tamper(*Entry->getAsObject());
    std::string Text;
    llvm::raw_string_ostream(Text) << *Entry;
    write(Path, Text);
  }

  static llvm::json::Object &firstCandidate(llvm::json::Object &Entry) {
    return *(*Entry.getArray("candidates"))[0].getAsObject();
  }

  const std::string Code =
      "namespace lib { void f() { LOG(\"old\"); OLD_LOG(\"old\"); } }\n";
  llvm::SmallString<128> Dir;
  std::string Source;
  RuleSet Rules;
};

template <typename T> bool differ(const T &L, const T &R) { return !(L == R); }
bool differ(const std::optional<BodyLocation> &L,
            const std::optional<BodyLocation> &R) {
  return L.has_value() != R.has_value() || (L && !sameFields(*L, *R));
}
bool differ(const std::vector<MacroUse> &L, const std::vector<MacroUse> &R) {
  return L.size() != R.size();
}
bool differ(const DeclFacts &L, const DeclFacts &R) {
  return !sameFields(L, R);
}
bool differ(const std::optional<PythonBody> &L,
            const std::optional<PythonBody> &R) {
  return L.has_value() != R.has_value() || (L && !sameFields(*L, *R));
}

/// Whether \p Field of some of \p Values differs from its default.
template <typename T, typename F>
bool setInSome(const std::vector<T> &Values, F Field) {
  return llvm::any_of(Values,
                      [&](const T &V) { return differ(Field(V), Field(T())); });
}

// The fixture sets every field the list declares (a field added to
// SiteFields.def fails here until it does), and every one comes back.
TEST_F(ResultCacheTest, EveryFieldSurvivesARoundTrip) {
  TUResult Stored = fullResult();
  const TUFacts &Facts = Stored.Facts;
  std::vector<MacroUse> Uses = Facts.Candidates[0].Calls;
  std::vector<BodyLocation> Bodies = {*Facts.Candidates[0].Body};
  std::vector<DeclFacts> Decls;
  for (const Candidate &C : Facts.Candidates)
    Decls.push_back(C.Facts);
#define CHECK_SET(Values, Name)                                                \
  EXPECT_TRUE(setInSome(Values, [](const auto &V) { return V.Name; }))         \
      << #Values " never sets " #Name;
#define APISTAMP_MACRO_USE_FIELD(Type, Name, Key) CHECK_SET(Uses, Name)
#define APISTAMP_BODY_FIELD(Type, Name, Key) CHECK_SET(Bodies, Name)
#define APISTAMP_DECL_FACT(Type, Name, Key, Default) CHECK_SET(Decls, Name)
#define APISTAMP_CANDIDATE_FIELD(Type, Name, Key)                              \
  CHECK_SET(Facts.Candidates, Name)
#define APISTAMP_SUPPRESSION_FIELD(Type, Name, Key)                            \
  CHECK_SET(Facts.Suppressions, Name)
#define APISTAMP_EXPECTATION_FIELD(Type, Name, Key)                            \
  CHECK_SET(Facts.Expectations, Name)
#include "apistamp/SiteFields.def"
#undef CHECK_SET

  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", Stored, Rules);
  std::optional<TUResult> Loaded = Cache.lookup("key", Rules);
  ASSERT_TRUE(Loaded);
  EXPECT_EQ(Cache.hits(), 1u);
  EXPECT_EQ(Cache.redecided(), 0u);
  const TUFacts &Back = Loaded->Facts;
  ASSERT_EQ(Back.Candidates.size(), 2u);
  for (size_t I = 0; I < 2; ++I)
    EXPECT_TRUE(sameFields(Back.Candidates[I], Facts.Candidates[I])) << I;
  ASSERT_EQ(Back.Suppressions.size(), 1u);
  EXPECT_TRUE(sameFields(Back.Suppressions[0], Facts.Suppressions[0]));
  ASSERT_EQ(Back.Expectations.size(), 1u);
  EXPECT_TRUE(sameFields(Back.Expectations[0], Facts.Expectations[0]));
  EXPECT_EQ(Loaded->SkippedBodies, 42u);
  // The rules decided: lib::f is a site, lib::g (internal) is none.
  ASSERT_EQ(Loaded->Sites.size(), 1u);
  EXPECT_EQ(Loaded->Sites[0].Event, "lib.W.f");
  EXPECT_EQ(Loaded->Sites[0].IncludeFile, Source);
  EXPECT_EQ(Loaded->FileContents.at(Source).str(), Code);
}

// A rules edit that cannot change what was parsed is decided on the stored
// facts: a hit, counted as re-decided, with what the new rules make of them.
TEST_F(ResultCacheTest, AnEditedRulesFileIsDecidedOnTheFacts) {
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", parsed(wrongCandidate()), Rules);
  RuleSet Excluding = rules("  - id: api\n    exclude_names: [f]\n");
  Excluding.TextHash = Rules.TextHash + 1;
  std::optional<TUResult> Loaded = Cache.lookup("key", Excluding);
  ASSERT_TRUE(Loaded);
  EXPECT_EQ(Cache.redecided(), 1u);
  // Not selected, and its first statement logs "old": it may be stale.
  ASSERT_EQ(Loaded->Sites.size(), 1u);
  EXPECT_EQ(Loaded->Sites[0].RuleId, "");
  RuleSet Renaming = rules("  - id: api\n    event: 'x.{name}'\n");
  Renaming.TextHash = Rules.TextHash + 2;
  Loaded = Cache.lookup("key", Renaming, /*Unselected=*/true);
  ASSERT_TRUE(Loaded);
  ASSERT_EQ(Loaded->Sites.size(), 1u);
  EXPECT_EQ(Loaded->Sites[0].Event, "x.f");
  EXPECT_TRUE(Loaded->Unselected.empty());
  Loaded = Cache.lookup("key", Excluding, /*Unselected=*/true);
  ASSERT_TRUE(Loaded);
  ASSERT_EQ(Loaded->Unselected.size(), 1u);
  EXPECT_EQ(Loaded->Unselected[0].Rejections.size(), 1u);
  EXPECT_EQ(Cache.hits(), 3u);
  EXPECT_EQ(Cache.redecided(), 3u);
}

// Bodies the parse skipped (their file matched no rule's `files`) are
// needed by rules that can select something there: a miss, for a parse.
TEST_F(ResultCacheTest, RulesThatNeedSkippedBodiesMiss) {
  std::string Other = (Dir + "/b.h").str();
  write(Other, "inline void g() {}\n");
  TUResult R = parsed(wrongCandidate());
  R.Dependencies.push_back({Other, llvm::xxh3_64bits("inline void g() {}\n")});
  R.Facts.BodiesSkippedIn = {Other};
  RuleSet OnlyA = rules("  - id: api\n    files: [a.cpp]\n");
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", R, OnlyA);
  EXPECT_TRUE(Cache.lookup("key", OnlyA));
  EXPECT_TRUE(
      Cache.lookup("key", rules("  - id: api\n    files: ['*.cpp']\n")));
  EXPECT_FALSE(Cache.lookup("key", rules("  - id: api\n    files: ['*.h']\n")));
  EXPECT_FALSE(Cache.lookup("key", Rules)); // Every file.
  EXPECT_EQ(Cache.counts().BodiesNeeded, 2u);
  EXPECT_EQ(Cache.counts().misses(), 2u);
  // One outside the root, or that the TU did not read, is tampered with.
  for (std::string Skipped :
       {std::string("/etc/passwd"), (Dir + "/c.h").str()}) {
    R.Facts.BodiesSkippedIn = {Skipped};
    Cache.store("key", R, OnlyA);
    EXPECT_FALSE(Cache.lookup("key", OnlyA)) << Skipped;
  }
}

// The key is the parse's: what of the rules the parse depends on (the root,
// the macro, the matchers), not the selectors or the events.
TEST_F(ResultCacheTest, TheKeyIsTheParses) {
  ResultCache Cache((Dir + "/cache").str());
  clang::tooling::CompileCommand Command(Dir, Source, {"clang++", Source}, "");
  std::string Key = Cache.keyFor(Rules, Command, true);
  RuleSet Edited = rules("  - id: api\n    namespace: lib\n"
                         "    exclude_names: [f]\n    event: 'x.{name}'\n"
                         "    files: ['*.cpp']\n");
  Edited.TextHash = Rules.TextHash + 1;
  EXPECT_EQ(Cache.keyFor(Edited, Command, true), Key);
  EXPECT_NE(Cache.keyFor(Rules, Command, false), Key);
  RuleSet OtherRoot = Rules;
  OtherRoot.Root = (Dir + "/src").str();
  EXPECT_NE(Cache.keyFor(OtherRoot, Command, true), Key);
  RuleSet OtherMacro = Rules;
  OtherMacro.Macro = "TRACE";
  EXPECT_NE(Cache.keyFor(OtherMacro, Command, true), Key);
  RuleSet WithMatcher =
      rules("  - id: api\n    matcher: functionDecl(hasName(\"f\"))\n");
  std::string MatcherKey = Cache.keyFor(WithMatcher, Command, true);
  EXPECT_NE(MatcherKey, Key);
  RuleSet SameMatcher = rules("  - id: other\n    event: 'm.{name}'\n"
                              "    matcher: functionDecl(hasName(\"f\"))\n");
  EXPECT_EQ(Cache.keyFor(SameMatcher, Command, true), MatcherKey);
  RuleSet OtherMatcher =
      rules("  - id: api\n    matcher: functionDecl(hasName(\"g\"))\n");
  EXPECT_NE(Cache.keyFor(OtherMatcher, Command, true), MatcherKey);
}

// An entry's candidates are untrusted: one in a file outside the root or
// that the TU did not read, with a path that is not its file's, with a
// suppression it does not have, or an includer outside the root, is a miss.
TEST_F(ResultCacheTest, CandidatesAreChecked) {
  ResultCache Cache((Dir + "/cache").str());
  auto MissesWith = [&](llvm::function_ref<void(llvm::json::Object &)> Tamper) {
    Cache.store("key", fullResult(), Rules);
    EXPECT_TRUE(Cache.lookup("key", Rules));
    tamper("key", Tamper);
    return !Cache.lookup("key", Rules);
  };
  EXPECT_TRUE(MissesWith([](llvm::json::Object &Entry) {
    firstCandidate(Entry)["file"] = "/etc/passwd";
  }));
  std::string Unread = (Dir + "/unread.cpp").str();
  write(Unread, "");
  EXPECT_TRUE(MissesWith([&](llvm::json::Object &Entry) {
    firstCandidate(Entry)["file"] = Unread;
    (*firstCandidate(Entry).getObject("facts"))["path"] = "unread.cpp";
  }));
  EXPECT_TRUE(MissesWith([](llvm::json::Object &Entry) {
    (*firstCandidate(Entry).getObject("facts"))["path"] = "b.cpp";
  }));
  EXPECT_TRUE(MissesWith([](llvm::json::Object &Entry) {
    firstCandidate(Entry)["suppression"] = 1;
  }));
  EXPECT_TRUE(MissesWith([](llvm::json::Object &Entry) {
    firstCandidate(Entry)["includer"] = "/etc/passwd";
  }));
  EXPECT_TRUE(MissesWith(
      [](llvm::json::Object &Entry) { firstCandidate(Entry).erase("facts"); }));
}

// sameFields compares every field: a difference in any one is seen.
TEST_F(ResultCacheTest, SameFieldsSeesEveryFact) {
  Candidate A = fullResult().Facts.Candidates[0];
  Candidate B = A;
  EXPECT_TRUE(sameFields(A, B));
  B.Includer = "other.h";
  EXPECT_FALSE(sameFields(A, B));
  B = A;
  B.Calls[1].FunctionCall = false;
  EXPECT_FALSE(sameFields(A, B));
  B = A;
  B.Calls.back().Macro.clear();
  EXPECT_FALSE(sameFields(A, B));
  B = A;
  B.Body->RBraceOffset -= 1;
  EXPECT_FALSE(sameFields(A, B));
  B = A;
  B.Facts.Bases.clear();
  EXPECT_FALSE(sameFields(A, B));
  B = A;
  B.Facts.MatchesMatcher = [](const CompiledMatcher &) { return true; };
  EXPECT_TRUE(sameFields(A, B)); // Set from Matches, not stored.
  Site S;
  S.File = Source;
  Site T = S;
  T.Status = SiteStatus::Present; // A decision, not a fact.
  EXPECT_TRUE(sameFields(S, T));
  T.IncludeFile = "other.h";
  EXPECT_FALSE(sameFields(S, T));
}

// An entry holds facts only: neither what the rules decide (a rule, an
// event, a suppression used) nor what is decided from that.
TEST_F(ResultCacheTest, EntriesStoreNoDecision) {
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", fullResult(), Rules);
  tamper("key", [](llvm::json::Object &Entry) {
    EXPECT_FALSE(Entry.get("sites"));
    for (const char *Decided : {"rule", "also", "event", "suppressed", "status",
                                "edits", "found", "skip", "reportLine"})
      EXPECT_FALSE(firstCandidate(Entry).get(Decided)) << Decided;
  });
  // The entry says the comment was used; the rules say it is not (lib::g,
  // which it precedes, is not selected).
  std::optional<TUResult> Loaded = Cache.lookup("key", Rules);
  ASSERT_TRUE(Loaded);
  ASSERT_EQ(Loaded->Suppressions.size(), 1u);
  EXPECT_FALSE(Loaded->Suppressions[0].Used);
}

TEST_F(ResultCacheTest, ChangedOrDeletedDependencyIsAMiss) {
  {
    ResultCache Cache((Dir + "/cache").str());
    Cache.store("key", fullResult(), Rules);
  }
  write(Source, "namespace lib { void f() { } }\n");
  ResultCache Changed((Dir + "/cache").str());
  EXPECT_FALSE(Changed.lookup("key", Rules));
  EXPECT_EQ(Changed.misses(), 1u);
  EXPECT_EQ(Changed.counts().Changed, 1u);
  llvm::sys::fs::remove(Source);
  ResultCache Deleted((Dir + "/cache").str());
  EXPECT_FALSE(Deleted.lookup("key", Rules));
}

TEST_F(ResultCacheTest, CorruptOrMissingEntryIsAMiss) {
  ResultCache Cache((Dir + "/cache").str());
  EXPECT_FALSE(Cache.lookup("absent", Rules));
  Cache.store("key", fullResult(), Rules);
  write((Dir + "/cache/key.json").str(), "{\"deps\": [");
  EXPECT_FALSE(Cache.lookup("key", Rules));
  EXPECT_EQ(Cache.misses(), 2u);
  EXPECT_EQ(Cache.counts().NoEntry, 1u);
  EXPECT_EQ(Cache.counts().Untrusted, 1u);
}

TEST_F(ResultCacheTest, FailedParsesAreNotStored) {
  ResultCache Cache((Dir + "/cache").str());
  TUResult Failed = fullResult();
  Failed.ParseFailed = true;
  Cache.store("key", Failed, Rules);
  EXPECT_FALSE(Cache.lookup("key", Rules));
}

// A cache directory can come from a shared CI cache: its entries are
// untrusted, and one that does not check out is a miss, never applied.
TEST_F(ResultCacheTest, EntryWithACandidateOutsideTheRootIsAMiss) {
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", fullResult(), Rules);
  tamper("key", [](llvm::json::Object &Entry) {
    firstCandidate(Entry)["file"] = "/etc/passwd";
    (*Entry.getArray("deps")).push_back(llvm::json::Array{"/etc/passwd", "0"});
  });
  EXPECT_FALSE(Cache.lookup("key", Rules));
}

TEST_F(ResultCacheTest, EntryWithoutHashesOrDependenciesIsAMiss) {
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", fullResult(), Rules);
  tamper("key", [](llvm::json::Object &Entry) {
    (*(*Entry.getArray("deps"))[0].getAsArray())[1] = nullptr;
  });
  EXPECT_FALSE(Cache.lookup("key", Rules));
  Cache.store("key", fullResult(), Rules);
  tamper("key", [](llvm::json::Object &Entry) {
    Entry["deps"] = llvm::json::Array{};
  });
  EXPECT_FALSE(Cache.lookup("key", Rules));
}

TEST_F(ResultCacheTest, EntryWhoseBodyIsNotOnBracesIsAMiss) {
  ResultCache Cache((Dir + "/cache").str());
  for (auto FieldAndValue : {std::pair<const char *, int64_t>{"lbrace", 3},
                             {"rbrace", 1000},
                             {"decl", 40}}) {
    const char *Field = FieldAndValue.first;
    int64_t Value = FieldAndValue.second;
    Cache.store("key", fullResult(), Rules);
    tamper("key", [&](llvm::json::Object &Entry) {
      (*firstCandidate(Entry).getObject("body"))[Field] = Value;
    });
    EXPECT_FALSE(Cache.lookup("key", Rules)) << Field;
  }
}

TEST_F(ResultCacheTest, FixesAreRecomputedNotRead) {
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", parsed(wrongCandidate()), Rules);
  // An entry that claims a status and a fix of its own: they come from the
  // facts, the rules and the file's bytes, whatever the entry says.
  tamper("key", [](llvm::json::Object &Entry) {
    firstCandidate(Entry)["edits"] = llvm::json::Array{
        llvm::json::Array{"/etc/passwd", 0, 0, "owned", 0, false}};
    firstCandidate(Entry)["status"] = int(SiteStatus::Present);
  });
  std::optional<TUResult> Loaded = Cache.lookup("key", Rules);
  ASSERT_TRUE(Loaded);
  ASSERT_EQ(Loaded->Sites.size(), 1u);
  ASSERT_TRUE(decideSite(Loaded->Sites[0], Code, Rules));
  EXPECT_EQ(Loaded->Sites[0].Status, SiteStatus::Wrong);
  ASSERT_EQ(Loaded->Sites[0].Edits.size(), 2u); // The literal, the #include.
  EXPECT_EQ(Loaded->Sites[0].Edits[0].Text, "\"lib.f\"");
  EXPECT_EQ(Loaded->Sites[0].Edits[0].File, Source);
}

// A forged entry cannot order a removal: a site no rule selects is stale
// only if the file's bytes show its first statement logging the event, and
// its call is removed only if the bytes are what apistamp writes for it.
TEST_F(ResultCacheTest, AForgedStaleCallRemovesNothing) {
  ResultCache Cache((Dir + "/cache").str());
  Candidate C = wrongCandidate();
  C.Calls.front().Event = "auth"; // The bytes say LOG("old").
  Cache.store("key", parsed(C), Rules);
  RuleSet Elsewhere = rules("  - id: api\n    namespace: other\n");
  std::optional<TUResult> Loaded = Cache.lookup("key", Elsewhere);
  ASSERT_TRUE(Loaded);
  ASSERT_EQ(Loaded->Sites.size(), 1u);
  ASSERT_TRUE(decideSite(Loaded->Sites[0], Code, Elsewhere));
  EXPECT_EQ(Loaded->Sites[0].Status, SiteStatus::Stale);
  EXPECT_TRUE(Loaded->Sites[0].Edits.empty());
}

// A forged entry could insert a call at any pair of braces of a file the
// TU read, a string literal's too (it changed program data): braces and
// calls must be tokens where clang's lexer reads the file.
TEST_F(ResultCacheTest, BracesAndCallsMustBeTokens) {
  const std::string Literal = "namespace lib { void f() { h(\"{ x }\"); } }\n";
  write(Source, Literal);
  Candidate C = wrongCandidate();
  C.Calls.clear();
  C.Body = BodyLocation{16, unsigned(Literal.find("{ h")),
                        unsigned(Literal.rfind("} }"))};
  TUResult R = parsed(C);
  R.Dependencies = {{Source, llvm::xxh3_64bits(Literal)}};
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", R, Rules);
  ASSERT_TRUE(Cache.lookup("key", Rules)); // The real body.
  R.Facts.Candidates[0].Body = BodyLocation{16, unsigned(Literal.find("{ x")),
                                            unsigned(Literal.find("} \""))};
  Cache.store("key", R, Rules);
  EXPECT_FALSE(Cache.lookup("key", Rules)); // Braces in a string literal.

  write(Source, Code);
  ResultCache Calls((Dir + "/cache2").str());
  TUResult Moved = parsed(wrongCandidate());
  Calls.store("key", Moved, Rules);
  ASSERT_TRUE(Calls.lookup("key", Rules));
  Moved.Facts.Candidates[0].Calls[0].Offset += 1; // "OG(": not the macro.
  Calls.store("key", Moved, Rules);
  EXPECT_FALSE(Calls.lookup("key", Rules));
}

TEST_F(ResultCacheTest, BracesMustBeAFunctionBodys) {
  // Brace tokens that are no function's body: a class's, a lambda's, an
  // initializer list's, a member initializer's, a namespace's. An entry
  // that says so is a miss: an insertion there would change program data.
  const std::string Code = "namespace lib {\n"
                           "struct S { int m; S() : m{1} { g(); } };\n"
                           "void f() { auto l = [] { g(); }; int a[] = {1}; }\n"
                           "}\n";
  write(Source, Code);
  auto EntryWithBody = [&](unsigned Decl, llvm::StringRef LBraceAfter) {
    size_t L = Code.find(LBraceAfter) + LBraceAfter.size() - 1;
    // The matching '}', by nesting.
    int Depth = 0;
    size_t Rb = L;
    for (; Rb < Code.size(); ++Rb) {
      Depth += Code[Rb] == '{';
      Depth -= Code[Rb] == '}';
      if (Depth == 0)
        break;
    }
    Candidate C = wrongCandidate();
    C.Calls.clear();
    C.Body = BodyLocation{Decl, unsigned(L), unsigned(Rb)};
    TUResult Entry = parsed(C);
    Entry.Dependencies = {{Source, llvm::xxh3_64bits(Code)}};
    ResultCache Cache((Dir + "/cache-" + std::to_string(L)).str());
    Cache.store("key", Entry, Rules);
    return Cache.lookup("key", Rules).has_value();
  };
  unsigned Ctor = Code.find("S() :"), F = Code.find("void f");
  EXPECT_TRUE(EntryWithBody(Ctor, "m{1} {"));  // The constructor's body.
  EXPECT_TRUE(EntryWithBody(F, "void f() {")); // f's body.
  EXPECT_FALSE(EntryWithBody(Ctor, "m{"));     // A member initializer.
  EXPECT_FALSE(EntryWithBody(Code.find("struct"), "struct S {")); // A class.
  EXPECT_FALSE(EntryWithBody(F, "[] {"));            // A lambda in f.
  EXPECT_FALSE(EntryWithBody(F, "= {"));             // An initializer list.
  EXPECT_FALSE(EntryWithBody(0, "namespace lib {")); // A namespace.
}

/// A header of \p Count inline functions, and a parse of a TU that reads it
/// (and \p Main, whose candidate is the fixture's).
struct HeaderTU {
  std::string Header, Text;
  TUResult Parse;
};

class SharedRunTest : public ResultCacheTest {
protected:
  HeaderTU headerTU(unsigned Count = 60) {
    HeaderTU T;
    T.Header = (Dir + "/h.h").str();
    T.Text = "namespace lib {\n";
    std::vector<Candidate> Candidates;
    for (unsigned I = 0; I < Count; ++I) {
      std::string Name = "h" + std::to_string(I);
      unsigned Decl = T.Text.size();
      T.Text += "inline void " + Name + "() { }\n";
      Candidate C;
      C.File = T.Header;
      C.Offset = Decl + 12;
      C.Line = C.BeginLine = C.EndLine = I + 2;
      C.Column = 13;
      C.QualifiedName = "lib::" + Name;
      C.Facts.Kind = DeclKind::Function;
      C.Facts.Name = Name;
      C.Facts.Namespaces = {"lib"};
      C.Facts.RelativePath = "h.h";
      C.Facts.DeclaredIn = {"h.h"};
      unsigned LBrace = T.Text.rfind('{');
      C.Body = BodyLocation{Decl, LBrace, LBrace + 2};
      Candidates.push_back(std::move(C));
    }
    T.Text += "}\n";
    write(T.Header, T.Text);
    T.Parse = parsed(wrongCandidate());
    T.Parse.Dependencies.push_back({T.Header, llvm::xxh3_64bits(T.Text)});
    llvm::append_range(T.Parse.Facts.Candidates, Candidates);
    return T;
  }

  /// The shared runs' files of the cache.
  std::vector<std::string> sharedRuns() {
    std::vector<std::string> Files;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir + "/cache/facts", EC), End;
         It != End && !EC; It.increment(EC))
      Files.push_back(It->path());
    return Files;
  }

  /// The names of \p R's sites, in order.
  static std::vector<std::string> names(const TUResult &R) {
    std::vector<std::string> Names;
    for (const Site &S : R.Sites)
      Names.push_back(S.QualifiedName);
    return Names;
  }
};

// A header's inline definitions are the same facts in every TU that reads
// it (protobuf: 4,000 of them in each of 168 entries, 352 MB): a long run
// of one file's candidates is stored once, named by its bytes' hash, and
// read once a run; the entries decide as if they held it.
TEST_F(SharedRunTest, AHeadersRunIsStoredOnceForEveryEntry) {
  HeaderTU T = headerTU();
  TUResult Inline = T.Parse;
  {
    ResultCache Cache((Dir + "/cache").str());
    Cache.store("one", T.Parse, Rules);
    Cache.store("two", T.Parse, Rules);
  }
  ASSERT_EQ(sharedRuns().size(), 1u);
  auto Entry = llvm::MemoryBuffer::getFile(Dir + "/cache/one.json");
  ASSERT_TRUE(bool(Entry));
  EXPECT_TRUE((*Entry)->getBuffer().contains("{\"shared\":\""));
  EXPECT_FALSE((*Entry)->getBuffer().contains("lib::h7"));
  ResultCache Cache((Dir + "/cache").str());
  std::optional<TUResult> One = Cache.lookup("one", Rules);
  std::optional<TUResult> Two = Cache.lookup("two", Rules);
  ASSERT_TRUE(One && Two);
  EXPECT_EQ(One->Sites.size(), 61u);
  EXPECT_EQ(names(*One), names(*Two));
  EXPECT_EQ(One->Sites.front().QualifiedName, "lib::f");
  EXPECT_EQ(One->Sites.back().QualifiedName, "lib::h59");
  EXPECT_EQ(Cache.hits(), 2u);
}

// A shared run is untrusted like an entry: one whose bytes are not what its
// name says, whose candidates name another file than its own, that is gone,
// or that an entry names with a path instead of a hash, makes the entry a
// miss.
TEST_F(SharedRunTest, ASharedRunThatDoesNotCheckOutIsAMiss) {
  HeaderTU T = headerTU();
  {
    ResultCache Cache((Dir + "/cache").str());
    Cache.store("key", T.Parse, Rules);
  }
  std::vector<std::string> Runs = sharedRuns();
  ASSERT_EQ(Runs.size(), 1u);
  std::string Run = Runs.front();
  auto Original = llvm::MemoryBuffer::getFile(Run);
  ASSERT_TRUE(bool(Original));
  std::string Bytes = (*Original)->getBuffer().str();
  auto Lookup = [&] {
    ResultCache Cache((Dir + "/cache").str());
    return Cache.lookup("key", Rules).has_value();
  };
  ASSERT_TRUE(Lookup());
  // Another name for a definition: the bytes are not the name's.
  std::string Renamed = Bytes;
  Renamed.replace(Renamed.find("lib::h7"), 7, "lib::hX");
  write(Run, Renamed);
  EXPECT_FALSE(Lookup());
  // A run that says it is a.cpp's (its candidates h.h's), under its own
  // hash.
  std::string Moved = Bytes;
  Moved.replace(Moved.rfind("\"file\":\"" + T.Header),
                std::string("\"file\":\"" + T.Header).size(),
                "\"file\":\"" + Source);
  llvm::XXH128_hash_t Hash =
      llvm::xxh3_128bits(llvm::arrayRefFromStringRef(Moved));
  std::string Name = llvm::utohexstr(Hash.high64, true, 16) +
                     llvm::utohexstr(Hash.low64, true, 16);
  write((Dir + "/cache/facts/" + Name + ".json").str(), Moved);
  write(Run, Bytes);
  std::string OldName = llvm::sys::path::stem(Run).str();
  auto Point = [&](llvm::StringRef To) {
    tamper("key", [&](llvm::json::Object &Entry) {
      for (llvm::json::Value &C : *Entry.getArray("candidates"))
        if (llvm::json::Object *O = C.getAsObject(); O && O->get("shared"))
          (*O)["shared"] = To.str();
    });
  };
  Point(Name);
  EXPECT_FALSE(Lookup());
  Point(OldName);
  ASSERT_TRUE(Lookup());
  // A path instead of a hash: never read (a FIFO there would block).
  write((Dir + "/cache/" + OldName + ".json").str(), Bytes);
  Point("../" + OldName);
  EXPECT_FALSE(Lookup());
  Point(OldName);
  // Gone: no entry, as far as the counts go.
  llvm::sys::fs::remove(Run);
  ResultCache Cache((Dir + "/cache").str());
  EXPECT_FALSE(Cache.lookup("key", Rules));
  EXPECT_EQ(Cache.counts().NoEntry, 1u);
}

// A short run stays in its entry: a main file's few definitions are no
// other entry's.
TEST_F(SharedRunTest, AShortRunStaysInItsEntry) {
  HeaderTU T = headerTU(2);
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", T.Parse, Rules);
  EXPECT_TRUE(sharedRuns().empty());
  std::optional<TUResult> Loaded = Cache.lookup("key", Rules);
  ASSERT_TRUE(Loaded);
  EXPECT_EQ(Loaded->Sites.size(), 3u);
}

/// Sets \p Path's modification time to \p SecondsAgo before now.
void ageFile(const std::string &Path, int SecondsAgo) {
  int FD;
  ASSERT_FALSE(llvm::sys::fs::openFileForWrite(
      Path, FD, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append));
  ASSERT_FALSE(llvm::sys::fs::setLastAccessAndModificationTime(
      FD, std::chrono::system_clock::now() - std::chrono::seconds(SecondsAgo)));
  llvm::sys::Process::SafelyCloseFileDescriptor(FD);
}

// The cache is kept under its limit: a run that stored in it removes the
// least recently used entries (a hit marks an entry used) and shared runs
// past it; another build's entries, never looked up again, go first.
TEST_F(SharedRunTest, ARunThatStoresEvictsTheLeastRecentlyUsedPastTheLimit) {
  std::string Cache = (Dir + "/cache").str();
  uint64_t EntrySize = 0;
  {
    ResultCache Store(Cache, /*LimitBytes=*/uint64_t(1) << 30);
    for (const char *Key : {"old", "older", "used"})
      Store.store(Key, fullResult(), Rules);
    uint64_t Size = 0;
    ASSERT_FALSE(llvm::sys::fs::file_size(Cache + "/old.json", Size));
    EntrySize = Size;
    EXPECT_EQ(Store.evicted(), 0u);
  }
  ageFile(Cache + "/older.json", 300);
  ageFile(Cache + "/old.json", 200);
  ageFile(Cache + "/used.json", 400);
  {
    // Room for three entries: a lookup evicts nothing.
    ResultCache Lookups(Cache, 3 * EntrySize);
    ASSERT_TRUE(Lookups.lookup("used", Rules)); // Marked used now.
  }
  EXPECT_TRUE(llvm::sys::fs::exists(Cache + "/older.json"));
  {
    // Room for two: storing a fourth evicts the two least recently used.
    ResultCache Run(Cache, 2 * EntrySize);
    Run.store("new", fullResult(), Rules);
  }
  EXPECT_FALSE(llvm::sys::fs::exists(Cache + "/older.json"));
  EXPECT_FALSE(llvm::sys::fs::exists(Cache + "/old.json"));
  EXPECT_TRUE(llvm::sys::fs::exists(Cache + "/used.json"));
  EXPECT_TRUE(llvm::sys::fs::exists(Cache + "/new.json"));
  // Shared runs too, after the entries of the same age.
  HeaderTU T = headerTU();
  {
    ResultCache Run(Cache, /*LimitBytes=*/0);
    Run.store("header", T.Parse, Rules);
  }
  EXPECT_TRUE(sharedRuns().empty());
  EXPECT_FALSE(llvm::sys::fs::exists(Cache + "/header.json"));
}

} // namespace
