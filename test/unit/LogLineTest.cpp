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

/// The fields of collectorMembers(0)'s line.
void expectCollectorFields(const LogLine &Out, const std::string &Line) {
  EXPECT_EQ(Out.Event, "caffe2.models.nms.420") << Line;
  EXPECT_EQ(Out.Time, "2026-11-13T14:47:18.035804Z") << Line;
  EXPECT_EQ(Out.Pid, 2052328) << Line;
  EXPECT_EQ(Out.Host, "node0132.cluster.example.org") << Line;
  EXPECT_EQ(Out.Exe, "/opt/app/bin/inference-server") << Line;
  EXPECT_EQ(Out.Job, "0b8c0e27-f693-run") << Line;
  EXPECT_TRUE(Out.HasJob) << Line;
}

/// The validating parser reads \p Line as collectorMembers(0)'s fields;
/// the runtime's fast path leaves it to it.
void expectCollectorLine(const std::string &Line) {
  LogLine Out;
  EXPECT_FALSE(fast(Line, Out)) << Line;
  ASSERT_EQ(slow(Line, Out), LogLineError::None) << Line;
  expectCollectorFields(Out, Line);
}

TEST(LogLineTest, CollectorLinesInAnyOrderAreReadWithTheirFields) {
  // Every member in every position (rotations), with each join.
  for (const char *Colon : {":", ": ", " : ", "  :  "})
    for (const char *Comma : {",", ", ", " ,  ", "\t,"}) {
      Members M = collectorMembers();
      M.Colon = Colon;
      M.Comma = Comma;
      for (size_t R = 0; R < M.List.size(); ++R) {
        std::rotate(M.List.begin(), M.List.begin() + 1, M.List.end());
        expectCollectorLine(M.line());
        expectCollectorLine(" " + M.line() + "  ");
      }
    }
  // Other values of other keys, anywhere: nested, escaped, numbers.
  for (const char *Value : OtherValues)
    for (size_t At = 0; At <= 10; ++At) {
      Members M = collectorMembers();
      M.List.insert(M.List.begin() + At, {"\"other\"", Value});
      expectCollectorLine(M.line());
    }
  // Escapes in the needed keys and values are read as JSON says.
  Members M = collectorMembers();
  M.List[5] = {"\"\\u0065vent\"", "\"caffe2.models.nms.\\u0034\\u00320\""};
  expectCollectorLine(M.line());
  // The needed fields' other valid values.
  M = collectorMembers();
  M.List[3].second = "null";
  M.List[4].second = "\"\"";
  M.List[8].second = "null";
  M.List[7].second = "-999999999999999999";
  LogLine Out;
  ASSERT_EQ(slow(M.line(), Out), LogLineError::None);
  EXPECT_FALSE(Out.HasJob);
  EXPECT_EQ(Out.Host, "");
  EXPECT_EQ(Out.Pid, -999999999999999999);
  M.List[3].second = "12345";
  ASSERT_EQ(slow(M.line(), Out), LogLineError::None);
  EXPECT_TRUE(Out.HasJob);
  EXPECT_EQ(Out.Job, "12345");
  // A needed key twice: its last value counts.
  M = collectorMembers();
  M.List.push_back({"\"event\"", "\"other\""});
  ASSERT_EQ(slow(M.line(), Out), LogLineError::None);
  EXPECT_EQ(Out.Event, "other");
}

TEST(LogLineTest, MalformedValuesInKeysTheReportSkipsMakeTheLineMalformed) {
  // The decision (docs/report.md, Malformed lines): a collector's line is
  // validated whole, the values of keys the report does not read too, as
  // the runtime's own lines are. A line whose other key holds what is not
  // JSON is not counted, whatever its needed fields say.
  const std::string Values[] = {
      "[1,}",      "[1, 2, ]", "{\"a\": 1, }", "{\"a\" 1}", "{1: 2}",
      "01",        "-",        "1.",           "1e",        "--1",
      "NaN",       "tru",      "nul",          "\"\\x\"",   "\"\\u12\"",
      "\"a\x01\"", "\"\xff\"", "\"\xc3\"",     "\"a",
  };
  for (const std::string &Value : Values)
    for (size_t At : {0, 2, 10}) {
      Members M = collectorMembers();
      M.List.insert(M.List.begin() + At, {"\"x\"", Value});
      LogLine Out;
      EXPECT_EQ(slow(M.line(), Out), LogLineError::NotJson) << M.line();
      // Nested in a value the report skips too.
      M = collectorMembers();
      M.List[1].second = "{\"pod\": " + Value + "}";
      EXPECT_EQ(slow(M.line(), Out), LogLineError::NotJson) << M.line();
    }
}

TEST(LogLineTest, CollectorLinesTheValidatingParserRefuses) {
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
  for (int I = 0; I < 1100; ++I)
    Deep = "[" + Deep + "]";
  std::string Line = collectorMembers().line();
  struct Case {
    std::string Line;
    LogLineError Slow;
  } Cases[] = {
      {Line + "x", LogLineError::NotJson},
      {Line + ",", LogLineError::NotJson},
      {Line.substr(0, Line.size() - 1) + ", }", LogLineError::NotJson},
      {Line.substr(0, Line.size() - 1), LogLineError::NotJson},
      // Nested deeper than simdjson's 1024 levels, anywhere.
      {Plus("\"x\"", Deep), LogLineError::NotJson},
      {"[" + Line + "]", LogLineError::NotObject},
      {"{}", LogLineError::NoEvent},
      {With(5, "\"\""), LogLineError::BadEvent},
      {With(5, "null"), LogLineError::BadEvent},
      {With(6, "\"yesterday\""), LogLineError::TimeNotIso},
      {With(6, "7"), LogLineError::BadTime},
      {With(7, "1.0"), LogLineError::BadPid},
      {With(7, "\"7\""), LogLineError::BadPid},
      {With(7, "1234567890123456789012"), LogLineError::NotJson},
      {With(4, "7"), LogLineError::BadHost},
      {With(8, "{}"), LogLineError::BadExe},
      {With(3, "1.5"), LogLineError::BadJob},
      // A needed key's every value is checked, not only its last.
      {Plus("\"pid\"", "\"7\""), LogLineError::BadPid},
  };
  for (const Case &C : Cases) {
    LogLine Out;
    EXPECT_FALSE(fast(C.Line, Out)) << C.Line;
    EXPECT_EQ(slow(C.Line, Out), C.Slow) << C.Line;
  }
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
