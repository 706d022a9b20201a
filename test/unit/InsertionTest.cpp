//===- InsertionTest.cpp - Tests that an insertion keeps the code intact --===//
//
// The edits of makeInsertion may only add the call and whitespace: every
// token and comment of the body survives, in order, and the call is a real
// statement (not swallowed by a comment) in every language mode. The event
// literal of quoteEvent means exactly the event in every language mode.
//
//===----------------------------------------------------------------------===//

#include "Insertion.h"
#include "TestSupport.h"
#include "apistamp/FileEdits.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "gmock/gmock.h"
#include <optional>

using namespace apistamp;
using namespace clang::ast_matchers;
using llvm::StringRef;

namespace {

/// \p Code parsed as C++ with \p Args; null (and the diagnostics on stderr)
/// if it has errors.
std::unique_ptr<clang::ASTUnit> parse(StringRef Code,
                                      std::vector<std::string> Args) {
  std::unique_ptr<clang::ASTUnit> AST =
      clang::tooling::buildASTFromCodeWithArgs(Code, Args, "input.cpp");
  if (!AST || AST->getDiagnostics().hasErrorOccurred())
    return nullptr;
  return AST;
}

/// The bytes of the string literal \p Literal compiled with \p Args, or
/// nullopt if that gives an error or a warning.
std::optional<std::string> compiledBytes(StringRef Literal,
                                         std::vector<std::string> Args) {
  Args.push_back("-Werror");
  std::unique_ptr<clang::ASTUnit> AST =
      parse(("const char *Literal = " + Literal + ";\n").str(), Args);
  if (!AST)
    return std::nullopt;
  auto Found = match(
      varDecl(hasName("Literal"),
              hasInitializer(ignoringImpCasts(stringLiteral().bind("s")))),
      AST->getASTContext());
  if (Found.size() != 1)
    return std::nullopt;
  return Found[0].getNodeAs<clang::StringLiteral>("s")->getBytes().str();
}

TEST(QuoteEventTest, Escapes) {
  EXPECT_EQ(quoteEvent("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quoteEvent("a?\?/b?"), "\"a\\?\\?/b\\?\"");
  EXPECT_EQ(quoteEvent("\n\r\t"), "\"\\n\\r\\t\"");
  // Octal escapes have three digits, so a digit after one is not part of it.
  EXPECT_EQ(quoteEvent(std::string("\x01\x37\x7f\x31\0\x32", 6)),
            "\"\\0017\\1771\\0002\"");
  // UTF-8 stays as it is; bytes that are not UTF-8 are escaped.
  EXPECT_EQ(quoteEvent("vision.é.日本"), "\"vision.é.日本\"");
  EXPECT_EQ(quoteEvent("a\xff\x31\xc3("), "\"a\\3771\\303(\"");
}

/// quoteEvent's literal means exactly the event in every language mode.
TEST(QuoteEventTest, RoundTripsThroughTheCompiler) {
  std::vector<std::string> Events = {
      "vision.ops.nms", "", "\"", "\\", "\\n", "a\\", "\\?", "?", "??", "a??",
      "\?\?\?/", "é", "naïve/ŝ.日本", "😀", "\xff", "\xc3", "\xc3(", "\xc0\xaf",
      "\xed\xa0\x80", "\xf4\x90\x80\x80", "é\xff\x31",
      // A byte to escape, then a digit.
      "\x01\x37", "\x1f\x30", "\x7f\x31", "\n0", std::string("\0\x31\x32", 3)};
  for (char C : StringRef("=/'()!<>-")) {
    Events.push_back(std::string("??") + C);
    Events.push_back(std::string("a??") + C + "b");
    Events.push_back(std::string("???") + C);
  }
  std::string Ascii, High;
  for (int C = 1; C < 128; ++C)
    Ascii += static_cast<char>(C);
  for (int C = 128; C < 256; ++C)
    High += static_cast<char>(C);
  Events.push_back(Ascii);
  Events.push_back(High);
  const std::vector<std::vector<std::string>> LiteralModes = {
      {"-std=c++14", "-trigraphs"},
      {"-std=c++14"},
      {"-std=gnu++14"},
      {"-std=c++17"},
      {"-std=c++20"},
      {"-std=c++23"},
      {"-std=c++2c"},
      {"-std=c++11", "-trigraphs"}};
  for (const std::string &Event : Events) {
    std::string Literal = quoteEvent(Event);
    SCOPED_TRACE(Literal);
    for (const std::vector<std::string> &Args : LiteralModes) {
      SCOPED_TRACE(llvm::join(Args, " "));
      EXPECT_EQ(compiledBytes(Literal, Args), Event);
    }
  }
}

const char Call[] = "LOG(\"e\");";

/// Line breaks in \p Text: "\r\n", "\n" and a lone "\r" count once each.
size_t lineBreaks(StringRef Text) {
  size_t Count = Text.count('\n');
  for (size_t I = 0; I < Text.size(); ++I)
    if (Text[I] == '\r' && (I + 1 == Text.size() || Text[I + 1] != '\n'))
      ++Count;
  return Count;
}

std::string withoutWhitespace(StringRef Text) {
  std::string Result;
  for (char C : Text)
    if (!llvm::isSpace(C))
      Result += C;
  return Result;
}

/// The edits that insert `LOG("e");` into the body of the function whose
/// parameter list is the first ')' of \p Code: its '{' is the first after
/// that, its '}' the matching one (bodies here hold no braces in comments or
/// literals), and the definition starts on the line of the ')'.
std::vector<TextEdit> edits(StringRef Code) {
  size_t Paren = Code.find(')');
  size_t LBrace = Code.find('{', Paren);
  size_t RBrace = LBrace;
  for (int Depth = 0; RBrace < Code.size(); ++RBrace) {
    Depth += Code[RBrace] == '{' ? 1 : Code[RBrace] == '}' ? -1 : 0;
    if (Depth == 0)
      break;
  }
  size_t LineStart = Code.find_last_of("\r\n", Paren);
  LineStart = LineStart == StringRef::npos ? 0 : LineStart + 1;
  size_t Decl = Code.find_first_not_of(" \t", LineStart);
  return makeInsertion("f.cpp", Code, Decl, LBrace, RBrace, "LOG", "e");
}

/// Checks that \p Edits only add the call and whitespace to \p Code: each
/// replaces whitespace alone and keeps at least as many line breaks as it
/// replaces (so no code joins a '//' comment), the call is added once, and
/// without the call and whitespace the result is the original.
void expectOnlyInsertions(StringRef Code, const std::vector<TextEdit> &Edits,
                          StringRef Result) {
  size_t Calls = 0;
  for (const TextEdit &E : Edits) {
    StringRef Replaced = StringRef(Code).substr(E.Offset, E.Length);
    EXPECT_TRUE(Replaced.trim(" \t\r\n\f\v").empty())
        << "edit at " << E.Offset << " deletes '" << Replaced.str() << "'";
    EXPECT_GE(lineBreaks(E.Text), lineBreaks(Replaced))
        << "edit at " << E.Offset << " joins lines";
    Calls += StringRef(E.Text).count(Call);
  }
  EXPECT_EQ(Calls, 1u);
  std::string WithoutCall = Result.str();
  size_t At = WithoutCall.find(Call);
  if (At != std::string::npos)
    WithoutCall.erase(At, sizeof(Call) - 1);
  EXPECT_EQ(withoutWhitespace(WithoutCall), withoutWhitespace(Code));
}

/// \p Code with the call inserted into its function's body.
std::string insert(StringRef Code) {
  std::vector<TextEdit> Edits = edits(Code);
  std::string Result = valueOrFail(applyEdits("f.cpp", Code, Edits));
  expectOnlyInsertions(Code, Edits, Result);
  return Result;
}

const char MacroPrelude[] = "#define LOG(e) int Logged = sizeof(e)\n"
                            "void g();\nint h(int);\n";

/// Whether the body of the function 'f' in \p Code starts with the
/// expansion of `LOG("e");` when compiled with \p Args.
testing::AssertionResult callIsFirstStatement(StringRef Code,
                                              std::vector<std::string> Args) {
  std::unique_ptr<clang::ASTUnit> AST = parse(MacroPrelude + Code.str(), Args);
  if (!AST)
    return testing::AssertionFailure() << "does not compile";
  auto Found = match(functionDecl(hasName("f"), isDefinition()).bind("f"),
                     AST->getASTContext());
  if (Found.size() != 1)
    return testing::AssertionFailure() << "no single definition of 'f'";
  const auto *F = Found[0].getNodeAs<clang::FunctionDecl>("f");
  const auto *Body = llvm::dyn_cast<clang::CompoundStmt>(F->getBody());
  const auto *First = Body && !Body->body_empty()
                          ? llvm::dyn_cast<clang::DeclStmt>(Body->body_front())
                          : nullptr;
  const auto *Var = First && First->isSingleDecl()
                        ? llvm::dyn_cast<clang::VarDecl>(First->getSingleDecl())
                        : nullptr;
  if (!Var || Var->getName() != "Logged")
    return testing::AssertionFailure() << "the call is not the first statement";
  return testing::AssertionSuccess();
}

/// Without and with trigraphs (-std=c++14 turns them on); some shapes have
/// a backslash and spaces at the end of a line.
const std::vector<std::vector<std::string>> Modes = {
    {"-std=c++17", "-Wno-backslash-newline-escape"},
    {"-std=c++14", "-trigraphs", "-Wno-backslash-newline-escape"}};

/// Every body shape keeps its code and comments and gets the call as its
/// first statement, with and without trigraphs.
TEST(InsertionKeepsCodeTest, EveryShape) {
  const char *Shapes[] = {
      "void f() {}\n",
      "void f() { }\n",
      "int f() { return 1; }\n",
      "int f() {return 1;}\n",
      "void f()\n{\n    g();\n}\n",
      "void f() { g();\n  g(); }\n",
      "void f() {\tg(); }\n",
      "void f() { g(); } void f2() { g(); }\n",
      // Comments in the body.
      "void f() { /* nothing */ }\n",
      "int f() { /* keep me */ return h(1); }\n",
      "void f() { /* NOLINT */ }\n",
      "void f() { /* a */ /* b */ g(); /* c */ }\n",
      "void f() {/*a*/g();/*b*/}\n",
      "void f() { /* multi\n   line */ g(); }\n",
      "void f() { /* multi\n   line */\n  g();\n}\n",
      "void f() { // c\n  g();\n}\n",
      // '//' comments continued by a backslash.
      "int f(int x) { // note \\\ncontinued\nreturn x; }\n",
      "int f(int x) { // note \\\n  continued \\\n  again\n  return x;\n}\n",
      "int f(int x) { // note \\   \n  continued\n  return x;\n}\n",
      "int f(int x) { // note \\\r\n  continued\r\n  return x;\r\n}\r\n",
      "int f(int x) { // note \\\r  continued\r  return x;\r}\r",
      // Continued only with trigraphs.
      "int f(int x) { // x ?\?/\n  x += 1;\n  return x;\n}\n",
      "int f(int x) { /* a */ // x ?\?/\n  x += 1;\n  return x;\n}\n",
      // A comment on the brace line stays there.
      "int f() { return 1; } // NOLINT\n",
      "void f() {} // NOLINT\n",
      "void f() { g(); // NOLINT\n}\n",
      "void f() { // NOLINT\n  g();\n}\n",
      "void f() { g(); } /* NOLINT */\n",
      "struct S {\n  int f() const { return 1; } // NOLINT\n};\n",
      // Comment openers in literals are not comments.
      "int f() { return h('/') + h(1'000) + h(L'/'); }\n",
      "const char *f() { return \"//\"; }\n",
      "const char *f() { return R\"x(/*)x\"; }\n",
      // CR-only line endings.
      "void f() {\r  g();\r}\r",
      "void f() { g(); }\r",
      "namespace n {\r  void f() { g(); }\r}\r",
  };
  for (const char *Shape : Shapes) {
    SCOPED_TRACE(Shape);
    std::string Result = insert(Shape);
    for (const std::vector<std::string> &Args : Modes) {
      SCOPED_TRACE(llvm::join(Args, " "));
      ASSERT_TRUE(parse(MacroPrelude + std::string(Shape), Args))
          << "the shape itself must compile";
      EXPECT_TRUE(callIsFirstStatement(Result, Args)) << Result;
    }
  }
}

TEST(InsertionKeepsCodeTest, CommentsInAOneLineBody) {
  EXPECT_EQ(insert("void f() { /* nothing */ }\n"),
            "void f() { /* nothing */ LOG(\"e\"); }\n");
  EXPECT_EQ(insert("int f() { /* keep me */ return g(); }\n"),
            "int f() { /* keep me */ LOG(\"e\"); return g(); }\n");
  EXPECT_EQ(insert("void f() {/*a*//*b*/g();}\n"),
            "void f() {/*a*//*b*/ LOG(\"e\"); g();}\n");
  EXPECT_EQ(insert("  void f() { /* intentionally empty */ }\n"),
            "  void f() { /* intentionally empty */ LOG(\"e\"); }\n");
}

TEST(InsertionKeepsCodeTest, TightOneLineBody) {
  EXPECT_EQ(insert("int f() {return 1;}\n"),
            "int f() { LOG(\"e\"); return 1;}\n");
}

TEST(InsertionKeepsCodeTest, ContinuedLineComment) {
  // The call goes after the comment's last continuation line.
  EXPECT_EQ(insert("int f(int x) { // note \\\n  continued\n  return x;\n}\n"),
            "int f(int x) { // note \\\n  continued\n  LOG(\"e\");\n"
            "  return x;\n}\n");
  EXPECT_EQ(insert("int f(int x) { // a \\ \t\n  b \\\n  c\n  return x; }\n"),
            "int f(int x) { // a \\ \t\n  b \\\n  c\n  LOG(\"e\");\n"
            "  return x; }\n");
  EXPECT_EQ(insert("void f() { // a \\\r\n  b\r\n  g();\r\n}\r\n"),
            "void f() { // a \\\r\n  b\r\n  LOG(\"e\");\r\n  g();\r\n}\r\n");
  // "?\?/" is a backslash only with trigraphs: the call goes before the
  // comment, where it is code in either mode.
  EXPECT_EQ(insert("void f() { // a ?\?/\n  g();\n}\n"),
            "void f() { LOG(\"e\"); // a ?\?/\n  g();\n}\n");
}

TEST(InsertionKeepsCodeTest, CommentStaysOnTheBraceLine) {
  EXPECT_EQ(insert("int f() { return 1; } // NOLINT\n"),
            "int f() { LOG(\"e\"); return 1; } // NOLINT\n");
  EXPECT_EQ(insert("void f() {} // NOLINT\n"),
            "void f() { LOG(\"e\"); } // NOLINT\n");
  EXPECT_EQ(insert("void f() { g(); // NOLINT\n}\n"),
            "void f() { LOG(\"e\"); g(); // NOLINT\n}\n");
  EXPECT_EQ(insert("void f() { // NOLINT\n  g();\n}\n"),
            "void f() { // NOLINT\n  LOG(\"e\");\n  g();\n}\n");
  // Comment openers in literals are not comments.
  EXPECT_EQ(insert("int f() { return h(\"//\"); }\n"),
            "int f() { LOG(\"e\"); return h(\"//\"); }\n");
  EXPECT_EQ(insert("void f() { g(u8'\"', 1'0, \"//\"); }\n"),
            "void f() { LOG(\"e\"); g(u8'\"', 1'0, \"//\"); }\n");
}

TEST(InsertionKeepsCodeTest, BraceOnALineOfItsOwnSetsTheIndentation) {
  EXPECT_EQ(insert("void f()\n  { g(); }\n"),
            "void f()\n  { LOG(\"e\"); g(); }\n");
  EXPECT_EQ(insert("void f()\n  {}\n"),
            "void f()\n  {\n    LOG(\"e\");\n  }\n");
}

TEST(InsertionKeepsCodeTest, CROnlyLineEndings) {
  EXPECT_EQ(insert("void f() {\r  g();\r}\r"),
            "void f() {\r  LOG(\"e\");\r  g();\r}\r");
  EXPECT_EQ(insert("namespace n {\r  void f() { g(); }\r}\r"),
            "namespace n {\r  void f() { LOG(\"e\"); g(); }\r}\r");
  EXPECT_EQ(insert("namespace n {\r\tvoid f() {}\r}\r"),
            "namespace n {\r\tvoid f() {\r\t\tLOG(\"e\");\r\t}\r}\r");
}

} // namespace
