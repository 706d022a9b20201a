//===- C10SurfaceTest.cpp - C10Surface.inc on libtorch 1.13's c10 ---------===//
//
// The source that CompatTest.cpp builds against apistamp/c10_compat.h, built
// here against c10/util/Logging.h alone and run on libc10: c10_compat.h's
// spelling is c10's, and the results are the same.
//
//===----------------------------------------------------------------------===//

#include <c10/util/Logging.h>

#include "../C10Surface.inc"

#include <gtest/gtest.h>

namespace {

TEST(C10Surface113, TheSameSourceRunsOnRealC10) {
  C10SurfaceReceived Got = exerciseC10Surface();
  C10SurfaceReceived Expected = expectedC10SurfaceReceived();
  EXPECT_EQ(Got.Events, Expected.Events);
  EXPECT_EQ(Got.DDP, Expected.DDP);
  EXPECT_EQ(Got.Sum, Expected.Sum);
  EXPECT_EQ(Got.FakeReturn, Expected.FakeReturn);
}

} // namespace
