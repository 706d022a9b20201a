//===- ResultCacheTest.cpp - Tests for the TU result cache ----------------===//

#include "ResultCache.h"
#include "SiteDecision.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
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
    Rules.Root = Dir.str().str();
    Rules.Macro = "LOG";
    Rules.Include = "log.h";
    Rules.IncludeAngled = true;
    Rule Api;
    Api.Id = "api";
    Rules.Rules.push_back(Api);
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  static void write(const std::string &Path, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }

  /// A site whose body calls LOG("old") where "lib.f" is expected.
  Site wrongSite() {
    Site S;
    S.File = Source;
    S.Offset = 21;
    S.Line = 1;
    S.Column = 22;
    S.BeginLine = 1;
    S.EndLine = 3;
    S.Kind = DeclKind::Method;
    S.QualifiedName = "lib::f";
    S.RuleId = "api";
    S.AlsoSelectedBy = {"broad", "other"};
    S.Event = "lib.f";
    S.Body = BodyLocation{16, unsigned(Code.find("{ LOG")),
                          unsigned(Code.find("; }") + 2)};
    MacroUse Use;
    Use.Offset = Code.find("LOG");
    Use.Event = "old";
    Use.HasArgRange = true;
    Use.ArgBegin = Code.find("\"old");
    Use.ArgEnd = Code.find(");");
    S.Calls = {Use};
    return S;
  }

  /// A result in which every field of SiteFields.def is set to something
  /// other than its default in some site, suppression or expectation.
  TUResult fullResult() {
    TUResult R;
    R.Dependencies = {{Source, llvm::xxh3_64bits(Code)}};
    R.FileContents[Source] = Code;
    Site S = wrongSite();
    S.IncludeFile = Source;
    MacroUse Function;
    Function.Offset = S.Calls.front().Offset; // A function named LOG.
    Function.FunctionCall = true;
    S.Calls.push_back(Function);
    Site Other;
    Other.File = Source;
    Other.Offset = 10;
    Other.Line = 1;
    Other.Column = 11;
    Other.RuleId = "api";
    Other.Suppressed = true;
    Other.SuppressionReason = "internal";
    Other.Constexpr = ConstexprKind::Consteval;
    Other.Shape = BodyShape::FromMacro;
    Other.BodyMacro = "BODY";
    R.Sites = {S, Other};
    R.Suppressions = {Suppression{Source, 3, 4, 5, "why", true}};
    Expectation E;
    E.Kind = Expectation::Skipped;
    E.File = Source;
    E.Line = 6;
    E.Column = 7;
    E.Value = "constexpr";
    E.DefinitionLine = 8;
    E.DefinitionColumn = 9;
    E.Definition = "lib::g";
    R.Expectations = {E};
    UnselectedDefinition U;
    U.File = Source;
    U.Offset = 10;
    U.Line = 1;
    U.Column = 11;
    U.BeginLine = 1;
    U.EndLine = 2;
    U.Kind = DeclKind::Constructor;
    U.QualifiedName = "lib::W::W";
    U.Name = "W";
    U.Namespaces = {"lib"};
    U.Classes = {"W"};
    U.DeclaredIn = {"a.h", "a.cpp"};
    U.Rejections = {"where 'method' but this is a constructor"};
    R.Unselected = {U};
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

  static llvm::json::Object &firstSite(llvm::json::Object &Entry) {
    return *(*Entry.getArray("sites"))[0].getAsObject();
  }

  const std::string Code = "namespace lib { void f() { LOG(\"old\"); } }\n";
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
  std::vector<MacroUse> Uses = Stored.Sites[0].Calls;
  std::vector<BodyLocation> Bodies = {*Stored.Sites[0].Body};
#define CHECK_SET(Values, Name)                                                \
  EXPECT_TRUE(setInSome(Values, [](const auto &V) { return V.Name; }))         \
      << #Values " never sets " #Name;
#define APISTAMP_MACRO_USE_FIELD(Type, Name, Key) CHECK_SET(Uses, Name)
#define APISTAMP_BODY_FIELD(Type, Name, Key) CHECK_SET(Bodies, Name)
#define APISTAMP_SITE_FACT(Type, Name, Key) CHECK_SET(Stored.Sites, Name)
#define APISTAMP_SUPPRESSION_FIELD(Type, Name, Key)                            \
  CHECK_SET(Stored.Suppressions, Name)
#define APISTAMP_EXPECTATION_FIELD(Type, Name, Key)                            \
  CHECK_SET(Stored.Expectations, Name)
#define APISTAMP_UNSELECTED_FIELD(Type, Name, Key)                             \
  CHECK_SET(Stored.Unselected, Name)
#include "apistamp/SiteFields.def"
#undef CHECK_SET

  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", Stored);
  std::optional<TUResult> Loaded = Cache.lookup("key", Rules);
  ASSERT_TRUE(Loaded);
  EXPECT_EQ(Cache.hits(), 1u);
  ASSERT_EQ(Loaded->Sites.size(), 2u);
  for (size_t I = 0; I < 2; ++I)
    EXPECT_TRUE(sameFields(Loaded->Sites[I], Stored.Sites[I])) << I;
  ASSERT_EQ(Loaded->Suppressions.size(), 1u);
  EXPECT_TRUE(sameFields(Loaded->Suppressions[0], Stored.Suppressions[0]));
  ASSERT_EQ(Loaded->Expectations.size(), 1u);
  EXPECT_TRUE(sameFields(Loaded->Expectations[0], Stored.Expectations[0]));
  ASSERT_EQ(Loaded->Unselected.size(), 1u);
  EXPECT_TRUE(sameFields(Loaded->Unselected[0], Stored.Unselected[0]));
  EXPECT_EQ(Loaded->SkippedBodies, 42u);
  EXPECT_EQ(Loaded->FileContents, Stored.FileContents);
}

// Unselected definitions are only listed, but an entry is still untrusted:
// one in a file the TU did not read, or with a reason missing for a rule,
// is a miss.
TEST_F(ResultCacheTest, UnselectedDefinitionsAreChecked) {
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", fullResult());
  tamper("key", [](llvm::json::Object &Entry) {
    (*Entry.getArray("unselected"))[0].getAsObject()->erase("rejections");
  });
  EXPECT_FALSE(Cache.lookup("key", Rules));
  Cache.store("key", fullResult());
  tamper("key", [](llvm::json::Object &Entry) {
    (*(*Entry.getArray("unselected"))[0].getAsObject())["rejections"] =
        llvm::json::Array{"one", "two"};
  });
  EXPECT_FALSE(Cache.lookup("key", Rules));
  Cache.store("key", fullResult());
  tamper("key", [](llvm::json::Object &Entry) {
    (*(*Entry.getArray("unselected"))[0].getAsObject())["file"] = "/etc/passwd";
  });
  EXPECT_FALSE(Cache.lookup("key", Rules));
}

// The key says whether unselected definitions were recorded: a run that
// asks for them never takes an entry made without.
TEST_F(ResultCacheTest, KeySaysWhetherUnselectedAreRecorded) {
  ResultCache Cache((Dir + "/cache").str());
  clang::tooling::CompileCommand Command(Dir, Source, {"clang++", Source}, "");
  EXPECT_NE(Cache.keyFor(Rules, Command, true, false),
            Cache.keyFor(Rules, Command, true, true));
  EXPECT_EQ(Cache.keyFor(Rules, Command, true),
            Cache.keyFor(Rules, Command, true, false));
}

// sameFields compares every field: a difference in any one is seen.
TEST_F(ResultCacheTest, SameFieldsSeesEveryFact) {
  Site A = fullResult().Sites[0];
  Site B = A;
  EXPECT_TRUE(sameFields(A, B));
  B.IncludeFile = "other.h";
  EXPECT_FALSE(sameFields(A, B));
  B = A;
  B.Calls.back().FunctionCall = false;
  EXPECT_FALSE(sameFields(A, B));
  B = A;
  B.Body->RBraceOffset -= 1;
  EXPECT_FALSE(sameFields(A, B));
  B = A;
  B.Status = SiteStatus::Present; // A decision, not a fact.
  EXPECT_TRUE(sameFields(A, B));
}

// An entry holds facts only: what is decided from them is not stored.
TEST_F(ResultCacheTest, EntriesStoreNoDecision) {
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", fullResult());
  tamper("key", [](llvm::json::Object &Entry) {
    for (const char *Decided :
         {"status", "edits", "found", "skip", "reportLine", "reportColumn"})
      EXPECT_FALSE(firstSite(Entry).get(Decided)) << Decided;
  });
}

TEST_F(ResultCacheTest, ChangedOrDeletedDependencyIsAMiss) {
  {
    ResultCache Cache((Dir + "/cache").str());
    Cache.store("key", fullResult());
  }
  write(Source, "namespace lib { void f() { } }\n");
  ResultCache Changed((Dir + "/cache").str());
  EXPECT_FALSE(Changed.lookup("key", Rules));
  EXPECT_EQ(Changed.misses(), 1u);
  llvm::sys::fs::remove(Source);
  ResultCache Deleted((Dir + "/cache").str());
  EXPECT_FALSE(Deleted.lookup("key", Rules));
}

TEST_F(ResultCacheTest, CorruptOrMissingEntryIsAMiss) {
  ResultCache Cache((Dir + "/cache").str());
  EXPECT_FALSE(Cache.lookup("absent", Rules));
  Cache.store("key", fullResult());
  write((Dir + "/cache/key.json").str(), "{\"deps\": [");
  EXPECT_FALSE(Cache.lookup("key", Rules));
  EXPECT_EQ(Cache.misses(), 2u);
}

TEST_F(ResultCacheTest, FailedParsesAreNotStored) {
  ResultCache Cache((Dir + "/cache").str());
  TUResult Failed = fullResult();
  Failed.ParseFailed = true;
  Cache.store("key", Failed);
  EXPECT_FALSE(Cache.lookup("key", Rules));
}

// A cache directory can come from a shared CI cache: its entries are
// untrusted, and one that does not check out is a miss, never applied.
TEST_F(ResultCacheTest, EntryWithASiteOutsideTheRootIsAMiss) {
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", fullResult());
  tamper("key", [](llvm::json::Object &Entry) {
    Entry["filesWithSites"] = llvm::json::Array{"/etc/passwd"};
    (*Entry.getArray("deps")).push_back(llvm::json::Array{"/etc/passwd", "0"});
  });
  EXPECT_FALSE(Cache.lookup("key", Rules));
}

TEST_F(ResultCacheTest, EntryWithoutHashesOrDependenciesIsAMiss) {
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", fullResult());
  tamper("key", [](llvm::json::Object &Entry) {
    (*(*Entry.getArray("deps"))[0].getAsArray())[1] = nullptr;
  });
  EXPECT_FALSE(Cache.lookup("key", Rules));
  Cache.store("key", fullResult());
  tamper("key", [](llvm::json::Object &Entry) {
    Entry["deps"] = llvm::json::Array{};
  });
  EXPECT_FALSE(Cache.lookup("key", Rules));
}

TEST_F(ResultCacheTest, EntryWhoseBodyIsNotOnBracesIsAMiss) {
  ResultCache Cache((Dir + "/cache").str());
  for (auto [Field, Value] : {std::pair<const char *, int64_t>{"lbrace", 3},
                              {"rbrace", 1000},
                              {"decl", 40}}) {
    Cache.store("key", fullResult());
    tamper("key", [&](llvm::json::Object &Entry) {
      (*firstSite(Entry).getObject("body"))[Field] = Value;
    });
    EXPECT_FALSE(Cache.lookup("key", Rules)) << Field;
  }
}

TEST_F(ResultCacheTest, FixesAreRecomputedNotRead) {
  ResultCache Cache((Dir + "/cache").str());
  TUResult Wrong = fullResult();
  Wrong.Sites = {wrongSite()};
  Cache.store("key", Wrong);
  // An entry that claims a status and a fix of its own: they come from the
  // facts, the rules and the file's bytes, whatever the entry says.
  tamper("key", [](llvm::json::Object &Entry) {
    firstSite(Entry)["edits"] = llvm::json::Array{
        llvm::json::Array{"/etc/passwd", 0, 0, "owned", 0, false}};
    firstSite(Entry)["status"] = int(SiteStatus::Present);
  });
  std::optional<TUResult> Loaded = Cache.lookup("key", Rules);
  ASSERT_TRUE(Loaded);
  Site Fresh = wrongSite();
  ASSERT_TRUE(decideSite(Fresh, Code, Rules));
  ASSERT_TRUE(decideSite(Loaded->Sites[0], Code, Rules));
  EXPECT_EQ(Loaded->Sites[0].Edits, Fresh.Edits);
  EXPECT_EQ(Loaded->Sites[0].Edits.size(), 2u); // The literal, the #include.
  EXPECT_EQ(Loaded->Sites[0].Status, SiteStatus::Wrong);
}

// A forged entry cannot order a removal: a site no rule selects is stale
// only if the file's bytes show its first statement logging the event, and
// its call is removed only if the bytes are what apistamp writes for it.
TEST_F(ResultCacheTest, AForgedStaleCallRemovesNothing) {
  ResultCache Cache((Dir + "/cache").str());
  TUResult Forged = fullResult();
  Site S = wrongSite();
  S.RuleId.clear();
  S.Event.clear();
  S.Calls.front().Event = "auth"; // The bytes say LOG("old").
  Forged.Sites = {S};
  Cache.store("key", Forged);
  std::optional<TUResult> Loaded = Cache.lookup("key", Rules);
  ASSERT_TRUE(Loaded);
  ASSERT_TRUE(decideSite(Loaded->Sites[0], Code, Rules));
  EXPECT_EQ(Loaded->Sites[0].Status, SiteStatus::Stale);
  EXPECT_TRUE(Loaded->Sites[0].Edits.empty());
}

// A forged entry could insert a call at any pair of braces of a file the
// TU read, a string literal's too (it changed program data): braces and
// calls must be tokens where clang's lexer reads the file.
TEST_F(ResultCacheTest, BracesAndCallsMustBeTokens) {
  const std::string Literal = "namespace lib { void f() { h(\"{ x }\"); } }\n";
  write(Source, Literal);
  TUResult R;
  R.Dependencies = {{Source, llvm::xxh3_64bits(Literal)}};
  R.FileContents[Source] = Literal;
  Site S = wrongSite();
  S.Calls.clear();
  S.Body = BodyLocation{16, unsigned(Literal.find("{ h")),
                        unsigned(Literal.rfind("} }"))};
  R.Sites = {S};
  ResultCache Cache((Dir + "/cache").str());
  Cache.store("key", R);
  ASSERT_TRUE(Cache.lookup("key", Rules)); // The real body.
  R.Sites[0].Body = BodyLocation{16, unsigned(Literal.find("{ x")),
                                 unsigned(Literal.find("} \""))};
  Cache.store("key", R);
  EXPECT_FALSE(Cache.lookup("key", Rules)); // Braces in a string literal.

  write(Source, Code);
  ResultCache Calls((Dir + "/cache2").str());
  TUResult Moved = fullResult();
  Moved.Sites.resize(1);
  Moved.Sites[0].Calls.resize(1);
  Calls.store("key", Moved);
  ASSERT_TRUE(Calls.lookup("key", Rules));
  Moved.Sites[0].Calls[0].Offset += 1; // "OG(": not where the macro is.
  Calls.store("key", Moved);
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
  TUResult R;
  R.Dependencies = {{Source, llvm::xxh3_64bits(Code)}};
  R.FileContents[Source] = Code;
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
    Site S = wrongSite();
    S.Calls.clear();
    S.Body = BodyLocation{Decl, unsigned(L), unsigned(Rb)};
    TUResult Entry = R;
    Entry.Sites = {S};
    ResultCache Cache((Dir + "/cache-" + std::to_string(L)).str());
    Cache.store("key", Entry);
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

} // namespace
