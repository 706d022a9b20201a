//===- UsageLogTest.cpp - The log reader's counts against a plain model ---===//
//
// The reader takes shortcuts (a cache of line tails, of events and days,
// recently seen keys skipped, keys counted by partition); a plain model
// that parses every line with the validating parser and keeps std::sets
// must give the same counts on logs made to defeat the shortcuts.
//
//===----------------------------------------------------------------------===//

#include "usage/UsageLog.h"
#include "usage/LogLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"
#include <map>
#include <memory>
#include <random>
#include <set>
#include <tuple>

using namespace apistamp;

namespace {

struct ModelEvent {
  std::set<std::string> Jobs, Processes, Hosts;
  std::string FirstSeen, LastSeen;
  std::map<std::string, std::set<std::string>> JobsByDay;
};

/// Counts \p Text line by line with simdjson's parser and std::set.
std::map<std::string, ModelEvent>
model(const std::string &Text, const LogWindow &Window, uint64_t &Malformed) {
  std::map<std::string, ModelEvent> Events;
  LogLineParser Parser;
  size_t Start = 0;
  while (Start < Text.size()) {
    size_t End = Text.find('\n', Start);
    if (End == std::string::npos)
      End = Text.size();
    std::string Line = Text.substr(Start, End - Start);
    Start = End + 1;
    if (Line.find_first_not_of(" \t") == std::string::npos)
      continue;
    std::string Padded = Line + std::string(LogLinePadding, ' ');
    LogLine F;
    if (Parser.parse(Padded.data(), Line.size(), Padded.size(), F) !=
            LogLineError::None ||
        !isCalendarDay(F.Time)) {
      ++Malformed;
      continue;
    }
    std::string Time(F.Time);
    if ((!Window.Since.empty() && Time < Window.Since) ||
        (!Window.Until.empty() && Time >= Window.Until))
      continue;
    ModelEvent &E = Events[std::string(F.Event)];
    std::string Host(F.Host);
    std::string Process =
        Host + '\0' + std::to_string(F.Pid) + '\0' + std::string(F.Exe);
    std::string Job =
        F.HasJob ? "job:" + std::string(F.Job) : "process:" + Process;
    E.Jobs.insert(Job);
    E.Processes.insert(Process);
    E.Hosts.insert(Host);
    E.JobsByDay[Time.substr(0, 10)].insert(Job);
    if (E.FirstSeen.empty() || Time < E.FirstSeen)
      E.FirstSeen = Time;
    if (Time > E.LastSeen)
      E.LastSeen = Time;
  }
  return Events;
}

/// A log that mixes the runtime's lines with others: many processes whose
/// lines interleave (more than the tail cache holds), pids shared across
/// hosts, events long and short, days out of order, numeric and missing
/// job ids, tails too long to cache, spacing the fast path refuses, and
/// malformed lines.
std::string randomLog(std::mt19937 &Random, size_t Lines) {
  const char *Events[] = {"a",
                          "lib.x",
                          "lib.y",
                          "torchvision.csrc.ops.nms.nms",
                          "caf\xc3\xa9",
                          "e.with.a.rather.long.name.0001",
                          "e.with.a.rather.long.name.0002",
                          "z"};
  std::string LongExe = "/opt/" + std::string(300, 'x');
  std::string Log;
  for (size_t I = 0; I < Lines; ++I) {
    unsigned Process = Random() % 2000;
    std::string Host = "node" + std::to_string(Process % 37);
    std::string Pid = std::to_string(1000 + Process % 700);
    std::string Exe =
        Process % 97 == 0 ? LongExe : "/bin/t" + std::to_string(Process % 3);
    std::string Job;
    switch (Process % 7) {
    case 0:
      Job = "null";
      break;
    case 1:
      Job = std::to_string(Process / 7); // A number: simdjson's path.
      break;
    default:
      Job = "\"job" + std::to_string(Process / 5) + "\"";
    }
    // Times that share their first 16 bytes (the minute) and differ after
    // them, and some a date alone.
    std::string Time = "2026-11-" + std::to_string(10 + Random() % 5);
    if (Random() % 20)
      Time += "T" + std::to_string(10 + Random() % 10) + ":00:00." +
              std::to_string(Random() % 1000000) + "Z";
    std::string Line = "{\"event\":\"" + std::string(Events[Random() % 8]) +
                       "\",\"time\":\"" + Time + "\",\"pid\":" + Pid +
                       ",\"host\":\"" + Host + "\",\"exe\":\"" + Exe +
                       "\",\"rank\":" + std::to_string(Process % 8) +
                       ",\"job_id\":" + Job + "}";
    switch (Random() % 50) {
    case 0:
      Line.insert(1, " "); // Valid, not the runtime's spacing.
      break;
    case 1:
      Line.resize(Line.size() / 2); // Malformed.
      break;
    case 2:
      Line = "   "; // Blank.
      break;
    case 3:
      Line += "\r"; // CRLF.
      break;
    }
    Log += Line + "\n";
  }
  return Log;
}

void expectModelCounts(const std::string &Text, const LogWindow &Window) {
  uint64_t Malformed = 0;
  std::map<std::string, ModelEvent> Model = model(Text, Window, Malformed);
  UsageCounts Counts = readUsageText("log", Text, Window);
  EXPECT_EQ(Counts.Malformed, Malformed);
  ASSERT_EQ(Counts.Events.size(), Model.size());
  for (const auto &[Name, E] : Model) {
    SCOPED_TRACE(Name);
    const EventCounts &C = Counts.Events[Name];
    EXPECT_EQ(C.Jobs, E.Jobs.size());
    EXPECT_EQ(C.Processes, E.Processes.size());
    EXPECT_EQ(C.Hosts, E.Hosts.size());
    EXPECT_EQ(C.FirstSeen, E.FirstSeen);
    EXPECT_EQ(C.LastSeen, E.LastSeen);
    std::vector<std::pair<std::string, uint64_t>> Days;
    for (const auto &[Day, Jobs] : E.JobsByDay)
      Days.push_back({Day, Jobs.size()});
    EXPECT_EQ(C.JobsByDay, Days);
  }
}

TEST(UsageLogTest, CountsMatchAPlainModel) {
  std::mt19937 Random(20261123);
  std::string Log = randomLog(Random, 60000);
  expectModelCounts(Log, LogWindow{});
  expectModelCounts(Log, LogWindow{"2026-11-11", "2026-11-13T15"});
}

TEST(UsageLogTest, OneProcessManyEventsAndOneEventManyProcesses) {
  // The tail cache sees the same tail under many events, and one event
  // under tails that differ in one byte.
  std::string Log;
  for (int I = 0; I < 3000; ++I)
    Log += "{\"event\":\"e" + std::to_string(I % 300) +
           "\",\"time\":\"2026-11-20T10:00:00Z\",\"pid\":1,\"host\":\"h\","
           "\"exe\":\"/bin/t\",\"rank\":null,\"job_id\":\"j\"}\n";
  for (int I = 0; I < 3000; ++I)
    Log += "{\"event\":\"one\",\"time\":\"2026-11-20T10:00:00Z\",\"pid\":" +
           std::to_string(100 + I % 10) +
           ",\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":null,\"job_id\":\"j" +
           std::to_string(I % 10) + "\"}\n";
  expectModelCounts(Log, LogWindow{});
  UsageCounts Counts = readUsageText("log", Log, LogWindow{});
  EXPECT_EQ(Counts.Events["one"].Processes, 10u);
  EXPECT_EQ(Counts.Events["e7"].Processes, 1u);
}

TEST(UsageLogTest, ManyEventsAndOneProcessLoggingThemTwice) {
  // Thousands of events (more than the event cache's slots): one process
  // logs every event, then the even ones again; another the odd ones.
  std::string Log;
  for (int Pass = 0; Pass < 2; ++Pass)
    for (int I = 0; I < 5000; ++I)
      Log += "{\"event\":\"e" + std::to_string(I) +
             "\",\"time\":\"2026-11-20T10:00:00Z\",\"pid\":" +
             std::to_string(1 + Pass * (I % 2)) +
             ",\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":null,"
             "\"job_id\":\"j\"}\n";
  expectModelCounts(Log, LogWindow{});
  UsageCounts Counts = readUsageText("log", Log, LogWindow{});
  EXPECT_EQ(Counts.Events["e4998"].Processes, 1u);
  EXPECT_EQ(Counts.Events["e4999"].Processes, 2u);
}

TEST(UsageLogTest, LinesOneByteFromACachedLineAreReadAsTheyAre) {
  // A runtime line, read first so that its event and tail are cached (its
  // end is then found by comparing the cached tail and its newline), then
  // copies with one byte replaced or inserted anywhere: a newline, a
  // control character, a backslash, a quote, a byte that is not UTF-8...
  // Each must count as the validating parser reads it.
  std::string Line = "{\"event\":\"lib.x\",\"time\":\"2026-11-20T10:00:00Z\","
                     "\"pid\":12,\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":0,"
                     "\"job_id\":\"j\"}";
  // The same event from a line the fast parser refuses (an escape): its
  // name, with a control character, must not vouch for raw bytes.
  std::string Escaped =
      "{\"event\":\"lib\\u0001x\",\"time\":\"2026-11-20T10:00:00Z\","
      "\"pid\":12,\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":0,"
      "\"job_id\":\"j\"}";
  std::string Log;
  for (size_t At = 0; At < Line.size(); ++At)
    for (char Byte : {'\n', '\r', '\x01', '\\', '"', '\xff', ' ', '}', '2'}) {
      std::string Replaced = Line, Inserted = Line;
      Replaced[At] = Byte;
      Inserted.insert(At, 1, Byte);
      Log += Line + "\n" + Escaped + "\n" + Replaced + "\n" + Line + "\n" +
             Inserted + "\n";
    }
  std::string Raw = Escaped;
  Raw.replace(Raw.find("\\u0001"), 6, "\x01");
  Log += Raw + "\n";
  expectModelCounts(Log, LogWindow{});
}

/// \p Line, a runtime line, as a log collector forwards it: its keys in
/// another order, spaces, "@timestamp", a nested object, "stream".
std::string asCollectorLine(const std::string &Line) {
  LogLineParser Parser;
  std::string Padded = Line + std::string(LogLinePadding, ' ');
  LogLine F;
  if (Parser.parse(Padded.data(), Line.size(), Padded.size(), F) !=
      LogLineError::None)
    return Line;
  auto Quoted = [](std::string_view Text, bool Null) {
    return Null ? std::string("null") : "\"" + std::string(Text) + "\"";
  };
  return "{\"@timestamp\": \"" + std::string(F.Time) +
         "\", \"kubernetes\": {\"pod\": \"p-" + std::to_string(F.Pid) +
         "\", \"labels\": {\"a\": \"{\\\"}\"}}, \"stream\": \"stderr\", "
         "\"job_id\": " +
         Quoted(F.Job, !F.HasJob) + ", \"host\": " + Quoted(F.Host, false) +
         ", \"event\": \"" + std::string(F.Event) + "\", \"time\": \"" +
         std::string(F.Time) + "\", \"pid\": " + std::to_string(F.Pid) +
         ", \"exe\": " + Quoted(F.Exe, false) + ", \"rank\": 1}";
}

TEST(UsageLogTest, CollectorLinesCountAsTheRuntimesLines) {
  // The random log's valid runtime lines (string job ids), forwarded by a
  // collector, mixed with the others: the counts are the model's.
  std::mt19937 Random(20261124);
  std::string Runtime = randomLog(Random, 30000), Log;
  size_t Start = 0;
  while (Start < Runtime.size()) {
    size_t End = Runtime.find('\n', Start);
    std::string Line = Runtime.substr(Start, End - Start);
    Start = End + 1;
    Log += (Random() % 4 ? asCollectorLine(Line) : Line) + "\n";
  }
  expectModelCounts(Log, LogWindow{});
  expectModelCounts(Log, LogWindow{"2026-11-11", "2026-11-13T15"});
}

TEST(UsageLogTest, ACollectorLineWithABadValueInAKeyNotReadIsMalformed) {
  // A collector's lines are validated whole (docs/report.md, Malformed
  // lines): a value that is not JSON in a key the report skips makes the
  // line malformed, on the fast paths as with the validating parser alone.
  std::string Good =
      asCollectorLine("{\"event\":\"lib.x\",\"time\":\"2026-11-20T10:00:00Z\","
                      "\"pid\":12,\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":0,"
                      "\"job_id\":\"j\"}");
  const char *const Bad[] = {"[1,}",    "01",  "1.",       "-",
                             "\"\\x\"", "tru", "\"a\x01\""};
  std::string Log = Good + "\n";
  for (const char *Value : Bad)
    Log += "{\"x\": " + std::string(Value) + ", " + Good.substr(1) + "\n" +
           Good + "\n";
  for (bool ValidatingOnly : {false, true}) {
    UsageCounts Counts =
        readUsageText("log", Log, LogWindow{}, {}, {}, {ValidatingOnly, 0});
    EXPECT_EQ(Counts.Lines, 1 + 2 * std::size(Bad));
    EXPECT_EQ(Counts.EventLines, 1 + std::size(Bad));
    EXPECT_EQ(Counts.Malformed, std::size(Bad));
    ASSERT_EQ(Counts.Problems.size(), 1u);
    ASSERT_FALSE(Counts.Problems[0].First.empty());
    EXPECT_EQ(Counts.Problems[0].First[0].second, "not JSON");
  }
}

TEST(UsageLogTest, CollectorLinesOneByteFromAGoodOneAreReadAsTheyAre) {
  // A collector's line, then copies with one byte replaced or inserted
  // anywhere. Each must count as the validating parser reads it; an event
  // of bad lines alone is no event.
  std::string Line =
      asCollectorLine("{\"event\":\"lib.x\",\"time\":\"2026-11-20T10:00:00Z\","
                      "\"pid\":12,\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":0,"
                      "\"job_id\":\"j\"}");
  std::string Log;
  for (size_t At = 0; At < Line.size(); ++At)
    for (char Byte : {'\n', '\r', '\x01', '\\', '"', '\xff', ' ', '}', '2', '{',
                      ',', ':', '.', 'e'}) {
      std::string Replaced = Line, Inserted = Line;
      Replaced[At] = Byte;
      Inserted.insert(At, 1, Byte);
      Log += Line + "\n" + Replaced + "\n" + Line + "\n" + Inserted + "\n";
    }
  std::string BadDay = Line;
  BadDay.replace(BadDay.find("lib.x"), 5, "lib.bad");
  for (size_t At = 0;
       (At = BadDay.find("2026-11-20", At)) != std::string::npos;)
    BadDay.replace(At, 10, "2026-02-30");
  Log += BadDay + "\n" + Line + "\n" + BadDay + "\n";
  expectModelCounts(Log, LogWindow{});
}

TEST(UsageLogTest, FastPathsCountWhatTheValidatingParserAloneCounts) {
  // The runtime's lines and a collector's, mixed, and the random log's
  // others: every fast path (the runtime's shape, its tail cache) against
  // the validating parser alone, whole and in pieces
  // (each freed once read: the lines of a piece gone, lines across pieces
  // carried). test/fuzz/LogReaderFuzzer.cpp does the same on mutated logs.
  std::mt19937 Random(20261128);
  std::string Runtime = randomLog(Random, 6000), Log;
  for (size_t Start = 0; Start < Runtime.size();) {
    size_t End = Runtime.find('\n', Start);
    std::string Line = Runtime.substr(Start, End - Start);
    Start = End + 1;
    Log += (Random() % 3 ? asCollectorLine(Line) : Line) + "\n";
  }
  for (const LogWindow &Window :
       {LogWindow{}, LogWindow{"2026-11-11", "2026-11-13T15"}}) {
    UsageCounts Reference =
        readUsageText("log", Log, Window, {}, {}, {/*ValidatingOnly=*/true, 0});
    // Lines of every event counted, and malformed ones.
    EXPECT_EQ(Reference.Events.size(), 8u);
    EXPECT_GT(Reference.Malformed, 0u);
    std::string Want = describeCounts(Reference);
    for (size_t Piece : {0, 1, 7, 64, 333, 4096}) {
      SCOPED_TRACE("pieces of " + std::to_string(Piece) + " bytes");
      EXPECT_EQ(
          describeCounts(readUsageText("log", Log, Window, {}, {},
                                       {/*ValidatingOnly=*/false, Piece})),
          Want);
    }
  }
}

/// A temporary log holding \p Text; removed with the object.
struct TempLog {
  explicit TempLog(const std::string &Text) {
    llvm::SmallString<128> Name;
    EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("usage", "jsonl", Name));
    Path = std::string(Name);
    std::error_code EC;
    llvm::raw_fd_ostream Out(Path, EC);
    EXPECT_FALSE(EC);
    Out << Text;
  }
  ~TempLog() { llvm::sys::fs::remove(Path); }
  std::string Path;
};

/// \p Got counted what \p Want did: lines, bad lines and every event.
void expectSameCounts(const UsageCounts &Got, const UsageCounts &Want) {
  EXPECT_EQ(Got.Lines, Want.Lines);
  EXPECT_EQ(Got.EventLines, Want.EventLines);
  EXPECT_EQ(Got.Malformed, Want.Malformed);
  ASSERT_EQ(Got.Events.size(), Want.Events.size());
  for (const auto &[Name, W] : Want.Events) {
    SCOPED_TRACE(Name);
    auto It = Got.Events.find(Name);
    ASSERT_NE(It, Got.Events.end());
    const EventCounts &G = It->second;
    EXPECT_EQ(std::tie(G.Jobs, G.Processes, G.Hosts, G.FirstSeen, G.LastSeen,
                       G.JobsByDay),
              std::tie(W.Jobs, W.Processes, W.Hosts, W.FirstSeen, W.LastSeen,
                       W.JobsByDay));
  }
}

TEST(UsageLogTest, FilesReadOnManyThreadsCountLikeOneText) {
  // The same processes, jobs and events in every file: the threads' keys
  // and first/last times must merge, not add up.
  std::mt19937 Random(7);
  std::string Log = randomLog(Random, 30000);
  std::vector<std::unique_ptr<TempLog>> Logs;
  std::vector<std::string> Files;
  size_t Start = 0;
  for (int I = 0; I < 5; ++I) {
    size_t End = I == 4 ? Log.size() : Log.find('\n', Log.size() * (I + 1) / 5);
    End = End == std::string::npos ? Log.size() : End + 1;
    Logs.push_back(std::make_unique<TempLog>(Log.substr(Start, End - Start)));
    Files.push_back(Logs.back()->Path);
    Start = End;
  }
  UsageCounts Whole = readUsageText("log", Log, LogWindow{});
  for (unsigned Threads : {1u, 2u, 3u, 8u}) {
    SCOPED_TRACE(Threads);
    UsageCounts Split = readUsageLogs(Files, LogWindow{}, Threads);
    EXPECT_EQ(Split.Files, 5u);
    expectSameCounts(Split, Whole);
  }
}

TEST(UsageLogTest, AFileThatShrinksWhileReadKeepsWhatWasRead) {
  // logrotate's copytruncate empties a log while it may be read: mapped,
  // the pages past its new end raise SIGBUS. The lines before the new end
  // count; the rest is reported, and the process lives on.
  std::string Line = "{\"event\":\"e\",\"time\":\"2026-11-20T10:00:00Z\","
                     "\"pid\":1,\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":"
                     "null,\"job_id\":\"j\"}\n";
  std::string Text;
  while (Text.size() < 100000)
    Text += Line;
  TempLog Log(Text);
  size_t Lines = Text.size() / Line.size();
  // As if the file had 3 more pages and a half when it was opened: read
  // whole, and in parts of 16 KiB on 2 threads (parts that begin past the
  // new end, one that straddles it).
  for (uint64_t PartBytes : {uint64_t(1) << 30, uint64_t(16384)}) {
    SCOPED_TRACE(PartBytes);
    UsageCounts Counts = readUsageLogShrunk(
        Log.Path, Text.size() + 3 * 4096 + 2048, LogWindow{}, 2, PartBytes);
    EXPECT_EQ(Counts.Files, 1u);
    EXPECT_EQ(Counts.EventLines, Lines);
    EXPECT_EQ(Counts.Malformed, 0u);
    ASSERT_EQ(Counts.Problems.size(), 1u);
    EXPECT_THAT(Counts.Problems[0].Error, ::testing::HasSubstr("shrank"));
  }
  // Read as it is, the same file has no problem.
  UsageCounts Whole = readUsageLog(Log.Path, LogWindow{});
  EXPECT_EQ(Whole.EventLines, Lines);
  EXPECT_TRUE(Whole.Problems.empty());
}

TEST(UsageLogTest, AFileReadInPartsCountsAndNumbersLinesAsWhole) {
  // Parts of 4 KiB: lines straddle every boundary, one line is longer than
  // a part, bad lines sit in several parts, the last line has no newline.
  std::mt19937 Random(11);
  std::string Log = randomLog(Random, 3000);
  Log += "{\"event\":\"long\",\"time\":\"2026-11-12T00:00:00Z\",\"pid\":1,"
         "\"host\":\"" +
         std::string(10000, 'h') +
         "\",\"exe\":null,\"rank\":null,"
         "\"job_id\":null}\n";
  Log += randomLog(Random, 3000);
  Log += "{\"event\":\"cut\",\"time\":\"2026-11-1";
  TempLog File(Log);
  UsageCounts Whole = readUsageText(File.Path, Log, LogWindow{});
  ASSERT_EQ(Whole.Problems.size(), 1u);
  ASSERT_GT(Whole.Problems[0].Malformed, 5u);
  for (unsigned Threads : {1u, 3u}) {
    SCOPED_TRACE(Threads);
    UsageCounts Parts = readUsageLogs({File.Path}, LogWindow{}, Threads, 4096);
    EXPECT_EQ(Parts.Files, 1u);
    expectSameCounts(Parts, Whole);
    ASSERT_EQ(Parts.Problems.size(), 1u);
    EXPECT_EQ(Parts.Problems[0].Malformed, Whole.Problems[0].Malformed);
    EXPECT_EQ(Parts.Problems[0].First, Whole.Problems[0].First);
  }
}

} // namespace
