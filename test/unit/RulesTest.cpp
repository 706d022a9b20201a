//===- RulesTest.cpp - Tests for the rules loader -------------------------===//

#include "apistamp/Rules.h"
#include "Suggestions.h"
#include "TestSupport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"

using namespace apistamp;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

RuleSet parse(llvm::StringRef Text) {
  return valueOrFail(parseRules(Text, "r.yaml"));
}
std::string error(llvm::StringRef Text) {
  return errorOf(parseRules(Text, "r.yaml"));
}

TEST(RulesTest, FullRule) {
  RuleSet Rules = parse(R"(version: 1
macro: MY_MACRO
include: <c10/util/Logging.h>
rules:
  - id: ops
    where: function
    files: ["torchvision/csrc/ops/*.cpp"]
    exclude_files: ["**/cpu/**"]
    namespace: "vision::ops"
    name: "[a-z].*"
    exclude_names: ["_.*"]
    class: "vision::video::Video"
    derived_from: "::torch::nn::Module"
    linkage: any
    access: any
    event: "{path}.{name}"
)");
  EXPECT_EQ(Rules.Macro, "MY_MACRO");
  EXPECT_EQ(Rules.Include, "c10/util/Logging.h");
  EXPECT_TRUE(Rules.IncludeAngled);
  ASSERT_EQ(Rules.Rules.size(), 1u);
  const Rule &R = Rules.Rules[0];
  EXPECT_EQ(R.Id, "ops");
  EXPECT_EQ(R.Line, 5u);
  EXPECT_EQ(R.Where, DeclKind::Function);
  ASSERT_EQ(R.Files.size(), 1u);
  EXPECT_TRUE(R.Files[0].matches("torchvision/csrc/ops/nms.cpp"));
  ASSERT_EQ(R.ExcludeFiles.size(), 1u);
  ASSERT_EQ(R.Namespaces.size(), 1u);
  EXPECT_TRUE(R.Namespaces[0].matches("vision::ops"));
  ASSERT_EQ(R.Names.size(), 1u);
  EXPECT_TRUE(R.Names[0].matches("nms"));
  EXPECT_FALSE(R.Names[0].matches("Nms"));
  ASSERT_EQ(R.ExcludeNames.size(), 1u);
  ASSERT_TRUE(R.Class);
  EXPECT_EQ(R.DerivedFrom, std::vector<std::string>{"torch::nn::Module"});
  EXPECT_FALSE(R.ExternalLinkageOnly);
  EXPECT_EQ(R.Access, Rule::AccessFilter::Any);
  EXPECT_EQ(R.Event.text(), "{path}.{name}");
}

TEST(RulesTest, Defaults) {
  RuleSet Rules = parse("version: 1\nrules:\n  - id: all\n");
  EXPECT_EQ(Rules.Macro, "C10_LOG_API_USAGE_ONCE");
  EXPECT_EQ(Rules.Include, "");
  const Rule &R = Rules.Rules[0];
  EXPECT_FALSE(R.Where);
  EXPECT_TRUE(R.Files.empty());
  EXPECT_TRUE(R.ExternalLinkageOnly);
  EXPECT_EQ(R.Access, Rule::AccessFilter::Public);
  EXPECT_EQ(R.Event.text(), "{qualified}");
}

TEST(RulesTest, QuotedIncludeAndSingleStrings) {
  RuleSet Rules = parse("version: 1\ninclude: '\"a/b.h\"'\nrules:\n"
                        "  - id: x\n    files: src/**\n    namespace: a\n");
  EXPECT_EQ(Rules.Include, "a/b.h");
  EXPECT_FALSE(Rules.IncludeAngled);
  EXPECT_EQ(Rules.Rules[0].Files.size(), 1u);
  EXPECT_EQ(Rules.Rules[0].Namespaces.size(), 1u);
}

TEST(RulesTest, YamlSyntaxErrorHasPosition) {
  EXPECT_THAT(error("version: 1\nrules: [\n"), HasSubstr("r.yaml:3:1: error:"));
}

TEST(RulesTest, NotAMapping) {
  EXPECT_THAT(error("- a\n- b\n"),
              HasSubstr("r.yaml:1:1: error: a rules file is a mapping"));
}

TEST(RulesTest, MissingAndWrongVersion) {
  EXPECT_THAT(error("rules:\n  - id: a\n"), HasSubstr("missing 'version: 1'"));
  EXPECT_THAT(error("version: 2\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:1:10: error: unsupported rules version"));
}

TEST(RulesTest, UnknownTopLevelKeySuggests) {
  EXPECT_THAT(error("version: 1\nincldue: a.h\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:1: error: unknown key 'incldue' in the "
                        "rules file; did you mean 'include'?"));
}

TEST(RulesTest, UnknownRuleKeySuggests) {
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    nmae: x\n"),
              HasSubstr("r.yaml:4:5: error: unknown key 'nmae' in rule 'a'; "
                        "did you mean 'name'?"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    zzzzzzzz: x\n"),
              HasSubstr("known keys: id, where"));
  // No suggestion that shares no character: '<<' (a YAML merge key, which
  // yaml-cpp does not merge) is not a typo of 'id'.
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    <<: x\n"),
              HasSubstr("unknown key '<<' in rule 'a'; known keys: id, where"));
}

TEST(RulesTest, RuleNeedsUniqueId) {
  EXPECT_THAT(error("version: 1\nrules:\n  - where: function\n"),
              HasSubstr("r.yaml:3:5: error: rule has no 'id'"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n  - id: a\n"),
              HasSubstr("r.yaml:4:9: error: duplicate rule id 'a'"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: ''\n"),
              HasSubstr("'id' must not be empty"));
}

TEST(RulesTest, ErrorsAreSortedByLine) {
  // The rule's keys are checked in table order ('where' before 'access'),
  // the file-level keys after the rules: the report follows the file.
  std::string All = error("version: 1\n"
                          "macro: 1bad\n"
                          "rules:\n"
                          "  - id: a\n"
                          "    access: privat\n"
                          "    where: fucntion\n");
  size_t Macro = All.find("r.yaml:2:"), Access = All.find("r.yaml:5:"),
         Where = All.find("r.yaml:6:");
  ASSERT_NE(Macro, std::string::npos);
  ASSERT_NE(Access, std::string::npos);
  ASSERT_NE(Where, std::string::npos);
  EXPECT_LT(Macro, Access);
  EXPECT_LT(Access, Where);
}

TEST(RulesTest, BadEnumsSuggest) {
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    where: fucntion\n"),
              HasSubstr("r.yaml:4:12: error: 'where' must be one of function, "
                        "method, constructor, not 'fucntion'; did you mean "
                        "'function'?"));
  // Not "did you mean 'external'": that is the opposite.
  std::string Internal =
      error("version: 1\nrules:\n  - id: a\n    linkage: internal\n");
  EXPECT_THAT(Internal, HasSubstr("r.yaml:4:14: error: 'linkage: internal' is "
                                  "not supported"));
  EXPECT_THAT(Internal, Not(HasSubstr("did you mean")));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    linkage: extrenal\n"),
              HasSubstr("'linkage' must be one of external, any, not "
                        "'extrenal'; did you mean 'external'?"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    access: private\n"),
              HasSubstr("'access' must be one of public, protected, any"));
}

TEST(RulesTest, BadRegex) {
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    name: \"[a-\"\n"),
              HasSubstr("r.yaml:4:12: error: bad regular expression '[a-'"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    class: \"(\"\n"),
              HasSubstr("bad regular expression '('"));
  EXPECT_THAT(
      error("version: 1\nrules:\n  - id: a\n    exclude_names: [\"*x\"]\n"),
      HasSubstr("bad regular expression '*x'"));
}

TEST(RulesTest, BadGlobsAndNamespaces) {
  EXPECT_THAT(
      error("version: 1\nrules:\n  - id: a\n    files: [\"/abs/*.cpp\"]\n"),
      HasSubstr("is absolute"));
  // A nested rules file cannot reach the library's include/ with '..'.
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n"
                    "    declared_in: [\"../include/**\"]\n"),
              HasSubstr("r.yaml:4:20: error: file glob '../include/**' leaves "
                        "the root with '..' and would never match"));
  EXPECT_THAT(error("version: 1\nexclude_files: [\"src/../x\"]\nrules:\n"
                    "  - id: a\n"),
              HasSubstr("leaves the root"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    files: [\"a**b\"]\n"),
              HasSubstr("'**' must be a whole path component"));
  EXPECT_THAT(
      error("version: 1\nrules:\n  - id: a\n    exclude_files: [\"[\"]\n"),
      HasSubstr("bad file glob"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    namespace: \"a::*\"\n"),
              HasSubstr("bad namespace 'a::*'"));
}

TEST(RulesTest, BadEventTemplatePointsIntoTheString) {
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    event: \"x.{nmae}\"\n"),
              HasSubstr("r.yaml:4:15: error: unknown placeholder '{nmae}' in "
                        "event template; did you mean '{name}'?"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    event: \"x.{name\"\n"),
              HasSubstr("unterminated placeholder"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    event: \"x}\"\n"),
              HasSubstr("unmatched '}'"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    event: \"\"\n"),
              HasSubstr("event template is empty"));
}

TEST(RulesTest, WrongTypes) {
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    files: {x: y}\n"),
              HasSubstr("'files' must be a string or a list of strings"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    files: []\n"),
              HasSubstr("'files' is an empty list"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    name: {a: b}\n"),
              HasSubstr("'name' must be a string or a list of strings"));
  EXPECT_THAT(error("version: 1\nrules: {a: 1}\n"),
              HasSubstr("'rules' must be a list of rules"));
  EXPECT_THAT(error("version: 1\nrules: []\n"), HasSubstr("'rules' is empty"));
  EXPECT_THAT(error("version: 1\n"), HasSubstr("missing 'rules:'"));
  EXPECT_THAT(error("version: 1\nrules:\n  - just-a-string\n"),
              HasSubstr("each rule must be a mapping"));
  EXPECT_THAT(error("version: 1\nmacro: 'NOT A MACRO'\nrules:\n  - id: a\n"),
              HasSubstr("'macro' must be an identifier"));
  EXPECT_THAT(error("version: 1\ninclude: 'a b.h'\nrules:\n  - id: a\n"),
              HasSubstr("'include' must be a header path"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    derived_from: '::'\n"),
              HasSubstr("'derived_from' must name a class"));
}

TEST(RulesTest, ReportsEveryErrorAtOnce) {
  std::string Message = error("version: 1\nrules:\n  - id: a\n    nmae: x\n"
                              "  - id: b\n    where: nowhere\n");
  EXPECT_THAT(Message, HasSubstr("r.yaml:4:5:"));
  EXPECT_THAT(Message, HasSubstr("r.yaml:6:12:"));
}

TEST(RulesTest, LoadSetsRootAndReportsMissingFile) {
  EXPECT_THAT(errorOf(loadRules("/nonexistent/dir/.apistamp.yaml")),
              HasSubstr("cannot read rules file"));
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("apistamp-rules", Dir));
  llvm::SmallString<128> Sub(Dir);
  llvm::sys::path::append(Sub, "a", "b");
  ASSERT_FALSE(llvm::sys::fs::create_directories(Sub));
  llvm::SmallString<128> File(Dir);
  llvm::sys::path::append(File, ".apistamp.yaml");
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC);
    OS << "version: 1\nrules:\n  - id: a\n";
  }
  RuleSet Rules = valueOrFail(loadRules(File));
  llvm::SmallString<128> RealDir;
  ASSERT_FALSE(llvm::sys::fs::real_path(Dir, RealDir));
  EXPECT_EQ(Rules.Root, RealDir.str());
  EXPECT_EQ(findRulesFileFor((Sub + "/x.cpp").str()), File.str());
  llvm::sys::fs::remove_directories(Dir);
}

} // namespace

namespace {

TEST(RulesTest, MatcherIsParsedAndReplacesSelectionKeys) {
  RuleSet R = valueOrFail(parseRules("version: 1\nrules:\n"
                                     "  - id: m\n"
                                     "    matcher: cxxMethodDecl(isPublic())\n"
                                     "    files: src/**\n",
                                     "r.yaml"));
  ASSERT_EQ(R.Rules.size(), 1u);
  EXPECT_NE(R.Rules[0].Matcher, nullptr);
  EXPECT_EQ(R.Rules[0].Files.size(), 1u);

  EXPECT_EQ(errorOf(parseRules("version: 1\nrules:\n"
                               "  - id: m\n"
                               "    access: any\n"
                               "    matcher: functionDecl()\n",
                               "r.yaml")),
            "r.yaml:4:13: error: 'access' cannot be combined with 'matcher', "
            "which does all the selecting; say it in the matcher (only "
            "'files', 'exclude_files' and 'event' apply too)");
}

TEST(RulesTest, MatcherParseErrorPointsIntoTheExpression) {
  EXPECT_EQ(errorOf(parseRules("version: 1\nrules:\n"
                               "  - id: m\n"
                               "    matcher: functionDecl(isPublik())\n",
                               "r.yaml")),
            "r.yaml:4:27: error: in matcher: Matcher not found: isPublik; did "
            "you mean 'isPublic'?");
  EXPECT_THAT(errorOf(parseRules("version: 1\nrules:\n"
                                 "  - id: m\n"
                                 "    matcher: functionDecl(\n",
                                 "r.yaml")),
              HasSubstr("r.yaml:4:"));
}

} // namespace

namespace {

TEST(RulesTest, PrintableEscapesWhatCouldUpsetATerminal) {
  EXPECT_EQ(printable("a\nb\r\t\x1b[2J\x7f\xff\xC2\x85\xE2\x80\xAE caf\xC3\xA9 "
                      "\\d"),
            "a\\nb\\r\\t\\x1b[2J\\x7f\\xff\\u0085\\u202e caf\xC3\xA9 \\d");
  EXPECT_EQ(printable(llvm::StringRef("\0", 1)), "\\x00");
  // Escaping twice changes nothing, so whole messages can be escaped again.
  std::string Once = printable("x\n\x1b\xE2\x80\xAE");
  EXPECT_EQ(printable(Once), Once);
  // Long values are cut, at a character boundary.
  EXPECT_EQ(printable(std::string(300, 'x')), std::string(200, 'x') + "...");
  EXPECT_EQ(printable("ab\xC3\xA9"
                      "cd",
                      3),
            "ab\xC3\xA9...");
  EXPECT_EQ(printable(std::string(300, 'x'), std::string::npos),
            std::string(300, 'x'));
}

/// Whether \p Text has a byte a terminal could act on.
bool hasRawControlBytes(llvm::StringRef Text) {
  return llvm::any_of(Text, [](char C) {
    return (unsigned char)C < 0x20 ? C != '\n' : C == 0x7f;
  });
}

TEST(RulesTest, IncludeMustBeAPrintableNonEmptyHeaderName) {
  // Promise (docs/reliability.md#an-include-is-one-header-name): a line break
  // in 'include' wrote arbitrary lines into every instrumented file; empty
  // names silently inserted nothing.
  EXPECT_THAT(error("version: 1\ninclude: \"a.h\\nint\\finjected=system(0);//\""
                    "\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:14: error: 'include' may not contain "
                        "control characters (found '\\n')"));
  EXPECT_THAT(error("version: 1\ninclude: \"a.h\\r\"\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:14: error: 'include' may not contain "
                        "control characters (found '\\r')"));
  EXPECT_THAT(error("version: 1\ninclude: \"a\\0.h\"\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:12: error: 'include' may not contain "
                        "control characters (found '\\x00')"));
  EXPECT_THAT(error("version: 1\ninclude: \"\"\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:11: error: 'include' is empty"));
  EXPECT_THAT(error("version: 1\ninclude: '<>'\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:11: error: 'include' names no header"));
  EXPECT_THAT(error("version: 1\ninclude: '\"\"'\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:11: error: 'include' names no header"));
  EXPECT_THAT(error("version: 1\ninclude: '<a.h'\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:11: error: 'include' must be a header path"));
  EXPECT_THAT(error("version: 1\ninclude: 'a.h>'\nrules:\n  - id: a\n"),
              HasSubstr("'include' must be a header path"));
  EXPECT_THAT(error("version: 1\ninclude: '<a\".h>'\nrules:\n  - id: a\n"),
              HasSubstr("'include' must be a header path"));
  RuleSet Rules = parse("version: 1\ninclude: ' <c10/util/Logging.h> '\n"
                        "rules:\n  - id: a\n");
  EXPECT_EQ(Rules.Include, "c10/util/Logging.h");
  EXPECT_TRUE(Rules.IncludeAngled);
  EXPECT_EQ(
      parse("version: 1\ninclude: a-b+c/d_e.inc\nrules:\n  - id: a\n").Include,
      "a-b+c/d_e.inc");
}

TEST(RulesTest, MacroMustNotBeAKeyword) {
  // Promise (docs/reliability.md#a-macro-is-one-identifier-never-a-statement):
  // 'macro: throw' made every selected function throw.
  EXPECT_THAT(error("version: 1\nmacro: throw\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:8: error: 'macro' must name a macro, not "
                        "the C or C++ keyword 'throw'"));
  for (const char *Keyword :
       {"return", "if", "while", "goto", "nullptr", "co_return", "_Bool",
        "static_assert", "and", "not", "__asm__", "typeof", "defined"})
    EXPECT_THAT(error(std::string("version: 1\nmacro: ") + Keyword +
                      "\nrules:\n  - id: a\n"),
                HasSubstr("r.yaml:2:8: error: 'macro' must name a macro"))
        << Keyword;
  EXPECT_EQ(parse("version: 1\nmacro: LOG_ONCE\nrules:\n  - id: a\n").Macro,
            "LOG_ONCE");
  EXPECT_EQ(parse("version: 1\nmacro: _log2\nrules:\n  - id: a\n").Macro,
            "_log2");
}

TEST(RulesTest, EventTemplatesRefuseControlCharacters) {
  // Promise
  // (docs/reliability.md#an-event-is-text-never-code-or-terminal-control):
  // newlines and other control characters in an event.
  EXPECT_THAT(
      error("version: 1\nrules:\n  - id: a\n    event: \"a.{name}\\nb\"\n"),
      HasSubstr("r.yaml:4:21: error: 'event' may not contain control "
                "characters (found '\\n')"));
  for (const char *Escape : {"\\r", "\\0", "\\t", "\\e", "\\x7f", "\\x85"})
    EXPECT_THAT(error(std::string("version: 1\nrules:\n  - id: a\n"
                                  "    event: \"a") +
                      Escape + "b\"\n"),
                HasSubstr("r.yaml:4:14: error: 'event' may not contain "
                          "control characters"))
        << Escape;
  // The column is the character's in the file, past escapes and '' pairs.
  EXPECT_THAT(
      error("version: 1\nrules:\n  - id: a\n    event: \"\\u00e9\\x41\\e\"\n"),
      HasSubstr("r.yaml:4:23: error: 'event' may not contain control "
                "characters (found '\\x1b')"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    event: 'it''s\tx'\n"),
              HasSubstr("r.yaml:4:18: error: 'event' may not contain control "
                        "characters (found '\\t')"));
  // yaml-cpp decodes \_ (U+00A0) to one byte that is not UTF-8.
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    event: \"a\\_\"\n"),
              HasSubstr("r.yaml:4:14: error: 'event' is not valid UTF-8 "
                        "(found byte '\\xa0')"));
}

TEST(RulesTest, EventTemplatesMayBeUTF8) {
  // Promise
  // (docs/reliability.md#an-event-is-text-never-code-or-terminal-control):
  // valid UTF-8 was refused as "quotes, backslashes or control characters"; it
  // is kept as it is (the event literal keeps UTF-8 bytes).
  RuleSet Rules = parse("version: 1\nrules:\n  - id: a\n"
                        "    event: \"caf\xC3\xA9.\xE6\x97\xA5.{name}\"\n");
  ASSERT_EQ(Rules.Rules.size(), 1u);
  EXPECT_EQ(Rules.Rules[0].Event.text(), "caf\xC3\xA9.\xE6\x97\xA5.{name}");
}

TEST(RulesTest, InvalidUTF8IsRefusedAsSuch) {
  std::string Message =
      error("version: 1\nrules:\n  - id: a\n    event: \"caf\xE9.{name}\"\n");
  EXPECT_THAT(Message, HasSubstr("r.yaml:4:16: error: the rules file is not "
                                 "valid UTF-8 (found byte '\\xe9')"));
  EXPECT_THAT(error("version: 1\n# \xC0\xAF overlong\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:3: error: the rules file is not valid "
                        "UTF-8"));
  EXPECT_THAT(error(llvm::StringRef("\xFF\xFEv\0", 4)),
              HasSubstr("r.yaml:1:1: error: the rules file is not UTF-8 (it "
                        "looks like UTF-16 or UTF-32); save it as UTF-8"));
}

TEST(RulesTest, RawControlCharactersInTheFileAreRefused) {
  EXPECT_THAT(error(llvm::StringRef("version: 1\nrules:\n  - id: a\0b\n", 30)),
              HasSubstr("r.yaml:3:10: error: the rules file may not contain "
                        "control characters other than tab and line breaks "
                        "(found '\\x00')"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: \x1b[31ma\n"),
              HasSubstr("r.yaml:3:9: error: the rules file may not contain "
                        "control characters"));
}

TEST(RulesTest, MessagesNeverEchoRawControlCharacters) {
  // Promise
  // (docs/reliability.md#an-event-is-text-never-code-or-terminal-control):
  // values quoted in messages are escaped.
  for (const char *Text : {
           "version: 1\nrules:\n  - id: a\n    \"ke\\ey\": 1\n",
           "version: 1\nrules:\n  - id: a\n    namespace: \"\\e[31mred\"\n",
           "version: 1\nrules:\n  - id: a\n    where: \"fun\\nction\"\n",
           "version: 1\nrules:\n  - id: \"a\\e\"\n  - id: \"a\\e\"\n",
           "version: 1\nrules:\n  - id: a\n    namespace: \"\\\x1b[31m\"\n",
           "version: 1\nmacro: \"A\\nB\"\nrules:\n  - id: a\n",
           "version: 1\nrules:\n  - id: a\n    event: \"}\\u202e\\e\"\n",
           "version: 1\nrules:\n  - id: a\n    matcher: "
           "\"functionDecl(\\e)\"\n",
       }) {
    std::string Message = error(Text);
    EXPECT_FALSE(hasRawControlBytes(Message)) << Message;
    EXPECT_THAT(Message, ::testing::Not(HasSubstr("\xE2\x80\xAE"))) << Message;
  }
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    \"ke\\ey\": 1\n"),
              HasSubstr("unknown key 'ke\\x1by' in rule 'a'; known keys"));
}

TEST(RulesTest, LongEventTemplatesAreRefused) {
  std::string Text = "version: 1\nrules:\n  - id: a\n    event: \"" +
                     std::string(1025, 'x') + "\"\n";
  EXPECT_THAT(error(Text),
              HasSubstr("r.yaml:4:13: error: event template is "
                        "1025 bytes long; at most 1024 are allowed"));
}

TEST(RulesTest, DuplicateKeysAreErrors) {
  // Promise
  // (docs/reliability.md#every-key-and-every-document-of-a-rules-file-is-read):
  // the second 'namespace' was silently ignored.
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    namespace: lib\n"
                    "    namespace: other\n"),
              HasSubstr("r.yaml:5:5: error: duplicate key 'namespace' in rule "
                        "'a'; the first is on line 4"));
  EXPECT_THAT(error("version: 1\ninclude: a.h\ninclude: b.h\nrules:\n"
                    "  - id: a\n"),
              HasSubstr("r.yaml:3:1: error: duplicate key 'include' in the "
                        "rules file; the first is on line 2"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n    id: b\n"),
              HasSubstr("r.yaml:4:5: error: duplicate key 'id' in rule 'a'"));
}

TEST(RulesTest, OneDocumentOnly) {
  // Promise
  // (docs/reliability.md#every-key-and-every-document-of-a-rules-file-is-read):
  // a second YAML document was silently ignored.
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n---\nversion: 1\n"
                    "rules:\n  - id: b\n"),
              HasSubstr("r.yaml:4:1: error: a rules file is one YAML "
                        "document; a second one starts here"));
  EXPECT_THAT(error("---\nversion: 1\nrules:\n  - id: a\n...\n"
                    "rules:\n  - id: b\n"),
              HasSubstr("r.yaml:6:1: error: a rules file is one YAML "
                        "document; a second one starts here"));
  EXPECT_THAT(error("version: 1\nrules:\n  - id: a\n---\n"),
              HasSubstr("r.yaml:4:1: error: a rules file is one YAML "
                        "document"));
  // One document, with its optional markers, is fine.
  EXPECT_EQ(parse("---\nversion: 1\nrules:\n  - id: a\n...\n").Rules.size(),
            1u);
}

TEST(RulesTest, MatcherNestingIsBounded) {
  // Promise
  // (docs/reliability.md#every-key-and-every-document-of-a-rules-file-is-read):
  // clang's matcher parser recurses once per parenthesis; 10,000 levels
  // overflowed the stack (test/lit/hostile-rules.test has those). A matcher
  // whose parentheses nest \p Depth levels deep.
  auto Nested = [](unsigned Depth) {
    std::string M = "functionDecl(";
    for (unsigned I = 2; I < Depth; ++I)
      M += "unless(";
    M += "isDeleted()";
    M.append(Depth - 1, ')');
    return "version: 1\nrules:\n  - id: a\n    matcher: " + M + "\n";
  };
  RuleSet Deep = parse(Nested(64));
  ASSERT_EQ(Deep.Rules.size(), 1u);
  EXPECT_NE(Deep.Rules[0].Matcher, nullptr);
  EXPECT_THAT(error(Nested(65)),
              HasSubstr("r.yaml:4:477: error: in matcher: parentheses nest "
                        "deeper than 64 levels"));
  // Parentheses in strings and comments do not count.
  RuleSet Quoted =
      parse("version: 1\nrules:\n  - id: a\n    matcher: |\n"
            "      functionDecl(hasName(\"" +
            std::string(100, '(') + "\")) # " + std::string(100, '(') + "\n");
  ASSERT_EQ(Quoted.Rules.size(), 1u);
  EXPECT_NE(Quoted.Rules[0].Matcher, nullptr);
}

TEST(RulesTest, DeepYamlNestingIsRefusedAsSuch) {
  // yaml-cpp stops at 500 levels, but said "bad file".
  EXPECT_THAT(error("version: 1\nrules: " + std::string(100000, '[') + "\n"),
              HasSubstr("error: the YAML nests too deeply: yaml-cpp stops at "
                        "500 levels"));
}

TEST(RulesTest, HugeFilesAreRefused) {
  std::string Text = "version: 1\nrules:\n  - id: a\n    event: \"" +
                     std::string(2 << 20, 'x') + "\"\n";
  EXPECT_THAT(error(Text), HasSubstr("r.yaml:1:1: error: the rules file is "
                                     "2097194 bytes; apistamp reads at most "
                                     "1048576"));
}

} // namespace

namespace {
TEST(RulesTest, KeepEventsAreGlobs) {
  apistamp::RuleSet Rules = apistamp::valueOrFail(apistamp::parseRules(
      "version: 1\nkeep_events: [\"torch.script.*\", \"x\"]\nrules:\n"
      "  - id: a\n",
      "r.yaml"));
  EXPECT_EQ(Rules.KeepEvents.size(), 2u);
  EXPECT_TRUE(Rules.keeps("torch.script.load"));
  EXPECT_TRUE(Rules.keeps("x"));
  EXPECT_FALSE(Rules.keeps("torch.jit.load"));
}
} // namespace

// Every glob form docs/rules.md shows for keep_events keeps what it names,
// braces included (they never matched: llvm::GlobPattern expands them only
// when given a limit), and '[' can be written escaped.
TEST(KeepEventsTest, EveryDocumentedGlobFormMatches) {
  RuleSet Rules = valueOrFail(parseRules(
      "version: 1\nmacro: LOG\nkeep_events: ['lib.{a,b}', 'torch.script.*', "
      "'x.?', 'y.[ab]', 'lib.operator\\[\\]', 'lib.{load,save}.*']\n"
      "rules:\n  - id: all\n",
      "r.yaml"));
  for (const char *Kept : {"lib.a", "lib.b", "torch.script.trace", "x.1", "y.b",
                           "lib.operator[]", "lib.load.zip"})
    EXPECT_TRUE(Rules.keeps(Kept)) << Kept;
  for (const char *Removed : {"lib.c", "lib.ab", "torch.jit", "x.12", "y.c",
                              "lib.operator", "lib.drop.zip"})
    EXPECT_FALSE(Rules.keeps(Removed)) << Removed;
}

// `macro: _Pragma` with `event: "pack(1)"` changed a struct's layout.
TEST(RulesTest, MacroMustNotBeAReservedIdentifier) {
  for (const char *Reserved :
       {"_Pragma", "__VA_ARGS__", "__has_include", "__LINE__", "MY__LOG"})
    EXPECT_THAT(errorOf(parseRules(std::string("version: 1\nmacro: ") +
                                       Reserved + "\nrules:\n  - id: all\n",
                                   "r.yaml")),
                HasSubstr("are reserved to the implementation"))
        << Reserved;
  for (const char *Fine : {"C10_LOG_API_USAGE_ONCE", "_log", "LOG_", "L_"})
    EXPECT_EQ(valueOrFail(parseRules(std::string("version: 1\nmacro: ") + Fine +
                                         "\nrules:\n  - id: all\n",
                                     "r.yaml"))
                  .Macro,
              Fine);
}

namespace {

// `layers:` names the events other layers log (torchvision's Python side,
// torch core), for report: a map of names to a glob or a list of them.
TEST(LayersTest, NamesMapToGlobs) {
  RuleSet Rules = parse("version: 1\nlayers:\n"
                        "  torchvision-python: ['torchvision.{models,ops}.*',"
                        " 'torchvision.io.*']\n"
                        "  torch: 'tensor.*'\n"
                        "rules:\n  - id: all\n");
  ASSERT_EQ(Rules.Layers.size(), 2u);
  EXPECT_EQ(Rules.Layers[0].Name, "torchvision-python");
  EXPECT_EQ(Rules.Layers[0].Globs.size(), 2u);
  EXPECT_TRUE(Rules.Layers[0].matches("torchvision.models.resnet.ResNet"));
  EXPECT_TRUE(Rules.Layers[0].matches("torchvision.io.image.decode_png"));
  EXPECT_FALSE(Rules.Layers[0].matches("torchvision.csrc.ops.nms.nms"));
  EXPECT_EQ(Rules.Layers[1].Name, "torch");
  EXPECT_TRUE(Rules.Layers[1].matches("tensor.create"));
  // Only report reads them: they keep nothing.
  EXPECT_FALSE(Rules.keeps("tensor.create"));
}

TEST(LayersTest, ErrorsArePlaced) {
  auto Layers = [](llvm::StringRef Value) {
    return error(
        ("version: 1\nlayers:" + Value + "\nrules:\n  - id: a\n").str());
  };
  EXPECT_THAT(Layers(" ['a.*']"),
              HasSubstr("r.yaml:2:9: error: 'layers' must map each layer's "
                        "name to the globs of the events it logs"));
  EXPECT_THAT(Layers(" {}"),
              HasSubstr("r.yaml:2:9: error: 'layers' is empty; omit the key "
                        "to declare none"));
  EXPECT_THAT(Layers("\n  torch core: 'a.*'"),
              HasSubstr("r.yaml:3:3: error: layer name 'torch core' must be "
                        "ASCII letters, digits, '.', '_' and '-'"));
  EXPECT_THAT(Layers("\n  -x: 'a.*'"),
              HasSubstr("r.yaml:3:3: error: layer name '-x' must be"));
  EXPECT_THAT(Layers("\n  t: 'a.*'\n  t: 'b.*'"),
              HasSubstr("r.yaml:4:3: error: duplicate layer 't'; the first "
                        "is on line 3"));
  EXPECT_THAT(Layers("\n  t: ['a.*', '']"),
              HasSubstr("r.yaml:3:15: error: an empty glob matches no event"));
  EXPECT_THAT(Layers("\n  t: ['a.*', 'b.[']"),
              HasSubstr("r.yaml:3:15: error: "));
  EXPECT_THAT(Layers("\n  t: []"),
              HasSubstr("r.yaml:3:6: error: 'layers: t' is an empty list"));
  EXPECT_THAT(Layers("\n  t: {a: b}"),
              HasSubstr("r.yaml:3:6: error: 'layers: t' must be a string or "
                        "a list of strings"));
  EXPECT_THAT(Layers("\n  t: \"a.\\x01\""),
              HasSubstr("error: 'layers: t' may not contain control "
                        "characters"));
  EXPECT_THAT(error("version: 1\nlayer:\n  t: a\nrules:\n  - id: a\n"),
              HasSubstr("r.yaml:2:1: error: unknown key 'layer' in the rules "
                        "file; did you mean 'layers'?"));
}

} // namespace
