//===- SubprocessTest.cpp - Runtime tests that need a fresh process -------===//
//
// Each test runs apistamp_runtime_helper (see Helper.cpp) with a chosen
// environment: replay to a late logger, the default (silent) and stderr
// sinks, the JSON-lines sink (every line parsed back), concurrent processes
// appending to one file, files that cannot be opened or written, a closed
// pipe, a handler that throws.
//
//===----------------------------------------------------------------------===//

#include "Json.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <regex>
#include <set>
#include <string>
#include <sys/mount.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using apistamp::test::JsonValue;
using apistamp::test::ProcessOptions;
using apistamp::test::ProcessResult;
using apistamp::test::TempDir;

namespace {

ProcessResult runHelper(const std::vector<std::string> &Steps,
                        const std::map<std::string, std::string> &Env = {}) {
  ProcessOptions Options;
  Options.Args.push_back(apistamp::test::helperPath());
  Options.Args.insert(Options.Args.end(), Steps.begin(), Steps.end());
  Options.Env = Env;
  return apistamp::test::runProcess(Options);
}

/// Checks that \p R exited normally with 0, not hung or killed.
void expectClean(const ProcessResult &R) {
  EXPECT_FALSE(R.Hung) << "helper hung (deadlock?)";
  EXPECT_EQ(R.Signal, 0) << "helper killed by signal " << R.Signal;
  EXPECT_EQ(R.ExitCode, 0) << "stderr: " << R.Err;
}

std::string pidOf(const ProcessResult &R) {
  return std::to_string(static_cast<long>(R.Pid));
}

/// "<pid> <event>" lines for the helper's own pid, and its final line.
std::vector<std::string> loggerLines(const ProcessResult &R,
                                     const std::vector<std::string> &Events) {
  std::vector<std::string> Lines;
  for (const std::string &Event : Events)
    Lines.push_back(pidOf(R) + " " + Event);
  Lines.push_back("done " + pidOf(R));
  return Lines;
}

/// Parses every line of a JSON-lines file; a line that does not parse is a
/// test failure.
std::vector<JsonValue> parseJsonLines(const std::string &Text) {
  std::vector<JsonValue> Values;
  EXPECT_TRUE(Text.empty() || Text.back() == '\n') << "unterminated last line";
  for (const std::string &Line : apistamp::test::splitLines(Text)) {
    JsonValue Value;
    std::string Error;
    EXPECT_TRUE(apistamp::test::parseJson(Line, Value, Error))
        << Error << " in line: " << Line.substr(0, 300);
    EXPECT_EQ(Value.K, JsonValue::Object) << Line.substr(0, 300);
    Values.push_back(Value);
  }
  return Values;
}

std::string stringField(const JsonValue &Object, const std::string &Key) {
  const JsonValue *V = Object.get(Key);
  if (!V || V->K != JsonValue::String)
    return "<not a string>";
  return V->Text;
}

//===----------------------------------------------------------------------===//
// Replay and default sinks
//===----------------------------------------------------------------------===//

TEST(Replay, EventsBeforeTheFirstLoggerAreHandedToIt) {
  ProcessResult R = runHelper({"a", "log:early", "log:early", "a", "b",
                               "meta:m1", "install", "a", "log:late", "b"});
  expectClean(R);
  std::vector<std::string> Expected =
      loggerLines(R, {"helper.a", "early", "early", "helper.b",
                      "meta m1 k=v,quote=\"q\",", "late"});
  EXPECT_EQ(apistamp::test::splitLines(R.Out), Expected);
  EXPECT_EQ(R.Err, "") << "silent by default";
}

TEST(Replay, ThePendingBufferIsBounded) {
  ProcessResult R = runHelper({"flood:3000:10:1", "install", "log:after"});
  expectClean(R);
  std::vector<std::string> Lines = apistamp::test::splitLines(R.Out);
  ASSERT_EQ(Lines.size(), 1024u + 2u);
  // The first 1024 are kept, in order.
  EXPECT_EQ(Lines[0].substr(0, Lines[0].find(".0.0.")),
            pidOf(R) + " flood." + pidOf(R));
  EXPECT_NE(Lines[1023].find(".0.1023."), std::string::npos) << Lines[1023];
  EXPECT_EQ(Lines[1024], pidOf(R) + " after");
}

TEST(DefaultSink, SilentWithoutAnyVariable) {
  ProcessResult R = runHelper({"a", "b", "log:x", "meta:y"});
  expectClean(R);
  EXPECT_EQ(R.Out, "done " + pidOf(R) + "\n");
  EXPECT_EQ(R.Err, "");
}

TEST(DefaultSink, StderrLikeC10UntilALoggerIsInstalled) {
  ProcessResult R = runHelper({"a", "a", "log:x", "meta:y", "install", "b"},
                              {{"PYTORCH_API_USAGE_STDERR", "1"}});
  expectClean(R);
  EXPECT_EQ(R.Err, "PYTORCH_API_USAGE helper.a\nPYTORCH_API_USAGE x\n");
  // The logger still gets the pending events.
  EXPECT_EQ(
      apistamp::test::splitLines(R.Out),
      loggerLines(R, {"helper.a", "x", "meta y k=v,quote=\"q\",", "helper.b"}));
}

TEST(DefaultSink, AnEmptyStderrVariableIsUnset) {
  // An empty value counts as unset: ProcessOptions needs a non-empty value
  // to set a variable, so set it through env(1).
  ProcessOptions Options;
  Options.Args = {"/usr/bin/env",
                  "PYTORCH_API_USAGE_STDERR=", apistamp::test::helperPath(),
                  "a", "log:x"};
  ProcessResult R = apistamp::test::runProcess(Options);
  expectClean(R);
  EXPECT_EQ(R.Err, "");
}

//===----------------------------------------------------------------------===//
// JSON lines
//===----------------------------------------------------------------------===//

TEST(JsonSink, EveryLineParsesWithTheDocumentedKeys) {
  TempDir Dir;
  std::string Log = Dir.file("events.jsonl");
  // Quotes, a backslash, a newline, a tab, a control character, UTF-8 and an
  // invalid byte in an event name.
  std::string Weird = "w \"q\" \\ \n\t\x01 \xc3\xa9 \xe2\x82\xac \xff end";
  ProcessResult R = runHelper({"a", "a", "b", "log:" + Weird, "meta:m",
                               "install", "a", "fork", "a", "log:after-fork"},
                              {{"APISTAMP_API_USAGE_LOG", Log},
                               {"RANK", "5"},
                               {"LOCAL_RANK", "1"},
                               {"SLURM_JOB_ID", "job42"},
                               {"TORCHELASTIC_RUN_ID", "elastic"}});
  expectClean(R);
  // The forked child prints "done <its pid>" too.
  std::string ChildPid;
  for (const std::string &Line : apistamp::test::splitLines(R.Out))
    if (Line.compare(0, 5, "done ") == 0 && Line != "done " + pidOf(R))
      ChildPid = Line.substr(5);
  ASSERT_NE(ChildPid, "") << R.Out;

  std::vector<JsonValue> Lines = parseJsonLines(apistamp::test::readFile(Log));
  std::vector<std::string> Events, Pids;
  char Host[HOST_NAME_MAX + 1] = {};
  gethostname(Host, sizeof(Host) - 1);
  char Exe[PATH_MAX];
  ASSERT_NE(realpath(apistamp::test::helperPath().c_str(), Exe), nullptr);
  std::regex Iso("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z");
  for (const JsonValue &Line : Lines) {
    std::string Event = stringField(Line, "event");
    std::vector<std::string> Keys = {"event", "time", "pid",   "host",
                                     "exe",   "rank", "job_id"};
    if (Event == "m")
      Keys.push_back("metadata");
    EXPECT_EQ(Line.keys(), Keys);
    EXPECT_TRUE(std::regex_match(stringField(Line, "time"), Iso))
        << stringField(Line, "time");
    ASSERT_NE(Line.get("pid"), nullptr);
    EXPECT_EQ(Line.get("pid")->K, JsonValue::Number);
    EXPECT_EQ(stringField(Line, "host"), Host);
    EXPECT_EQ(stringField(Line, "exe"), Exe);
    ASSERT_NE(Line.get("rank"), nullptr);
    EXPECT_EQ(Line.get("rank")->K, JsonValue::Number);
    EXPECT_EQ(Line.get("rank")->Text, "5");
    EXPECT_EQ(stringField(Line, "job_id"), "job42");
    Events.push_back(Event);
    Pids.push_back(Line.get("pid")->Text);
  }
  std::string WeirdDecoded =
      "w \"q\" \\ \n\t\x01 \xc3\xa9 \xe2\x82\xac \xef\xbf\xbd end";
  // The parent logs its events, then the child (after the fork) logs what it
  // uses once more with its own pid, then the parent logs "after-fork".
  EXPECT_EQ(Events,
            (std::vector<std::string>{"helper.a", "helper.b", WeirdDecoded, "m",
                                      "helper.a", "after-fork", "after-fork"}));
  EXPECT_EQ(Pids,
            (std::vector<std::string>{pidOf(R), pidOf(R), pidOf(R), pidOf(R),
                                      ChildPid, ChildPid, pidOf(R)}));
  ASSERT_EQ(Lines.size(), 7u);
  const JsonValue *Metadata = Lines[3].get("metadata");
  ASSERT_NE(Metadata, nullptr);
  EXPECT_EQ(Metadata->keys(), (std::vector<std::string>{"k", "quote"}));
  EXPECT_EQ(stringField(*Metadata, "quote"), "\"q\"");
}

/// The (rank, job_id) JSON values a helper writes with \p Env.
std::pair<std::string, std::string>
rankAndJob(const std::map<std::string, std::string> &Env) {
  TempDir Dir;
  std::map<std::string, std::string> WithLog = Env;
  WithLog["APISTAMP_API_USAGE_LOG"] = Dir.file("e.jsonl");
  ProcessResult R = runHelper({"a"}, WithLog);
  expectClean(R);
  std::vector<JsonValue> Lines =
      parseJsonLines(apistamp::test::readFile(Dir.file("e.jsonl")));
  if (Lines.size() != 1)
    return {"<" + std::to_string(Lines.size()) + " lines>", ""};
  auto Show = [](const JsonValue *V) -> std::string {
    if (!V)
      return "<missing>";
    if (V->K == JsonValue::Null)
      return "null";
    if (V->K == JsonValue::String)
      return "\"" + V->Text + "\"";
    return V->Text;
  };
  return {Show(Lines[0].get("rank")), Show(Lines[0].get("job_id"))};
}

TEST(JsonSink, RankAndJobIdFallBackAsDocumented) {
  typedef std::pair<std::string, std::string> P;
  EXPECT_EQ(rankAndJob({}), P("null", "null"));
  EXPECT_EQ(rankAndJob({{"LOCAL_RANK", "3"}}), P("3", "null"));
  EXPECT_EQ(rankAndJob({{"RANK", "12"}, {"LOCAL_RANK", "3"}}), P("12", "null"));
  EXPECT_EQ(rankAndJob({{"RANK", "worker-7"}}), P("\"worker-7\"", "null"));
  EXPECT_EQ(rankAndJob({{"TORCHELASTIC_RUN_ID", "te1"}}), P("null", "\"te1\""));
  EXPECT_EQ(rankAndJob({{"SLURM_JOB_ID", "s1"}, {"TORCHELASTIC_RUN_ID", "te"}}),
            P("null", "\"s1\""));
  // APISTAMP_JOB_ID_ENV replaces the default list; the first set one wins.
  EXPECT_EQ(rankAndJob({{"APISTAMP_JOB_ID_ENV", "MY_JOB, OTHER_JOB"},
                        {"OTHER_JOB", "o2"},
                        {"SLURM_JOB_ID", "s1"}}),
            P("null", "\"o2\""));
  EXPECT_EQ(rankAndJob({{"APISTAMP_JOB_ID_ENV", "MY_JOB,OTHER_JOB"},
                        {"MY_JOB", "m1"},
                        {"OTHER_JOB", "o2"}}),
            P("null", "\"m1\""));
}

TEST(JsonSink, ConcurrentProcessesNeverInterleaveLines) {
  TempDir Dir;
  std::string Log = Dir.file("shared.jsonl");
  const int Processes = 6, Threads = 3, PerThread = 150, Size = 5000;
  std::vector<apistamp::test::RunningProcess> Running;
  for (int P = 0; P < Processes; ++P) {
    ProcessOptions Options;
    Options.Args = {apistamp::test::helperPath(),
                    "flood:" + std::to_string(PerThread) + ":" +
                        std::to_string(Size) + ":" + std::to_string(Threads)};
    Options.Env = {{"APISTAMP_API_USAGE_LOG", Log}};
    Running.push_back(apistamp::test::startProcess(Options));
  }
  for (const auto &P : Running)
    expectClean(apistamp::test::waitProcess(P));

  std::vector<JsonValue> Lines = parseJsonLines(apistamp::test::readFile(Log));
  EXPECT_EQ(Lines.size(),
            static_cast<std::size_t>(Processes * Threads * PerThread));
  // Every event is there once, whole; each thread's events are in order.
  std::set<std::string> Seen;
  std::map<std::string, int> NextIndex;
  for (const JsonValue &Line : Lines) {
    std::string Event = stringField(Line, "event");
    EXPECT_EQ(Event.size(), static_cast<std::size_t>(Size));
    EXPECT_TRUE(Seen.insert(Event).second) << "duplicate line";
    // flood.<pid>.<thread>.<index>.xxx
    std::size_t Third = Event.find('.', Event.find('.', 6) + 1);
    std::size_t Fourth = Event.find('.', Third + 1);
    std::string Stream = Event.substr(0, Third);
    int Index = std::atoi(Event.substr(Third + 1, Fourth - Third - 1).c_str());
    EXPECT_EQ(Index, NextIndex[Stream]++) << Stream;
    EXPECT_EQ(Event.substr(6, Event.find('.', 6) - 6), Line.get("pid")->Text);
  }
  EXPECT_EQ(NextIndex.size(), static_cast<std::size_t>(Processes * Threads));
}

//===----------------------------------------------------------------------===//
// Failures that must not hurt the host program
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Invisible to the host program
//===----------------------------------------------------------------------===//

// leveldb's env_posix_test counts the descriptors a test opens: logging an
// event must leave none behind, nor threads, signal handlers or environment
// changes.
TEST(Invisible, NoDescriptorThreadHandlerOrEnvironmentSurvivesACall) {
  TempDir Dir;
  ProcessResult R =
      runHelper({"state", "a", "log:x", "meta:m", "b", "state", "install",
                 "log:y", "state"},
                {{"APISTAMP_API_USAGE_LOG", Dir.file("events.jsonl")},
                 {"PYTORCH_API_USAGE_STDERR", "1"}});
  expectClean(R);
  std::vector<std::string> States;
  for (const std::string &Line : apistamp::test::splitLines(R.Out))
    if (Line.compare(0, 6, "state ") == 0)
      States.push_back(Line);
  ASSERT_EQ(States.size(), 3u) << R.Out;
  EXPECT_EQ(States[1], States[0]);
  EXPECT_EQ(States[2], States[0]);
  EXPECT_EQ(
      parseJsonLines(apistamp::test::readFile(Dir.file("events.jsonl"))).size(),
      5u);
}

// Issue 24, item 21: a line to a pipe is at most PIPE_BUF bytes, the most
// POSIX writes atomically; a longer one has its event name cut and
// "truncated":true. The events after it are not lost.
TEST(JsonSink, ALineToAPipeIsCutToPipeBuf) {
  TempDir Dir;
  std::string Fifo = Dir.file("fifo");
  ASSERT_EQ(mkfifo(Fifo.c_str(), 0600), 0);
  std::string Long(100 * 1024, 'L');
  // U+00E9 (2 bytes) repeated: the cut must not split a character.
  std::string Wide;
  for (int I = 0; I < 3000; ++I)
    Wide += "\xc3\xa9";
  ProcessResult R;
  std::string Received = apistamp::test::readFifoWhile(Fifo, [&] {
    R = runHelper({"log:" + Long, "log:short", "log:" + Wide, "log:after"},
                  {{"APISTAMP_API_USAGE_LOG", Fifo}});
  });
  expectClean(R);
  EXPECT_EQ(R.Err, "");
  for (const std::string &Line : apistamp::test::splitLines(Received))
    EXPECT_LE(Line.size() + 1, static_cast<std::size_t>(PIPE_BUF));
  std::vector<JsonValue> Lines = parseJsonLines(Received);
  ASSERT_EQ(Lines.size(), 4u);
  std::string Cut = stringField(Lines[0], "event");
  EXPECT_GT(Cut.size(), 2000u);
  EXPECT_EQ(Cut, Long.substr(0, Cut.size()));
  ASSERT_NE(Lines[0].get("truncated"), nullptr);
  EXPECT_EQ(Lines[0].get("truncated")->K, JsonValue::Bool);
  EXPECT_EQ(Lines[0].get("host") != nullptr, true) << "fixed fields kept";
  EXPECT_EQ(stringField(Lines[1], "event"), "short");
  EXPECT_EQ(Lines[1].get("truncated"), nullptr);
  std::string WideCut = stringField(Lines[2], "event");
  EXPECT_EQ(WideCut.size() % 2, 0u);
  EXPECT_EQ(WideCut, Wide.substr(0, WideCut.size()));
  EXPECT_EQ(stringField(Lines[3], "event"), "after");
}

// Issue 24, item 21: threads of several processes writing lines longer than
// PIPE_BUF to one FIFO: every line arrives whole (cut, not interleaved).
TEST(JsonSink, LongLinesFromManyWritersToAPipeNeverInterleave) {
  TempDir Dir;
  std::string Fifo = Dir.file("fifo");
  ASSERT_EQ(mkfifo(Fifo.c_str(), 0600), 0);
  const int Processes = 3, Threads = 3, PerThread = 60, Size = 9000;
  std::string Received = apistamp::test::readFifoWhile(Fifo, [&] {
    std::vector<apistamp::test::RunningProcess> Running;
    for (int P = 0; P < Processes; ++P) {
      ProcessOptions Options;
      Options.Args = {apistamp::test::helperPath(),
                      "flood:" + std::to_string(PerThread) + ":" +
                          std::to_string(Size) + ":" + std::to_string(Threads)};
      Options.Env = {{"APISTAMP_API_USAGE_LOG", Fifo}};
      Running.push_back(apistamp::test::startProcess(Options));
    }
    for (const auto &P : Running)
      expectClean(apistamp::test::waitProcess(P));
  });
  std::vector<JsonValue> Lines = parseJsonLines(Received);
  EXPECT_EQ(Lines.size(),
            static_cast<std::size_t>(Processes * Threads * PerThread));
  for (const std::string &Line : apistamp::test::splitLines(Received))
    EXPECT_LE(Line.size() + 1, static_cast<std::size_t>(PIPE_BUF));
}

TEST(Failures, AFullDiskIsReportedWithItsReason) {
  ProcessResult R =
      runHelper({"a", "log:x"}, {{"APISTAMP_API_USAGE_LOG", "/dev/full"}});
  expectClean(R);
  EXPECT_NE(R.Err.find("No space left on device"), std::string::npos) << R.Err;
  EXPECT_EQ(R.Err.find("Success"), std::string::npos) << R.Err;
}

TEST(Failures, AnUnwritableLogFileIsReportedOnceAndIgnored) {
  ProcessResult R = runHelper({"a", "install", "log:x", "b", "meta:m"},
                              {{"APISTAMP_API_USAGE_LOG", "/dev/full"}});
  expectClean(R);
  EXPECT_EQ(
      apistamp::test::splitLines(R.Out),
      loggerLines(R, {"helper.a", "x", "helper.b", "meta m k=v,quote=\"q\","}));
  EXPECT_EQ(apistamp::test::countOccurrences(R.Err, "apistamp: "), 1u) << R.Err;
  EXPECT_NE(R.Err.find("cannot write API usage log '/dev/full'"),
            std::string::npos)
      << R.Err;
}

TEST(Failures, ALogFileThatCannotBeOpenedIsReportedOnceAndIgnored) {
  TempDir Dir;
  for (const std::string &Path :
       {Dir.file("missing/dir/events.jsonl"), Dir.path()}) {
    ProcessResult R = runHelper({"a", "log:x", "install", "b"},
                                {{"APISTAMP_API_USAGE_LOG", Path}});
    expectClean(R);
    EXPECT_EQ(apistamp::test::splitLines(R.Out),
              loggerLines(R, {"helper.a", "x", "helper.b"}));
    EXPECT_EQ(apistamp::test::countOccurrences(R.Err, "apistamp: "), 1u)
        << R.Err;
    EXPECT_NE(R.Err.find("cannot open API usage log"), std::string::npos)
        << R.Err;
  }
}

TEST(Failures, AFifoWithoutReaderNeitherHangsNorKills) {
  TempDir Dir;
  std::string Fifo = Dir.file("fifo");
  ASSERT_EQ(mkfifo(Fifo.c_str(), 0600), 0);
  ProcessResult R =
      runHelper({"a", "install", "b"}, {{"APISTAMP_API_USAGE_LOG", Fifo}});
  expectClean(R);
  EXPECT_EQ(apistamp::test::splitLines(R.Out),
            loggerLines(R, {"helper.a", "helper.b"}));
}

TEST(Failures, AClosedPipeDoesNotKillWithSigpipe) {
  // stderr is a pipe nobody reads; the stderr sink and the JSON sink (on
  // /dev/stderr) both write to it.
  int Pipe[2];
  ASSERT_EQ(pipe(Pipe), 0);
  close(Pipe[0]);
  ProcessOptions Options;
  Options.Args = {apistamp::test::helperPath(), "a", "log:x", "install", "b"};
  Options.Env = {{"PYTORCH_API_USAGE_STDERR", "1"},
                 {"APISTAMP_API_USAGE_LOG", "/dev/stderr"}};
  Options.StderrFd = Pipe[1];
  ProcessResult R = apistamp::test::runProcess(Options);
  close(Pipe[1]);
  expectClean(R);
  EXPECT_EQ(apistamp::test::splitLines(R.Out),
            loggerLines(R, {"helper.a", "x", "helper.b"}));
}

//===----------------------------------------------------------------------===//
// The runtime under failure (issue 24)
//===----------------------------------------------------------------------===//

// Item 19: a relative APISTAMP_API_USAGE_LOG is resolved once, at the first
// event; a chdir() afterwards does not move the log.
TEST(Issue24, ARelativeLogIsResolvedOnceAtTheFirstEvent) {
  TempDir Dir;
  std::string First = Dir.file("first"), Second = Dir.file("second");
  ASSERT_EQ(mkdir(First.c_str(), 0700), 0);
  ASSERT_EQ(mkdir(Second.c_str(), 0700), 0);
  ASSERT_EQ(mkdir((First + "/rel").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((Second + "/rel").c_str(), 0700), 0);
  // rel/ exists in both: the log is opened under first/ at the first event,
  // and later events must still go there.
  ProcessResult R = runHelper(
      {"cd:" + First, "a", "cd:" + Second, "log:x", "b", "cd:/", "meta:m"},
      {{"APISTAMP_API_USAGE_LOG", "rel/events.jsonl"}});
  expectClean(R);
  EXPECT_EQ(R.Err, "");
  std::vector<JsonValue> Lines =
      parseJsonLines(apistamp::test::readFile(First + "/rel/events.jsonl"));
  ASSERT_EQ(Lines.size(), 4u);
  EXPECT_EQ(stringField(Lines[3], "event"), "m");
  struct stat St;
  EXPECT_NE(stat((Second + "/rel/events.jsonl").c_str(), &St), 0)
      << "events followed the chdir";
}

/// Checks that \p Text has no partial line: every line parses or is blank
/// (a blanked partial line), and \p Last is the event of the last line.
void expectNoPartialLine(const std::string &Text, const std::string &Last) {
  ASSERT_FALSE(Text.empty());
  EXPECT_EQ(Text.back(), '\n');
  std::vector<std::string> Events;
  for (const std::string &Line : apistamp::test::splitLines(Text)) {
    if (Line.find_first_not_of(' ') == std::string::npos)
      continue;
    JsonValue Value;
    std::string Error;
    EXPECT_TRUE(apistamp::test::parseJson(Line, Value, Error))
        << Error << " in line: " << Line.substr(0, 200) << "..."
        << Line.substr(Line.size() > 200 ? Line.size() - 200 : 0);
    Events.push_back(stringField(Value, "event"));
  }
  ASSERT_FALSE(Events.empty());
  EXPECT_EQ(Events.back(), Last);
}

// Item 20: a write cut short (here by a file size limit) leaves no partial
// line for the next event to be glued to.
TEST(Issue24, AShortWriteLeavesNoPartialLine) {
  TempDir Dir;
  std::string Log = Dir.file("events.jsonl");
  std::string Long(600, 'p');
  ProcessResult R =
      runHelper({"a", "fsize:+100", "log:" + Long, "fsize:max", "log:after"},
                {{"APISTAMP_API_USAGE_LOG", Log}});
  expectClean(R);
  EXPECT_EQ(apistamp::test::countOccurrences(R.Err, "apistamp: "), 1u) << R.Err;
  std::string Text = apistamp::test::readFile(Log);
  expectNoPartialLine(Text, "after");
  EXPECT_EQ(Text.find(Long.substr(0, 50)), std::string::npos);
}

// Item 20: the same on a real full file system (a 64 KiB tmpfs): root only.
TEST(Issue24, AFullFileSystemLeavesNoPartialLine) {
  TempDir Dir;
  std::string Mount = Dir.file("tmpfs");
  ASSERT_EQ(mkdir(Mount.c_str(), 0700), 0);
  if (mount("apistamp-test", Mount.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs (needs root): "
                 << std::strerror(errno);
  std::string Log = Mount + "/events.jsonl";
  ProcessResult R = runHelper({"a"}, {{"APISTAMP_API_USAGE_LOG", Log}});
  expectClean(R);
  // Fill the rest of the file system.
  std::string Filler = Mount + "/filler";
  int Fd = open(Filler.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_GE(Fd, 0);
  std::string Block(4096, 'f');
  while (write(Fd, Block.data(), Block.size()) > 0) {
  }
  while (write(Fd, Block.data(), 1) > 0) {
  }
  close(Fd);
  // The log's last page has room for part of this line only.
  std::string Long(6000, 'p');
  R = runHelper({"log:" + Long}, {{"APISTAMP_API_USAGE_LOG", Log}});
  expectClean(R);
  EXPECT_NE(R.Err.find("apistamp: cannot write"), std::string::npos) << R.Err;
  unlink(Filler.c_str());
  R = runHelper({"log:after"}, {{"APISTAMP_API_USAGE_LOG", Log}});
  expectClean(R);
  std::string Text = apistamp::test::readFile(Log);
  umount2(Mount.c_str(), MNT_DETACH);
  expectNoPartialLine(Text, "after");
}

// Item 23: a child forked while another thread writes a line does not
// inherit the log's descriptor.
TEST(Issue24, AChildForkedDuringAWriteHasNoDescriptorOfTheLog) {
  TempDir Dir;
  std::string Fifo = Dir.file("fifo");
  ASSERT_EQ(mkfifo(Fifo.c_str(), 0600), 0);
  int Reader = open(Fifo.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(Reader, 0);
  // Fill the pipe, so that the helper's write blocks with the log open.
  int Filler = open(Fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(Filler, 0);
  std::string Block(4096, 'f');
  while (write(Filler, Block.data(), Block.size()) > 0) {
  }
  while (write(Filler, Block.data(), 1) > 0) {
  }
  close(Filler);
  std::atomic<bool> Stop{false};
  std::thread Drain([&] {
    // Drain only once the helper has forked.
    struct stat St;
    while (!Stop && stat((Fifo + ".forked").c_str(), &St) != 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    char Buffer[4096];
    while (!Stop) {
      struct pollfd Poll = {Reader, POLLIN, 0};
      if (poll(&Poll, 1, 50) > 0 && read(Reader, Buffer, sizeof(Buffer)) < 0)
        break;
    }
  });
  ProcessResult R =
      runHelper({"fork-during-write"}, {{"APISTAMP_API_USAGE_LOG", Fifo}});
  Stop = true;
  Drain.join();
  close(Reader);
  expectClean(R);
  EXPECT_NE(R.Out.find("child-fds clean"), std::string::npos) << R.Out;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define APISTAMP_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define APISTAMP_TEST_SANITIZED 1
#endif
#endif

/// The number of system calls a helper run with \p Steps makes (strace).
long countSystemCalls(const std::vector<std::string> &Steps,
                      const std::string &Log) {
  TempDir Dir;
  ProcessOptions Options;
  Options.Args = {
      "/usr/bin/strace",           "-f", "-qq", "-o", Dir.file("trace"),
      apistamp::test::helperPath()};
  Options.Args.insert(Options.Args.end(), Steps.begin(), Steps.end());
  Options.Env = {{"APISTAMP_API_USAGE_LOG", Log}};
  ProcessResult R = apistamp::test::runProcess(Options);
  if (R.ExitCode != 0)
    return -1;
  return static_cast<long>(
      apistamp::test::splitLines(apistamp::test::readFile(Dir.file("trace")))
          .size());
}

// Item 23: an event to a regular JSON-lines file costs 4 system calls
// (open, fstat, write, close); it cost 7 (two fcntl and a getpid more).
TEST(Issue24, AJsonLineCostsFourSystemCalls) {
#ifdef APISTAMP_TEST_SANITIZED
  GTEST_SKIP() << "sanitizers make system calls of their own";
#endif
  if (access("/usr/bin/strace", X_OK) != 0)
    GTEST_SKIP() << "no /usr/bin/strace";
  TempDir Dir;
  std::vector<std::string> One = {"log:first"}, Many = One;
  for (int I = 0; I < 20; ++I)
    Many.push_back("log:e" + std::to_string(I));
  long Base = countSystemCalls(One, Dir.file("one.jsonl"));
  long More = countSystemCalls(Many, Dir.file("many.jsonl"));
  if (Base < 0 || More < 0)
    GTEST_SKIP() << "strace does not run here (ptrace not permitted?)";
  EXPECT_LE(More - Base, 20 * 4) << "system calls for 20 more events";
}

TEST(Failures, AThrowingLoggerIsReportedOnceAndIgnored) {
  ProcessResult R = runHelper({"a", "install-throwing", "log:x", "b"});
  expectClean(R);
  EXPECT_EQ(R.Out, "done " + pidOf(R) + "\n");
  EXPECT_EQ(apistamp::test::countOccurrences(R.Err, "apistamp: "), 1u) << R.Err;
  EXPECT_NE(R.Err.find("logger failed on helper.a"), std::string::npos)
      << R.Err;
}

//===----------------------------------------------------------------------===//
// c10's surface beyond single events: DDP records
//===----------------------------------------------------------------------===//

TEST(DDPUsage, RecordsBeforeTheFirstLoggerAreHandedToIt) {
  ProcessResult R = runHelper({"ddp", "a", "ddp", "install", "ddp"},
                              {{"PYTORCH_API_USAGE_STDERR", "1"}});
  expectClean(R);
  EXPECT_EQ(
      apistamp::test::splitLines(R.Out),
      loggerLines(R, {"helper.a", "ddp gloo 2", "ddp gloo 2", "ddp gloo 2"}));
  // c10 prints no DDP record on stderr, with or without a logger.
  EXPECT_EQ(R.Err, "PYTORCH_API_USAGE helper.a\n");
}

// The line the c10 bridge writes for a c10::LogPyTorchDDPUsage record
// (C10BridgeTest.cpp, Linked.TheRuntimeAndTheBridgeWriteOneDDPShape).
TEST(DDPUsage, EveryRecordIsOneLineInTheBridgesShape) {
  TempDir Dir;
  std::string Log = Dir.file("events.jsonl");
  ProcessResult R = runHelper(
      {"ddp", "a", "ddp", "install", "ddp"},
      {{"APISTAMP_API_USAGE_LOG", Log}, {"RANK", "1"}, {"SLURM_JOB_ID", "j1"}});
  expectClean(R);
  std::vector<JsonValue> Lines = parseJsonLines(apistamp::test::readFile(Log));
  ASSERT_EQ(Lines.size(), 4u) << "every record is a line, not once per name";
  std::vector<std::string> Events;
  for (const JsonValue &Line : Lines) {
    std::string Event = stringField(Line, "event");
    Events.push_back(Event);
    if (Event != "c10.ddp_usage")
      continue;
    EXPECT_EQ(Line.keys(),
              (std::vector<std::string>{"event", "time", "pid", "host", "exe",
                                        "rank", "job_id", "ddp"}));
    EXPECT_EQ(Line.get("pid")->Text, pidOf(R));
    EXPECT_EQ(Line.get("rank")->Text, "1");
    EXPECT_EQ(stringField(Line, "job_id"), "j1");
    const JsonValue *Ddp = Line.get("ddp");
    ASSERT_NE(Ddp, nullptr);
    EXPECT_EQ(Ddp->keys(), (std::vector<std::string>{"strs", "ints"}));
    const JsonValue *Strs = Ddp->get("strs");
    const JsonValue *Ints = Ddp->get("ints");
    ASSERT_TRUE(Strs && Ints);
    EXPECT_EQ(Strs->keys(),
              (std::vector<std::string>{"backend_name", "module_name"}));
    EXPECT_EQ(stringField(*Strs, "module_name"), "Net \"q\"");
    EXPECT_EQ(Ints->keys(), (std::vector<std::string>{"rank", "world_size"}));
    ASSERT_NE(Ints->get("rank"), nullptr);
    EXPECT_EQ(Ints->get("rank")->K, JsonValue::Number);
    EXPECT_EQ(Ints->get("rank")->Text, "-1");
    EXPECT_EQ(Ints->get("world_size")->Text, "2");
  }
  EXPECT_EQ(Events,
            (std::vector<std::string>{"c10.ddp_usage", "helper.a",
                                      "c10.ddp_usage", "c10.ddp_usage"}));
}

// As the bridge's: a record too long for a pipe keeps the line's fields and
// loses its "ddp" member.
TEST(DDPUsage, ALineTooLongForAPipeDropsItsData) {
  TempDir Dir;
  std::string Fifo = Dir.file("fifo");
  ASSERT_EQ(mkfifo(Fifo.c_str(), 0600), 0);
  ProcessResult R;
  std::string Received = apistamp::test::readFifoWhile(Fifo, [&] {
    R = runHelper({"ddp:big", "ddp"}, {{"APISTAMP_API_USAGE_LOG", Fifo}});
  });
  expectClean(R);
  for (const std::string &Line : apistamp::test::splitLines(Received))
    EXPECT_LE(Line.size() + 1, static_cast<std::size_t>(PIPE_BUF));
  std::vector<JsonValue> Lines = parseJsonLines(Received);
  ASSERT_EQ(Lines.size(), 2u);
  EXPECT_EQ(Lines[0].keys(),
            (std::vector<std::string>{"event", "time", "pid", "host", "exe",
                                      "rank", "job_id", "truncated"}));
  EXPECT_EQ(stringField(Lines[0], "event"), "c10.ddp_usage");
  EXPECT_NE(Lines[1].get("ddp"), nullptr);
  EXPECT_EQ(Lines[1].get("truncated"), nullptr);
}

//===----------------------------------------------------------------------===//
// c10's SetGlobalRank
//===----------------------------------------------------------------------===//

/// "<event> <rank>" for each line of \p Log, the rank as its JSON text.
std::vector<std::string> eventsAndRanks(const std::string &Log) {
  std::vector<std::string> Out;
  for (const JsonValue &Line : parseJsonLines(apistamp::test::readFile(Log))) {
    const JsonValue *Rank = Line.get("rank");
    std::string Text = !Rank                          ? "<missing>"
                       : Rank->K == JsonValue::Null   ? "null"
                       : Rank->K == JsonValue::String ? "\"" + Rank->Text + "\""
                                                      : Rank->Text;
    Out.push_back(stringField(Line, "event") + " " + Text);
  }
  return Out;
}

// Precedence: the rank set by SetGlobalRank, else RANK, else LOCAL_RANK,
// else null; -1 (c10's "no rank") goes back to the environment's.
TEST(GlobalRank, TheSetRankOverridesTheEnvironmentFromThenOn) {
  TempDir Dir;
  std::string Log = Dir.file("events.jsonl");
  ProcessResult R = runHelper(
      {"a", "rank:7", "log:x", "meta:m", "ddp", "rank:-1", "log:y", "rank:0",
       "fork", "log:z"},
      {{"APISTAMP_API_USAGE_LOG", Log}, {"RANK", "5"}, {"LOCAL_RANK", "1"}});
  expectClean(R);
  // The forked child keeps the rank its parent set.
  EXPECT_EQ(eventsAndRanks(Log),
            (std::vector<std::string>{"helper.a 5", "x 7", "m 7",
                                      "c10.ddp_usage 7", "y 5", "z 0", "z 0"}));
}

TEST(GlobalRank, ARankSetBeforeTheFirstEventOrWithoutAnEnvironmentCounts) {
  TempDir Dir;
  std::string Log = Dir.file("events.jsonl");
  ProcessResult R =
      runHelper({"rank:2", "a", "rank:-1", "log:x"},
                {{"APISTAMP_API_USAGE_LOG", Log}, {"RANK", "worker-5"}});
  expectClean(R);
  EXPECT_EQ(eventsAndRanks(Log),
            (std::vector<std::string>{"helper.a 2", "x \"worker-5\""}));
  std::string Bare = Dir.file("bare.jsonl");
  R = runHelper({"a", "rank:12", "log:x"}, {{"APISTAMP_API_USAGE_LOG", Bare}});
  expectClean(R);
  EXPECT_EQ(eventsAndRanks(Bare),
            (std::vector<std::string>{"helper.a null", "x 12"}));
}

} // namespace

// Issue 44, F10: a set-user-ID program takes its environment from its
// caller. The runtime reads it with secure_getenv: a user cannot make it
// create a log where the program's owner may write and they may not. As
// root: a copy of the helper owned by nobody, set-user-ID; the directory
// writable by anyone, so that only the environment decides.
TEST(Issue44, ASetUserIdProgramIgnoresTheCallersEnvironment) {
#ifdef APISTAMP_TEST_SANITIZED
  // LeakSanitizer cannot run in a set-user-ID process (it needs ptrace),
  // and ignores ASAN_OPTIONS there: the plain build runs this test.
  GTEST_SKIP() << "a sanitized set-user-ID program cannot exit cleanly";
#endif
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root (to make a set-user-ID copy owned by nobody)";
  TempDir Dir;
  ASSERT_EQ(chmod(Dir.file("").c_str(), 0777), 0);
  std::string Copy = Dir.file("setuid-helper");
  std::string Bytes = apistamp::test::readFile(apistamp::test::helperPath());
  ASSERT_FALSE(Bytes.empty());
  int Fd = open(Copy.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0755);
  ASSERT_GE(Fd, 0);
  ASSERT_EQ(write(Fd, Bytes.data(), Bytes.size()), ssize_t(Bytes.size()));
  close(Fd);
  const uid_t Nobody = 65534;
  ASSERT_EQ(chown(Copy.c_str(), Nobody, Nobody), 0);
  ASSERT_EQ(chmod(Copy.c_str(), 04755), 0);
  std::string Log = Dir.file("chosen-by-the-caller.jsonl");
  ProcessOptions Options;
  Options.Args = {Copy, "a"};
  Options.Env = {{"APISTAMP_API_USAGE_LOG", Log}};
  ProcessResult R = apistamp::test::runProcess(Options);
  expectClean(R);
  struct stat Status;
  EXPECT_NE(stat(Log.c_str(), &Status), 0)
      << "the set-user-ID program created the log its caller named";
  // The same program without the bit writes it: the test can fail.
  ASSERT_EQ(chmod(Copy.c_str(), 0755), 0);
  expectClean(apistamp::test::runProcess(Options));
  EXPECT_EQ(stat(Log.c_str(), &Status), 0);
}

// Issue 44, F11: a symbolic link planted at the log's path (in a shared,
// group-writable log directory) is not followed: the file it points to is
// untouched, and the failure is said once. /dev/stderr, a link of the
// system's, is followed (Failures.AClosedPipeDoesNotKillWithSigpipe).
TEST(Issue44, ASymbolicLinkAtTheLogPathIsNotFollowed) {
  TempDir Dir;
  std::string Victim = Dir.file("victim.txt");
  {
    int Fd = open(Victim.c_str(), O_WRONLY | O_CREAT, 0600);
    ASSERT_GE(Fd, 0);
    ASSERT_EQ(write(Fd, "precious\n", 9), 9);
    close(Fd);
  }
  std::string Log = Dir.file("81723-0.jsonl");
  ASSERT_EQ(symlink(Victim.c_str(), Log.c_str()), 0);
  ProcessResult R =
      runHelper({"a", "log:x"}, {{"APISTAMP_API_USAGE_LOG", Log}});
  expectClean(R);
  EXPECT_EQ(apistamp::test::readFile(Victim), "precious\n");
  EXPECT_EQ(apistamp::test::countOccurrences(R.Err, "apistamp: "), 1u) << R.Err;
}

// Issue 44, F17: the log cannot be opened at the first event for a passing
// reason (every descriptor taken: EMFILE); it is said once, and the events
// after the descriptors are free again reach the log.
TEST(Issue44, APassingFailureAtTheFirstEventDoesNotTurnTheLogOff) {
  TempDir Dir;
  std::string Log = Dir.file("events.jsonl");
  ProcessResult R =
      runHelper({"fds:exhaust", "log:during", "fds:release", "log:after", "a"},
                {{"APISTAMP_API_USAGE_LOG", Log}});
  expectClean(R);
  EXPECT_EQ(apistamp::test::countOccurrences(R.Err, "apistamp: "), 1u) << R.Err;
  EXPECT_NE(R.Err.find("trying again at each event"), std::string::npos)
      << R.Err;
  std::vector<std::string> Events;
  for (const JsonValue &Line : parseJsonLines(apistamp::test::readFile(Log)))
    Events.push_back(stringField(Line, "event"));
  EXPECT_EQ(Events, (std::vector<std::string>{"after", "helper.a"}));
}

// Issue 44, F09: the log is a FIFO whose reader stopped reading (the pipe
// full): a line waits for room a while, then the program goes on; later
// lines are dropped at once until the reader reads again. The writes
// blocked, and the program hung in its API calls for as long as the reader
// stalled. Said once.
TEST(Issue44, AStalledPipeReaderDoesNotHangTheProgram) {
  TempDir Dir;
  std::string Fifo = Dir.file("fifo");
  ASSERT_EQ(mkfifo(Fifo.c_str(), 0600), 0);
  int Reader = open(Fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(Reader, 0);
  ProcessResult R = runHelper({"flood:3000:100:2", "log:after"},
                              {{"APISTAMP_API_USAGE_LOG", Fifo}});
  close(Reader);
  expectClean(R);
  EXPECT_EQ(apistamp::test::countOccurrences(R.Err, "apistamp: "), 1u) << R.Err;
  EXPECT_NE(R.Err.find("its reader does not read"), std::string::npos) << R.Err;
}
