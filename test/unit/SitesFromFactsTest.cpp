//===- SitesFromFactsTest.cpp - Tests for what rules make of facts --------===//

#include "SitesFromFacts.h"
#include "Matcher.h"
#include "TestSupport.h"
#include "gmock/gmock.h"

using namespace apistamp;
using ::testing::ElementsAre;

namespace {

const std::string File = "/root/a.cpp";
const std::string Code = "void f() { LOG(\"old\"); }\nvoid g() { h(); }\n";

RuleSet rulesOf(llvm::StringRef Yaml) {
  RuleSet Rules = valueOrFail(
      parseRules(("version: 1\nmacro: LOG\nrules:\n" + Yaml).str(), "r.yaml"));
  Rules.Root = "/root";
  return Rules;
}

/// A function of a.cpp whose body is the block after \p Name's "() ".
Candidate function(llvm::StringRef Name) {
  Candidate C;
  C.File = File;
  C.Offset = Code.find(("void " + Name).str()) + 5;
  C.Line = C.BeginLine = C.EndLine = C.Offset < Code.find('\n') ? 1 : 2;
  C.Column = 6;
  C.QualifiedName = Name.str();
  C.Facts.Name = Name.str();
  C.Facts.RelativePath = "a.cpp";
  C.Facts.DeclaredIn = {"a.cpp"};
  unsigned LBrace = Code.find('{', C.Offset);
  C.Body = BodyLocation{C.Offset - 5, LBrace, unsigned(Code.find('}', LBrace))};
  size_t Call = Code.find("LOG", LBrace);
  if (Call < C.Body->RBraceOffset) {
    MacroUse Use;
    Use.Offset = Call;
    Use.Event = "old";
    Use.HasArgRange = true;
    Use.ArgBegin = Code.find('"', Call);
    Use.ArgEnd = Code.find(')', Call);
    C.Calls.push_back(Use);
  }
  return C;
}

TUResult decide(const TUFacts &Facts, const RuleSet &Rules,
                bool Unselected = false) {
  FileBytes Contents;
  Contents[File] = SharedBytes(Code);
  TUResult Result;
  sitesFromFacts(Facts, Rules, Unselected, Contents, Result);
  return Result;
}

std::vector<std::string> names(const TUResult &R) {
  std::vector<std::string> Names;
  for (const Site &S : R.Sites)
    Names.push_back(S.QualifiedName + (S.RuleId.empty() ? "" : ":" + S.RuleId));
  return Names;
}

TEST(SitesFromFactsTest, TheFirstRuleSelectsAndTheLaterOnesAreCounted) {
  TUFacts Facts;
  Facts.Candidates = {function("f"), function("g")};
  RuleSet Rules = rulesOf("  - id: first\n    name: f\n    event: 'a.{name}'\n"
                          "  - id: second\n  - id: third\n    name: '[fg]'\n");
  TUResult R = decide(Facts, Rules);
  EXPECT_THAT(names(R), ElementsAre("f:first", "g:second"));
  EXPECT_EQ(R.Sites[0].Event, "a.f");
  EXPECT_THAT(R.Sites[0].AlsoSelectedBy, ElementsAre("second", "third"));
  EXPECT_EQ(R.Sites[1].Event, "g");
  EXPECT_EQ(R.FileContents.at(File).str(), Code);
}

// A definition no rule selects is a site only if its first statement logs
// an event the rules do not keep; calls of a function named like the
// macro count only in a selected body.
TEST(SitesFromFactsTest, UnselectedDefinitionsAreSitesOnlyWhenStale) {
  TUFacts Facts;
  Facts.Candidates = {function("f"), function("g")};
  MacroUse Function;
  Function.Offset = Code.find("h()");
  Function.FunctionCall = true;
  Facts.Candidates[1].Calls = {Function};
  TUResult R = decide(Facts, rulesOf("  - id: none\n    name: x\n"));
  EXPECT_THAT(names(R), ElementsAre("f"));
  EXPECT_EQ(R.Sites[0].Calls.size(), 1u);
  R = decide(Facts,
             rulesOf("  - id: none\n    name: x\nkeep_events: ['old']\n"));
  EXPECT_TRUE(R.Sites.empty());
  EXPECT_TRUE(R.FileContents.empty());
  R = decide(Facts, rulesOf("  - id: g\n    name: g\n"));
  EXPECT_THAT(names(R), ElementsAre("f", "g:g"));
  EXPECT_TRUE(R.Sites[1].Calls[0].FunctionCall);
}

// A class without a constructor body is a site only for a rule that asks
// for constructors, and only if that rule is the first that selects it.
TEST(SitesFromFactsTest, AClassNeedsAConstructorRule) {
  TUFacts Facts;
  Candidate C;
  C.File = File;
  C.QualifiedName = "S";
  C.Facts.Kind = DeclKind::Constructor;
  C.Facts.Name = "S";
  C.Facts.RelativePath = "a.cpp";
  C.Shape = BodyShape::NoConstructorBody;
  Facts.Candidates = {C};
  EXPECT_TRUE(decide(Facts, rulesOf("  - id: any\n")).Sites.empty());
  EXPECT_TRUE(decide(Facts, rulesOf("  - id: any\n  - id: c\n"
                                    "    where: constructor\n"))
                  .Sites.empty());
  TUResult R = decide(Facts, rulesOf("  - id: c\n    where: constructor\n"));
  ASSERT_EQ(R.Sites.size(), 1u);
  EXPECT_EQ(R.Sites[0].Shape, BodyShape::NoConstructorBody);
}

// A comment suppresses (and is used by) a selected definition only; a
// suppressed or constexpr body gets no includer.
TEST(SitesFromFactsTest, SuppressionsAndIncluders) {
  TUFacts Facts;
  Facts.Suppressions = {Suppression{File, 0, 1, 1, "internal", true}};
  Facts.Candidates = {function("f"), function("g")};
  Facts.Candidates[0].Suppression = 0;
  Facts.Candidates[0].Includer = "/root/outer.cpp";
  Facts.Candidates[1].Includer = "/root/outer.cpp";
  Facts.Candidates[1].Constexpr = ConstexprKind::Constexpr;
  FileBytes Contents;
  Contents[File] = SharedBytes(Code);
  TUResult R;
  sitesFromFacts(Facts, rulesOf("  - id: g\n    name: g\n"), false, Contents,
                 R);
  EXPECT_THAT(names(R), ElementsAre("f", "g:g"));
  EXPECT_FALSE(R.Sites[0].Suppressed); // Not selected: it may be stale.
  EXPECT_FALSE(R.Suppressions[0].Used);
  EXPECT_EQ(R.Sites[1].IncludeFile, ""); // constexpr
  R = TUResult();
  sitesFromFacts(Facts, rulesOf("  - id: any\n"), false, Contents, R);
  EXPECT_TRUE(R.Suppressions[0].Used);
  ASSERT_EQ(R.Sites.size(), 2u);
  EXPECT_TRUE(R.Sites[0].Suppressed);
  EXPECT_EQ(R.Sites[0].SuppressionReason, "internal");
  EXPECT_EQ(R.Sites[0].IncludeFile, "");
  // Its includer's bytes are needed once a site's #include goes there.
  Facts.Candidates[1].Constexpr = ConstexprKind::None;
  R = TUResult();
  sitesFromFacts(Facts, rulesOf("  - id: any\n"), false, Contents, R);
  EXPECT_THAT(names(R), ElementsAre("f:any"));
  Contents["/root/outer.cpp"] =
      SharedBytes("namespace n {\n#include \"a.inl\"\n}\n");
  R = TUResult();
  sitesFromFacts(Facts, rulesOf("  - id: any\n"), false, Contents, R);
  ASSERT_EQ(R.Sites.size(), 2u);
  EXPECT_EQ(R.Sites[1].IncludeFile, "/root/outer.cpp");
  EXPECT_EQ(R.FileContents.count("/root/outer.cpp"), 1u);
}

// The public surface: what no rule selects and users could call, with each
// rule's reason.
TEST(SitesFromFactsTest, UnselectedDefinitionsAreListedWhenAskedFor) {
  TUFacts Facts;
  Facts.Candidates = {function("f"), function("g")};
  Facts.Candidates[1].Facts.ExternalLinkage = false;
  RuleSet Rules = rulesOf("  - id: x\n    name: x\n  - id: y\n    name: y\n");
  EXPECT_TRUE(decide(Facts, Rules).Unselected.empty());
  TUResult R = decide(Facts, Rules, /*Unselected=*/true);
  ASSERT_EQ(R.Unselected.size(), 1u);
  EXPECT_EQ(R.Unselected[0].QualifiedName, "f");
  EXPECT_EQ(R.Unselected[0].Rejections.size(), 2u);
  Rules = rulesOf("  - id: x\n    name: x\nexclude_files: ['a.cpp']\n");
  EXPECT_TRUE(decide(Facts, Rules, true).Unselected.empty());
}

// A matcher's verdict is the parse's, by the matcher's number among the
// rules that have one.
TEST(SitesFromFactsTest, MatchersAreTheParsesVerdicts) {
  TUFacts Facts;
  Facts.Candidates = {function("f"), function("g")};
  Facts.Candidates[1].Matches = {1};
  RuleSet Rules =
      rulesOf("  - id: m0\n    matcher: functionDecl(hasName(\"f\"))\n"
              "  - id: plain\n    name: nothing\n"
              "  - id: m1\n    matcher: functionDecl(hasName(\"g\"))\n");
  TUResult R = decide(Facts, Rules);
  EXPECT_THAT(names(R), ElementsAre("f", "g:m1"));
}

} // namespace
