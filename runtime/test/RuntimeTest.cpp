//===- RuntimeTest.cpp - In-process tests of the apistamp runtime ---------===//
//
// Once per name (racing threads, several sites, templates, overloads, two
// TUs), the steady state (no allocation, argument not evaluated), fork,
// handlers that throw, re-enter or replace themselves, metadata. Event names
// are unique per test: the set of logged names is process-wide.
//
//===----------------------------------------------------------------------===//

#include "AllocationCounter.h"
#include "SecondSite.h"
#include "TestUtil.h"

#include "apistamp/api_usage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <map>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using apistamp::test::EventCollector;

namespace {

std::vector<std::string> repeat(const std::string &Event, std::size_t N) {
  return std::vector<std::string>(N, Event);
}

//===----------------------------------------------------------------------===//
// Once per name
//===----------------------------------------------------------------------===//

int raceA(int X) {
  C10_LOG_API_USAGE_ONCE("rt.race.a");
  return X + 1;
}
int raceB1(int X) {
  C10_LOG_API_USAGE_ONCE("rt.race.b");
  return X + 2;
}
int raceB2(int X) {
  C10_LOG_API_USAGE_ONCE("rt.race.b");
  return X + 3;
}
template <typename T> T raceTemplate(T X) {
  C10_LOG_API_USAGE_ONCE("rt.race.template");
  return X;
}

/// 64 sites with 64 names (a std::string argument), and a second family of
/// 64 sites with the same names.
template <int N> int numbered() {
  C10_LOG_API_USAGE_ONCE("rt.race.n" + std::to_string(N));
  return N;
}
template <int N> int numberedAgain() {
  C10_LOG_API_USAGE_ONCE("rt.race.n" + std::to_string(N));
  return N;
}
typedef int (*SiteFunction)();
template <int... N> struct SiteTable {
  static std::vector<SiteFunction> get() {
    return {&numbered<N>..., &numberedAgain<N>...};
  }
};
std::vector<SiteFunction> numberedSites() {
  return SiteTable<0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17,
                   18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
                   33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47,
                   48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62,
                   63>::get();
}

TEST(OncePerName, ThirtyTwoRacingThreadsLogEachNameOnce) {
  EventCollector::get().install();
  const int Threads = 32;
  std::vector<SiteFunction> Sites = numberedSites();
  std::atomic<int> Ready(0);
  std::atomic<long> Sum(0);
  std::vector<std::thread> Workers;
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([&, T] {
      // Start together: every thread reaches the sites while none is done.
      Ready.fetch_add(1);
      while (Ready.load() < Threads)
        std::this_thread::yield();
      long Local = 0;
      for (int I = 0; I < 50; ++I) {
        Local += raceA(I) + raceB1(I) + raceB2(I) + raceTemplate<int>(I) +
                 static_cast<long>(raceTemplate<double>(I));
        // Each thread walks the sites from a different start.
        for (std::size_t S = 0; S < Sites.size(); ++S)
          Local +=
              Sites[(S + static_cast<std::size_t>(T) * 4) % Sites.size()]();
      }
      apistamp::LogAPIUsage("rt.race.every-time");
      Sum.fetch_add(Local);
    });
  for (std::thread &W : Workers)
    W.join();
  EXPECT_GT(Sum.load(), 0);

  EventCollector &C = EventCollector::get();
  EXPECT_EQ(C.count("rt.race.a"), 1u);
  EXPECT_EQ(C.count("rt.race.b"), 1u);
  EXPECT_EQ(C.count("rt.race.template"), 1u);
  for (int N = 0; N < 64; ++N)
    EXPECT_EQ(C.count("rt.race.n" + std::to_string(N)), 1u) << N;
  // LogAPIUsage logs every time.
  EXPECT_EQ(C.count("rt.race.every-time"), static_cast<std::size_t>(Threads));
  EXPECT_EQ(C.events().size(), 3u + 64u + Threads);
}

int twoSitesFirst(int X) {
  C10_LOG_API_USAGE_ONCE("rt.two-sites.shared");
  return X + 1;
}
int overloaded(int X) {
  C10_LOG_API_USAGE_ONCE("rt.two-sites.overload");
  return X;
}
double overloaded(double X) {
  C10_LOG_API_USAGE_ONCE("rt.two-sites.overload");
  return X;
}
int distinctOne() {
  C10_LOG_API_USAGE_ONCE("rt.two-sites.distinct-1");
  return 1;
}
int distinctTwo() {
  C10_LOG_API_USAGE_ONCE("rt.two-sites.distinct-2");
  return 2;
}

TEST(OncePerName, TwoCallSitesOfOneNameLogOneEvent) {
  EventCollector::get().install();
  // Sites in two translation units (c10 logs once per site: twice here).
  EXPECT_EQ(twoSitesFirst(1), 2);
  EXPECT_EQ(apistamp::test::secondSiteSameName(1), 3);
  EXPECT_EQ(twoSitesFirst(1), 2);
  // Overloads sharing a name; an inline function used from two TUs.
  EXPECT_EQ(overloaded(1), 1);
  EXPECT_EQ(overloaded(1.5), 1.5);
  EXPECT_EQ(apistamp::test::inlineSite(2), 4);
  EXPECT_EQ(apistamp::test::secondSiteInline(2), 5);
  // Distinct names are distinct events (the check above is not vacuous).
  EXPECT_EQ(distinctOne() + distinctTwo(), 3);
  EXPECT_EQ(
      EventCollector::get().withPrefix("rt.two-sites."),
      (std::vector<std::string>{
          "rt.two-sites.shared", "rt.two-sites.overload", "rt.two-sites.inline",
          "rt.two-sites.distinct-1", "rt.two-sites.distinct-2"}));
}

TEST(OncePerName, LogAPIUsageDoesNotMarkTheName) {
  EventCollector::get().install();
  apistamp::LogAPIUsage("rt.mark.name");
  apistamp::LogAPIUsage("rt.mark.name");
  auto Site = [] { C10_LOG_API_USAGE_ONCE("rt.mark.name"); };
  Site();
  Site();
  EXPECT_EQ(EventCollector::get().events(), repeat("rt.mark.name", 3));
}

//===----------------------------------------------------------------------===//
// Steady state
//===----------------------------------------------------------------------===//

int NameBuilds = 0;
std::string builtName() {
  ++NameBuilds;
  return "rt.steady.built";
}
int steadyBuilt(int X) {
  C10_LOG_API_USAGE_ONCE(builtName());
  return X + 1;
}
int steadyLiteral(int X) {
  C10_LOG_API_USAGE_ONCE("rt.steady.literal");
  return X + 2;
}

TEST(SteadyState, NoAllocationAndNoArgumentAfterTheFirstCall) {
  EventCollector::get().install();
  long Sum = steadyBuilt(0) + steadyLiteral(0);

  long Before = apistamp::test::allocationsOnThisThread();
  for (int I = 0; I < 10000; ++I)
    Sum += steadyBuilt(I) + steadyLiteral(I);
  long After = apistamp::test::allocationsOnThisThread();
  EXPECT_EQ(After - Before, 0) << "allocations in the steady state";
  EXPECT_EQ(NameBuilds, 1) << "the event argument is evaluated once";
  EXPECT_GT(Sum, 0);

  // The counter does see allocations (this test can fail).
  std::string *Probe = new std::string(100, 'x');
  EXPECT_GT(apistamp::test::allocationsOnThisThread(), After);
  delete Probe;

  EXPECT_EQ(EventCollector::get().withPrefix("rt.steady."),
            (std::vector<std::string>{"rt.steady.built", "rt.steady.literal"}));
}

//===----------------------------------------------------------------------===//
// Fork
//===----------------------------------------------------------------------===//

int ForkPipe = -1;

void logToForkPipe(const std::string &Event) {
  std::string Line =
      std::to_string(static_cast<long>(getpid())) + " " + Event + "\n";
  if (write(ForkPipe, Line.data(), Line.size()) < 0)
    _exit(90);
}

int forkApi() {
  C10_LOG_API_USAGE_ONCE("rt.fork.api");
  return 1;
}
int forkApiSecondSite() {
  C10_LOG_API_USAGE_ONCE("rt.fork.api");
  return 2;
}
int forkChildOnly() {
  C10_LOG_API_USAGE_ONCE("rt.fork.child-only");
  return 3;
}

TEST(Fork, AChildLogsTheApisItUsesOnceWithItsPid) {
  int Pipe[2];
  ASSERT_EQ(pipe(Pipe), 0);
  ForkPipe = Pipe[1];
  apistamp::SetAPIUsageLogger(logToForkPipe);
  long Parent = static_cast<long>(getpid());
  forkApi(); // Logged in the parent.

  pid_t Child = fork();
  ASSERT_GE(Child, 0);
  if (Child == 0) {
    forkApi();
    forkApi();
    forkApiSecondSite();
    forkChildOnly();
    pid_t Grandchild = fork();
    if (Grandchild == 0) {
      forkApi();
      forkChildOnly();
      _exit(0);
    }
    _exit(Grandchild > 0 && apistamp::test::waitForChild(Grandchild) == 0 ? 0
                                                                          : 1);
  }
  EXPECT_EQ(apistamp::test::waitForChild(Child), 0);
  forkApi(); // Already logged in the parent: nothing.
  forkApiSecondSite();
  close(Pipe[1]);
  std::string Output;
  char Buffer[4096];
  ssize_t N;
  while ((N = read(Pipe[0], Buffer, sizeof(Buffer))) > 0)
    Output.append(Buffer, static_cast<std::size_t>(N));
  close(Pipe[0]);
  EventCollector::get().install();

  std::vector<std::string> Lines = apistamp::test::splitLines(Output);
  ASSERT_EQ(Lines.size(), 5u) << Output;
  EXPECT_EQ(Lines[0], std::to_string(Parent) + " rt.fork.api");
  EXPECT_EQ(Lines[1],
            std::to_string(static_cast<long>(Child)) + " rt.fork.api");
  EXPECT_EQ(Lines[2],
            std::to_string(static_cast<long>(Child)) + " rt.fork.child-only");
  // The grandchild: a third pid, the same two events.
  std::string GrandchildPid = Lines[3].substr(0, Lines[3].find(' '));
  EXPECT_NE(GrandchildPid, std::to_string(Parent));
  EXPECT_NE(GrandchildPid, std::to_string(static_cast<long>(Child)));
  EXPECT_EQ(Lines[3], GrandchildPid + " rt.fork.api");
  EXPECT_EQ(Lines[4], GrandchildPid + " rt.fork.child-only");
}

std::atomic<int> ForkStressEvents(0);
int forkStressApi() {
  C10_LOG_API_USAGE_ONCE("rt.fork-stress.api");
  return 1;
}

TEST(Fork, ForkingWhileOtherThreadsLogLeavesTheChildUsable) {
  // The logger takes no lock of its own: a child may inherit it mid-call.
  apistamp::SetAPIUsageLogger([](const std::string &Event) {
    if (Event.compare(0, 15, "rt.fork-stress.") == 0)
      ForkStressEvents.fetch_add(1);
  });
  forkStressApi();
  std::atomic<bool> Stop(false);
  std::vector<std::thread> Loggers;
  for (int T = 0; T < 2; ++T)
    Loggers.emplace_back([&] {
      while (!Stop.load())
        apistamp::LogAPIUsage("rt.fork-stress.every-time");
    });
  int Failures = 0;
  for (int I = 0; I < 30; ++I) {
    pid_t Child = fork();
    if (Child == 0) {
      // Only this thread runs here; the runtime's lock must be free.
      int Before = ForkStressEvents.load();
      forkStressApi();
      forkStressApi();
      apistamp::LogAPIUsage("rt.fork-stress.child");
      _exit(ForkStressEvents.load() - Before == 2 ? 0 : 1);
    }
    if (Child < 0 || apistamp::test::waitForChild(Child) != 0)
      ++Failures;
  }
  Stop.store(true);
  for (std::thread &T : Loggers)
    T.join();
  EventCollector::get().install();
  EXPECT_EQ(Failures, 0);
}

//===----------------------------------------------------------------------===//
// Signal handlers (issue 24, item 22)
//===----------------------------------------------------------------------===//

std::atomic<int> SignalsHandled(0);
void signalApi() { C10_LOG_API_USAGE_ONCE("rt.signal.inner"); }
void onSignal(int) {
  signalApi();
  SignalsHandled.fetch_add(1);
}
void raiseSignal() { raise(SIGUSR1); }
void outerApi() { C10_LOG_API_USAGE_ONCE("rt.sig.outer"); }

// An instrumented function called from a signal handler that interrupts the
// runtime's locked section on the same thread: the event is dropped (the
// site stays unmarked), never a deadlock. The signal is raised by the first
// allocation inside the runtime's slow path, which happens under its lock
// (the name set's insertion; the short name needs no allocation before).
TEST(SignalHandler, ReentryFromASignalHandlerNeverBlocks) {
  pid_t Child = fork();
  ASSERT_GE(Child, 0);
  if (Child == 0) {
    alarm(20); // A deadlock kills the child: a test failure, not a hang.
    EventCollector::get().install();
    struct sigaction Action = {};
    Action.sa_handler = onSignal;
    sigemptyset(&Action.sa_mask);
    sigaction(SIGUSR1, &Action, nullptr);
    apistamp::test::callOnNextAllocation(raiseSignal);
    outerApi();
    bool Ok = SignalsHandled.load() == 1 &&
              EventCollector::get().count("rt.sig.outer") == 1 &&
              EventCollector::get().count("rt.signal.inner") == 0;
    // Dropped, not marked: outside the handler the site logs.
    signalApi();
    Ok = Ok && EventCollector::get().count("rt.signal.inner") == 1;
    _exit(Ok ? 0 : 1);
  }
  EXPECT_EQ(apistamp::test::waitForChild(Child), 0);
}

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

int throwingApi() {
  C10_LOG_API_USAGE_ONCE("rt.throw.api");
  return 7;
}
int throwingEntry() {
  APISTAMP_LOG_API_ENTRY("rt.throw.entry");
  return 8;
}

TEST(Handlers, ExceptionsFromHandlersDoNotEscape) {
  testing::internal::CaptureStderr();
  apistamp::SetAPIUsageLogger(
      [](const std::string &) { throw std::runtime_error("logger failed"); });
  EXPECT_EQ(throwingApi(), 7);
  // An outermost call's scope is left balanced.
  EXPECT_EQ(throwingEntry(), 8);
  EXPECT_EQ(apistamp::detail::EntryDepth, 0u);
  apistamp::LogAPIUsage("rt.throw.every-time");
  apistamp::SetAPIUsageLogger([](const std::string &) { throw 42; });
  apistamp::LogAPIUsage("rt.throw.every-time");
  apistamp::SetAPIUsageMetadataLogger(
      [](const std::string &, const std::map<std::string, std::string> &) {
        throw std::logic_error("metadata logger failed");
      });
  apistamp::LogAPIUsageMetadata("rt.throw.metadata", {{"k", "v"}});
  std::string Err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(apistamp::test::countOccurrences(Err, "apistamp: "), 1u) << Err;
  EXPECT_NE(Err.find("logger failed"), std::string::npos) << Err;

  // Logging still works; the event the throwing logger received counts as
  // logged.
  EventCollector::get().install();
  EXPECT_EQ(throwingApi(), 7);
  apistamp::LogAPIUsage("rt.throw.after");
  EXPECT_EQ(EventCollector::get().events(),
            std::vector<std::string>{"rt.throw.after"});
}

int reenterOuter() {
  C10_LOG_API_USAGE_ONCE("rt.reenter.outer");
  return 1;
}
int reenterInner() {
  C10_LOG_API_USAGE_ONCE("rt.reenter.inner");
  return 2;
}

TEST(Handlers, ALoggerThatLogsIsNotReentered) {
  static std::atomic<int> Depth(0), MaxDepth(0);
  EventCollector::get().install(); // Clears; replaced just below.
  apistamp::SetAPIUsageLogger([](const std::string &Event) {
    int D = Depth.fetch_add(1) + 1;
    MaxDepth.store(std::max(MaxDepth.load(), D));
    EventCollector::get().add(Event);
    // Each of these would recurse (or deadlock under a lock) if delivered.
    reenterInner();
    apistamp::LogAPIUsage("rt.reenter.from-logger");
    apistamp::LogAPIUsageMetadata("rt.reenter.from-logger", {});
    Depth.fetch_sub(1);
  });
  reenterOuter();
  std::vector<std::string> Events =
      EventCollector::get().withPrefix("rt.reenter.");
  EXPECT_EQ(Events, std::vector<std::string>{"rt.reenter.outer"});
  EXPECT_EQ(MaxDepth.load(), 1);

  // The inner site was not marked: its first use outside a logger logs it.
  reenterInner();
  reenterInner();
  Events = EventCollector::get().withPrefix("rt.reenter.");
  EXPECT_EQ(Events,
            (std::vector<std::string>{"rt.reenter.outer", "rt.reenter.inner"}));
  EXPECT_EQ(MaxDepth.load(), 1);
}

TEST(Handlers, ALoggerMayReplaceItself) {
  apistamp::SetAPIUsageLogger([](const std::string &Event) {
    EventCollector::get().install();
    EventCollector::get().add("replaced by " + Event);
  });
  apistamp::LogAPIUsage("rt.replace.first");
  apistamp::LogAPIUsage("rt.replace.second");
  EXPECT_EQ(EventCollector::get().events(),
            (std::vector<std::string>{"replaced by rt.replace.first",
                                      "rt.replace.second"}));
}

TEST(Handlers, EmptyHandlersAreIgnored) {
  EventCollector::get().install();
  apistamp::SetAPIUsageLogger(apistamp::APIUsageLogger());
  apistamp::LogAPIUsage("rt.empty.event");
  EXPECT_EQ(EventCollector::get().events(),
            std::vector<std::string>{"rt.empty.event"});

  static std::vector<std::string> Contexts;
  apistamp::SetAPIUsageMetadataLogger(
      [](const std::string &Context,
         const std::map<std::string, std::string> &) {
        Contexts.push_back(Context);
      });
  apistamp::SetAPIUsageMetadataLogger(apistamp::APIUsageMetadataLogger());
  apistamp::LogAPIUsageMetadata("rt.empty.metadata", {});
  EXPECT_EQ(Contexts, std::vector<std::string>{"rt.empty.metadata"});
}

TEST(Handlers, ReplacingTheLoggerWhileThreadsLogLosesNothing) {
  static std::atomic<long> Delivered(0);
  auto Counting = [](const std::string &Event) {
    if (Event == "rt.swap.every-time")
      Delivered.fetch_add(1);
  };
  apistamp::SetAPIUsageLogger(Counting);
  const int Threads = 4, PerThread = 2000;
  std::atomic<bool> Stop(false);
  std::thread Swapper([&] {
    while (!Stop.load())
      apistamp::SetAPIUsageLogger(Counting);
  });
  std::vector<std::thread> Loggers;
  for (int T = 0; T < Threads; ++T)
    Loggers.emplace_back([] {
      for (int I = 0; I < PerThread; ++I)
        apistamp::LogAPIUsage("rt.swap.every-time");
    });
  for (std::thread &T : Loggers)
    T.join();
  Stop.store(true);
  Swapper.join();
  EventCollector::get().install();
  EXPECT_EQ(Delivered.load(), static_cast<long>(Threads) * PerThread);
}

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

TEST(Metadata, TheHandlerReceivesContextAndMap) {
  static std::vector<std::pair<std::string, std::map<std::string, std::string>>>
      Received;
  apistamp::SetAPIUsageMetadataLogger(
      [](const std::string &Context,
         const std::map<std::string, std::string> &Metadata) {
        Received.emplace_back(Context, Metadata);
      });
  EventCollector::get().install();
  std::map<std::string, std::string> Metadata = {{"model", "resnet"},
                                                 {"rank", "3"}};
  apistamp::LogAPIUsageMetadata("rt.metadata.event", Metadata);
  apistamp::LogAPIUsageMetadata("rt.metadata.event", Metadata);
  ASSERT_EQ(Received.size(), 2u);
  EXPECT_EQ(Received[0].first, "rt.metadata.event");
  EXPECT_EQ(Received[0].second, Metadata);
  // Metadata events do not go to the plain logger (as in c10).
  EXPECT_TRUE(EventCollector::get().events().empty());
}

} // namespace
