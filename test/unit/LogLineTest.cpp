//===- LogLineTest.cpp - The fast log line parser agrees with simdjson ----===//

#include "usage/LogLine.h"
#include "gmock/gmock.h"
#include <algorithm>
#include <random>
#include <vector>

using namespace apistamp;

namespace {

/// A line in a buffer whose padding is full of '"' and '}': a parser that
/// reads past the line's end and uses what it finds there fails the tests.
struct PaddedLine {
  explicit PaddedLine(const std::string &Line)
      : Buffer(Line + std::string(LogLinePadding, '"')), Length(Line.size()) {
    for (size_t I = Length; I < Buffer.size(); I += 3)
      Buffer[I] = '}';
  }
  const char *data() const { return Buffer.data(); }
  std::string Buffer;
  size_t Length;
};

LogLineParser &validatingParser() {
  static LogLineParser Parser;
  return Parser;
}

bool fast(const std::string &Line, LogLine &Out) {
  PaddedLine P(Line);
  return parseRuntimeLogLine(P.data(), P.Length, Out);
}

LogLineError slow(const std::string &Line, LogLine &Out) {
  PaddedLine P(Line);
  return validatingParser().parse(P.data(), P.Length, P.Buffer.size(), Out);
}

/// Compares the two parsers on \p Line: whenever the fast one answers, the
/// validating one agrees. Returns whether the fast one answered.
bool agree(const std::string &Line) {
  PaddedLine P(Line);
  LogLine Fast, Slow;
  if (!parseRuntimeLogLine(P.data(), P.Length, Fast))
    return false;
  EXPECT_EQ(validatingParser().parse(P.data(), P.Length, P.Buffer.size(), Slow),
            LogLineError::None)
      << Line;
  EXPECT_EQ(Fast.Event, Slow.Event) << Line;
  EXPECT_EQ(Fast.Time, Slow.Time) << Line;
  EXPECT_EQ(Fast.Host, Slow.Host) << Line;
  EXPECT_EQ(Fast.Exe, Slow.Exe) << Line;
  EXPECT_EQ(Fast.Job, Slow.Job) << Line;
  EXPECT_EQ(Fast.Pid, Slow.Pid) << Line;
  EXPECT_EQ(Fast.HasJob, Slow.HasJob) << Line;
  return true;
}

/// A line's values as JSON text, in the runtime's order; by default a
/// line the fast path takes.
struct Fields {
  std::string Event = "\"a\"", Time = "\"2026-11-23\"", Pid = "1",
              Host = "\"h\"", Exe = "\"e\"", Rank = "null", Job = "null";

  std::string line() const {
    return "{\"event\":" + Event + ",\"time\":" + Time + ",\"pid\":" + Pid +
           ",\"host\":" + Host + ",\"exe\":" + Exe + ",\"rank\":" + Rank +
           ",\"job_id\":" + Job + "}";
  }
};

/// The default line with one field's value replaced.
std::string lineWith(std::string Fields::*Field, std::string Value) {
  Fields F;
  F.*Field = std::move(Value);
  return F.line();
}

TEST(LogLineTest, TheRuntimesLinesTakeTheFastPath) {
  const std::string Lines[] = {
      Fields{"\"torchvision.csrc.ops.nms.nms\"",
             "\"2026-11-23T08:01:02.123456Z\"", "2052328",
             "\"node0132.example.org\"", "\"/opt/app/bin/server\"", "1",
             "\"0b8c0e27-run\""}
          .line(),
      Fields().line(),
      Fields{"\"lib.x\"", "\"2026-11-23T00:00:00Z\"", "-7", "\"\"",
             "\"/usr/bin/caf\xc3\xa9\"", "\"rank-a\"", "\"12345\""}
          .line(),
      Fields{"\"lib.\xe6\x97\xa5\"", "\"2026-11-23T00:00:00Z\"",
             "999999999999999999", "null", "null", "-3", "\"j\""}
          .line(),
  };
  for (const std::string &Line : Lines)
    EXPECT_TRUE(agree(Line)) << Line;
  LogLine Out;
  ASSERT_TRUE(fast(Lines[1], Out));
  EXPECT_FALSE(Out.HasJob);
  ASSERT_TRUE(fast(Lines[0], Out));
  EXPECT_TRUE(Out.HasJob);
  EXPECT_EQ(Out.Pid, 2052328);
}

TEST(LogLineTest, LinesTheFastPathLeavesToSimdjson) {
  struct Case {
    std::string Line;
    LogLineError Slow;
  } Cases[] = {
      // Valid, but not the runtime's exact shape.
      {lineWith(&Fields::Job, "7"), LogLineError::None},
      {lineWith(&Fields::Event, "\"a\\u0041\""), LogLineError::None},
      {lineWith(&Fields::Pid, "1234567890123456789"), LogLineError::None},
      {lineWith(&Fields::Rank, "1.5"), LogLineError::None},
      {"{\"event\": \"a\",\"time\":\"2026-11-23\",\"pid\":1}",
       LogLineError::None},
      // Not valid.
      {lineWith(&Fields::Pid, "01"), LogLineError::NotJson},
      {lineWith(&Fields::Host, "\"\xff\""), LogLineError::NotJson},
      {lineWith(&Fields::Host, "\"h\te\""), LogLineError::NotJson},
      {lineWith(&Fields::Event, "\"\""), LogLineError::BadEvent},
      {lineWith(&Fields::Time, "\"yesterday\""), LogLineError::TimeNotIso},
      {lineWith(&Fields::Pid, "1.0"), LogLineError::BadPid},
      {Fields().line() + "x", LogLineError::NotJson},
      {lineWith(&Fields::Rank, "nul"), LogLineError::NotJson},
  };
  for (const Case &C : Cases) {
    LogLine Out;
    EXPECT_FALSE(fast(C.Line, Out)) << C.Line;
    EXPECT_EQ(slow(C.Line, Out), C.Slow) << C.Line;
  }
}

/// A value for a field: half the time \p Good (what the runtime writes
/// there), otherwise anything from the lists below.
std::string randomValue(std::mt19937 &Random, const char *Good, bool Numeric) {
  if (Random() % 2)
    return Good;
  static const char *Strings[] = {"\"lib.x\"",
                                  "\"2026-11-23T08:01:02Z\"",
                                  "\"2026-11-23\"",
                                  "\"h\"",
                                  "\"\"",
                                  "\"caf\xc3\xa9\"",
                                  "\"\\\"q\\\"\"",
                                  "\"a\\\\b\"",
                                  "\"\\u00e9\"",
                                  "\"\xc3\"",
                                  "\"x\x01y\"",
                                  "\"yesterday\"",
                                  "\"2026-11\"",
                                  "\"2026-11-20 00:00:00\"",
                                  "\"\xf0\x9f\x98\x80\""};
  static const char *Others[] = {"null", "0",
                                 "-0",   "7",
                                 "01",   "-",
                                 "1.5",  "1e3",
                                 "true", "[]",
                                 "{}",   "12345678901234567890",
                                 "-12",  "999999999999999999",
                                 "nul"};
  bool PickNumber = Numeric ? Random() % 4 != 0 : Random() % 4 == 0;
  if (PickNumber)
    return Others[Random() % std::size(Others)];
  return Strings[Random() % std::size(Strings)];
}

std::string randomLine(std::mt19937 &Random) {
  std::string Line =
      Fields{randomValue(Random, "\"lib.x\"", false),
             randomValue(Random, "\"2026-11-23T08:01:02Z\"", false),
             randomValue(Random, "4242", true),
             randomValue(Random, "\"h\"", false),
             randomValue(Random, "\"/bin/t\"", false),
             randomValue(Random, "3", true),
             randomValue(Random, "\"job\"", false)}
          .line();
  // Mutations: a byte changed, removed or added, the line cut short.
  static const char Specials[] = "\"\\{}[],: \t\x01\x7f\x80\xff"
                                 "0a-";
  unsigned Mutations = Random() % 3;
  for (unsigned I = 0; I < Mutations && !Line.empty(); ++I) {
    size_t At = Random() % Line.size();
    char Byte = Specials[Random() % (sizeof(Specials) - 1)];
    switch (Random() % 4) {
    case 0:
      Line[At] = Byte;
      break;
    case 1:
      Line.erase(At, 1);
      break;
    case 2:
      Line.insert(Line.begin() + At, Byte);
      break;
    case 3:
      Line.resize(At);
      break;
    }
  }
  return Line;
}

TEST(LogLineTest, FastAndValidatingParsersAgreeOnRandomAndMutatedLines) {
  std::mt19937 Random(20261123);
  unsigned Fast = 0, Total = 200000;
  for (unsigned I = 0; I < Total; ++I)
    Fast += agree(randomLine(Random));
  // Both paths were exercised.
  EXPECT_GT(Fast, Total / 50);
  EXPECT_LT(Fast, Total / 2);
}

void expectSameFields(const LogLine &Fast, const LogLine &Slow,
                      const std::string &Line) {
  EXPECT_EQ(Fast.Event, Slow.Event) << Line;
  EXPECT_EQ(Fast.Time, Slow.Time) << Line;
  EXPECT_EQ(Fast.Host, Slow.Host) << Line;
  EXPECT_EQ(Fast.Exe, Slow.Exe) << Line;
  EXPECT_EQ(Fast.Job, Slow.Job) << Line;
  EXPECT_EQ(Fast.Pid, Slow.Pid) << Line;
  EXPECT_EQ(Fast.HasJob, Slow.HasJob) << Line;
}

/// Compares \p Any (whose shapes persist from line to line) and the scan
/// alone with the validating parser on \p Line: whenever they accept, the
/// validating parser accepts with the same fields, and the shapes accept
/// exactly what the scan does; with \p AsKnown, parseKnownShape too.
/// Returns whether they accepted.
bool anyOrderAgrees(AnyOrderLogParser &Any, const std::string &Line,
                    bool AsKnown = true) {
  PaddedLine P(Line);
  LogLine Shaped, Scanned, Slow;
  bool ShapedOk = Any.parse(P.data(), P.Length, Shaped);
  bool ScannedOk = parseAnyOrderLogLine(P.data(), P.Length, Scanned);
  LogLineError Error =
      validatingParser().parse(P.data(), P.Length, P.Buffer.size(), Slow);
  EXPECT_EQ(ShapedOk, ScannedOk) << Line;
  if (ShapedOk || ScannedOk)
    EXPECT_EQ(Error, LogLineError::None) << Line;
  if (ShapedOk)
    expectSameFields(Shaped, Slow, Line);
  if (ScannedOk)
    expectSameFields(Scanned, Slow, Line);
  // Where lines follow each other, a line of a known shape is taken with
  // its length; any other is left to parse. A line is a known shape's
  // only when parse takes it.
  for (const char *Next : {"\n{\"x\": 1}\n", "\r\n", "\n", " \n", "x"}) {
    if (!AsKnown)
      break;
    PaddedLine Lines(Line + Next);
    LogLine Known;
    ProcessKeys *Keys;
    size_t Length =
        Any.parseKnownShape(Lines.data(), Lines.Length, Known, Keys);
    Any.forgetLines(); // Lines is gone after this step.
    if (!Length)
      continue;
    EXPECT_EQ(Length, Line.size()) << Line;
    EXPECT_EQ(Next[0], '\n') << Line;
    EXPECT_TRUE(ShapedOk) << Line;
    if (ShapedOk)
      expectSameFields(Known, Slow, Line);
  }
  return ShapedOk;
}

/// A line's members as JSON text, in their order, joined as a log
/// collector might.
struct Members {
  std::vector<std::pair<std::string, std::string>> List;
  std::string Colon = ": ", Comma = ", ";

  std::string line() const {
    std::string Line = "{";
    for (size_t I = 0; I < List.size(); ++I)
      Line += (I ? Comma : "") + List[I].first + Colon + List[I].second;
    return Line + "}";
  }
};

/// The needed members of a collector's line, valid, and some others.
Members collectorMembers(unsigned Process = 0) {
  std::string N = std::to_string(Process);
  return {{{"\"@timestamp\"", "\"2026-11-13T14:47:18.035804Z\""},
           {"\"kubernetes\"", "{\"namespace\": \"ml\", \"pod\": \"train-" + N +
                                  "\", \"labels\": {\"team\": \"vision\"}}"},
           {"\"stream\"", "\"stderr\""},
           {"\"job_id\"", "\"0b8c0e27-f693-run\""},
           {"\"host\"", "\"node0132.cluster.example.org\""},
           {"\"event\"", "\"caffe2.models.nms.420\""},
           {"\"time\"", "\"2026-11-13T14:47:18.035804Z\""},
           {"\"pid\"", std::to_string(2052328 + Process)},
           {"\"exe\"", "\"/opt/app/bin/inference-server\""},
           {"\"rank\"", N}}};
}

/// Values no needed field holds, to exercise the skipping: strings with
/// escapes and brackets, numbers, literals, nested containers.
const char *const OtherValues[] = {
    "\"a {b} [c] \\\"d\\\" \\\\ e\"",
    "{\"x\": \"}\", \"y\": [\"]\", {\"z\": \"\\\"}\"}]}",
    "[1, -2, 3.25, -0.5, 0, true, false, null, \"s\", [], {}, [[{}]]]",
    "\"caf\\u00e9 \\u65e5 \\/ \\b\\f\\n\\r\\t\"",
    "\"caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x98\x80\"",
    "{\"a\": {\"b\": {\"c\": {\"d\": [1, {\"e\": null}]}}}}",
    "-12.500",
    "{}",
    "\"\"",
};

TEST(LogLineTest, CollectorLinesInAnyOrderTakeTheAnyOrderPath) {
  AnyOrderLogParser Any;
  // Every member in every position (rotations), with each join.
  for (const char *Colon : {":", ": ", " : ", "  :  "})
    for (const char *Comma : {",", ", ", " ,  "}) {
      Members M = collectorMembers();
      M.Colon = Colon;
      M.Comma = Comma;
      for (size_t R = 0; R < M.List.size(); ++R) {
        std::rotate(M.List.begin(), M.List.begin() + 1, M.List.end());
        EXPECT_TRUE(anyOrderAgrees(Any, M.line())) << M.line();
        EXPECT_TRUE(anyOrderAgrees(Any, " " + M.line() + "  ")) << M.line();
      }
    }
  // Other values of other keys, anywhere.
  for (const char *Value : OtherValues)
    for (size_t At = 0; At <= 10; ++At) {
      Members M = collectorMembers();
      M.List.insert(M.List.begin() + At, {"\"other\"", Value});
      EXPECT_TRUE(anyOrderAgrees(Any, M.line())) << M.line();
    }
  // The needed fields' other valid values.
  Members M = collectorMembers();
  M.List[3].second = "null";
  M.List[4].second = "\"\"";
  M.List[8].second = "null";
  M.List[7].second = "-999999999999999999";
  EXPECT_TRUE(anyOrderAgrees(Any, M.line()));
  LogLine Out;
  PaddedLine P(M.line());
  ASSERT_TRUE(Any.parse(P.data(), P.Length, Out));
  EXPECT_FALSE(Out.HasJob);
  EXPECT_EQ(Out.Pid, -999999999999999999);
  // A line of a shape seen before, with other strings and numbers.
  M = collectorMembers(7);
  M.List[5].second = "\"lib.\xe6\x97\xa5\"";
  M.List[1].second = "{\"namespace\": \"\", \"pod\": \"p\", \"labels\": "
                     "{\"team\": \"caf\xc3\xa9\"}}";
  EXPECT_TRUE(anyOrderAgrees(Any, M.line()));
  // The runtime's own shape too.
  EXPECT_TRUE(anyOrderAgrees(Any, Fields().line()));
  // Lines of known shapes one after the other, each taken with its length.
  std::string Lines = collectorMembers(3).line() + "\n" + Fields().line() +
                      "\n" + collectorMembers(5).line() + "\n";
  PaddedLine Buffer(Lines);
  size_t At = 0, Taken = 0;
  while (At < Buffer.Length) {
    ProcessKeys *Keys;
    size_t Length =
        Any.parseKnownShape(Buffer.data() + At, Buffer.Length - At, Out, Keys);
    ASSERT_NE(Length, 0u) << Lines.substr(At);
    EXPECT_EQ(Buffer.data()[At + Length], '\n');
    At += Length + 1;
    ++Taken;
  }
  EXPECT_EQ(Taken, 3u);
  Any.forgetLines();
}

TEST(LogLineTest, LinesTheAnyOrderPathLeavesToSimdjson) {
  auto With = [](size_t Member, std::string Value) {
    Members M = collectorMembers();
    M.List[Member].second = std::move(Value);
    return M.line();
  };
  auto Plus = [](std::string Key, std::string Value) {
    Members M = collectorMembers();
    M.List.push_back({std::move(Key), std::move(Value)});
    return M.line();
  };
  std::string Deep = "1";
  for (int I = 0; I < 20; ++I)
    Deep = "[" + Deep + "]";
  std::string TooDeep = "1";
  for (int I = 0; I < 1100; ++I)
    TooDeep = "[" + TooDeep + "]";
  std::string Line = collectorMembers().line();
  struct Case {
    std::string Line;
    LogLineError Slow;
  } Cases[] = {
      // Valid, but left to simdjson: an escaped needed key or value, a
      // needed key twice, a tab, an exponent, 19 digits, a job id that is
      // a number, deep nesting, a surrogate pair.
      {Plus("\"\\u0065vent\"", "\"e\""), LogLineError::None},
      {With(5, "\"a\\u0041\""), LogLineError::None},
      {Plus("\"pid\"", "7"), LogLineError::None},
      {Plus("\"event\"", "\"other\""), LogLineError::None},
      {Plus("\"x\"", "1e3"), LogLineError::None},
      {Plus("\"x\"", "1234567890123456789"), LogLineError::None},
      {With(3, "12345"), LogLineError::None},
      {Plus("\"x\"", Deep), LogLineError::None},
      {Plus("\"x\"", "\"\\ud83d\\ude00\""), LogLineError::None},
      {"{\t\"event\": \"a\", \"time\": \"2026-11-23\", \"pid\": 1}",
       LogLineError::None},
      // Not valid.
      {Line + "x", LogLineError::NotJson},
      {Line + ",", LogLineError::NotJson},
      {Line.substr(0, Line.size() - 1) + ", }", LogLineError::NotJson},
      {Line.substr(0, Line.size() - 1), LogLineError::NotJson},
      {Plus("\"x\"", "NaN"), LogLineError::NotJson},
      {Plus("\"x\"", "[1, 2, ]"), LogLineError::NotJson},
      {Plus("\"x\"", "{\"a\": 1, }"), LogLineError::NotJson},
      {Plus("\"x\"", "\"\\x\""), LogLineError::NotJson},
      {Plus("\"x\"", "\"\\u12\""), LogLineError::NotJson},
      {Plus("\"x\"", "\"a\x01\""), LogLineError::NotJson},
      {Plus("\"x\"", "\"\xff\""), LogLineError::NotJson},
      {Plus("\"x\"", "\"\xc3\""), LogLineError::NotJson},
      {Plus("\"x\"", "01"), LogLineError::NotJson},
      {Plus("\"x\"", "-"), LogLineError::NotJson},
      {Plus("\"x\"", "1."), LogLineError::NotJson},
      {Plus("\"x\"", "tru"), LogLineError::NotJson},
      {Plus("\"x\"", "{\"a\" 1}"), LogLineError::NotJson},
      {Plus("\"x\"", "{1: 2}"), LogLineError::NotJson},
      {Plus("\"x\"", TooDeep), LogLineError::NotJson},
      {"[" + Line + "]", LogLineError::NotObject},
      {"{}", LogLineError::NoEvent},
      {With(5, "\"\""), LogLineError::BadEvent},
      {With(5, "null"), LogLineError::BadEvent},
      {With(6, "\"yesterday\""), LogLineError::TimeNotIso},
      {With(6, "7"), LogLineError::BadTime},
      {With(7, "1.0"), LogLineError::BadPid},
      {With(7, "\"7\""), LogLineError::BadPid},
      {With(4, "7"), LogLineError::BadHost},
      {With(8, "{}"), LogLineError::BadExe},
      {With(3, "1.5"), LogLineError::BadJob},
      // The DOM parser checks a needed key's every value, keeps the last.
      {Plus("\"pid\"", "\"7\""), LogLineError::BadPid},
  };
  AnyOrderLogParser Any;
  for (const Case &C : Cases) {
    // The shape of a valid line is known: the shapes must refuse too.
    EXPECT_TRUE(anyOrderAgrees(Any, Line));
    LogLine Out;
    PaddedLine P(C.Line);
    EXPECT_FALSE(Any.parse(P.data(), P.Length, Out)) << C.Line;
    EXPECT_FALSE(parseAnyOrderLogLine(P.data(), P.Length, Out)) << C.Line;
    EXPECT_EQ(slow(C.Line, Out), C.Slow) << C.Line;
  }
}

TEST(LogLineTest, ShapesRefuseWhatTheScanRefuses) {
  // A known shape, and lines of it whose holes hold what is not valid or
  // not taken: each is refused, as the scan refuses it.
  const std::pair<size_t, const char *> Holes[] = {
      {5, "\"a\\\"b\""},
      {0, "\"a\x01\""},
      {0, "\"\xc3(\""},
      {0, "\"\xed\xa0\x80\""},
      {5, "\"\""},
      {5, "\"a\\u0041\""},
      {6, "\"2026-11\""},
      {7, "1.5"},
      {7, "1e3"},
      {7, "-"},
      {7, "01"},
      {9, "1.e"},
      {9, "99999999999999999999"},
      {4, "\"h\"x"},
      {6, "\"2026-11-23\" \""},
  };
  for (const auto &[Member, Value] : Holes) {
    AnyOrderLogParser Any;
    EXPECT_TRUE(anyOrderAgrees(Any, collectorMembers().line()));
    Members M = collectorMembers();
    M.List[Member].second = Value;
    EXPECT_FALSE(anyOrderAgrees(Any, M.line())) << M.line();
  }
}

std::string mutated(std::mt19937 &Random, std::string Line, unsigned Mutations);

/// A collector's line of one of a few processes, its members shuffled or
/// not, its values sometimes others, sometimes mutated as randomLine does.
std::string randomCollectorLine(std::mt19937 &Random) {
  Members M = collectorMembers(unsigned(Random() % 4));
  if (Random() % 4 == 0)
    std::shuffle(M.List.begin(), M.List.end(), Random);
  if (Random() % 4 == 0)
    M.Colon = ":", M.Comma = ",";
  for (auto &[Key, Value] : M.List)
    if (Random() % 16 == 0)
      Value = OtherValues[Random() % std::size(OtherValues)];
  if (Random() % 8 == 0) {
    // A needed key twice, or another key.
    static const char *Keys[] = {"\"event\"", "\"time\"", "\"pid\"",
                                 "\"host\"",  "\"exe\"",  "\"job_id\"",
                                 "\"x\""};
    M.List.insert(M.List.begin() + Random() % (M.List.size() + 1),
                  {Keys[Random() % std::size(Keys)],
                   randomValue(Random, "\"2026-11-23\"", Random() % 2)});
  }
  return mutated(Random, M.line(), Random() % 3);
}

/// \p Line with \p Mutations bytes replaced, removed or inserted, or cut.
std::string mutated(std::mt19937 &Random, std::string Line,
                    unsigned Mutations) {
  static const char Specials[] = "\"\\{}[],: \t\x01\x7f\x80\xff"
                                 "0a-.eEu";
  for (unsigned I = 0; I < Mutations && !Line.empty(); ++I) {
    size_t At = Random() % Line.size();
    char Byte = Specials[Random() % (sizeof(Specials) - 1)];
    switch (Random() % 4) {
    case 0:
      Line[At] = Byte;
      break;
    case 1:
      Line.erase(At, 1);
      break;
    case 2:
      Line.insert(Line.begin() + At, Byte);
      break;
    case 3:
      Line.resize(At);
      break;
    }
  }
  return Line;
}

/// A collector's line of process \p Process: its times
/// and event random (of other lengths, sometimes not plain or not valid),
/// its process's members the same on every line of it but for a rare
/// mutation; \p Rank the tail's last value (processes of one rank share
/// the tail that chooses the line a line follows).
std::string followedLine(std::mt19937 &Random, unsigned Process,
                         unsigned Rank) {
  Members M = collectorMembers(Process);
  static const char *Events[] = {"\"a\"",
                                 "\"caffe2.models.nms.420\"",
                                 "\"at.cuda.view.307\"",
                                 "\"torch.nn.conv2d.12345678901234567890\"",
                                 "\"lib.\xe6\x97\xa5\"",
                                 "\"a\\\"b\"",
                                 "\"\"",
                                 "\"x\x01\"",
                                 "\"\xc3(\"",
                                 "null",
                                 "\"\xf0\x9f\x98\x80.e\""};
  static const char *Times[] = {"\"2026-11-13T14:47:18.035804Z\"",
                                "\"2026-11-13T14:47:19.5Z\"",
                                "\"2026-11-14\"",
                                "\"2026-11-13T14:47:18.035804Z\"",
                                "\"yesterday\"",
                                "\"2026-11-13T14:47:2\\u0030Z\""};
  // Mostly good values: the rare others exercise the refusals.
  auto Pick = [&](const auto &Values) {
    return Random() % 8 ? Values[Random() % 4]
                        : Values[Random() % std::size(Values)];
  };
  M.List[0].second = Pick(Times);
  M.List[5].second = Pick(Events);
  M.List[6].second = Pick(Times);
  M.List[9].second = std::to_string(Rank);
  if (Random() % 64 == 0)
    M.List[7].second = Random() % 2 ? "1.5" : "-12";
  return mutated(Random, M.line(), Random() % 32 == 0);
}

/// Reads random followed lines one after the other in a buffer, as
/// LineReader reads them, with templates fitted as two segments or not,
/// and checks every line taken against the validating parser; returns the
/// lines taken as segments.
uint64_t expectFollowedLinesAgree(bool Segments) {
  // parseKnownShape where it answers, else parse. Runs of a few processes
  // (each line mostly follows its process's last one), then of many that
  // share their tails (it mostly does not), then a few again.
  std::mt19937 Random(20261125);
  std::string Text;
  for (unsigned Run = 0; Run < 3; ++Run) {
    unsigned Processes = Run == 1 ? 200 : 5;
    for (unsigned I = 0; I < 30000; ++I) {
      unsigned Process = Random() % Processes;
      Text += followedLine(Random, Process, Process % 5) + "\n";
    }
  }
  PaddedLine Buffer(Text);
  AnyOrderLogParser Any;
  Any.fitSegments(Segments);
  // Kept keys are hashed here from what the reader hashes them from: the
  // host, exe, pid and job_id (a parser may copy them).
  auto Hashes = [](const LogLine &L) {
    std::string Of = std::string(L.Host) + '\0' + std::string(L.Exe) + '\0' +
                     std::to_string(L.Pid) + '\0' + std::string(L.Job) +
                     (L.HasJob ? "\1" : "\0");
    uint64_t H = std::hash<std::string>()(Of);
    return ProcessKeys{H, H ^ 0x9E3779B97F4A7C15ULL, ~H, /*Known=*/true};
  };
  unsigned Known = 0, Followed = 0, Lines = 0;
  for (size_t At = 0; At < Buffer.Length; ++Lines) {
    // A window's end: the lines before may be gone.
    if (Lines % 7000 == 0)
      Any.forgetLines();
    const char *Line = Buffer.data() + At;
    LogLine Fast, Slow;
    ProcessKeys *Keys = nullptr;
    size_t Length =
        Any.knowsShapes()
            ? Any.parseKnownShape(Line, Buffer.Length - At, Fast, Keys)
            : 0;
    size_t End = Text.find('\n', At);
    std::string Own = Text.substr(At, End - At);
    if (!Length) {
      anyOrderAgrees(Any, Own, /*AsKnown=*/false);
      At = End + 1;
      continue;
    }
    ++Known;
    EXPECT_EQ(Length, Own.size()) << Own;
    EXPECT_EQ(slow(Own, Slow), LogLineError::None) << Own;
    expectSameFields(Fast, Slow, Own);
    LogLine Scanned;
    PaddedLine P(Own);
    EXPECT_TRUE(parseAnyOrderLogLine(P.data(), P.Length, Scanned)) << Own;
    ProcessKeys Of = Hashes(Slow);
    if (Keys && Keys->Known) {
      ++Followed;
      EXPECT_TRUE(Keys->Host == Of.Host && Keys->Process == Of.Process &&
                  Keys->Job == Of.Job)
          << Own;
    } else if (Keys) {
      *Keys = Of;
    }
    At += Length + 1;
  }
  // Every path was taken: the shapes, and lines following their process's.
  EXPECT_GT(Known, Lines / 2);
  EXPECT_GT(Followed, Lines / 4);
  EXPECT_LT(Followed, Known);
  return Any.segmentFits();
}

TEST(LogLineTest, FollowedLinesAgreeWithTheValidatingParser) {
  EXPECT_EQ(expectFollowedLinesAgree(/*Segments=*/false), 0u);
}

TEST(LogLineTest, FollowedLinesAgreeWithTheValidatingParserAsSegments) {
  if (!AnyOrderLogParser::cpuFitsSegments())
    GTEST_SKIP() << "no AVX2 here: templates are fitted run by run";
  // Most lines of the runs of few processes fit their template as two
  // segments; the others (a time or event of another length, a byte not
  // plain, a mutation) are left to the run-by-run fit or the shapes.
  EXPECT_GT(expectFollowedLinesAgree(/*Segments=*/true), 2000u);
}

/// Checks that the lines of one process whose template's @timestamp,
/// event and time vary are taken as segments when they differ from it in
/// those holes only, and refused otherwise; \p Pad, when not empty, is
/// the value of a member before @timestamp and of one between the event
/// and the time, to move their holes.
void expectSegmentsTakeOnlyPlainHoles(const std::string &Pad) {
  SCOPED_TRACE("pad of " + std::to_string(Pad.size()) + " bytes");
  // Each line of the others follows three plain ones.
  auto Line = [&](const std::string &Stamp, const std::string &Event) {
    std::string Before = Pad.empty() ? "" : "\"a\": \"" + Pad + "\", ";
    std::string After = Pad.empty() ? "" : ", \"b\": \"" + Pad + "\"";
    return "{" + Before + "\"@timestamp\": \"" + Stamp +
           "\", \"kubernetes\": {\"pod\": \"train-0-1\"}, \"job_id\": "
           "\"j1\", \"host\": \"node01\", \"event\": \"" +
           Event + "\"" + After +
           ", \"time\": \"2026-11-13T14:47:18.035804Z\", \"pid\": "
           "42, \"exe\": \"/bin/app\"}";
  };
  // An event is read as a string, not compared: any length, and UTF-8.
  const char *Events[] = {"a.b", "torch.nn.conv2d.1234", "x", "caffe2.models",
                          "lib.\xe6\x97\xa5"};
  std::vector<std::string> Others = {
      Line("2026-11-13T14:47:2\"035804Z", "q"),  // Not JSON.
      Line("2026-11-13T14:47:2\\/035804Z", "q"), // An escape.
      Line("2026-11-13T14:47:2\xc3\xa9"
           "035804Z",
           "q"),                                     // Not ASCII.
      Line("2026-11-13T14:47:22.0358Z", "q"),        // Another length.
      Line("2026-11-13T14:47:23.035804Z", "a\\\"b"), // An escape in it.
      Line("2026-11-13T14:47:24.035804Z", "")};      // No event.
  std::vector<std::pair<std::string, bool>> Lines;   // A line, and if plain.
  auto AddPlain = [&] {
    unsigned N = unsigned(Lines.size());
    Lines.push_back(
        {Line("2026-11-13T14:47:" + std::to_string(10 + N % 50) + ".035804Z",
              Events[N % std::size(Events)]),
         true});
  };
  for (int I = 0; I < 4; ++I)
    AddPlain();
  for (const std::string &Other : Others) {
    Lines.push_back({Other, false});
    AddPlain();
    AddPlain();
    AddPlain();
  }
  std::string Text;
  for (const auto &[L, IsPlain] : Lines)
    Text += L + "\n";
  PaddedLine Buffer(Text);
  AnyOrderLogParser Any;
  unsigned OthersAfterSegments = 0;
  bool LastAsSegments = false;
  for (size_t At = 0, I = 0; I < Lines.size(); ++I) {
    const auto &[L, IsPlain] = Lines[I];
    LogLine Fast, Slow;
    ProcessKeys *Keys = nullptr;
    uint64_t Before = Any.segmentFits();
    size_t Length = Any.knowsShapes()
                        ? Any.parseKnownShape(Buffer.data() + At,
                                              Buffer.Length - At, Fast, Keys)
                        : 0;
    bool AsSegments = Any.segmentFits() != Before;
    if (Length) {
      EXPECT_EQ(Length, L.size()) << L;
      EXPECT_EQ(slow(L, Slow), LogLineError::None) << L;
      expectSameFields(Fast, Slow, L);
    } else {
      anyOrderAgrees(Any, L, /*AsKnown=*/false);
    }
    if (!IsPlain) {
      EXPECT_FALSE(AsSegments) << L;
      OthersAfterSegments += LastAsSegments;
    } else if (I >= 3 && Lines[I - 1].second && Lines[I - 2].second) {
      // Two plain lines made the template, or fitted it.
      EXPECT_TRUE(AsSegments) << I << ": " << L;
    }
    LastAsSegments = AsSegments;
    At += L.size() + 1;
  }
  // Every other line met a template that the line before it fitted.
  EXPECT_EQ(OthersAfterSegments, std::size(Others));
}

TEST(LogLineTest, SegmentsTakeOnlyPlainHolesOfTheTemplatesLength) {
  if (!AnyOrderLogParser::cpuFitsSegments())
    GTEST_SKIP() << "no AVX2 here: templates are fitted run by run";
  expectSegmentsTakeOnlyPlainHoles("");
  // The @timestamp's and the time's holes across a 64-byte word of their
  // segments' masks (the first at bytes 62-88, the second at 58-84 after
  // the event's closing quote).
  expectSegmentsTakeOnlyPlainHoles(std::string(37, 'p'));
}

TEST(LogLineTest, AnyOrderAndValidatingParsersAgreeOnRandomAndMutatedLines) {
  std::mt19937 Random(20261124);
  AnyOrderLogParser Any;
  unsigned Accepted = 0, Total = 200000;
  for (unsigned I = 0; I < Total; ++I)
    Accepted += anyOrderAgrees(Any, randomCollectorLine(Random));
  // Both verdicts were exercised.
  EXPECT_GT(Accepted, Total / 5);
  EXPECT_LT(Accepted, Total * 4 / 5);
}

} // namespace

TEST(LogLineTest, EqualPaddedIsMemcmpForEveryLengthAndDifference) {
  std::string A(96, 'a'), B = A;
  for (size_t Length = 0; Length <= 64; ++Length) {
    EXPECT_TRUE(equalPadded(A.data(), B.data(), Length)) << Length;
    // A difference anywhere in the bytes counts; one after them does not.
    for (size_t At = 0; At < Length + 16; ++At) {
      B[At] = 'b';
      EXPECT_EQ(equalPadded(A.data(), B.data(), Length), At >= Length)
          << Length << " " << At;
      B[At] = 'a';
    }
  }
}
