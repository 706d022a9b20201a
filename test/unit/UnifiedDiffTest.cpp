//===- UnifiedDiffTest.cpp - Tests for the unified diff renderer ----------===//

#include "apistamp/UnifiedDiff.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"
#include <random>

using namespace apistamp;

namespace {

/// Applies \p Diff to \p Before the way patch(1) would, checking that every
/// context and removed line matches. Returns "<mismatch>" on any problem.
std::string applyPatch(llvm::StringRef Before, llvm::StringRef Diff) {
  llvm::SmallVector<llvm::StringRef> Old, Lines;
  Before.split(Old, '\n');
  Diff.split(Lines, '\n');
  std::string Out;
  size_t Next = 0; // Next line of Old to copy.
  for (size_t I = 2; I < Lines.size(); ++I) {
    llvm::StringRef L = Lines[I];
    if (L.starts_with("@@ -")) {
      unsigned Start = 0;
      llvm::StringRef Nums = L.drop_front(4);
      Nums.consumeInteger(10, Start);
      size_t HunkBegin = Start == 0 ? 0 : Start - 1;
      if (Nums.starts_with(",0 "))
        HunkBegin = Start; // Empty old range names the line before.
      for (; Next < HunkBegin; ++Next)
        Out += Old[Next].str() + "\n";
    } else if (L.starts_with(" ") || L.starts_with("-")) {
      if (Next >= Old.size() || Old[Next] != L.drop_front())
        return "<mismatch>";
      if (L[0] == ' ')
        Out += Old[Next].str() + "\n";
      ++Next;
    } else if (L.starts_with("+")) {
      Out += L.drop_front().str() + "\n";
    }
  }
  for (; Next < Old.size(); ++Next)
    Out += Old[Next].str() + (Next + 1 < Old.size() ? "\n" : "");
  // Texts in these tests end with '\n', so the split leaves a last "".
  return Out;
}

TEST(UnifiedDiffTest, EqualTextsGiveNothing) {
  EXPECT_EQ(unifiedDiff("a\nb\n", "a\nb\n", "f"), "");
}

TEST(UnifiedDiffTest, InsertionWithContext) {
  EXPECT_EQ(
      unifiedDiff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nnew\n5\n6\n7\n8\n",
                  "f.cpp"),
      "--- a/f.cpp\n+++ b/f.cpp\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n"
      " 7\n");
}

TEST(UnifiedDiffTest, ChangeAtStartAndMissingNewline) {
  EXPECT_EQ(
      unifiedDiff("a\nb", "x\nb", "f"),
      "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+x\n b\n\\ No newline at end "
      "of file\n");
}

TEST(UnifiedDiffTest, InsertIntoEmptyFile) {
  EXPECT_EQ(unifiedDiff("", "a\n", "f"),
            "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+a\n");
}

TEST(UnifiedDiffTest, HeadersQuoteAPathAsGitDoes) {
  // Only the headers: the hunk's lines are the bytes, whatever they hold.
  // The a/ and b/ prefixes are inside the quotes, as git writes them.
  EXPECT_EQ(unifiedDiff("", "\x1b\n", "x\tb\n::error::c.cpp"),
            "--- \"a/x\\tb\\n::error::c.cpp\"\n"
            "+++ \"b/x\\tb\\n::error::c.cpp\"\n"
            "@@ -0,0 +1 @@\n+\x1b\n");
  auto Header = [](llvm::StringRef Path) {
    std::string Diff = unifiedDiff("", "a\n", Path);
    return Diff.substr(4, Diff.find('\n') - 4);
  };
  EXPECT_EQ(Header("src/a b.cpp"), "a/src/a b.cpp");
  EXPECT_EQ(Header("caf\xC3\xA9.cpp"), "a/caf\xC3\xA9.cpp");
  EXPECT_EQ(Header("a\\b\"c.cpp"), "\"a/a\\\\b\\\"c.cpp\"");
  EXPECT_EQ(Header("\a\b\t\n\v\f\r"), "\"a/\\a\\b\\t\\n\\v\\f\\r\"");
  // Other controls and bytes that are not UTF-8 in octal, byte by byte;
  // other UTF-8 as it is.
  EXPECT_EQ(Header("\x1b[31m\x7f\x01"), "\"a/\\033[31m\\177\\001\"");
  EXPECT_EQ(Header("x\xE2\x80\xAE\xC2\x85\x85\xC3\xA9"),
            "\"a/x\\342\\200\\256\\302\\205\\205\xC3\xA9\"");
}

TEST(UnifiedDiffTest, DistantChangesMakeSeparateHunks) {
  std::string Before, After;
  for (int I = 0; I < 30; ++I) {
    Before += std::to_string(I) + "\n";
    After += std::to_string(I) + "\n";
    if (I == 2 || I == 25)
      After += "x\n";
  }
  std::string Diff = unifiedDiff(Before, After, "f");
  EXPECT_EQ(llvm::StringRef(Diff).count("@@ -"), 2u);
  EXPECT_EQ(applyPatch(Before, Diff), After);
}

TEST(UnifiedDiffTest, RandomEditsRoundTrip) {
  std::mt19937 Random(42);
  for (int Round = 0; Round < 300; ++Round) {
    std::vector<std::string> Lines;
    int Count = Random() % 40;
    for (int I = 0; I < Count; ++I)
      Lines.push_back(std::string(1, 'a' + Random() % 4));
    std::string Before;
    for (const std::string &L : Lines)
      Before += L + "\n";
    int Edits = Random() % 6;
    for (int E = 0; E < Edits; ++E) {
      size_t At = Lines.empty() ? 0 : Random() % (Lines.size() + 1);
      switch (Random() % 3) {
      case 0:
        Lines.insert(Lines.begin() + At, std::string(1, 'a' + Random() % 5));
        break;
      case 1:
        if (At < Lines.size())
          Lines.erase(Lines.begin() + At);
        break;
      default:
        if (At < Lines.size())
          Lines[At] = "z";
      }
    }
    std::string After;
    for (const std::string &L : Lines)
      After += L + "\n";
    std::string Diff = unifiedDiff(Before, After, "f", Random() % 4);
    ASSERT_EQ(Diff.empty(), Before == After);
    if (!Diff.empty())
      ASSERT_EQ(applyPatch(Before, Diff), After) << "round " << Round << "\n"
                                                 << Diff;
  }
}

} // namespace
