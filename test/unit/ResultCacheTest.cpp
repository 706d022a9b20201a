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
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  static void write(const std::string &Path, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }

  /// A result with every field set to something other than its default.
  TUResult fullResult() {
    TUResult R;
    R.Dependencies = {{Source, llvm::xxh3_64bits(Code)}};
    R.FileContents[Source] = Code;
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
    S.SkipReason = "reason";
    decideSite(S, Code, Rules);
    Site Skipped;
    Skipped.File = Source;
    Skipped.Offset = 10;
    Skipped.Line = Skipped.ReportLine = 1;
    Skipped.Column = Skipped.ReportColumn = 11;
    Skipped.Status = SiteStatus::Skipped;
    Skipped.SkipReason = "constexpr function";
    R.Sites = {S, Skipped};
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

TEST_F(ResultCacheTest, EveryFieldSurvivesARoundTrip) {
  ResultCache Cache((Dir + "/cache").str());
  TUResult Stored = fullResult();
  Cache.store("key", Stored);
  std::optional<TUResult> Loaded = Cache.lookup("key", Rules);
  ASSERT_TRUE(Loaded);
  EXPECT_EQ(Cache.hits(), 1u);
  ASSERT_EQ(Loaded->Sites.size(), 2u);
  const Site &SkippedA = Stored.Sites[1], &SkippedB = Loaded->Sites[1];
  EXPECT_EQ(std::tie(SkippedB.Status, SkippedB.SkipReason, SkippedB.ReportLine,
                     SkippedB.ReportColumn),
            std::tie(SkippedA.Status, SkippedA.SkipReason, SkippedA.ReportLine,
                     SkippedA.ReportColumn));
  const Site &A = Stored.Sites[0], &B = Loaded->Sites[0];
  EXPECT_EQ(B.File, A.File);
  EXPECT_EQ(B.Offset, A.Offset);
  EXPECT_EQ(B.Line, A.Line);
  EXPECT_EQ(B.Column, A.Column);
  EXPECT_EQ(B.BeginLine, A.BeginLine);
  EXPECT_EQ(B.EndLine, A.EndLine);
  EXPECT_EQ(B.Kind, A.Kind);
  EXPECT_EQ(B.QualifiedName, A.QualifiedName);
  EXPECT_EQ(B.RuleId, A.RuleId);
  EXPECT_EQ(B.AlsoSelectedBy, A.AlsoSelectedBy);
  EXPECT_EQ(B.Event, A.Event);
  EXPECT_EQ(B.Status, SiteStatus::Wrong);
  EXPECT_EQ(B.Status, A.Status);
  EXPECT_EQ(B.FoundEvents, A.FoundEvents);
  EXPECT_EQ(B.ReportLine, A.ReportLine);
  EXPECT_EQ(B.ReportColumn, A.ReportColumn);
  EXPECT_EQ(B.Edits, A.Edits);
  EXPECT_EQ(B.Edits.size(), 2u); // The literal, and the #include.
  EXPECT_EQ(B.SkipReason, A.SkipReason);
  ASSERT_EQ(Loaded->Suppressions.size(), 1u);
  const Suppression &SA = Stored.Suppressions[0], &SB = Loaded->Suppressions[0];
  EXPECT_EQ(
      std::tie(SB.File, SB.Offset, SB.Line, SB.Column, SB.Reason, SB.Used),
      std::tie(SA.File, SA.Offset, SA.Line, SA.Column, SA.Reason, SA.Used));
  ASSERT_EQ(Loaded->Expectations.size(), 1u);
  const Expectation &EA = Stored.Expectations[0], &EB = Loaded->Expectations[0];
  EXPECT_EQ(EB.Kind, EA.Kind);
  EXPECT_EQ(std::tie(EB.File, EB.Line, EB.Column, EB.Value, EB.DefinitionLine,
                     EB.DefinitionColumn, EB.Definition),
            std::tie(EA.File, EA.Line, EA.Column, EA.Value, EA.DefinitionLine,
                     EA.DefinitionColumn, EA.Definition));
  EXPECT_EQ(Loaded->SkippedBodies, 42u);
  EXPECT_EQ(Loaded->FileContents, Stored.FileContents);
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
  Cache.store("key", fullResult());
  // An entry that claims a fix of its own: the fix comes from the rules and
  // the file's bytes, whatever the entry says.
  tamper("key", [](llvm::json::Object &Entry) {
    firstSite(Entry)["edits"] = llvm::json::Array{
        llvm::json::Array{"/etc/passwd", 0, 0, "owned", 0, false}};
    firstSite(Entry)["status"] = int(SiteStatus::Present);
  });
  std::optional<TUResult> Loaded = Cache.lookup("key", Rules);
  ASSERT_TRUE(Loaded);
  EXPECT_EQ(Loaded->Sites[0].Edits, fullResult().Sites[0].Edits);
  EXPECT_EQ(Loaded->Sites[0].Status, SiteStatus::Wrong);
}

} // namespace
