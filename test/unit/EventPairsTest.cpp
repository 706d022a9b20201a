//===- EventPairsTest.cpp - One API's Python and C++ events, paired -------===//

#include "EventPairs.h"
#include "gtest/gtest.h"

using namespace apistamp;

namespace {

CatalogEvent row(std::string Event, std::string File, std::string Kind) {
  CatalogEvent C;
  C.Event = std::move(Event);
  C.File = std::move(File);
  C.Kind = std::move(Kind);
  return C;
}

TEST(EventPairsTest, SameNameUnderThePythonPackageWithoutCsrc) {
  EXPECT_TRUE(sameApi("torchvision.io.image.decode_png",
                      "torchvision.csrc.io.image.cpu.decode_png.decode_png"));
  EXPECT_TRUE(
      sameApi("torchvision.ops.boxes.nms", "torchvision.csrc.ops.nms.nms"));
  // Another name, another package, no ".csrc", or nothing between.
  EXPECT_FALSE(
      sameApi("torchvision.io.image.decode_png",
              "torchvision.csrc.io.image.cpu.decode_jpeg.decode_jpeg"));
  EXPECT_FALSE(sameApi("torchvision.ops.boxes.nms", "torchvision.csrc.io.nms"));
  EXPECT_FALSE(sameApi("torchvision.ops.boxes.nms", "torchvision.ops.nms.nms"));
  EXPECT_FALSE(sameApi("a.nms", "a.csrc.nms"));
}

TEST(EventPairsTest, PairsPythonFunctionsOnlyAndFlagsEachLoneSide) {
  std::vector<CatalogEvent> Catalog = {
      row("t.io.image.decode_png", "t/io/image.py", "function"),
      row("t.io.image.encode_png", "t/io/image.py", "function"),
      row("t.io.image.Reader", "t/io/image.py", "constructor"),
      row("t.csrc.io.cpu.decode_png.decode_png", "t/csrc/io/cpu/d.cpp",
          "function"),
      row("t.csrc.io.cpu.Reader.Reader", "t/csrc/io/cpu/r.cpp", "constructor"),
      row("t.csrc.io.cpu.cuda_only.cuda_only", "t/csrc/io/cpu/c.cpp",
          "function")};
  std::vector<std::pair<size_t, size_t>> Pairs = pairedEvents(Catalog);
  ASSERT_EQ(Pairs.size(), 1u);
  EXPECT_EQ(Pairs[0], std::make_pair(size_t(0), size_t(3)));

  EventPair Pair;
  Pair.Python = llvm::cantFail(EventGlob::create("t.io.*"));
  Pair.Cxx = llvm::cantFail(EventGlob::create("t.csrc.io.**"));
  Pair.CxxOnly = {"Reader"};
  UnpairedEvents Alone = unpairedEvents(Pair, Catalog);
  ASSERT_EQ(Alone.PythonAlone.size(), 1u);
  EXPECT_EQ(Alone.PythonAlone[0]->Event, "t.io.image.encode_png");
  ASSERT_EQ(Alone.CxxAlone.size(), 1u);
  EXPECT_EQ(Alone.CxxAlone[0]->Event, "t.csrc.io.cpu.cuda_only.cuda_only");
}

} // namespace
