//===- AnalysisTest.cpp - Tests for the analysis of a translation unit ----===//

#include "apistamp/Analysis.h"
#include "SiteDecision.h"
#include "SitesFromFacts.h"
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

RuleSet rulesOf(llvm::StringRef RulesYaml) {
  RuleSet Rules = valueOrFail(parseRules(
      ("version: 1\nmacro: LOG\nrules:\n" + RulesYaml).str(), "r.yaml"));
  Rules.Root = "/apistamp-test";
  return Rules;
}

/// The undecided result of a parse of \p Code under \p Rules.
TUResult parse(const RuleSet &Rules, llvm::StringRef Code,
               llvm::StringRef File = "/apistamp-test/src/a.cpp",
               bool Unselected = false) {
  // In memory: some tests parse broken code.
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> FS(
      new llvm::vfs::InMemoryFileSystem);
  FS->addFile(File, 0,
              llvm::MemoryBuffer::getMemBufferCopy((Prelude + Code).str()));
  clang::tooling::CompileCommand Command(
      "/apistamp-test", File, {"clang-tool", "-std=c++20", File.str()}, "");
  AnalysisOptions Options;
  Options.Rules = &Rules;
  Options.Unselected = Unselected;
  return analyseTU(Command, Options, FS);
}

TUResult analyse(llvm::StringRef RulesYaml, llvm::StringRef Code,
                 llvm::StringRef File = "/apistamp-test/src/a.cpp") {
  RuleSet Rules = rulesOf(RulesYaml);
  TUResult Result = parse(Rules, Code, File);
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
  EXPECT_EQ(R.FileContents.at(S.File).ref().substr(0, 16), "#define LOG(...)");
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

// What rules decide on a parse's facts is what a parse under them finds:
// a rules file edited where it cannot change what was parsed needs no parse.
TEST(AnalysisTest, FactsDecidedUnderOtherRulesAreAParseUnderThem) {
  const std::string Code = "namespace lib {\n"
                           "// apistamp-ignore: internal\n"
                           "void hidden() {}\n"
                           "// expect-event: lib.f\n"
                           "void f() {}\n"
                           "void stale() { LOG(\"old.event\"); }\n"
                           "void late() { int x = 0; LOG(\"late\"); }\n"
                           "struct Plain { int x; };\n"
                           "// apistamp-ignore: generated\n"
                           "struct Gen { int y; };\n"
                           "struct W { W() {} void m() {}\n"
                           "  private: void p() {} };\n"
                           "struct V : W { void m2(int, const char *) {} };\n"
                           "constexpr int c() { return 1; }\n"
                           "static void internal() {}\n"
                           "template <class T> void t(T) {}\n"
                           "}\n"
                           "namespace other { void g() { LOG(\"x\"); } }\n";
  const std::string File = "/apistamp-test/src/a.cpp";
  auto Check = [&](llvm::StringRef ParsedYaml, llvm::StringRef EditedYaml) {
    SCOPED_TRACE(EditedYaml.str());
    TUResult Parsed = parse(rulesOf(ParsedYaml), Code);
    ASSERT_FALSE(Parsed.ParseFailed);
    RuleSet Edited = rulesOf(EditedYaml);
    TUResult Fresh = parse(Edited, Code, File, /*Unselected=*/true);
    std::string Bytes = Prelude + Code;
    FileBytes Contents;
    Contents[File] = SharedBytes(Bytes);
    TUResult Decided;
    sitesFromFacts(Parsed.Facts, Edited, /*Unselected=*/true, Contents,
                   Decided);
    ASSERT_EQ(Decided.Sites.size(), Fresh.Sites.size());
    for (size_t I = 0; I < Fresh.Sites.size(); ++I)
      EXPECT_TRUE(sameFields(Decided.Sites[I], Fresh.Sites[I]))
          << Fresh.Sites[I].QualifiedName;
    ASSERT_EQ(Decided.Suppressions.size(), Fresh.Suppressions.size());
    for (size_t I = 0; I < Fresh.Suppressions.size(); ++I)
      EXPECT_TRUE(sameFields(Decided.Suppressions[I], Fresh.Suppressions[I]));
    ASSERT_EQ(Decided.Expectations.size(), Fresh.Expectations.size());
    for (size_t I = 0; I < Fresh.Expectations.size(); ++I)
      EXPECT_TRUE(sameFields(Decided.Expectations[I], Fresh.Expectations[I]));
    ASSERT_EQ(Decided.Unselected.size(), Fresh.Unselected.size());
    for (size_t I = 0; I < Fresh.Unselected.size(); ++I)
      EXPECT_TRUE(sameFields(Decided.Unselected[I], Fresh.Unselected[I]));
    EXPECT_EQ(Decided.FileContents, Fresh.FileContents);
  };
  const char *Everything = "  - id: all\n    linkage: any\n    access: any\n";
  for (const char *Edited :
       {"  - id: all\n",
        "  - id: lib\n    namespace: lib\n    exclude_names: ['f', 'st.*']\n"
        "  - id: any\n",
        "  - id: ctor\n    where: constructor\n    access: any\n"
        "  - id: methods\n    where: method\n"
        "    event: '{class}.{name}{signature}'\n",
        "  - id: derived\n    derived_from: lib::W\n    access: any\n",
        "  - id: none\n    namespace: nowhere\n",
        "  - id: none\n    namespace: nowhere\nkeep_events: ['old.*']\n",
        "  - id: files\n    files: ['src/*.cpp']\n    linkage: any\n"
        "exclude_files: ['src/b.cpp']\n"})
    Check(Everything, Edited);
  // Matchers: the parse records which of its rules' matchers match each
  // definition, by number; rules with the same matchers decide on that.
  Check("  - id: m\n    matcher: functionDecl(hasName(\"f\"))\n",
        "  - id: first\n    namespace: other\n"
        "  - id: m2\n    event: 'm.{name}'\n"
        "    matcher: functionDecl(hasName(\"f\"))\n");
}

} // namespace
