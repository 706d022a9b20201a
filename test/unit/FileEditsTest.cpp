//===- FileEditsTest.cpp - Tests for insertion placement and edit merging -===//

#include "apistamp/FileEdits.h"
#include "Insertion.h"
#include "TestSupport.h"
#include "gmock/gmock.h"

using namespace apistamp;
using ::testing::HasSubstr;

namespace {

/// The code after inserting the call into the first '{' of \p Code.
std::vector<TextEdit> insertion(llvm::StringRef Code) {
  size_t Decl = Code.find_first_not_of(" \t");
  return makeInsertion("f.cpp", Code, Decl, Code.find('{'), Code.rfind('}'),
                       "LOG", "e");
}

/// applyEdits with, when \p Header is given, the AddInclude a fix carries.
llvm::Expected<std::string> apply(llvm::StringRef File, llvm::StringRef Code,
                                  std::vector<TextEdit> Edits,
                                  llvm::StringRef Header = "",
                                  bool Angled = false) {
  if (!Header.empty() && !Edits.empty())
    Edits.push_back(TextEdit::addInclude(File.str(), Header.str(), Angled));
  return applyEdits(File, Code, std::move(Edits));
}

std::string insertFirst(llvm::StringRef Code) {
  return valueOrFail(apply("f.cpp", Code, insertion(Code)));
}

TEST(InsertionTest, FirstStatementIndentedLikeTheBody) {
  EXPECT_EQ(insertFirst("void f() {\n    g();\n}\n"),
            "void f() {\n    LOG(\"e\");\n    g();\n}\n");
  EXPECT_EQ(insertFirst("void f()\n{\n\tg();\n}\n"),
            "void f()\n{\n\tLOG(\"e\");\n\tg();\n}\n");
}

TEST(InsertionTest, EmptyAndOneLineBodies) {
  EXPECT_EQ(insertFirst("void f() {}\n"), "void f() {\n  LOG(\"e\");\n}\n");
  // Code on the brace's line: the call goes on that line, before it.
  EXPECT_EQ(insertFirst("  int f() { return 1; }\n"),
            "  int f() { LOG(\"e\"); return 1; }\n");
  EXPECT_EQ(insertFirst("int f() { g();\n  return 1; }\n"),
            "int f() { LOG(\"e\"); g();\n  return 1; }\n");
  EXPECT_EQ(insertFirst("void f() {\n}\n"), "void f() {\n  LOG(\"e\");\n}\n");
}

TEST(InsertionTest, BraceAfterAnInitListIndentsLikeTheDeclaration) {
  EXPECT_EQ(insertFirst("  A::A(int x)\n      : x(x) {\n  }\n"),
            "  A::A(int x)\n      : x(x) {\n    LOG(\"e\");\n  }\n");
  EXPECT_EQ(insertFirst("A::A() : x(0) {}\n"),
            "A::A() : x(0) {\n  LOG(\"e\");\n}\n");
}

TEST(InsertionTest, TrailingCommentStaysOnTheBraceLine) {
  EXPECT_EQ(insertFirst("void f() { // c\n  g();\n}\n"),
            "void f() { // c\n  LOG(\"e\");\n  g();\n}\n");
  EXPECT_EQ(insertFirst("void f() { /* c */\n  g();\n}\n"),
            "void f() { /* c */\n  LOG(\"e\");\n  g();\n}\n");
}

TEST(InsertionTest, KeepsCRLF) {
  EXPECT_EQ(insertFirst("void f() {\r\n  g();\r\n}\r\n"),
            "void f() {\r\n  LOG(\"e\");\r\n  g();\r\n}\r\n");
}

TEST(InsertionTest, EventIsEscaped) {
  EXPECT_EQ(quoteEvent("a\"b\\c"), "\"a\\\"b\\\\c\"");
}

TEST(FileEditsTest, DuplicateEditsFromSeveralTUsApplyOnce) {
  TextEdit E{"f.h", 3, 0, "X"};
  EXPECT_EQ(valueOrFail(apply("f.h", "abcdef", {E, E, E})), "abcXdef");
}

TEST(FileEditsTest, ConflictingEditsAreAnError) {
  TextEdit A{"f.h", 1, 3, "X"}, B{"f.h", 2, 3, "Y"};
  EXPECT_THAT(errorOf(apply("f.h", "abcdef", {A, B})),
              HasSubstr("conflicting edits"));
  EXPECT_THAT(
      errorOf(apply("f.h", "abc", {TextEdit{"f.h", 9, 0, "X"}}, "", false)),
      HasSubstr("beyond the end"));
}

TEST(FileEditsTest, IncludeGoesIntoTheIncludeBlockOnce) {
  std::string Code = "#include \"a.h\"\n#include \"z.h\"\n\nvoid f() {\n}\n";
  EXPECT_EQ(valueOrFail(apply("f.cpp", Code, insertion(Code),
                              "c10/util/Logging.h", false)),
            "#include \"a.h\"\n#include \"c10/util/Logging.h\"\n#include "
            "\"z.h\"\n\nvoid f() {\n  LOG(\"e\");\n}\n");
}

TEST(FileEditsTest, IncludeAlreadyPresentInEitherSpelling) {
  for (const char *Existing : {"#include \"c10/util/Logging.h\"\n",
                               "#include <c10/util/Logging.h>\n"}) {
    std::string Code = std::string(Existing) + "void f() {\n}\n";
    std::string After = valueOrFail(
        apply("f.cpp", Code, insertion(Code), "c10/util/Logging.h", true));
    EXPECT_EQ(llvm::StringRef(After).count("#include"), 1u) << After;
  }
}

TEST(FileEditsTest, AddIncludeIsOneEditAmongOthers) {
  std::string Code = "void f() {\n}\nvoid g() {\n}\n";
  std::vector<TextEdit> Edits = insertion(Code);
  // Two sites of one file each ask for the include: it is inserted once.
  Edits.push_back(TextEdit::addInclude("f.cpp", "x/y.h", false));
  Edits.push_back(TextEdit::addInclude("f.cpp", "x/y.h", false));
  std::vector<TextEdit> Replacements =
      valueOrFail(fileReplacements("f.cpp", Code, Edits));
  ASSERT_EQ(Replacements.size(), 2u);
  EXPECT_EQ(Replacements[0].Text, "#include \"x/y.h\"\n");
  EXPECT_EQ(Replacements[0].Kind, TextEdit::Replace);
  EXPECT_EQ(applyReplacements(Code, Replacements),
            valueOrFail(applyEdits("f.cpp", Code, Edits)));
}

TEST(FileEditsTest, AngledIncludeAndNoIncludeWithoutEdits) {
  std::string Code = "void f() {\n}\n";
  EXPECT_THAT(valueOrFail(apply("f.cpp", Code, insertion(Code), "x/y.h", true)),
              HasSubstr("#include <x/y.h>\n"));
  EXPECT_EQ(valueOrFail(apply("f.cpp", Code, {}, "x/y.h", true)), Code);
}

TEST(FileEditsTest, IncludeInCRLFFileUsesCRLF) {
  std::string Code = "#include \"a.h\"\r\nvoid f() {\r\n}\r\n";
  std::string After =
      valueOrFail(apply("f.cpp", Code, insertion(Code), "b.h", false));
  EXPECT_THAT(After, HasSubstr("#include \"b.h\"\r\n"));
  EXPECT_EQ(llvm::StringRef(After).count("\n"),
            llvm::StringRef(After).count("\r\n"));
}

TEST(FileEditsTest, IncludeInCROnlyFileUsesCR) {
  std::string Code = "#include \"a.h\"\rvoid f() {\r}\r";
  std::string After =
      valueOrFail(apply("f.cpp", Code, insertion(Code), "b.h", false));
  EXPECT_THAT(After, HasSubstr("#include \"b.h\"\r"));
  EXPECT_EQ(llvm::StringRef(After).count('\n'), 0u) << After;
}

} // namespace
