//===- UsageReportTest.cpp - Tests for reading usage logs and the report --===//

#include "Csv.h"
#include "usage/UsageReport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"

using namespace apistamp;

namespace {

std::string line(llvm::StringRef Event, llvm::StringRef Time, int Pid,
                 llvm::StringRef Job) {
  return ("{\"event\":\"" + Event + "\",\"time\":\"" + Time +
          "\",\"pid\":" + llvm::Twine(Pid) +
          ",\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":null,\"job_id\":" +
          (Job.empty() ? std::string("null") : "\"" + Job.str() + "\"") + "}\n")
      .str();
}

TEST(UsageReportTest, LinesAcrossReadChunksAreWhole) {
  // 40,000 lines of about 110 bytes: many lines straddle the 64 KiB reads.
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("usage", "jsonl", Path));
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Path, EC);
    ASSERT_FALSE(EC);
    for (int I = 0; I < 40000; ++I)
      Out << line("lib.e" + std::to_string(I % 7), "2026-11-20T10:00:00Z", I,
                  "job" + std::to_string(I % 13));
  }
  UsageCounts Counts = readUsageLog(Path, LogWindow{});
  llvm::sys::fs::remove(Path);
  EXPECT_EQ(Counts.Lines, 40000u);
  EXPECT_EQ(Counts.EventLines, 40000u);
  EXPECT_EQ(Counts.Malformed, 0u);
  ASSERT_EQ(Counts.Events.size(), 7u);
  EXPECT_EQ(Counts.Events["lib.e0"].Jobs, 13u);
  EXPECT_EQ(Counts.Events["lib.e0"].Processes, 5715u); // ceil(40000 / 7).
}

TEST(UsageReportTest, AJobIsItsIdOrItsProcess) {
  std::string Text = line("e", "2026-11-20T10:00:00Z", 1, "j") +
                     line("e", "2026-11-20T10:00:00Z", 2, "j") +
                     line("e", "2026-11-20T10:00:00Z", 3, "") +
                     line("e", "2026-11-20T10:00:00Z", 3, "");
  UsageCounts Counts = readUsageText("t", Text, LogWindow{});
  EXPECT_EQ(Counts.Events["e"].Jobs, 2u);
  EXPECT_EQ(Counts.Events["e"].Processes, 3u);
  EXPECT_EQ(Counts.Events["e"].Hosts, 1u);
}

TEST(UsageReportTest, TrendIsWeeklyOverAQuarter) {
  std::string Text = line("e", "2026-01-05T10:00:00Z", 1, "a") + // Monday.
                     line("e", "2026-01-11T10:00:00Z", 2, "b") + // Sunday.
                     line("e", "2026-06-01T10:00:00Z", 3, "c");
  std::vector<CatalogEvent> Catalog = {{"e", "r", "a.cpp", "function", 1}};
  UsageReport R = buildReport(Catalog, readUsageText("t", Text, LogWindow{}));
  EXPECT_EQ(R.TrendUnit, "week");
  EXPECT_THAT(R.Periods, ::testing::ElementsAre("2026-01-05", "2026-06-01"));
  ASSERT_EQ(R.Events.size(), 1u);
  EXPECT_THAT(R.Events[0].Trend.dense(R.Periods.size()),
              ::testing::ElementsAre(2u, 1u));

  UsageReport Daily = buildReport(
      Catalog, readUsageText("t", line("e", "2026-01-05T10:00:00Z", 1, "a"),
                             LogWindow{}));
  EXPECT_EQ(Daily.TrendUnit, "day");
}

TEST(UsageReportTest, WindowComparesTimeText) {
  std::string Text = line("e", "2026-10-31T23:59:59Z", 1, "a") +
                     line("e", "2026-11-01T00:00:00Z", 2, "b") +
                     line("e", "2026-11-30T23:59:59Z", 3, "c") +
                     line("e", "2026-12-01T00:00:00Z", 4, "d");
  UsageCounts Counts =
      readUsageText("t", Text, LogWindow{"2026-11", "2026-12"});
  EXPECT_EQ(Counts.EventLines, 2u);
  EXPECT_EQ(Counts.OutsideWindow, 2u);
  EXPECT_EQ(Counts.Events["e"].FirstSeen, "2026-11-01T00:00:00Z");
}

} // namespace

// Issue 24, item 17: a cell a spreadsheet would run as a formula is
// neutralised, and a line break in a time cannot forge a row.
TEST(CsvFieldTest, FormulasAreNeutralisedAndBreaksQuoted) {
  EXPECT_EQ(apistamp::csvField("lib.open"), "lib.open");
  EXPECT_EQ(apistamp::csvField("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
  for (const char *Formula : {"+1", "-1", "@SUM(A1)", "\tx", "\rx"})
    EXPECT_EQ(apistamp::csvField(Formula),
              "\"'" + std::string(Formula) + "\"")
        << Formula;
  EXPECT_EQ(apistamp::csvField("2026-11-20\nlib.x,used"),
            "\"2026-11-20\nlib.x,used\"");
}
