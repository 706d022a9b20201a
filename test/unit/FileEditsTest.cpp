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

std::string insertFirst(llvm::StringRef Code) {
  return valueOrFail(applyEdits("f.cpp", Code, insertion(Code), "", false));
}

TEST(InsertionTest, FirstStatementIndentedLikeTheBody) {
  EXPECT_EQ(insertFirst("void f() {\n    g();\n}\n"),
            "void f() {\n    LOG(\"e\");\n    g();\n}\n");
  EXPECT_EQ(insertFirst("void f()\n{\n\tg();\n}\n"),
            "void f()\n{\n\tLOG(\"e\");\n\tg();\n}\n");
}

TEST(InsertionTest, EmptyAndOneLineBodies) {
  EXPECT_EQ(insertFirst("void f() {}\n"), "void f() {\n  LOG(\"e\");\n}\n");
  EXPECT_EQ(insertFirst("  int f() { return 1; }\n"),
            "  int f() {\n    LOG(\"e\");\n    return 1;\n  }\n");
  EXPECT_EQ(insertFirst("int f() { g();\n  return 1; }\n"),
            "int f() {\n  LOG(\"e\");\n  g();\n  return 1; }\n");
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
  EXPECT_EQ(valueOrFail(applyEdits("f.h", "abcdef", {E, E, E}, "", false)),
            "abcXdef");
}

TEST(FileEditsTest, ConflictingEditsAreAnError) {
  TextEdit A{"f.h", 1, 3, "X"}, B{"f.h", 2, 3, "Y"};
  EXPECT_THAT(errorOf(applyEdits("f.h", "abcdef", {A, B}, "", false)),
              HasSubstr("conflicting edits"));
  EXPECT_THAT(errorOf(applyEdits("f.h", "abc", {TextEdit{"f.h", 9, 0, "X"}}, "",
                                 false)),
              HasSubstr("beyond the end"));
}

TEST(FileEditsTest, IncludeGoesIntoTheIncludeBlockOnce) {
  std::string Code = "#include \"a.h\"\n#include \"z.h\"\n\nvoid f() {\n}\n";
  EXPECT_EQ(valueOrFail(applyEdits("f.cpp", Code, insertion(Code),
                                   "c10/util/Logging.h", false)),
            "#include \"a.h\"\n#include \"c10/util/Logging.h\"\n#include "
            "\"z.h\"\n\nvoid f() {\n  LOG(\"e\");\n}\n");
}

TEST(FileEditsTest, IncludeAlreadyPresentInEitherSpelling) {
  for (const char *Existing : {"#include \"c10/util/Logging.h\"\n",
                               "#include <c10/util/Logging.h>\n"}) {
    std::string Code = std::string(Existing) + "void f() {\n}\n";
    std::string After = valueOrFail(
        applyEdits("f.cpp", Code, insertion(Code), "c10/util/Logging.h", true));
    EXPECT_EQ(llvm::StringRef(After).count("#include"), 1u) << After;
  }
}

TEST(FileEditsTest, AngledIncludeAndNoIncludeWithoutEdits) {
  std::string Code = "void f() {\n}\n";
  EXPECT_THAT(
      valueOrFail(applyEdits("f.cpp", Code, insertion(Code), "x/y.h", true)),
      HasSubstr("#include <x/y.h>\n"));
  EXPECT_EQ(valueOrFail(applyEdits("f.cpp", Code, {}, "x/y.h", true)), Code);
}

TEST(FileEditsTest, IncludeInCRLFFileUsesCRLF) {
  std::string Code = "#include \"a.h\"\r\nvoid f() {\r\n}\r\n";
  std::string After =
      valueOrFail(applyEdits("f.cpp", Code, insertion(Code), "b.h", false));
  EXPECT_THAT(After, HasSubstr("#include \"b.h\"\r\n"));
  EXPECT_EQ(llvm::StringRef(After).count("\n"),
            llvm::StringRef(After).count("\r\n"));
}

} // namespace
