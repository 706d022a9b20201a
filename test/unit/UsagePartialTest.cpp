//===- UsagePartialTest.cpp - Partials: round trip, merge, hostile bytes --===//

#include "usage/UsagePartial.h"
#include "usage/UsageReport.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include "gmock/gmock.h"
#include <random>

using namespace apistamp;
using namespace llvm;

namespace {

constexpr uint64_t MaxKey = (uint64_t(1) << DistinctKeys::KeptKeyBits) - 1;

UsagePartial samplePartial() {
  UsagePartial P;
  P.Settings.Since = "2026-11";
  P.Settings.StderrJobFrom = "^slurm-([0-9]+)\\.";
  P.Settings.Aliases = {{"lib.old*", "lib.new*"}, {"a.b", "a.c"}};
  P.Inputs.Files = 3;
  P.Inputs.Lines = 1000;
  P.Inputs.EventLines = 990;
  P.Inputs.Malformed = 7;
  P.Inputs.OutsideWindow = 3;
  LogFileProblems Bad;
  Bad.File = "logs/a.jsonl";
  Bad.Malformed = 7;
  Bad.First = {{2, "not JSON"}, {9, "'pid' is not an integer"}};
  LogFileProblems Gone;
  Gone.File = "logs/gone.jsonl";
  Gone.Unreadable = true;
  Gone.Error = "Permission denied";
  Gone.Truncated = true;
  P.Inputs.Problems = {Bad, Gone};
  StderrLog S;
  S.File = "slurm-7.0.err";
  S.Time = "2026-11-20T08:00:00.000000Z";
  S.Job = "7";
  S.Events = 4;
  S.Ignored = 2;
  S.Malformed = 1;
  S.First = {{3, "an empty event"}};
  StderrLog NoJob = S;
  NoJob.File = "x.err";
  NoJob.Job.reset();
  NoJob.NameUnmatched = true;
  P.Inputs.StderrLogs = {S, NoJob};
  PartialEvent &E = P.Events["lib.x"];
  E.FirstSeen = "2026-11-01T00:00:00Z";
  E.LastSeen = "2026-11-02T00:00:00Z";
  E.Jobs = {0, 1, 2, 1000, MaxKey};
  E.Processes = {5};
  E.Days = {{"2026-11-01", {0, 7}}, {"2026-11-02", {MaxKey}}};
  P.Events["lib.y"].FirstSeen = "2026-11-03T00:00:00Z";
  P.Events["lib.y"].LastSeen = "2026-11-03T00:00:00Z";
  return P;
}

/// \p Body (what follows the version line) made a partial: the version
/// line before it, its checksum after it.
std::string withChecksum(StringRef Body, unsigned Version = 1) {
  std::string Bytes = "apistamp-partial v" + std::to_string(Version) + "\n";
  Bytes += Body.str();
  uint64_t Sum = xxh3_64bits(StringRef(Bytes));
  for (int I = 0; I < 8; ++I)
    Bytes.push_back(char(uint8_t(Sum >> (8 * I))));
  return Bytes;
}

/// The body of \p Bytes, a partial: between its version line and its
/// checksum.
std::string bodyOf(const std::string &Bytes) {
  size_t Start = Bytes.find('\n') + 1;
  return Bytes.substr(Start, Bytes.size() - 8 - Start);
}

std::string partialErrorOf(StringRef Bytes) {
  Expected<UsagePartial> P = parsePartial(Bytes, "p.partial");
  if (P)
    return "";
  return toString(P.takeError());
}

TEST(UsagePartialTest, RoundTripKeepsEverything) {
  UsagePartial P = samplePartial();
  std::string Bytes = serializePartial(P);
  ASSERT_TRUE(StringRef(Bytes).starts_with("apistamp-partial v1\n"));
  Expected<UsagePartial> Back = parsePartial(Bytes, "p.partial");
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_TRUE(Back->Settings == P.Settings);
  EXPECT_EQ(Back->Inputs.Files, 3u);
  EXPECT_EQ(Back->Inputs.Lines, 1000u);
  EXPECT_EQ(Back->Inputs.EventLines, 990u);
  EXPECT_EQ(Back->Inputs.Malformed, 7u);
  EXPECT_EQ(Back->Inputs.OutsideWindow, 3u);
  ASSERT_EQ(Back->Inputs.Problems.size(), 2u);
  EXPECT_EQ(Back->Inputs.Problems[0].First, P.Inputs.Problems[0].First);
  EXPECT_TRUE(Back->Inputs.Problems[1].Unreadable);
  EXPECT_TRUE(Back->Inputs.Problems[1].Truncated);
  EXPECT_EQ(Back->Inputs.Problems[1].Error, "Permission denied");
  ASSERT_EQ(Back->Inputs.StderrLogs.size(), 2u);
  EXPECT_EQ(Back->Inputs.StderrLogs[0].Job, std::optional<std::string>("7"));
  EXPECT_FALSE(Back->Inputs.StderrLogs[1].Job.has_value());
  EXPECT_TRUE(Back->Inputs.StderrLogs[1].NameUnmatched);
  EXPECT_EQ(Back->Inputs.StderrLogs[0].First, P.Inputs.StderrLogs[0].First);
  ASSERT_EQ(Back->Events.size(), 2u);
  const PartialEvent &X = Back->Events["lib.x"];
  EXPECT_EQ(X.Jobs, P.Events["lib.x"].Jobs);
  EXPECT_EQ(X.Processes, P.Events["lib.x"].Processes);
  EXPECT_TRUE(X.Hosts.empty());
  EXPECT_EQ(X.Days, P.Events["lib.x"].Days);
  EXPECT_EQ(X.LastSeen, "2026-11-02T00:00:00Z");
  // The same bytes again: the format has one spelling of a partial.
  EXPECT_EQ(serializePartial(*Back), Bytes);
}

TEST(UsagePartialTest, EveryTruncationAndFlipIsAnError) {
  std::string Bytes = serializePartial(samplePartial());
  for (size_t Size = 0; Size < Bytes.size(); ++Size)
    EXPECT_THAT(partialErrorOf(StringRef(Bytes).take_front(Size)),
                testing::StartsWith("p.partial: error: "))
        << "cut to " << Size;
  for (size_t I = 0; I < Bytes.size(); ++I) {
    std::string Flipped = Bytes;
    Flipped[I] ^= 0x04;
    EXPECT_THAT(partialErrorOf(Flipped),
                testing::StartsWith("p.partial: error: "))
        << "byte " << I;
  }
}

TEST(UsagePartialTest, OtherVersionsAndOtherFiles) {
  std::string Body = bodyOf(serializePartial(samplePartial()));
  EXPECT_EQ(partialErrorOf(withChecksum(Body, 2)),
            "p.partial: error: a partial of format version 2; this apistamp "
            "reads version 1: emit it again with this apistamp");
  EXPECT_THAT(partialErrorOf("{\"event\":\"x\"}\n"),
              testing::HasSubstr("not an apistamp partial"));
  EXPECT_THAT(partialErrorOf("apistamp-partial v99999999999\n"),
              testing::HasSubstr("a bad version line"));
  EXPECT_THAT(partialErrorOf("apistamp-partial vx\n"),
              testing::HasSubstr("a bad version line"));
  EXPECT_THAT(partialErrorOf("apistamp-partial v1"),
              testing::HasSubstr("a bad version line"));
}

/// Bodies whose checksum is right but whose content is not: every count
/// is checked against the bytes left, every key, day and order.
TEST(UsagePartialTest, HostileBodiesWithTheirChecksum) {
  auto Varint = [](uint64_t V) {
    std::string S;
    while (V >= 0x80) {
      S.push_back(char(uint8_t(V) | 0x80));
      V >>= 7;
    }
    S.push_back(char(V));
    return S;
  };
  auto Str = [&](StringRef S) { return Varint(S.size()) + S.str(); };
  // Settings: four empty strings, no aliases, 52-bit keys.
  std::string Settings = std::string(4, '\0') + Varint(0) + Varint(52);
  std::string NoInputs = std::string(5, '\0') + Varint(0) + Varint(0);
  auto Event = [&](StringRef Name, const std::string &Keys) {
    return Str(Name) + Str("2026-11-01T00:00:00Z") +
           Str("2026-11-01T00:00:00Z") + Keys + Varint(0) + Varint(0) +
           Varint(0);
  };
  // A valid one, to be sure the pieces are right.
  EXPECT_EQ(partialErrorOf(withChecksum(
                Settings + NoInputs + Varint(1) +
                Event("lib.x", Varint(2) + Varint(3) + Varint(0)))),
            "");
  struct Case {
    std::string Body, Error;
  } Cases[] = {
      {Settings + NoInputs + Varint(uint64_t(1) << 60), "is more than"},
      {Settings.substr(0, 4) + Varint(uint64_t(1) << 62), "is more than"},
      {Settings + NoInputs + Varint(1) + Event("lib.x", Varint(1000000)),
       "is more than"},
      {std::string(4, '\0') + Varint(0) + Varint(44), "keep 44 bits"},
      {Settings + std::string(11, '\xff'), "does not fit in 64 bits"},
      {Settings + NoInputs + Varint(1) +
           Event("lib.x", Varint(2) + Varint(5) + Varint(MaxKey)),
       "a key past 52 bits"},
      {Settings + NoInputs + Varint(1) +
           Event("lib.x", Varint(1) + Varint(MaxKey + 1)),
       "a key past 52 bits"},
      {Settings + NoInputs + Varint(2) + Event("lib.y", Varint(0)) +
           Event("lib.x", Varint(0)),
       "not sorted by name"},
      {Settings + NoInputs + Varint(1) + Event("", Varint(0)),
       "an event without a name"},
      {Settings + NoInputs + Varint(0) + "x", "bytes after its last event"},
      {Settings + std::string(5, '\0') + Varint(1) + Str("f") + Varint(2) +
           std::string(10, '\0'),
       "neither 0 nor 1"},
      {Settings + std::string(5, '\0') + Varint(1) + Str("f") + Varint(0) +
           Str("") + Varint(0) + Varint(0) + Varint(6) + std::string(20, '\0'),
       "more first problems"},
      {Settings + NoInputs + Varint(1) + Str("lib.x") + Str("b") + Str("a") +
           std::string(4, '\0'),
       "its last time is before its first"},
      {Settings + NoInputs + Varint(1) + Str("lib.x") + Str("a") + Str("a") +
           Varint(0) + Varint(0) + Varint(0) + Varint(1) + Str("2026-02-30") +
           Varint(0),
       "a day that is not YYYY-MM-DD"},
      {Settings + NoInputs + Varint(1) + Str("lib.x") + Str("a") + Str("a") +
           Varint(0) + Varint(0) + Varint(0) + Varint(2) + Str("2026-11-02") +
           Varint(0) + Str("2026-11-01") + Varint(0),
       "its days are not sorted"},
      {Settings + Varint(uint64_t(1) << 40), "does not fit in 32 bits"},
  };
  for (const Case &C : Cases)
    EXPECT_THAT(partialErrorOf(withChecksum(C.Body)),
                testing::AllOf(testing::StartsWith("p.partial: error: a "
                                                   "corrupt partial: "),
                               testing::HasSubstr(C.Error)))
        << testing::PrintToString(C.Body);
}

/// Random bytes in a valid partial's body, its checksum made right: an
/// error or a partial, never a crash (scripts/test.sh runs this under
/// AddressSanitizer too).
TEST(UsagePartialTest, RandomBodiesNeverCrash) {
  std::string Body = bodyOf(serializePartial(samplePartial()));
  std::mt19937_64 Random(20261124);
  for (int Round = 0; Round < 3000; ++Round) {
    std::string Mutated = Body;
    int Changes = 1 + int(Random() % 4);
    for (int C = 0; C < Changes; ++C) {
      size_t At = Random() % Mutated.size();
      switch (Random() % 3) {
      case 0:
        Mutated[At] = char(Random());
        break;
      case 1:
        Mutated.erase(At, 1 + Random() % 8);
        break;
      default:
        Mutated.insert(At, std::string(1 + Random() % 4, char(Random())));
      }
    }
    Expected<UsagePartial> P = parsePartial(withChecksum(Mutated), "r");
    if (!P)
      EXPECT_THAT(toString(P.takeError()), testing::StartsWith("r: error: "));
  }
}

/// Writes \p Text to a new file in \p Dir, named \p Name.
std::string writeLog(StringRef Dir, StringRef Name, StringRef Text) {
  std::string Path = (Dir + "/" + Name).str();
  std::error_code EC;
  raw_fd_ostream Out(Path, EC);
  Out << Text;
  return Path;
}

/// Two days' logs: a partial each, merged, count what one pass counts;
/// the job that ran across midnight is one job, not two.
TEST(UsagePartialTest, MergedPartialsCountAsOnePass) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("partial-test", Dir));
  std::string A = writeLog(
      Dir, "a.jsonl",
      "{\"event\":\"lib.x\",\"time\":\"2026-11-01T23:00:00Z\",\"pid\":1,"
      "\"host\":\"h1\",\"exe\":\"/e\",\"job_id\":\"j\"}\n"
      "{\"event\":\"lib.x\",\"time\":\"2026-11-01T10:00:00Z\",\"pid\":2,"
      "\"host\":\"h2\",\"exe\":\"/e\",\"job_id\":7}\n"
      "not json\n");
  std::string B = writeLog(
      Dir, "b.jsonl",
      "{\"event\":\"lib.x\",\"time\":\"2026-11-02T01:00:00Z\",\"pid\":1,"
      "\"host\":\"h1\",\"exe\":\"/e\",\"job_id\":\"j\"}\n"
      "{\"event\":\"lib.x\",\"time\":\"2026-11-02T02:00:00Z\",\"pid\":3,"
      "\"host\":\"h3\",\"exe\":\"/e\",\"job_id\":\"7\"}\n");
  UsageCounts One = readUsageLogs({A, B}, {}, 2);
  PartialMerger Merger;
  for (const std::string &Log : {A, B}) {
    Expected<UsagePartial> P =
        parsePartial(serializePartial(readUsagePartial(
                         {Log}, {}, 1, DefaultLogPartBytes, {}, {})),
                     Log);
    ASSERT_TRUE(bool(P)) << toString(P.takeError());
    ASSERT_FALSE(bool(Merger.add(std::move(*P), Log)));
  }
  UsageCounts Merged = Merger.counts(2);
  const EventCounts &X = Merged.Events["lib.x"];
  EXPECT_EQ(X.Jobs, 2u); // "j" on both days, and 7 (77 and "77" are one).
  EXPECT_EQ(X.Processes, 3u);
  EXPECT_EQ(X.Hosts, 3u);
  EXPECT_EQ(X.FirstSeen, "2026-11-01T10:00:00Z");
  EXPECT_EQ(X.LastSeen, "2026-11-02T02:00:00Z");
  using Days = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(X.JobsByDay, (Days{{"2026-11-01", 2}, {"2026-11-02", 2}}));
  const EventCounts &Y = One.Events["lib.x"];
  EXPECT_EQ(X.Jobs, Y.Jobs);
  EXPECT_EQ(X.Processes, Y.Processes);
  EXPECT_EQ(X.Hosts, Y.Hosts);
  EXPECT_EQ(X.JobsByDay, Y.JobsByDay);
  EXPECT_EQ(Merged.Files, 2u);
  EXPECT_EQ(Merged.Lines, One.Lines);
  EXPECT_EQ(Merged.Malformed, 1u);
  ASSERT_EQ(Merged.Problems.size(), 1u);
  EXPECT_EQ(Merged.Problems[0].File, A);
  sys::fs::remove_directories(Dir);
}

TEST(UsagePartialTest, MergeRefusesOtherSettings) {
  UsagePartial A = samplePartial(), B = samplePartial();
  B.Settings.Until = "2026-12";
  PartialMerger Merger;
  ASSERT_FALSE(bool(Merger.add(std::move(A), "a.partial")));
  Error E = Merger.add(std::move(B), "b.partial");
  ASSERT_TRUE(bool(E));
  EXPECT_THAT(toString(std::move(E)),
              testing::StartsWith("b.partial: error: counted with --until "
                                  "'2026-12', not '' as 'a.partial' was"));
}

/// A key that forEachDistinct gives, added to another counter, counts as
/// the key it came from: what a merge does with a partial's keys.
TEST(UsagePartialTest, DistinctKeysGivenBackCountTheSame) {
  std::mt19937_64 Random(7);
  DistinctKeys Keys(1 << 10);
  std::vector<std::pair<uint32_t, uint64_t>> Added;
  for (int I = 0; I < 20000; ++I) {
    uint32_t Counter = uint32_t(Random() % 5);
    uint64_t Key = Random() % 3000 * 0x9E3779B97F4A7C15ULL;
    Keys.add(Counter, Key);
  }
  Keys.add((1u << 20) + 1, 42); // A wide counter.
  Keys.finish();
  DistinctKeys Again(1 << 10);
  DistinctKeys *All[] = {&Keys};
  DistinctKeys::forEachDistinct(All, [&](uint32_t Counter, uint64_t Key) {
    EXPECT_EQ(Key & 0xfff, 0u);
    Added.push_back({Counter, Key});
    // Counters renumbered, as a merge does.
    Again.add(Counter > 4 ? 5 : 4 - Counter, Key);
  });
  Again.finish();
  std::vector<uint64_t> Before =
      DistinctKeys::countDistinct(All, (1u << 20) + 2, 1);
  DistinctKeys *AgainAll[] = {&Again};
  std::vector<uint64_t> After = DistinctKeys::countDistinct(AgainAll, 6, 1);
  for (uint32_t C = 0; C < 5; ++C)
    EXPECT_EQ(After[4 - C], Before[C]) << "counter " << C;
  EXPECT_EQ(After[5], 1u);
  EXPECT_EQ(Before[(1u << 20) + 1], 1u);
}

} // namespace
