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

/// The facts of a definition in \p Code that no rule selects, with a call
/// at each "LOG(" (of the former macro OLD_LOG at each "OLD_LOG(").
Site unselected(llvm::StringRef Code) {
  Site S;
  S.File = "f.cpp";
  S.QualifiedName = "ns::f";
  S.Line = 1;
  S.Column = 6;
  S.Body = BodyLocation{0, unsigned(Code.find('{')), unsigned(Code.rfind('}'))};
  for (size_t At = Code.find("LOG("); At != llvm::StringRef::npos;
       At = Code.find("LOG(", At + 1)) {
    MacroUse Use;
    Use.Offset = At;
    if (Code.substr(0, At).ends_with("OLD_")) { // A former macro's call.
      Use.Offset = At - 4;
      Use.Macro = "OLD_LOG";
    }
    Use.HasArgRange = true;
    Use.ArgBegin = At + 4;
    Use.ArgEnd = Code.find(')', At);
    if (Code[Use.ArgBegin] == '"')
      Use.Event = Code.slice(Use.ArgBegin + 1, Use.ArgEnd - 1).str();
    S.Calls.push_back(Use);
  }
  return S;
}

/// Decides the site of the only body in \p Code, selected by rule "r" with
/// event "e", given the calls at the offsets of each "LOG(" in it.
Decided decide(llvm::StringRef Code, llvm::StringRef Include = "") {
  RuleSet Rules;
  Rules.Macro = "LOG";
  Rules.Include = Include.str();
  Decided D;
  D.S = unselected(Code);
  D.S.RuleId = "r";
  D.S.Event = "e";
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

// A call of another recognised macro (a former one, or a known API-usage
// macro) is the body's event under the old name: renamed in place, its
// event corrected too; beside a call of the rules' macro, removed.
TEST(SiteDecisionTest, AFormerMacrosCallIsRenamedInPlace) {
  Decided D = decide("void f() { OLD_LOG(\"e\"); g(); }\n", "log.h");
  EXPECT_EQ(D.S.Status, SiteStatus::Wrong);
  EXPECT_EQ(D.S.FoundMacro, "OLD_LOG");
  EXPECT_EQ(D.S.ExpectedMacro, "LOG");
  EXPECT_EQ(D.After, "#include \"log.h\"\nvoid f() { LOG(\"e\"); g(); }\n");
  EXPECT_EQ(D.S.ReportColumn, 12u); // At the call.

  D = decide("void f() {\n  OLD_LOG(\"old\");\n}\n");
  EXPECT_EQ(D.S.Status, SiteStatus::Wrong);
  EXPECT_EQ(D.After, "void f() {\n  LOG(\"e\");\n}\n");
  EXPECT_EQ(D.S.ReportColumn, 11u); // At the literal.
}

TEST(SiteDecisionTest, AFormerMacrosCallBesideTheRulesOneIsRemoved) {
  Decided D =
      decide("void f() {\n  LOG(\"e\");\n  OLD_LOG(\"e\");\n  g();\n}\n");
  EXPECT_EQ(D.S.Status, SiteStatus::Wrong);
  EXPECT_EQ(D.S.FoundEvents, (std::vector<std::string>{"e", "e"}));
  EXPECT_EQ(D.After, "void f() {\n  LOG(\"e\");\n  g();\n}\n");
  EXPECT_EQ(std::make_pair(D.S.ReportLine, D.S.ReportColumn),
            std::make_pair(3u, 3u));
  // Not what apistamp writes (inside an expression): no removal, a
  // Duplicate.
  D = decide("void f() {\n  LOG(\"e\");\n  (OLD_LOG(\"e\"), g());\n}\n");
  EXPECT_EQ(D.S.Status, SiteStatus::Duplicate);
  EXPECT_TRUE(D.S.Edits.empty());
  // Two former calls and none of the rules': which one stays is not told.
  D = decide("void f() {\n  OLD_LOG(\"e\");\n  OLD_LOG(\"e\");\n}\n");
  EXPECT_EQ(D.S.Status, SiteStatus::Duplicate);
}

TEST(SiteDecisionTest, AnUnselectedFormerMacrosCallIsStaleAndKeepsTheInclude) {
  llvm::StringRef Code =
      "#include \"log.h\"\nvoid f() {\n  OLD_LOG(\"old\");\n  g();\n}\n";
  Site S = unselected(Code);
  RuleSet Rules;
  Rules.Macro = "LOG";
  Rules.Include = "log.h";
  ASSERT_TRUE(decideSite(S, Code, Rules));
  EXPECT_EQ(S.Status, SiteStatus::Stale);
  EXPECT_EQ(valueOrFail(applyEdits("f.cpp", Code, S.Edits)),
            "#include \"log.h\"\nvoid f() {\n  g();\n}\n");
}

// Adding the call and removing it again gives the file back byte for byte
// (issue 46, B8): one-line bodies keep their line, "{}" closes again.
TEST(SiteDecisionTest, AddThenRemoveGivesTheSameBytes) {
  RuleSet Rules;
  Rules.Macro = "LOG";
  for (llvm::StringRef Code : {
           "void f() {}\n",
           "void f() { }\n",
           "\tvoid f() {}\n",
           "void f()\n{}\n",
           "int f() { return 1; }\n",
           "int f() { return 1; } // NOLINT\n",
           "int f() { /* c */ return 1; }\n",
           "void f() { g(); // NOLINT\n}\n",
           "void f() { // c\n  g();\n}\n",
           "void f() {\n  g();\n}\n",
           "void f()\n{\n\tg();\n}\n",
           "void f() { g();\r\n  h(); }\r\n",
           "void f() { g(); }\r",
       }) {
    SCOPED_TRACE(Code.str());
    Decided Added = decide(Code);
    ASSERT_EQ(Added.S.Status, SiteStatus::Missing);
    Site Stale = unselected(Added.After);
    ASSERT_TRUE(decideSite(Stale, Added.After, Rules));
    ASSERT_EQ(Stale.Status, SiteStatus::Stale);
    EXPECT_EQ(valueOrFail(applyEdits("f.cpp", Added.After, Stale.Edits)),
              Code.str());
  }
}

RuleSet logRules() {
  RuleSet Rules;
  Rules.Macro = "LOG";
  return Rules;
}

TEST(SiteDecisionTest, AnUnselectedFirstStatementCallIsStaleAndRemoved) {
  llvm::StringRef Code = "void f() {\n  LOG(\"old\");\n  g();\n}\n";
  Site S = unselected(Code);
  ASSERT_TRUE(decideSite(S, Code, logRules()));
  EXPECT_EQ(S.Status, SiteStatus::Stale);
  EXPECT_EQ(S.Event, "old");
  EXPECT_EQ(S.SkipReason, "no rule selects 'ns::f'");
  EXPECT_EQ(S.FoundEvents, std::vector<std::string>{"old"});
  EXPECT_EQ(std::make_pair(S.ReportLine, S.ReportColumn),
            std::make_pair(2u, 3u));
  EXPECT_EQ(valueOrFail(applyEdits("f.cpp", Code, S.Edits)),
            "void f() {\n  g();\n}\n");
}

TEST(SiteDecisionTest, AnUnselectedBodyIsNoSiteUnlessItStartsWithAnEvent) {
  RuleSet Rules = logRules();
  for (llvm::StringRef Code :
       {"void f() {\n  g();\n  LOG(\"x\");\n}\n", // Not the first statement.
        "void f() {\n  LOG(name());\n}\n",        // Not a literal.
        "void f() {\n  g();\n}\n"}) {
    Site S = unselected(Code);
    EXPECT_FALSE(decideSite(S, Code, Rules)) << Code.str();
  }
  // A call of a function named like the macro is never removed.
  llvm::StringRef Code = "void f() {\n  LOG(\"x\");\n}\n";
  Site Function = unselected(Code);
  Function.Calls.front().FunctionCall = true;
  EXPECT_FALSE(decideSite(Function, Code, Rules));
  // Nor is an event the rules keep.
  Rules.KeepEvents.push_back(llvm::cantFail(EventGlob::create("x")));
  Site Kept = unselected(Code);
  EXPECT_FALSE(decideSite(Kept, Code, Rules));
}

TEST(SiteDecisionTest, ASuppressedSiteIsStaleOnlyIfItStillLogs) {
  llvm::StringRef Logs = "void f() {\n  LOG(\"e\");\n}\n";
  Site Stale = unselected(Logs);
  Stale.RuleId = "r";
  Stale.Event = "e";
  Stale.Suppressed = true;
  Stale.SuppressionReason = "internal";
  ASSERT_TRUE(decideSite(Stale, Logs, logRules()));
  EXPECT_EQ(Stale.Status, SiteStatus::Stale);
  EXPECT_EQ(Stale.SkipReason, "suppressed (internal)");
  EXPECT_EQ(Stale.RuleId, "");
  llvm::StringRef Quiet = "void f() {\n  g();\n}\n";
  Site Suppressed = unselected(Quiet);
  Suppressed.RuleId = "r";
  Suppressed.Suppressed = true;
  Suppressed.SuppressionReason = "internal";
  ASSERT_TRUE(decideSite(Suppressed, Quiet, logRules()));
  EXPECT_EQ(Suppressed.Status, SiteStatus::Suppressed);
  EXPECT_EQ(Suppressed.SkipReason, "internal");
  EXPECT_TRUE(Suppressed.Edits.empty());
}

TEST(SiteDecisionTest, ABodyThatCannotTakeACallIsSkippedWithItsReason) {
  Site S;
  S.RuleId = "r";
  auto Reason = [&S] {
    EXPECT_TRUE(decideSite(S, "", logRules()));
    EXPECT_EQ(S.Status, SiteStatus::Skipped);
    return S.SkipReason;
  };
  S.Shape = BodyShape::NoConstructorBody;
  EXPECT_EQ(Reason(), "no constructor body to instrument (implicit, "
                      "defaulted, deleted or inherited constructors only)");
  S.Shape = BodyShape::FromMacro;
  S.BodyMacro = "BODY";
  EXPECT_EQ(Reason(), "body comes from macro 'BODY'");
  S.Shape = BodyShape::InAnotherFile;
  EXPECT_EQ(Reason(), "body is written in another file than the name");
  S.Shape = BodyShape::Unrecognised;
  EXPECT_EQ(Reason(), "unrecognised function body");
  S.Constexpr = ConstexprKind::Consteval; // Said before the shape.
  EXPECT_EQ(Reason(), "consteval function: a static local is ill-formed there");
}

TEST(SiteDecisionTest, PublicHeadersTakeNoFixWhenTheRulesForbidIt) {
  llvm::StringRef Code = "void f() {\n  g();\n}\n";
  RuleSet Rules = logRules();
  Rules.PublicHeaderEdits = RuleSet::PublicHeaderPolicy::Forbid;
  Site S = unselected(Code);
  S.RuleId = "r";
  S.Event = "e";
  ASSERT_TRUE(decideSite(S, Code, Rules, "listed in 'public_headers'"));
  EXPECT_EQ(S.Status, SiteStatus::Skipped);
  EXPECT_EQ(S.SkipReason, "in a public header (listed in 'public_headers'); "
                          "the rules forbid edits there "
                          "(public_header_edits: forbid)");
  EXPECT_TRUE(S.Edits.empty());
  ASSERT_TRUE(decideSite(S, Code, Rules, ""));
  EXPECT_EQ(S.Status, SiteStatus::Missing);
}

// A hand-placed sub-event the rules keep was rewritten to the entry event
// (then counted only when its branch ran), or made the body a permanent
// duplicate.
TEST(SiteDecisionTest, KeptEventsAreNeverRewrittenOrDuplicates) {
  RuleSet Rules = logRules();
  Rules.KeepEvents.push_back(
      llvm::cantFail(EventGlob::create("lib.*.zip_format")));
  llvm::StringRef Branch =
      "void f() {\n  if (zip)\n    LOG(\"lib.load.zip_format\");\n}\n";
  Site Alone = unselected(Branch);
  Alone.RuleId = "r";
  Alone.Event = "lib.load";
  ASSERT_TRUE(decideSite(Alone, Branch, Rules));
  EXPECT_EQ(Alone.Status, SiteStatus::Missing);
  EXPECT_EQ(valueOrFail(applyEdits("f.cpp", Branch, Alone.Edits)),
            "void f() {\n  LOG(\"lib.load\");\n  if (zip)\n    "
            "LOG(\"lib.load.zip_format\");\n}\n");
  llvm::StringRef Both = "void f() {\n  LOG(\"lib.load\");\n  if (zip)\n    "
                         "LOG(\"lib.load.zip_format\");\n}\n";
  Site Entry = unselected(Both);
  Entry.RuleId = "r";
  Entry.Event = "lib.load";
  ASSERT_TRUE(decideSite(Entry, Both, Rules));
  EXPECT_EQ(Entry.Status, SiteStatus::Present);
  EXPECT_TRUE(Entry.Edits.empty());
}

// From a partial view (named files, a shard), a definition in a header that
// this view does not select may be selected by a TU it did not analyse: its
// event is not judged, and nothing is removed. Suppression is the same in
// every TU: a suppressed site is still judged.
TEST(SiteDecisionTest, APartialViewDoesNotJudgeWhatOtherTUsMaySelect) {
  llvm::StringRef Code = "void f() {\n  LOG(\"e\");\n}\n";
  Site S = unselected(Code);
  S.Calls.front().Event = "e";
  ASSERT_TRUE(decideSite(S, Code, logRules(), "", /*PartialView=*/true));
  EXPECT_EQ(S.Status, SiteStatus::Stale);
  EXPECT_TRUE(S.NotJudged);
  EXPECT_TRUE(S.Edits.empty());
  Site Suppressed = unselected(Code);
  Suppressed.Calls.front().Event = "e";
  Suppressed.RuleId = "r";
  Suppressed.Suppressed = true;
  ASSERT_TRUE(
      decideSite(Suppressed, Code, logRules(), "", /*PartialView=*/true));
  EXPECT_FALSE(Suppressed.NotJudged);
  EXPECT_EQ(Suppressed.Edits.size(), 1u);
}

/// The facts of f.inl's body as TU \p Includer, which includes it inside a
/// namespace, selects it, with event \p Event.
Site fragmentSite(llvm::StringRef Code, std::string Event,
                  std::string Includer) {
  Site S = unselected(Code);
  S.File = "f.inl";
  S.RuleId = "r";
  S.Event = std::move(Event);
  S.IncludeFile = std::move(Includer);
  return S;
}

TEST(SiteDecisionTest, OneBodyReachedWithAnotherEventIsAConflict) {
  llvm::StringRef Code = "int f() { return 1; }\n";
  RuleSet Rules;
  Rules.Macro = "LOG";
  Rules.Include = "log.h";
  Site First = fragmentSite(Code, "lib.f", "a.cpp");
  ASSERT_TRUE(decideSite(First, Code, Rules));
  ASSERT_EQ(First.Status, SiteStatus::Missing);
  reconcileReach(First, Rules, "a.cpp", fragmentSite(Code, "lib2.f", "b.cpp"),
                 Rules, "b.cpp");
  EXPECT_EQ(First.Status, SiteStatus::Conflict);
  EXPECT_TRUE(First.Edits.empty());
  EXPECT_EQ(First.SkipReason, "different events: 'lib.f' through a.cpp; "
                              "'lib2.f' through b.cpp");
  // A third TU with a third event is named too, once.
  Site Third = fragmentSite(Code, "lib3.f", "c.cpp");
  reconcileReach(First, Rules, "a.cpp", Third, Rules, "c.cpp");
  reconcileReach(First, Rules, "a.cpp", Third, Rules, "c.cpp");
  EXPECT_THAT(First.SkipReason, testing::EndsWith("; 'lib3.f' through c.cpp"));
  ASSERT_EQ(First.ConflictingTUs.size(), 3u);
  EXPECT_EQ(First.ConflictingTUs[2].Need, "'lib3.f'");
  EXPECT_EQ(First.ConflictingTUs[2].Through, "c.cpp");
  // Named whatever its name contains: the participants were kept as text,
  // and "'lib3.f' through c.cp", part of "... through c.cpp", went unnamed.
  reconcileReach(First, Rules, "a.cpp", fragmentSite(Code, "lib3.f", "c.cp"),
                 Rules, "c.cp");
  // The first TU again, with another event: included again.
  reconcileReach(First, Rules, "a.cpp", fragmentSite(Code, "lib4.f", "a.cpp"),
                 Rules, "a.cpp");
  EXPECT_EQ(First.SkipReason,
            "different events: 'lib.f' through a.cpp; 'lib2.f' through b.cpp; "
            "'lib3.f' through c.cpp; 'lib3.f' through c.cp; 'lib4.f' through "
            "a.cpp, included again");
}

TEST(SiteDecisionTest, EveryIncluderOfAFragmentGetsTheInclude) {
  llvm::StringRef Code = "int f() { return 1; }\n";
  RuleSet Rules;
  Rules.Macro = "LOG";
  Rules.Include = "log.h";
  Site First = fragmentSite(Code, "lib.f", "a.cpp");
  ASSERT_TRUE(decideSite(First, Code, Rules));
  reconcileReach(First, Rules, "a.cpp", fragmentSite(Code, "lib.f", "b.cpp"),
                 Rules, "b.cpp");
  reconcileReach(First, Rules, "a.cpp", fragmentSite(Code, "lib.f", "b.cpp"),
                 Rules, "b.cpp");
  EXPECT_EQ(First.Status, SiteStatus::Missing);
  std::vector<std::string> Includers;
  for (const TextEdit &E : First.Edits)
    if (E.Kind == TextEdit::AddInclude)
      Includers.push_back(E.File);
  EXPECT_THAT(Includers, testing::ElementsAre("a.cpp", "b.cpp"));
}

TEST(SiteDecisionTest,
     DifferentIncludeNeedsConflictOnlyWhenSomethingIsWritten) {
  RuleSet Rules;
  Rules.Macro = "LOG";
  Rules.Include = "log.h";
  // Included at file scope by one TU, inside a namespace by another: the
  // #include cannot go into the fragment, nor only into the includer.
  llvm::StringRef Code = "int f() { return 1; }\n";
  Site First = fragmentSite(Code, "f", "");
  ASSERT_TRUE(decideSite(First, Code, Rules));
  reconcileReach(First, Rules, "c.cpp", fragmentSite(Code, "f", "d.cpp"), Rules,
                 "d.cpp");
  EXPECT_EQ(First.Status, SiteStatus::Conflict);
  EXPECT_THAT(First.SkipReason,
              testing::StartsWith("different include needs: macro 'LOG' "
                                  "from #include \"log.h\" in the file "
                                  "itself through c.cpp"));
  // The call is there already: both TUs compile, nothing to write.
  llvm::StringRef Present = "int f() { LOG(\"f\"); return 1; }\n";
  Site Done = fragmentSite(Present, "f", "");
  ASSERT_TRUE(decideSite(Done, Present, Rules));
  reconcileReach(Done, Rules, "c.cpp", fragmentSite(Present, "f", "d.cpp"),
                 Rules, "d.cpp");
  EXPECT_EQ(Done.Status, SiteStatus::Present);
  // A TU that does not select it changes nothing.
  Site Unselected = fragmentSite(Code, "other", "e.cpp");
  Unselected.RuleId.clear();
  Site Again = fragmentSite(Code, "f", "");
  ASSERT_TRUE(decideSite(Again, Code, Rules));
  reconcileReach(Again, Rules, "c.cpp", Unselected, Rules, "e.cpp");
  EXPECT_EQ(Again.Status, SiteStatus::Missing);
}

TEST(SiteDecisionTest, LinesAndColumnsCountAsClangDoes) {
  EXPECT_EQ(lineAndColumn("ab\ncd", 4), std::make_pair(2u, 2u));
  EXPECT_EQ(lineAndColumn("ab\r\ncd", 5), std::make_pair(2u, 2u));
  EXPECT_EQ(lineAndColumn("ab\rcd", 4), std::make_pair(2u, 2u));
  EXPECT_EQ(lineAndColumn("\tx", 1), std::make_pair(1u, 2u));
}

MacroUse callAt(llvm::StringRef Code) {
  MacroUse Use;
  Use.Offset = Code.find("LOG");
  Use.HasArgRange = true;
  Use.ArgBegin = Use.Offset + 4;
  Use.ArgEnd = Code.find(')', Use.Offset);
  Use.Event = "e";
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
    std::optional<TextEdit> E = callRemoval("f.cpp", Code, callAt(Code), "LOG");
    return E ? valueOrFail(applyEdits("f.cpp", Code, {*E})) : "(none)";
  };
  EXPECT_EQ(Remove("{\n  LOG(\"e\");\n  g();\n}\n"), "{\n  g();\n}\n");
  EXPECT_EQ(Remove("{\r\n  LOG(\"e\");  \r\n}\r\n"), "{\r\n}\r\n");
  EXPECT_EQ(Remove("void f() { LOG(\"e\"); }"), "void f() { }");
  EXPECT_EQ(Remove("{ LOG(\"e\") ; g(); }"), "{ g(); }");
  // Not a plain "LOG(...);": left alone.
  EXPECT_EQ(Remove("{ LOG(\"e\"), g(); }"), "(none)");
  // Line breaks between the tokens are the lexer's business; a comment is
  // someone's note, which apistamp did not write (issue 44's F27).
  EXPECT_EQ(Remove("{\n  LOG(\"e\"\n    );\n  g();\n}\n"), "{\n  g();\n}\n");
  EXPECT_EQ(Remove("{ LOG /* c */ (\"e\"); }"), "(none)");
  EXPECT_EQ(Remove("{ LOG(\n  // see ticket 1234\n  \"e\"); }"), "(none)");
}

// Only what apistamp writes is removed: `LOG(computeName());` and the like
// were removed with their side effects, `LOG("x"), g();` was counted as
// removed and never was.
TEST(SiteDecisionTest, AStaleCallIsRemovedOnlyIfApistampCouldHaveWrittenIt) {
  struct Case {
    const char *Code;
    const char *Event; ///< As the recorder gives it: the argument's text.
    const char *WhyNot;
  };
  for (Case C : {
           Case{"void f() {\n  LOG(computeName());\n}\n", "computeName()",
                "its argument is not the one string literal apistamp writes"},
           Case{"void f() {\n  LOG((++counter, \"x\"));\n}\n",
                "(++counter, \"x\")",
                "its argument is not the one string literal apistamp writes"},
           Case{"void f() {\n  LOG(b ? \"t\" : \"f\");\n}\n",
                "b ? \"t\" : \"f\"",
                "its argument is not the one string literal apistamp writes"},
           Case{"void f() {\n  LOG(\"x\"), g();\n}\n", "x",
                "the call is not a statement of its own"},
           Case{"void f() {\n  LOG(u8\"x\");\n}\n", "x",
                "its argument is not the one string literal apistamp writes"},
       }) {
    llvm::StringRef Code = C.Code;
    Site S = unselected(Code);
    S.Calls.front().Event = C.Event;
    ASSERT_TRUE(decideSite(S, Code, logRules())) << Code.str();
    EXPECT_EQ(S.Status, SiteStatus::Stale) << Code.str();
    EXPECT_TRUE(S.Edits.empty()) << Code.str();
    EXPECT_EQ(S.SkipReason,
              std::string("no rule selects 'ns::f'; not removed: ") + C.WhyNot)
        << Code.str();
  }
  llvm::StringRef Split = "void f() {\n  LOG(\"x\"\n  );\n  g();\n}\n";
  Site S = unselected(Split);
  S.Calls.front().Event = "x";
  ASSERT_TRUE(decideSite(S, Split, logRules()));
  EXPECT_EQ(valueOrFail(applyEdits("f.cpp", Split, S.Edits)),
            "void f() {\n  g();\n}\n");
}

// The #include apistamp added stayed after its last call was removed.
TEST(SiteDecisionTest, RemovingTheLastCallTakesTheIncludeApistampWrote) {
  RuleSet Rules = logRules();
  Rules.Include = "log.h";
  auto Fix = [&](llvm::StringRef Code) {
    Site S = unselected(Code);
    EXPECT_TRUE(decideSite(S, Code, Rules));
    return valueOrFail(applyEdits("f.cpp", Code, S.Edits));
  };
  llvm::StringRef Body = "void f() {\n  LOG(\"old\");\n  g();\n}\n";
  std::string Removed = "void f() {\n  g();\n}\n";
  EXPECT_EQ(Fix(("#include \"log.h\"\n" + Body).str()), Removed);
  EXPECT_EQ(Fix(("#include \"a.h\"\n#include \"log.h\"\n" + Body).str()),
            "#include \"a.h\"\n" + Removed);
  // An emptied body is `{}` again (what fix opens to insert a call).
  EXPECT_EQ(Fix("#include \"log.h\"\r\nvoid f() {\r\n  LOG(\"old\");\r\n}\r\n"),
            "void f() {}\r\n");
  // A comment that names the macro is no use of it.
  EXPECT_EQ(
      Fix(("#include \"log.h\"\n// the LOG macro is ours\n" + Body).str()),
      "// the LOG macro is ours\n" + Removed);
  // Another use of the macro keeps it; a string literal is no use of it.
  std::string Other = "void h() { g(); LOG(\"x\"); }\n";
  EXPECT_EQ(Fix(("#include \"log.h\"\n" + Body + Other).str()),
            "#include \"log.h\"\n" + Removed + Other);
  std::string Name = "const char *Name = \"LOG\";\n";
  EXPECT_EQ(Fix(("#include \"log.h\"\n" + Name + Body).str()), Name + Removed);
  // Not the line apistamp writes: another spelling, indented, a comment
  // after it, written twice, inside a comment.
  for (const char *Include :
       {"#include <log.h>\n", "  #include \"log.h\"\n",
        "#include \"log.h\" // logging\n", "#  include \"log.h\"\n",
        "#include \"log.h\"\n#include \"log.h\"\n",
        "/*\n#include \"log.h\"\n*/\n"})
    EXPECT_EQ(Fix((Include + Body).str()), Include + Removed) << Include;
}

TEST(SiteDecisionTest, IncludeLineIsTheDirectiveApistampWrites) {
  using Range = std::optional<std::pair<unsigned, unsigned>>;
  EXPECT_EQ(includeLine("#include \"a.h\"\n#include \"log.h\"\nint x;\n",
                        "log.h", false),
            Range({15, 17}));
  EXPECT_EQ(includeLine("#include <log.h>", "log.h", true), Range({0, 16}));
  EXPECT_EQ(includeLine("#include <log.h>\r\n", "log.h", true), Range({0, 18}));
  EXPECT_EQ(includeLine("#include <log.h>\n", "log.h", false), std::nullopt);
  EXPECT_EQ(includeLine("#include \"log.hpp\"\n", "log.h", false),
            std::nullopt);
  EXPECT_EQ(includeLine("R\"(\n#include \"log.h\"\n)\";\n", "log.h", false),
            std::nullopt);
  EXPECT_EQ(includeLine("#include \"\"\n", "", false), std::nullopt);
  // A block of its own, as the include inserter writes a new one: the
  // blank line after it goes too (fmt's format-inl.h and os.cc).
  EXPECT_EQ(includeLine("#include <a>\n\n#include \"log.h\"\n\nint x;\n",
                        "log.h", false),
            Range({14, 18}));
  EXPECT_EQ(includeLine("#include \"log.h\"\n\nint x;\n", "log.h", false),
            Range({0, 18}));
  EXPECT_EQ(includeLine("#include <a>\r\n\r\n#include \"log.h\"\r\n\r\nint x;",
                        "log.h", false),
            Range({16, 20}));
  // In a block with others: only its line.
  EXPECT_EQ(includeLine("#include <a>\n#include \"log.h\"\n\nint x;\n", "log.h",
                        false),
            Range({13, 17}));
  EXPECT_EQ(includeLine("#include <a>\n\n#include \"log.h\"\n#include <b>\n",
                        "log.h", false),
            Range({14, 17}));
}

} // namespace
