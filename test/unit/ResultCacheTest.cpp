//===- ResultCacheTest.cpp - Tests for the TU result cache ----------------===//

#include "ResultCache.h"
#include "llvm/Support/FileSystem.h"
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
    write(Source, "namespace lib { void f() {} }\n");
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
    std::string Code = "namespace lib { void f() {} }\n";
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
    S.Status = SiteStatus::Wrong;
    S.FoundEvents = {"old", "older"};
    S.ReportLine = 2;
    S.ReportColumn = 7;
    S.Edits = {TextEdit{Source, 26, 0, "\n  LOG(\"lib.f\");\n"},
               TextEdit::addInclude(Source, "log.h", true)};
    S.SkipReason = "reason";
    R.Sites = {S};
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

  llvm::SmallString<128> Dir;
  std::string Source;
};

TEST_F(ResultCacheTest, EveryFieldSurvivesARoundTrip) {
  ResultCache Cache((Dir + "/cache").str());
  TUResult Stored = fullResult();
  Cache.store("key", Stored);
  std::optional<TUResult> Loaded = Cache.lookup("key");
  ASSERT_TRUE(Loaded);
  EXPECT_EQ(Cache.hits(), 1u);
  ASSERT_EQ(Loaded->Sites.size(), 1u);
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
  EXPECT_EQ(B.Status, A.Status);
  EXPECT_EQ(B.FoundEvents, A.FoundEvents);
  EXPECT_EQ(B.ReportLine, A.ReportLine);
  EXPECT_EQ(B.ReportColumn, A.ReportColumn);
  EXPECT_EQ(B.Edits, A.Edits);
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
  EXPECT_FALSE(Changed.lookup("key"));
  EXPECT_EQ(Changed.misses(), 1u);
  llvm::sys::fs::remove(Source);
  ResultCache Deleted((Dir + "/cache").str());
  EXPECT_FALSE(Deleted.lookup("key"));
}

TEST_F(ResultCacheTest, CorruptOrMissingEntryIsAMiss) {
  ResultCache Cache((Dir + "/cache").str());
  EXPECT_FALSE(Cache.lookup("absent"));
  Cache.store("key", fullResult());
  write((Dir + "/cache/key.json").str(), "{\"deps\": [");
  EXPECT_FALSE(Cache.lookup("key"));
  EXPECT_EQ(Cache.misses(), 2u);
}

TEST_F(ResultCacheTest, FailedParsesAreNotStored) {
  ResultCache Cache((Dir + "/cache").str());
  TUResult Failed = fullResult();
  Failed.ParseFailed = true;
  Cache.store("key", Failed);
  EXPECT_FALSE(Cache.lookup("key"));
}

} // namespace
