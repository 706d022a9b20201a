//===- UsageGateTest.cpp - Tests for check --usage and aliases ------------===//

#include "usage/UsageGate.h"
#include "usage/UsageReport.h"
#include "gmock/gmock.h"

using namespace apistamp;

namespace {

EventAlias alias(llvm::StringRef From, llvm::StringRef To) {
  EventAlias A{cantFail(EventGlob::create(From)), To.str(), 1, "", ""};
  if (size_t Star = From.find('*'); To.contains('*')) {
    A.Prefix = From.take_front(Star).str();
    A.Suffix = From.drop_front(Star + 1).str();
  }
  return A;
}

CatalogEvent placed(llvm::StringRef Event, llvm::StringRef Status = "present") {
  CatalogEvent C;
  C.Event = Event.str();
  C.Rule = "api";
  C.Status = Status.str();
  return C;
}

EventUsage used(uint64_t Jobs, llvm::StringRef First, llvm::StringRef Last,
                std::vector<std::pair<std::string, uint64_t>> ByDay = {}) {
  EventUsage U;
  U.Jobs = Jobs;
  U.FirstSeen = First.str();
  U.LastSeen = Last.str();
  U.JobsByDay = std::move(ByDay);
  return U;
}

TEST(UsageGateTest, AliasMapsOneStepWithItsStar) {
  std::vector<EventAlias> Aliases = {alias("torch.script.*", "torch.jit.*"),
                                     alias("lib.old", "lib.new"),
                                     alias("lib.io.read_*", "lib.io.read")};
  EXPECT_EQ(currentEventName(Aliases, "torch.script.load"), "torch.jit.load");
  EXPECT_EQ(currentEventName(Aliases, "torch.script.a.b"), "torch.jit.a.b");
  EXPECT_EQ(currentEventName(Aliases, "lib.old"), "lib.new");
  EXPECT_EQ(currentEventName(Aliases, "lib.io.read_file"), "lib.io.read");
  EXPECT_EQ(currentEventName(Aliases, "lib.older"), "lib.older");
  EXPECT_EQ(currentEventName(Aliases, "torch.jit.load"), "torch.jit.load");
}

TEST(UsageGateTest, LogsCountAnOldNameAsItsEventExactly) {
  std::vector<EventAlias> Aliases = {alias("lib.old", "lib.new")};
  std::string Log =
      R"({"event":"lib.old","time":"2026-11-01T00:00:00Z","pid":1,"job_id":"a"})"
      "\n"
      R"({"event":"lib.new","time":"2026-11-02T00:00:00Z","pid":2,"job_id":"a"})"
      "\n"
      R"({"event":"lib.new","time":"2026-11-03T00:00:00Z","pid":3,"job_id":"b"})"
      "\n";
  UsageCounts Counts = readUsageText("log", Log, LogWindow{}, {}, Aliases);
  ASSERT_EQ(Counts.Events.size(), 1u);
  const EventCounts &New = Counts.Events.at("lib.new");
  EXPECT_EQ(New.Jobs, 2u); // "a" logged both names: one job.
  EXPECT_EQ(New.Processes, 3u);
  EXPECT_EQ(New.FirstSeen, "2026-11-01T00:00:00Z");
  EXPECT_EQ(New.LastSeen, "2026-11-03T00:00:00Z");
  EXPECT_EQ(New.JobsByDay.size(), 3u);
}

TEST(UsageGateTest, AggregatesMergedPerNameAddUp) {
  UsageCounts Counts;
  Counts.Events["lib.old"] = {3,
                              3,
                              1,
                              "2026-11-01",
                              "2026-11-02",
                              {{"2026-11-01", 2}, {"2026-11-02", 1}}};
  Counts.Events["lib.new"] = {
      1, 1, 1, "2026-11-02", "2026-11-05", {{"2026-11-02", 1}}};
  mergeAliasedEvents(Counts, {alias("lib.old", "lib.new")});
  ASSERT_EQ(Counts.Events.size(), 1u);
  const EventCounts &New = Counts.Events.at("lib.new");
  EXPECT_EQ(New.Jobs, 4u);
  EXPECT_EQ(New.FirstSeen, "2026-11-01");
  EXPECT_EQ(New.LastSeen, "2026-11-05");
  std::vector<std::pair<std::string, uint64_t>> Days = {{"2026-11-01", 2},
                                                        {"2026-11-02", 2}};
  EXPECT_EQ(New.JobsByDay, Days);
}

TEST(UsageGateTest, JobsSinceCountsThePeriodsThatEndAfterIt) {
  EventUsage U =
      used(10, "2026-08-01T00:00:00Z", "2026-11-20T00:00:00Z",
           {{"2026-08-01", 4}, {"2026-10-31", 3}, {"2026-11-20", 5}});
  EXPECT_EQ(jobsSince(U, "", 1), 10u);
  EXPECT_EQ(jobsSince(U, "2026-07", 1), 10u); // First seen since then.
  EXPECT_EQ(jobsSince(U, "2026-11", 1), 5u);
  EXPECT_EQ(jobsSince(U, "2026-10-31T12:00", 1), 8u); // Its day counts.
  EXPECT_EQ(jobsSince(U, "2026-12-01", 1), 0u);       // Last seen before.
  // A week that starts on 2026-10-31 ends on 2026-11-06: it counts.
  EXPECT_EQ(jobsSince(U, "2026-11-04", 7), 8u);
  // At most the total: a job on several days counts once a day.
  U.Jobs = 6;
  EXPECT_EQ(jobsSince(U, "2026-10", 1), 6u);
}

TEST(UsageGateTest, RemovalsOfUsedEventsAndDeprecationCandidates) {
  UsageEvidence Evidence;
  Evidence.Events["lib.A"] =
      used(12, "2026-08-01T10:00:00Z", "2026-11-20T10:00:00Z");
  Evidence.Events["lib.B"] = used(0, "", "");
  Evidence.Events["lib.C"] =
      used(2, "2026-09-01T00:00:00Z", "2026-09-02T00:00:00Z");
  Evidence.Events["lib.gone"] =
      used(1, "2026-09-01T00:00:00Z", "2026-09-01T00:00:00Z");
  Evidence.Events["torch.jit.load"] = used(50, "2026-09-01", "2026-09-01");
  Evidence.Events["other.thing"] = used(50, "2026-09-01", "2026-09-01");
  std::vector<CatalogEvent> Catalog = {placed("lib.B"), placed("lib.C"),
                                       placed("lib.D", "skipped")};
  std::vector<EventLayer> Layers(1);
  Layers[0].Name = "torch";
  Layers[0].Globs.push_back(cantFail(EventGlob::create("torch.*")));
  GateRequest Request;
  Request.MinJobs = 2;
  Request.Layers = Layers;
  std::vector<UsageVerdict> V = judgeUsage(Evidence, Catalog, Request);
  ASSERT_EQ(V.size(), 3u);
  EXPECT_EQ(V[0].What, UsageVerdict::RemovesUsed);
  EXPECT_EQ(V[0].Event, "lib.A");
  EXPECT_EQ(V[0].Jobs, 12u);
  EXPECT_EQ(V[0].Since, "2026-08-01");
  EXPECT_EQ(V[0].LastSeen, "2026-11-20");
  EXPECT_EQ(V[1].What, UsageVerdict::RemovesRarelyUsed);
  EXPECT_EQ(V[1].Event, "lib.gone");
  // lib.C's 2 jobs reach the minimum; lib.D is skipped (not measured); lib.B
  // was never used.
  EXPECT_EQ(V[2].What, UsageVerdict::DeprecationCandidate);
  EXPECT_EQ(V[2].Event, "lib.B");
  EXPECT_EQ(V[2].Jobs, 0u);
}

TEST(UsageGateTest, ARenameWithAnAliasIsNoRemoval) {
  UsageEvidence Evidence;
  Evidence.Events["lib.A"] = used(12, "2026-08-01", "2026-11-20");
  Evidence.Events["lib.A2"] = used(1, "2026-11-21", "2026-11-22");
  mergeAliases(Evidence, {alias("lib.A", "lib.A2")});
  ASSERT_EQ(Evidence.Events.size(), 1u);
  EXPECT_EQ(Evidence.Events.at("lib.A2").Jobs, 13u);
  EXPECT_THAT(Evidence.Events.at("lib.A2").LoggedAs,
              testing::ElementsAre("lib.A", "lib.A2"));
  EXPECT_TRUE(judgeUsage(Evidence, {placed("lib.A2")}, GateRequest{}).empty());
}

} // namespace
