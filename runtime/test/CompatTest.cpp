//===- CompatTest.cpp - Code in c10's spelling against the runtime alone --===//

#include "apistamp/c10_compat.h"

#include "C10Surface.inc"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace {

int compatApi(int X) {
  C10_LOG_API_USAGE_ONCE("rt.compat.api");
  return X;
}

TEST(C10Compat, CodeWrittenAgainstC10CompilesAndLogs) {
  static std::vector<std::string> Events;
  static std::vector<std::string> Contexts;
  Events.clear();
  c10::SetAPIUsageLogger(
      [](const std::string &Event) { Events.push_back(Event); });
  c10::SetAPIUsageMetadataLogger(
      [](const std::string &Context,
         const std::map<std::string, std::string> &) {
        Contexts.push_back(Context);
      });
  EXPECT_EQ(compatApi(1) + compatApi(2), 3);
  c10::LogAPIUsage("rt.compat.direct");
  EXPECT_TRUE(c10::detail::LogAPIUsageFakeReturn("rt.compat.fake-return"));
  c10::LogAPIUsageMetadata("rt.compat.metadata", {{"k", "v"}});
  apistamp::test::EventCollector::get().install();
  EXPECT_EQ(Events,
            (std::vector<std::string>{"rt.compat.api", "rt.compat.direct",
                                      "rt.compat.fake-return"}));
  EXPECT_EQ(Contexts, std::vector<std::string>{"rt.compat.metadata"});
}

TEST(C10Compat, DDPRecordsReachTheDDPLoggerEveryTime) {
  static std::vector<c10::DDPLoggingData> Records;
  c10::SetPyTorchDDPUsageLogger(
      [](const c10::DDPLoggingData &Data) { Records.push_back(Data); });
  Records.clear();
  // c10 throws on an empty logger; the runtime ignores it and keeps its own.
  c10::SetPyTorchDDPUsageLogger(nullptr);
  c10::DDPLoggingData Data;
  Data.strs_map["backend_name"] = "gloo";
  Data.ints_map["world_size"] = 4;
  c10::LogPyTorchDDPUsage(Data);
  Data.ints_map["world_size"] = 8;
  c10::LogPyTorchDDPUsage(Data);
  c10::LogPyTorchDDPUsage(Data);
  ASSERT_EQ(Records.size(), 3u) << "not once per record: each carries data";
  EXPECT_EQ(Records[0].strs_map.at("backend_name"), "gloo");
  EXPECT_EQ(Records[0].ints_map.at("world_size"), 4);
  EXPECT_EQ(Records[2].ints_map.at("world_size"), 8);
}

// Its effect on the JSON lines: SubprocessTest.cpp, GlobalRank.*.
TEST(C10Compat, SetGlobalRankIsC10sSpelling) {
  void (*Set)(std::int64_t) = &c10::SetGlobalRank;
  Set(-1); // c10's "no rank": the environment's, as before.
}

// checks/C10SurfaceTest.cpp runs the same source on libtorch 1.13's c10.
TEST(C10Surface113, TheSourceWrittenForC10RunsOnTheRuntimeAlone) {
  C10SurfaceReceived Got = exerciseC10Surface();
  C10SurfaceReceived Expected = expectedC10SurfaceReceived();
  EXPECT_EQ(Got.Events, Expected.Events);
  EXPECT_EQ(Got.DDP, Expected.DDP);
  EXPECT_EQ(Got.Sum, Expected.Sum);
  EXPECT_EQ(Got.FakeReturn, Expected.FakeReturn);
}

} // namespace
