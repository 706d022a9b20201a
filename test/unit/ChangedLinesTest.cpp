//===- ChangedLinesTest.cpp - Tests for reading git diff -U0 --------------===//

#include "apistamp/ChangedLines.h"
#include "gtest/gtest.h"

using namespace apistamp;

namespace {

const char *Diff = R"(diff --git a/src/a.cpp b/src/a.cpp
index 1111111..2222222 100644
--- a/src/a.cpp
+++ b/src/a.cpp
@@ -7 +7 @@ int old_b() {
-  return 2;
+  return 20;
@@ -20,3 +21,0 @@ void gone() {
-  a();
-  b();
-  c();
@@ -40,0 +40,2 @@
+void added() {}
+void added2() {}
diff --git a/old.cpp b/old.cpp
deleted file mode 100644
--- a/old.cpp
+++ /dev/null
@@ -1,3 +0,0 @@
-void x() {}
)";

TEST(ChangedLinesTest, HunksGiveNewSideLineRanges) {
  ChangedLines C = ChangedLines::fromUnifiedDiff(Diff, "/repo");
  // "+7": one line.
  EXPECT_TRUE(C.intersects("/repo/src/a.cpp", 5, 8));
  EXPECT_TRUE(C.intersects("/repo/src/a.cpp", 7, 7));
  EXPECT_FALSE(C.intersects("/repo/src/a.cpp", 1, 6));
  EXPECT_FALSE(C.intersects("/repo/src/a.cpp", 8, 20));
  // "+21,0": a deletion after line 21 touches lines 21 and 22.
  EXPECT_TRUE(C.intersects("/repo/src/a.cpp", 22, 30));
  EXPECT_TRUE(C.intersects("/repo/src/a.cpp", 18, 21));
  EXPECT_FALSE(C.intersects("/repo/src/a.cpp", 23, 39));
  // "+40,2": lines 40 and 41.
  EXPECT_TRUE(C.intersects("/repo/src/a.cpp", 41, 41));
  EXPECT_FALSE(C.intersects("/repo/src/a.cpp", 42, 50));
  // A deleted file has no new side; other files are unchanged.
  EXPECT_FALSE(C.intersects("/repo/old.cpp", 1, 3));
  EXPECT_FALSE(C.intersects("/repo/src/b.cpp", 1, 1000));
}

TEST(ChangedLinesTest, WholeFileCoversEveryLine) {
  ChangedLines C;
  C.addWholeFile("/repo/new.cpp");
  EXPECT_TRUE(C.intersects("/repo/new.cpp", 1, 1));
  EXPECT_TRUE(C.intersects("/repo/new.cpp", 100000, 100001));
}

} // namespace
