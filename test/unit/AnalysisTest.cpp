//===- AnalysisTest.cpp - Tests for the analysis of a translation unit ----===//

#include "apistamp/Analysis.h"
#include "SiteDecision.h"
#include "TestSupport.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "gmock/gmock.h"

using namespace apistamp;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

const char *Prelude =
    "#define LOG(...) static bool Flag = ((void)(__VA_ARGS__), true);\n";

TUResult analyse(llvm::StringRef RulesYaml, llvm::StringRef Code,
                 llvm::StringRef File = "/apistamp-test/src/a.cpp") {
  RuleSet Rules = valueOrFail(parseRules(
      ("version: 1\nmacro: LOG\nrules:\n" + RulesYaml).str(), "r.yaml"));
  Rules.Root = "/apistamp-test";
  // In memory: some tests parse broken code.
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> FS(
      new llvm::vfs::InMemoryFileSystem);
  FS->addFile(File, 0,
              llvm::MemoryBuffer::getMemBufferCopy((Prelude + Code).str()));
  clang::tooling::CompileCommand Command(
      "/apistamp-test", File, {"clang-tool", "-std=c++20", File.str()}, "");
  AnalysisOptions Options;
  Options.Rules = &Rules;
  TUResult Result = analyseTU(Command, Options, FS);
  // As the merge does: each site decided from its facts and the bytes.
  llvm::erase_if(Result.Sites, [&](Site &S) {
    return !decideSite(S, Result.FileContents[S.File], Rules);
  });
  return Result;
}

std::vector<std::string> events(const TUResult &R) {
  std::vector<std::string> Events;
  for (const Site &S : R.Sites)
    Events.push_back(S.Event);
  return Events;
}

TEST(AnalysisTest, MissingEventGetsAnInsertion) {
  TUResult R =
      analyse("  - id: all\n", "namespace a { int f() {\n  return 1;\n} }\n");
  ASSERT_FALSE(R.ParseFailed);
  ASSERT_EQ(R.Sites.size(), 1u);
  const Site &S = R.Sites[0];
  EXPECT_EQ(S.Status, SiteStatus::Missing);
  EXPECT_EQ(S.Event, "a.f");
  EXPECT_EQ(S.RuleId, "all");
  EXPECT_EQ(S.Line, 2u);
  EXPECT_EQ(S.Column, 19u);
  ASSERT_EQ(S.Edits.size(), 1u);
  EXPECT_EQ(S.Edits[0].Text, "\n  LOG(\"a.f\");");
  EXPECT_EQ(S.File, "/apistamp-test/src/a.cpp");
  ASSERT_EQ(R.FileContents.count(S.File), 1u);
  EXPECT_EQ(R.FileContents.at(S.File).substr(0, 16), "#define LOG(...)");
}

TEST(AnalysisTest, PresentWrongAndDuplicate) {
  TUResult R =
      analyse("  - id: all\n",
              "void ok() { LOG(\"ok\"); }\n"
              "void bad() { LOG(\"other\"); }\n"
              "void twice() { LOG(\"twice\"); { LOG(\"twice\"); } }\n");
  ASSERT_EQ(R.Sites.size(), 3u);
  EXPECT_EQ(R.Sites[0].Status, SiteStatus::Present);
  EXPECT_TRUE(R.Sites[0].Edits.empty());
  EXPECT_EQ(R.Sites[1].Status, SiteStatus::Wrong);
  EXPECT_THAT(R.Sites[1].FoundEvents, ElementsAre("other"));
  ASSERT_EQ(R.Sites[1].Edits.size(), 1u);
  EXPECT_EQ(R.Sites[1].Edits[0].Text, "\"bad\"");
  EXPECT_EQ(R.Sites[1].Edits[0].Length, 7u);
  EXPECT_EQ(R.Sites[2].Status, SiteStatus::Duplicate);
  EXPECT_TRUE(R.Sites[2].Edits.empty());
}

TEST(AnalysisTest, NeverCandidates) {
  TUResult R = analyse("  - id: all\n    linkage: any\n    access: any\n",
                       "struct S { S() = default; ~S() {} void m() {} };\n"
                       "template <class T> T id(T t) { return t; }\n"
                       "int use() { auto l = [] { return 1; }; "
                       "struct L { void g() {} }; return id(1) + l(); }\n"
                       "void decl();\n");
  EXPECT_THAT(events(R), ElementsAre("S.m", "id", "use"));
}

TEST(AnalysisTest, ConstexprIsSkippedWithAReason) {
  TUResult R = analyse("  - id: all\n", "constexpr int f() { return 1; }\n");
  ASSERT_EQ(R.Sites.size(), 1u);
  EXPECT_EQ(R.Sites[0].Status, SiteStatus::Skipped);
  EXPECT_THAT(R.Sites[0].SkipReason, HasSubstr("constexpr"));
  EXPECT_TRUE(R.Sites[0].Edits.empty());
}

TEST(AnalysisTest, MacroBodiesAreSkipped) {
  TUResult R = analyse("  - id: all\n",
                       "#define DEFINE(name) void name() {}\nDEFINE(gen)\n");
  ASSERT_EQ(R.Sites.size(), 1u);
  EXPECT_EQ(R.Sites[0].Status, SiteStatus::Skipped);
  EXPECT_THAT(R.Sites[0].SkipReason, HasSubstr("macro 'DEFINE'"));
}

TEST(AnalysisTest, FactsFromTheAST) {
  TUResult R = analyse(
      "  - id: derived\n    derived_from: base::Module\n"
      "  - id: internal\n    linkage: any\n    namespace: '(anonymous "
      "namespace)'\n",
      "namespace base { struct Module {}; }\n"
      "namespace m { template <class T> struct Cloneable : base::Module {};\n"
      "struct Net : Cloneable<Net> { Net() {} private: void hidden() {} };\n"
      "struct Plain { Plain() {} }; }\n"
      "namespace { void local() {} }\n"
      "static void notSelected() {}\n");
  EXPECT_THAT(events(R), ElementsAre("m.Net", "(anonymous namespace).local"));
}

TEST(AnalysisTest, FilesOutsideTheRootAreIgnored) {
  TUResult R = analyse("  - id: all\n", "void f() {}\n", "/elsewhere/a.cpp");
  EXPECT_TRUE(R.Sites.empty());
}

TEST(AnalysisTest, ParseErrorsProduceNothing) {
  TUResult R = analyse("  - id: all\n", "void f() { undeclared(); }\n");
  EXPECT_TRUE(R.ParseFailed);
  EXPECT_TRUE(R.Sites.empty());
}

} // namespace
