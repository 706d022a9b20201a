//===- HostileLogTest.cpp - The report against hostile or broken input ----===//
//
// Issue 24: memory bounded by the distinct keys, never by the input, and
// inputs that are wrong said so, not silently misread.
//
//===----------------------------------------------------------------------===//

#include "usage/UsageReport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"
#include <ctime>

using namespace apistamp;

namespace {

std::string line(llvm::StringRef Event, llvm::StringRef Time, int Pid = 1) {
  return ("{\"event\":\"" + Event + "\",\"time\":\"" + Time +
          "\",\"pid\":" + llvm::Twine(Pid) +
          ",\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":null,\"job_id\":\"j\"}"
          "\n")
      .str();
}

/// "YYYY-MM-DD" of \p Days after 2000-01-03.
std::string dayAfter(int Days) {
  std::time_t T = 946857600 + std::time_t(Days) * 86400;
  std::tm Tm;
  gmtime_r(&T, &Tm);
  char Buffer[16];
  std::strftime(Buffer, sizeof Buffer, "%Y-%m-%d", &Tm);
  return Buffer;
}

TEST(HostileLogTest, OnlyDaysOfTheCalendarCount) {
  // Item 12: "2000-00-37" and "0000-00-00" were days, each a trend period.
  // Lines that repeat a cached line but for the day are checked too.
  std::string Text =
      line("e", "2026-11-20T10:00:00Z") + line("e", "2026-11-20T11:00:00Z") +
      line("e", "2026-11-00T10:00:00Z") + line("e", "2000-00-37T10:00:00Z") +
      line("other", "0000-00-00") + line("e", "2026-02-29T10:00:00Z") +
      line("e", "2026-04-31T10:00:00Z") + line("e", "2024-02-29T10:00:00Z") +
      line("e", "2000-02-29T10:00:00Z") + line("e", "1900-02-29T10:00:00Z") +
      line("e", "2026-12-31");
  UsageCounts Counts = readUsageText("t", Text, LogWindow{});
  EXPECT_EQ(Counts.Malformed, 6u);
  EXPECT_EQ(Counts.EventLines, 5u);
  EXPECT_EQ(Counts.Events.count("other"), 0u);
  std::vector<std::string> Days;
  for (const auto &Day : Counts.Events["e"].JobsByDay)
    Days.push_back(Day.first);
  EXPECT_THAT(Days, ::testing::ElementsAre("2000-02-29", "2024-02-29",
                                           "2026-11-20", "2026-12-31"));
  ASSERT_EQ(Counts.Problems.size(), 1u);
  EXPECT_THAT(Counts.Problems[0].First[0].second,
              ::testing::HasSubstr("not a day of the calendar"));
}

TEST(HostileLogTest, TrendsAreSparseAndTheirPeriodsCapped) {
  // Item 12: every event's trend spanned every period (events x periods).
  // 700 events, each on its own week: 700 weekly periods, the latest
  // MaxTrendPeriods kept, one entry per event at most.
  std::string Text;
  for (int I = 0; I < 700; ++I)
    Text += line("e" + std::to_string(I), dayAfter(7 * I) + "T10:00:00Z");
  UsageReport R = buildReport({}, readUsageText("t", Text, LogWindow{}));
  EXPECT_EQ(R.TrendUnit, "week");
  EXPECT_EQ(R.PeriodsLogged, 700u);
  ASSERT_EQ(R.Periods.size(), MaxTrendPeriods);
  EXPECT_EQ(R.Periods.front(), dayAfter(7 * (700 - MaxTrendPeriods)));
  EXPECT_EQ(R.Periods.back(), dayAfter(7 * 699));
  size_t Entries = 0;
  for (const ReportEvent &E : R.Unknown) {
    EXPECT_LE(E.Trend.entries().size(), 1u);
    Entries += E.Trend.entries().size();
  }
  EXPECT_EQ(Entries, MaxTrendPeriods);
  // The JSON says the trend was capped.
  std::string Json;
  llvm::raw_string_ostream OS(Json);
  printReport(OS, R, ReportFormat::Json, ReportGrouping::Event, false);
  EXPECT_THAT(Json, ::testing::HasSubstr("\"periods_logged\": 700"));
}

TEST(HostileLogTest, TextColumnsAreCapped) {
  // Item 13: every row was padded to the longest event name (a 1 MB name
  // and 2,000 short ones: 2 GB of text).
  std::string Text = line(std::string(100000, 'n'), "2026-11-20T10:00:00Z");
  for (int I = 0; I < 500; ++I)
    Text += line("e" + std::to_string(I), "2026-11-20T10:00:00Z");
  UsageReport R = buildReport({}, readUsageText("t", Text, LogWindow{}));
  std::string Out;
  llvm::raw_string_ostream OS(Out);
  printReport(OS, R, ReportFormat::Text, ReportGrouping::Event, false);
  EXPECT_LT(Out.size(), 100000u + 500u * 200u);
  EXPECT_THAT(Out, ::testing::HasSubstr(std::string(100000, 'n')));
}

/// readAggregates of \p Text, as a file.
llvm::Expected<UsageCounts> aggregates(llvm::StringRef Text) {
  llvm::SmallString<128> Path;
  if (std::error_code EC =
          llvm::sys::fs::createTemporaryFile("aggregates", "csv", Path))
    return llvm::errorCodeToError(EC);
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Path, EC);
    Out << Text;
  }
  llvm::Expected<UsageCounts> Counts = readAggregates(Path);
  llvm::sys::fs::remove(Path);
  return Counts;
}

constexpr const char *Header =
    "event,day,jobs,processes,hosts,first_seen,last_seen\n";

TEST(HostileLogTest, AggregatesRowsAreNotSilentlyReplaced) {
  // Item 18: a second totals row replaced the first.
  llvm::Expected<UsageCounts> Twice =
      aggregates(std::string(Header) + "e,,3,3,1,2026-11-20,2026-11-21\n" +
                 "e,2026-11-20,3,3,1,2026-11-20,2026-11-20\n" +
                 "e,,5,5,1,2026-11-22,2026-11-23\n");
  ASSERT_FALSE(Twice);
  EXPECT_THAT(llvm::toString(Twice.takeError()),
              ::testing::HasSubstr("line 4: a second totals row for event "
                                   "'e' (the first is line 2)"));
  llvm::Expected<UsageCounts> DayTwice =
      aggregates(std::string(Header) + "e,2026-11-20,3,3,1,,\n" +
                 "e,2026-11-20,3,3,1,,\n");
  ASSERT_FALSE(DayTwice);
  EXPECT_THAT(llvm::toString(DayTwice.takeError()),
              ::testing::HasSubstr("line 3: a second row of day 2026-11-20"));
}

// Issue 44, F16: what a warehouse got wrong is an error, not a silent "0
// jobs" (day rows without the totals row: the gate saw no use and let the
// event's removal pass), nor a date printed as is.
TEST(HostileLogTest, AggregatesAreValidated) {
  auto ErrorOf = [](const std::string &Rows) {
    llvm::Expected<UsageCounts> Read = aggregates(std::string(Header) + Rows);
    return Read ? std::string("(read)") : llvm::toString(Read.takeError());
  };
  EXPECT_THAT(ErrorOf("gone,2026-11-02,5,14,4,,\n"),
              ::testing::HasSubstr("event 'gone' has rows by day (line 2) "
                                   "but no totals row (its day empty)"));
  EXPECT_THAT(ErrorOf("e,,5,5,1,2026-02-30T00:00:00Z,2026-03-01\n"),
              ::testing::HasSubstr("line 2: '2026-02-30T00:00:00Z' is not an "
                                   "ISO 8601 time"));
  EXPECT_THAT(ErrorOf("e,,5,5,1,,zzz\n"),
              ::testing::HasSubstr("line 2: 'zzz' is not an ISO 8601 time"));
  EXPECT_THAT(ErrorOf("e,,5,5,1,,\ne,2026-13-01,1,1,1,,\n"),
              ::testing::HasSubstr("line 3: '2026-13-01' is not a day"));
  EXPECT_THAT(ErrorOf("e,,5,5,1,,\ne,2026-11-03,50,5,1,,\n"),
              ::testing::HasSubstr("line 3: 50 jobs of 'e' on 2026-11-03, "
                                   "more than its 5 in all"));
  EXPECT_EQ(ErrorOf("e,,5,5,1,2026-11-01T08:00:00Z,2026-11-03\n"
                    "e,2026-11-03,5,5,1,,\n"),
            "(read)");
}

TEST(HostileLogTest, AggregatesCountsAreNeverPrintedNegative) {
  // Item 18: 2^63 printed as -9223372036854775808.
  llvm::Expected<UsageCounts> Huge =
      aggregates(std::string(Header) +
                 "e,,9223372036854775808,1,1,2026-11-20,2026-11-21\n");
  ASSERT_FALSE(Huge);
  EXPECT_THAT(llvm::toString(Huge.takeError()),
              ::testing::HasSubstr("line 2: a count over 2^63 - 1"));
  llvm::Expected<UsageCounts> Max =
      aggregates(std::string(Header) +
                 "e,,9223372036854775807,1,1,2026-11-20,2026-11-21\n");
  ASSERT_TRUE(bool(Max)) << llvm::toString(Max.takeError());
  EXPECT_EQ(Max->Events["e"].Jobs, 9223372036854775807u);
}

TEST(HostileLogTest, AggregatesMayStartWithAByteOrderMark) {
  // Item 18: Excel's UTF-8 byte order mark failed the header check.
  llvm::Expected<UsageCounts> Counts =
      aggregates("\xEF\xBB\xBF" + std::string(Header) +
                 "e,,3,2,1,2026-11-20,2026-11-21\n");
  ASSERT_TRUE(bool(Counts)) << llvm::toString(Counts.takeError());
  EXPECT_EQ(Counts->Events["e"].Jobs, 3u);
}

} // namespace
