//===- Bench.cpp - Cost of C10_LOG_API_USAGE_ONCE: steady state, first call //
//
// Steady state: a call through an instrumented function against the same
// function uninstrumented, for the apistamp runtime (in the executable and
// in a shared library), its outermost-only macro APISTAMP_LOG_API_ENTRY
// (an outermost call, and a nested one: made while the benchmark holds an
// APIEntryScope) and the real c10 macro, on 1 and 8 threads.
// First call: the slow path of a site whose name was not logged yet, for
// the apistamp runtime and c10. See docs/benchmarks.md.
//
//===----------------------------------------------------------------------===//

#include "Subjects.h"

#include "apistamp/api_usage.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#if APISTAMP_BENCH_C10
#include <c10/util/Logging.h>
#endif

namespace {

template <int (*Function)(int)> void steadyState(benchmark::State &State) {
  int X = Function(0); // The first call logs; the loop measures the rest.
  for (auto _ : State) {
    X = Function(X);
    benchmark::DoNotOptimize(X);
  }
}

BENCHMARK_TEMPLATE(steadyState, plainCall)
    ->Name("steady/plain")
    ->Threads(1)
    ->Threads(8);
BENCHMARK_TEMPLATE(steadyState, apistampCall)
    ->Name("steady/apistamp")
    ->Threads(1)
    ->Threads(8);
BENCHMARK_TEMPLATE(steadyState, plainCallDso)
    ->Name("steady/plain-dso")
    ->Threads(1)
    ->Threads(8);
BENCHMARK_TEMPLATE(steadyState, apistampCallDso)
    ->Name("steady/apistamp-dso")
    ->Threads(1)
    ->Threads(8);

/// The same as steadyState, but every call is nested: made inside an
/// instrumented call (an APIEntryScope alive on this thread).
template <int (*Function)(int)> void steadyNested(benchmark::State &State) {
  int X = Function(0);
  apistamp::APIEntryScope Inside;
  for (auto _ : State) {
    X = Function(X);
    benchmark::DoNotOptimize(X);
  }
}

BENCHMARK_TEMPLATE(steadyState, apistampEntryCall)
    ->Name("steady/entry-outer")
    ->Threads(1)
    ->Threads(8);
BENCHMARK_TEMPLATE(steadyNested, apistampEntryCall)
    ->Name("steady/entry-nested")
    ->Threads(1)
    ->Threads(8);
BENCHMARK_TEMPLATE(steadyState, apistampEntryCallDso)
    ->Name("steady/entry-outer-dso")
    ->Threads(1)
    ->Threads(8);
BENCHMARK_TEMPLATE(steadyNested, apistampEntryCallDso)
    ->Name("steady/entry-nested-dso")
    ->Threads(1)
    ->Threads(8);
#if APISTAMP_BENCH_C10
BENCHMARK_TEMPLATE(steadyState, c10Call)
    ->Name("steady/c10")
    ->Threads(1)
    ->Threads(8);
#endif

const int FirstCallIterations = 20000;

/// Event names not logged before, made outside the timed loop.
std::vector<std::string> freshNames(const char *Prefix) {
  static int Run = 0;
  ++Run;
  std::vector<std::string> Names;
  for (int I = 0; I < FirstCallIterations; ++I)
    Names.push_back(std::string(Prefix) + std::to_string(Run) + "." +
                    std::to_string(I));
  return Names;
}

void firstCallApistamp(benchmark::State &State) {
  apistamp::SetAPIUsageLogger(
      [](const std::string &Event) { benchmark::DoNotOptimize(Event.data()); });
  std::vector<std::string> Names = freshNames("bench.first.apistamp.");
  std::unique_ptr<apistamp::detail::Site[]> Sites(
      new apistamp::detail::Site[Names.size()]);
  std::size_t I = 0;
  for (auto _ : State) {
    // What a site's first pass does: the check, then the slow path with a
    // string literal (a const char *).
    apistamp::detail::Site &Site = Sites[I];
    if (!Site.done())
      apistamp::detail::logSiteOnce(Site, Names[I].c_str());
    ++I;
  }
}
BENCHMARK(firstCallApistamp)
    ->Name("first-call/apistamp")
    ->Iterations(FirstCallIterations);

#if APISTAMP_BENCH_C10
void firstCallC10(benchmark::State &State) {
  c10::SetAPIUsageLogger(
      [](const std::string &Event) { benchmark::DoNotOptimize(Event.data()); });
  std::vector<std::string> Names = freshNames("bench.first.c10.");
  std::size_t I = 0;
  for (auto _ : State) {
    // What c10's macro does on a site's first pass (besides the guard): a
    // std::string from the literal, then the handler.
    bool Flag = c10::detail::LogAPIUsageFakeReturn(Names[I].c_str());
    benchmark::DoNotOptimize(Flag);
    ++I;
  }
}
BENCHMARK(firstCallC10)
    ->Name("first-call/c10")
    ->Iterations(FirstCallIterations);
#endif

} // namespace

BENCHMARK_MAIN();
