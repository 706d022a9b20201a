//===- PrintableTest.cpp - Tests for text output made safe to print -------===//

#include "Suggestions.h"
#include "gtest/gtest.h"

using namespace apistamp;

namespace {

TEST(PrintableTest, EscapesEachClassOfControl) {
  // C0: line feed, carriage return and tab by name, the others in hex.
  EXPECT_EQ(printableLine("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printableLine("\x1b[2J\x07\x01"), "\\x1b[2J\\x07\\x01");
  EXPECT_EQ(printableLine(llvm::StringRef("a\0b", 3)), "a\\x00b");
  // DEL.
  EXPECT_EQ(printableLine("a\x7f"), "a\\x7f");
  // C1 written in UTF-8 (U+0085, U+009B), and as lone bytes (not UTF-8).
  EXPECT_EQ(printableLine("a\xC2\x85"
                          "b\xC2\x9B"),
            "a\\u0085b\\u009b");
  EXPECT_EQ(printableLine("a\x85"
                          "b\x9B"
                          "c"),
            "a\\x85b\\x9bc");
  // Bidirectional-text controls, and the line and paragraph separators.
  for (const char *Bidi :
       {"\xD8\x9C", "\xE2\x80\x8E", "\xE2\x80\x8F", "\xE2\x80\xAA",
        "\xE2\x80\xAB", "\xE2\x80\xAC", "\xE2\x80\xAD", "\xE2\x80\xAE",
        "\xE2\x81\xA6", "\xE2\x81\xA7", "\xE2\x81\xA8", "\xE2\x81\xA9",
        "\xE2\x80\xA8", "\xE2\x80\xA9"}) {
    std::string Escaped = printableLine(std::string("x") + Bidi);
    EXPECT_EQ(Escaped.substr(0, 3), "x\\u") << Escaped;
    EXPECT_EQ(Escaped.size(), 7u) << Escaped;
  }
  EXPECT_EQ(printableLine("lib.x\xE2\x80\xAE"), "lib.x\\u202e");
  EXPECT_EQ(printableLine("\xD8\x9C"), "\\u061c");
  // Invalid UTF-8: a stray continuation byte, a truncated sequence, an
  // overlong form, a surrogate, 0xFF; each byte in hex.
  EXPECT_EQ(printableLine("\xBF"), "\\xbf");
  EXPECT_EQ(printableLine("a\xE2\x80"), "a\\xe2\\x80");
  EXPECT_EQ(printableLine("\xC0\xAF"), "\\xc0\\xaf");
  EXPECT_EQ(printableLine("\xED\xA0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(printableLine("\xFF"), "\\xff");
}

TEST(PrintableTest, KeepsPrintableTextWhole) {
  // Valid UTF-8 that is not a control is kept: accents, CJK, emoji, and
  // U+00A0 (the first code point after C1).
  for (const char *Kept :
       {"lib.open", "caf\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC.\xE8\xAA\x9E",
        "\xF0\x9F\x98\x80",
        "a\xC2\xA0"
        "b",
        "a::error::x", "a\\nb"})
    EXPECT_EQ(printableLine(Kept), Kept);
  // A value cannot start a line with a CI workflow command.
  EXPECT_EQ(printableLine("::error::x"), "\\x3a:error::x");
  EXPECT_EQ(printableLine(":a"), ":a");
  // Never cut, unlike printable().
  EXPECT_EQ(printableLine(std::string(5000, 'x')), std::string(5000, 'x'));
  // Escaping twice changes nothing.
  std::string Once = printableLine("x\n\x1b\xE2\x80\xAE\x85");
  EXPECT_EQ(printableLine(Once), Once);
}

TEST(PrintableTest, LinesKeepTheirBreaks) {
  EXPECT_EQ(printableLines("a.cpp:1:2: error: x\x1b[0m\nb\tc\n"),
            "a.cpp:1:2: error: x\\x1b[0m\nb\\tc\n");
  EXPECT_EQ(printableLines("no break"), "no break");
  EXPECT_EQ(printableLines("\n\n"), "\n\n");
  EXPECT_EQ(printableLines("x\r\n"), "x\\r\n");
  EXPECT_EQ(printableLines(""), "");
}

} // namespace
