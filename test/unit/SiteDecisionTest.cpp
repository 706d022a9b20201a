//===- SiteDecisionTest.cpp - Tests for deciding how a body stands --------===//

#include "SiteDecision.h"
#include "TestSupport.h"
#include "apistamp/FileEdits.h"
#include "gmock/gmock.h"

using namespace apistamp;

namespace {

struct Decided {
  Site S;
  std::string After; ///< The file with the site's fix applied.
};

/// Decides the site of the only body in \p Code given the calls at the
/// offsets of each "LOG(" in it.
Decided decide(llvm::StringRef Code, llvm::StringRef Include = "") {
  RuleSet Rules;
  Rules.Macro = "LOG";
  Rules.Include = Include.str();
  Decided D;
  D.S.File = "f.cpp";
  D.S.Event = "e";
  D.S.Line = 1;
  D.S.Column = 6;
  D.S.Body =
      BodyLocation{0, unsigned(Code.find('{')), unsigned(Code.rfind('}'))};
  for (size_t At = Code.find("LOG("); At != llvm::StringRef::npos;
       At = Code.find("LOG(", At + 1)) {
    MacroUse Use;
    Use.Offset = At;
    Use.HasArgRange = true;
    Use.ArgBegin = At + 4;
    Use.ArgEnd = Code.find(')', At);
    Use.Event = Code.slice(Use.ArgBegin + 1, Use.ArgEnd - 1).str();
    D.S.Calls.push_back(Use);
  }
  decideSite(D.S, Code, Rules);
  D.After = valueOrFail(applyEdits("f.cpp", Code, D.S.Edits));
  return D;
}

TEST(SiteDecisionTest, NoCallIsMissingAndGetsTheCallAndTheInclude) {
  Decided D = decide("void f() {\n  g();\n}\n", "log.h");
  EXPECT_EQ(D.S.Status, SiteStatus::Missing);
  EXPECT_EQ(D.After,
            "#include \"log.h\"\nvoid f() {\n  LOG(\"e\");\n  g();\n}\n");
}

TEST(SiteDecisionTest, TheExpectedCallIsPresentAndNeedsNothing) {
  Decided D = decide("void f() {\n  LOG(\"e\");\n}\n", "log.h");
  EXPECT_EQ(D.S.Status, SiteStatus::Present);
  EXPECT_TRUE(D.S.Edits.empty());
  EXPECT_EQ(std::make_pair(D.S.ReportLine, D.S.ReportColumn),
            std::make_pair(1u, 6u)); // At the name.
}

TEST(SiteDecisionTest, AnotherEventIsWrongAndTheLiteralIsCorrected) {
  Decided D = decide("void f() {\n  LOG(\"old\");\n}\n");
  EXPECT_EQ(D.S.Status, SiteStatus::Wrong);
  EXPECT_EQ(D.S.FoundEvents, std::vector<std::string>{"old"});
  EXPECT_EQ(D.After, "void f() {\n  LOG(\"e\");\n}\n");
  // Reported at the literal.
  EXPECT_EQ(D.S.ReportLine, 2u);
  EXPECT_EQ(D.S.ReportColumn, 7u);
}

TEST(SiteDecisionTest, TwoCallsAreADuplicateWithoutAFix) {
  Decided D = decide("void f() {\n  LOG(\"e\");\n  LOG(\"e\");\n}\n");
  EXPECT_EQ(D.S.Status, SiteStatus::Duplicate);
  EXPECT_TRUE(D.S.Edits.empty());
  EXPECT_EQ(D.S.ReportLine, 3u); // The second call.
  EXPECT_EQ(D.S.ReportColumn, 3u);
}

TEST(SiteDecisionTest, LinesAndColumnsCountAsClangDoes) {
  EXPECT_EQ(lineAndColumn("ab\ncd", 4), std::make_pair(2u, 2u));
  EXPECT_EQ(lineAndColumn("ab\r\ncd", 5), std::make_pair(2u, 2u));
  EXPECT_EQ(lineAndColumn("ab\rcd", 4), std::make_pair(2u, 2u));
  EXPECT_EQ(lineAndColumn("\tx", 1), std::make_pair(1u, 2u));
}

MacroUse callAt(llvm::StringRef Code) {
  MacroUse Use;
  Use.Offset = Code.find("LOG(");
  Use.HasArgRange = true;
  Use.ArgBegin = Use.Offset + 4;
  Use.ArgEnd = Code.find(')', Use.Offset);
  return Use;
}

TEST(SiteDecisionTest, FirstStatementIsTheFirstTokenAfterTheBrace) {
  for (llvm::StringRef Code :
       {"{ LOG(\"e\"); }", "{\n  // c\n  /* d */ LOG(\"e\"); }",
        "{ // note \\\n continued\n LOG(\"e\"); }"})
    EXPECT_TRUE(isFirstStatement(Code, 0, callAt(Code))) << Code.str();
  for (llvm::StringRef Code :
       {"{ f(); LOG(\"e\"); }", "{ // c \\\n LOG(\"e\"); }"})
    EXPECT_FALSE(isFirstStatement(Code, 0, callAt(Code))) << Code.str();
}

TEST(SiteDecisionTest, RemovingACallTakesItsLineOrOnlyTheStatement) {
  auto Remove = [](llvm::StringRef Code) {
    std::optional<TextEdit> E = callRemoval("f.cpp", Code, callAt(Code));
    return E ? valueOrFail(applyEdits("f.cpp", Code, {*E})) : "(none)";
  };
  EXPECT_EQ(Remove("{\n  LOG(\"e\");\n  g();\n}\n"), "{\n  g();\n}\n");
  EXPECT_EQ(Remove("{\r\n  LOG(\"e\");  \r\n}\r\n"), "{\r\n}\r\n");
  EXPECT_EQ(Remove("void f() { LOG(\"e\"); }"), "void f() { }");
  EXPECT_EQ(Remove("{ LOG(\"e\") ; g(); }"), "{ g(); }");
  // Not a plain "LOG(...);": left alone.
  EXPECT_EQ(Remove("{ LOG(\"e\"), g(); }"), "(none)");
}

} // namespace
