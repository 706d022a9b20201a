//===- GlobTest.cpp - Tests for path globs --------------------------------===//

#include "apistamp/Glob.h"
#include "TestSupport.h"

using namespace apistamp;

namespace {

bool matches(llvm::StringRef Pattern, llvm::StringRef Path) {
  return valueOrFail(PathGlob::create(Pattern)).matches(Path);
}

TEST(GlobTest, StarStaysInOneComponent) {
  EXPECT_TRUE(matches("ops/*.cpp", "ops/nms.cpp"));
  EXPECT_FALSE(matches("ops/*.cpp", "ops/cpu/nms.cpp"));
  EXPECT_FALSE(matches("ops/*.cpp", "ops/nms.h"));
  EXPECT_TRUE(matches("ops/?ms.cpp", "ops/nms.cpp"));
}

TEST(GlobTest, DoubleStarSpansComponents) {
  EXPECT_TRUE(matches("**/cpu/**", "ops/cpu/nms.cpp"));
  EXPECT_TRUE(matches("**/cpu/**", "cpu/nms.cpp"));
  EXPECT_FALSE(matches("**/cpu/**", "ops/gpu/nms.cpp"));
  EXPECT_TRUE(matches("src/**", "src/a/b/c.cpp"));
  EXPECT_TRUE(matches("src/**/*.cpp", "src/a.cpp"));
  EXPECT_TRUE(matches("**", "anything/at/all"));
}

TEST(GlobTest, BracesAndClasses) {
  EXPECT_TRUE(matches("src/*.{cpp,cc}", "src/a.cc"));
  EXPECT_FALSE(matches("src/*.{cpp,cc}", "src/a.h"));
  EXPECT_TRUE(matches("src/[ab].cpp", "src/b.cpp"));
}

TEST(GlobTest, DotComponentsAreIgnored) {
  EXPECT_TRUE(matches("./src/*.cpp", "src/a.cpp"));
}

TEST(GlobTest, Errors) {
  EXPECT_FALSE(errorOf(PathGlob::create("")).empty());
  EXPECT_FALSE(errorOf(PathGlob::create("/a")).empty());
  EXPECT_FALSE(errorOf(PathGlob::create("a**")).empty());
}

} // namespace
