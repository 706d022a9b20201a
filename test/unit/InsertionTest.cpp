//===- InsertionTest.cpp - Tests that an insertion keeps the code intact --===//
//
// The event literal of quoteEvent means exactly the event in every language
// mode.
//
//===----------------------------------------------------------------------===//

#include "Insertion.h"
#include "TestSupport.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
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

} // namespace
