//===- EntryTest.cpp - APISTAMP_LOG_API_ENTRY: outermost calls only -------===//
//
// Nested calls log only the outermost; a later direct call of an inner API
// logs it once; the depth unwinds with exceptions, is per thread, survives
// recursion, crosses TUs, and is kept by a forked child; UserCodeScope makes
// callbacks outermost; once per name holds, also with the plain macro; no
// allocation in the steady state. A handler that throws:
// Handlers.ExceptionsFromHandlersDoNotEscape (RuntimeTest.cpp). Event names
// start with "rt.entry." and are unique per test: the set of logged names is
// process-wide.
//
//===----------------------------------------------------------------------===//

#include "AllocationCounter.h"
#include "SecondSite.h"
#include "TestUtil.h"

#include "apistamp/api_usage.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using apistamp::test::EventCollector;

namespace {

/// This thread's depth of instrumented calls.
unsigned depth() { return apistamp::detail::EntryDepth; }

/// The events collected so far whose names start with \p Prefix.
std::vector<std::string> eventsOf(const std::string &Prefix) {
  return EventCollector::get().withPrefix(Prefix);
}

typedef std::vector<std::string> Events;

//===----------------------------------------------------------------------===//
// Nesting
//===----------------------------------------------------------------------===//

unsigned DepthInInner = 0;

int nestedInner(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.nested.inner");
  DepthInInner = depth();
  return X + 1;
}
int nestedOuter(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.nested.outer");
  return nestedInner(X) + nestedInner(X);
}

TEST(Entry, NestedCallsLogOnlyTheOutermost) {
  EventCollector::get().install();
  EXPECT_EQ(depth(), 0u);
  EXPECT_EQ(nestedOuter(1), 4);
  EXPECT_EQ(DepthInInner, 2u);
  EXPECT_EQ(depth(), 0u);
  EXPECT_EQ(eventsOf("rt.entry.nested."), Events{"rt.entry.nested.outer"});
  EXPECT_EQ(nestedOuter(1), 4);
  EXPECT_EQ(eventsOf("rt.entry.nested."), Events{"rt.entry.nested.outer"});
}

// APISTAMP_LIBRARY_INTERNAL (a rule's `internal: true`, issue 46 B11): a
// library's start-up routine that calls its own API logs nothing, and the
// API it called logs when a user calls it.
int internalApi(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.internal.api");
  return X + 1;
}
int libraryStartUp() {
  APISTAMP_LIBRARY_INTERNAL("rt.entry.internal.startup");
  unsigned Inside = depth();
  return internalApi(1) + internalApi(2) + int(Inside) * 100;
}

TEST(Entry, AnInternalEntryPointLogsNothingAndHidesTheLibrarysOwnCalls) {
  EventCollector::get().install();
  EXPECT_EQ(libraryStartUp(), 5 + 100); // Depth 1 inside it.
  EXPECT_EQ(depth(), 0u);
  EXPECT_EQ(eventsOf("rt.entry.internal."), Events{});
  EXPECT_EQ(internalApi(3), 4); // A user's call.
  EXPECT_EQ(eventsOf("rt.entry.internal."), Events{"rt.entry.internal.api"});
}

int laterInner(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.later.inner");
  return X + 1;
}
int laterOuter(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.later.outer");
  return laterInner(X) * 2;
}

TEST(Entry, ADirectCallOfAnInnerApiLaterLogsItOnce) {
  EventCollector::get().install();
  for (int I = 0; I < 3; ++I)
    EXPECT_EQ(laterOuter(I), 2 * I + 2);
  // The nested calls did not mark the inner site: a user's call logs it.
  EXPECT_EQ(laterInner(1), 2);
  EXPECT_EQ(laterInner(2), 3);
  EXPECT_EQ(laterOuter(1), 4);
  EXPECT_EQ(eventsOf("rt.entry.later."),
            (Events{"rt.entry.later.outer", "rt.entry.later.inner"}));
}

int blockEntries(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.block.function");
  unsigned Before = depth();
  {
    // Two more on one line in a nested block: unique names, both nested.
    // clang-format off
    APISTAMP_LOG_API_ENTRY("rt.entry.block.a"); APISTAMP_LOG_API_ENTRY("rt.entry.block.b");
    // clang-format on
    X += static_cast<int>(depth() - Before); // 2
  }
  X += static_cast<int>(depth() - Before); // 0: the block's scopes ended
  return X;
}

TEST(Entry, SeveralScopesInOneFunctionNestAndEndWithTheirBlock) {
  EventCollector::get().install();
  EXPECT_EQ(blockEntries(0), 2);
  EXPECT_EQ(eventsOf("rt.entry.block."), Events{"rt.entry.block.function"});
  EXPECT_EQ(depth(), 0u);
}

class CtorEntry {
public:
  explicit CtorEntry(int X) : Value(0) {
    APISTAMP_LOG_API_ENTRY("rt.entry.ctor.CtorEntry");
    Value = twice(X);
  }
  int twice(int X) const {
    APISTAMP_LOG_API_ENTRY("rt.entry.ctor.twice");
    return 2 * X;
  }
  int Value;
};

TEST(Entry, AConstructorIsAnEntryLikeAFunction) {
  EventCollector::get().install();
  CtorEntry C(3);
  EXPECT_EQ(C.Value, 6);
  EXPECT_EQ(eventsOf("rt.entry.ctor."), Events{"rt.entry.ctor.CtorEntry"});
  EXPECT_EQ(C.twice(2), 4);
  EXPECT_EQ(eventsOf("rt.entry.ctor."),
            (Events{"rt.entry.ctor.CtorEntry", "rt.entry.ctor.twice"}));
}

int crossInner(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.tu.first");
  return X * 3;
}

TEST(Entry, TheDepthIsSharedByTranslationUnits) {
  EventCollector::get().install();
  // SecondSite.cpp's entry calls this TU's: only the outer one logs.
  EXPECT_EQ(apistamp::test::secondTUEntry(crossInner, 2), 7);
  EXPECT_EQ(eventsOf("rt.entry.tu."), Events{"rt.entry.tu.second"});
}

//===----------------------------------------------------------------------===//
// Recursion and once per name
//===----------------------------------------------------------------------===//

unsigned DepthAtBottom = 0;

int recursionInner() {
  APISTAMP_LOG_API_ENTRY("rt.entry.recursion.inner");
  DepthAtBottom = depth();
  return 1;
}
int recurse(int N) {
  APISTAMP_LOG_API_ENTRY("rt.entry.recursion.recurse");
  return N == 0 ? recursionInner() : recurse(N - 1) + 1;
}

TEST(Entry, RecursionLogsOnceAndUnwindsTheDepth) {
  EventCollector::get().install();
  EXPECT_EQ(recurse(50), 51);
  EXPECT_EQ(DepthAtBottom, 52u); // 51 levels of recurse, then the inner call
  EXPECT_EQ(depth(), 0u);
  EXPECT_EQ(recurse(3), 4);
  EXPECT_EQ(eventsOf("rt.entry.recursion."),
            Events{"rt.entry.recursion.recurse"});
}

int samePlain() {
  C10_LOG_API_USAGE_ONCE("rt.entry.same.plain-first");
  return 1;
}
int sameEntryOfPlainName() {
  APISTAMP_LOG_API_ENTRY("rt.entry.same.plain-first");
  return 2;
}
int sameEntryOne() {
  APISTAMP_LOG_API_ENTRY("rt.entry.same.shared");
  return 3;
}
int sameEntryTwo() {
  APISTAMP_LOG_API_ENTRY("rt.entry.same.shared");
  return 4;
}
int nameBuilds = 0;
std::string builtEntryName() {
  ++nameBuilds;
  return "rt.entry.same.built";
}
int sameBuilt() {
  APISTAMP_LOG_API_ENTRY(builtEntryName());
  return 5;
}

TEST(Entry, EachNameIsLoggedOncePerProcessWithThePlainMacroToo) {
  EventCollector::get().install();
  // A name the plain macro logged is not logged again by an entry site.
  EXPECT_EQ(samePlain() + sameEntryOfPlainName(), 3);
  // Two entry sites of one name: one event.
  EXPECT_EQ(sameEntryOne() + sameEntryTwo() + sameEntryOne(), 10);
  // The argument is evaluated on the site's first outermost call only.
  for (int I = 0; I < 5; ++I)
    EXPECT_EQ(sameBuilt(), 5);
  EXPECT_EQ(nameBuilds, 1);
  EXPECT_EQ(eventsOf("rt.entry.same."),
            (Events{"rt.entry.same.plain-first", "rt.entry.same.shared",
                    "rt.entry.same.built"}));
}

//===----------------------------------------------------------------------===//
// Exceptions and failure paths
//===----------------------------------------------------------------------===//

int throwingInner(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.throw.inner");
  if (X < 0)
    throw std::runtime_error("negative");
  return X;
}
int throwingOuter(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.throw.outer");
  return throwingInner(X) + 1;
}
int catchingOuter(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.throw.catching");
  int Result = 0;
  try {
    Result = throwingInner(X);
  } catch (const std::runtime_error &) {
    Result = -1;
  }
  // Still inside this call: the inner call stays nested.
  return Result + static_cast<int>(depth()) + throwingInner(0);
}

TEST(Entry, AnExceptionUnwindsTheDepth) {
  EventCollector::get().install();
  EXPECT_THROW(throwingOuter(-1), std::runtime_error);
  EXPECT_EQ(depth(), 0u);
  // Thrown through two scopes, caught in the inner one's caller.
  EXPECT_EQ(catchingOuter(-1), 0); // -1 + depth 1 + 0
  EXPECT_EQ(depth(), 0u);
  EXPECT_EQ(eventsOf("rt.entry.throw."),
            (Events{"rt.entry.throw.outer", "rt.entry.throw.catching"}));
  // A direct call after all that is outermost.
  EXPECT_THROW(throwingInner(-1), std::runtime_error);
  EXPECT_EQ(depth(), 0u);
  EXPECT_EQ(eventsOf("rt.entry.throw."),
            (Events{"rt.entry.throw.outer", "rt.entry.throw.catching",
                    "rt.entry.throw.inner"}));
}

int reentryInner() {
  APISTAMP_LOG_API_ENTRY("rt.entry.reentry.inner");
  return 1;
}
int reentryOuter() {
  APISTAMP_LOG_API_ENTRY("rt.entry.reentry.outer");
  return 2;
}
std::atomic<int> ReentryCalls(0);

TEST(Entry, AnEntryCalledByTheHandlerIsNotLoggedNorMarked) {
  EventCollector::get().install();
  apistamp::SetAPIUsageLogger([](const std::string &Event) {
    EventCollector::get().add(Event);
    if (Event == "rt.entry.reentry.outer")
      ReentryCalls += reentryInner(); // Inside the outer call's logging.
  });
  EXPECT_EQ(reentryOuter(), 2);
  EXPECT_EQ(ReentryCalls.load(), 1);
  EXPECT_EQ(eventsOf("rt.entry.reentry."), Events{"rt.entry.reentry.outer"});
  EXPECT_EQ(reentryInner(), 1); // Its site was not marked.
  EXPECT_EQ(eventsOf("rt.entry.reentry."),
            (Events{"rt.entry.reentry.outer", "rt.entry.reentry.inner"}));
  EXPECT_EQ(depth(), 0u);
}

//===----------------------------------------------------------------------===//
// Callbacks into user code
//===----------------------------------------------------------------------===//

int callbackApi(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.callback.api");
  return X + 1;
}
int callbackTarget(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.callback.target");
  return X;
}
/// A library function that calls user code, with or without marking it.
template <typename F> int forEach(bool MarkUserCode, F UserCode) {
  APISTAMP_LOG_API_ENTRY("rt.entry.callback.forEach");
  if (!MarkUserCode)
    return UserCode();
  apistamp::UserCodeScope User;
  return UserCode();
}

TEST(Entry, CallbacksCountAsTheLibrarysOwnUnlessMarkedAsUserCode) {
  EventCollector::get().install();
  // The documented limitation: the user's call from its callback is nested.
  EXPECT_EQ(forEach(false, [] { return callbackTarget(1); }), 1);
  EXPECT_EQ(eventsOf("rt.entry.callback."),
            Events{"rt.entry.callback.forEach"});
  // Marked: the callback's own calls are outermost; the depth comes back.
  unsigned Inside = 99;
  EXPECT_EQ(forEach(true,
                    [&] {
                      Inside = depth();
                      return callbackApi(1) + callbackTarget(1);
                    }),
            3);
  EXPECT_EQ(Inside, 0u);
  EXPECT_EQ(depth(), 0u);
  EXPECT_EQ(eventsOf("rt.entry.callback."),
            (Events{"rt.entry.callback.forEach", "rt.entry.callback.api",
                    "rt.entry.callback.target"}));
}

int userScopeThrows() {
  APISTAMP_LOG_API_ENTRY("rt.entry.userthrow.api");
  {
    apistamp::UserCodeScope User;
    if (depth() == 0)
      throw std::runtime_error("from user code");
  }
  return 0;
}

TEST(Entry, UserCodeScopeRestoresTheDepthWhenUserCodeThrows) {
  EventCollector::get().install();
  apistamp::APIEntryScope Outer; // As if inside another API call.
  EXPECT_EQ(depth(), 1u);
  EXPECT_THROW(userScopeThrows(), std::runtime_error);
  EXPECT_EQ(depth(), 1u);
  EXPECT_TRUE(eventsOf("rt.entry.userthrow.").empty());
}

//===----------------------------------------------------------------------===//
// Threads and fork
//===----------------------------------------------------------------------===//

int threadInner(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.thread.inner");
  return X + 1;
}
int threadOuter(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.thread.outer");
  int Result = 0;
  unsigned ThreadDepth = 99;
  // A thread the library starts: it begins at depth 0, so its call is
  // outermost (documented).
  std::thread Worker([&] {
    ThreadDepth = depth();
    Result = threadInner(X);
  });
  Worker.join();
  return Result + static_cast<int>(ThreadDepth);
}

TEST(Entry, EachThreadHasItsOwnDepth) {
  EventCollector::get().install();
  EXPECT_EQ(threadOuter(1), 2);
  EXPECT_EQ(eventsOf("rt.entry.thread."),
            (Events{"rt.entry.thread.outer", "rt.entry.thread.inner"}));
}

int raceInner(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.race.inner");
  return X + 1;
}
int raceOuter(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.race.outer");
  return raceInner(X);
}

TEST(Entry, RacingThreadsLogTheOuterOnceAndNeverTheInner) {
  EventCollector::get().install();
  const int Threads = 16;
  std::atomic<int> Ready(0);
  std::atomic<long> Sum(0);
  std::atomic<int> BadDepth(0);
  std::vector<std::thread> Workers;
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([&] {
      Ready.fetch_add(1);
      while (Ready.load() < Threads)
        std::this_thread::yield();
      long Local = 0;
      for (int I = 0; I < 200; ++I)
        Local += raceOuter(I);
      if (depth() != 0)
        BadDepth.fetch_add(1);
      Sum.fetch_add(Local);
    });
  for (std::thread &W : Workers)
    W.join();
  EXPECT_EQ(Sum.load(), Threads * (200L * 201 / 2));
  EXPECT_EQ(BadDepth.load(), 0);
  EXPECT_EQ(eventsOf("rt.entry.race."), Events{"rt.entry.race.outer"});
}

int forkInner() {
  APISTAMP_LOG_API_ENTRY("rt.entry.fork.inner");
  return 1;
}
int forkOuterAgain() {
  APISTAMP_LOG_API_ENTRY("rt.entry.fork.outer");
  return 2;
}
/// Forks inside an instrumented call; the child calls the inner API there
/// (nested) and returns 0, the parent the child's pid.
pid_t forkInsideAnEntry(unsigned &ChildDepth) {
  APISTAMP_LOG_API_ENTRY("rt.entry.fork.outer");
  pid_t Child = fork();
  if (Child == 0) {
    ChildDepth = depth();
    forkInner();
  }
  return Child;
}

TEST(Entry, AForkedChildContinuesInsideTheCallThenLogsAsANewProcess) {
  EventCollector::get().install();
  unsigned ChildDepth = 0;
  pid_t Child = forkInsideAnEntry(ChildDepth);
  ASSERT_GE(Child, 0);
  if (Child == 0) {
    // The collector holds what the parent had at the fork: the outer call.
    bool Ok = ChildDepth == 1 && depth() == 0 &&
              eventsOf("rt.entry.fork.") == Events{"rt.entry.fork.outer"};
    // Outside the call now: a direct call logs; the child logs the outer
    // name again (a new process).
    Ok = Ok && forkInner() + forkOuterAgain() == 3 &&
         eventsOf("rt.entry.fork.") ==
             (Events{"rt.entry.fork.outer", "rt.entry.fork.inner",
                     "rt.entry.fork.outer"});
    _exit(Ok ? 0 : 1);
  }
  EXPECT_EQ(apistamp::test::waitForChild(Child), 0);
  // The parent's inner site was never reached.
  EXPECT_EQ(eventsOf("rt.entry.fork."), Events{"rt.entry.fork.outer"});
}

//===----------------------------------------------------------------------===//
// Steady state
//===----------------------------------------------------------------------===//

int steadyInner(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.steady.inner");
  return X + 1;
}
int steadyOuter(int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.steady.outer");
  return steadyInner(X) + 1;
}

TEST(Entry, NoAllocationAfterTheFirstCall) {
  EventCollector::get().install();
  long Sum = steadyOuter(0) + steadyInner(0);
  long Before = apistamp::test::allocationsOnThisThread();
  for (int I = 0; I < 10000; ++I)
    Sum += steadyOuter(I) + steadyInner(I);
  EXPECT_EQ(apistamp::test::allocationsOnThisThread() - Before, 0);
  EXPECT_GT(Sum, 0);
  EXPECT_EQ(eventsOf("rt.entry.steady."),
            (Events{"rt.entry.steady.outer", "rt.entry.steady.inner"}));
}

} // namespace
