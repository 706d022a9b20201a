//===- line_reader.cpp - LineReader's CPU a line, the kernel left out -----===//
//
// Google Benchmark of the reader alone: the first 180 000 lines of each log
// named (at most 64 MiB; the same lines in every shape, so that what a
// ThreadCounts pays once, a new event or day, is spread over as many lines
// in each) are read into memory once, then counted by a
// LineReader in the mapping's 8 MiB windows, as `report` reads a mapped
// log, into a fresh ThreadCounts each iteration. What `report` adds (the
// mapping's page faults, the threads, rendering) is not in it:
// bench/report/shapes.sh measures the whole command.
//
//   build/bin/apistamp-line-reader-bench \
//     /tmp/apistamp-report-shapes/runtime-generator/usage-00.jsonl \
//     /tmp/apistamp-report-shapes/collector-generator/usage-00.jsonl
//
// Each file is two benchmarks, named by its directory: read/ (LineReader,
// counted) and validating/ (LogLineParser alone on every line, nothing
// counted: what a line not of the runtime's shape costs to read). items/s
// is lines/s.
//
//===----------------------------------------------------------------------===//

#include "usage/LineReader.h"
#include "usage/LogMapping.h"
#include <benchmark/benchmark.h>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

using namespace apistamp;

namespace {

constexpr size_t MaxBytes = size_t(64) << 20;
constexpr size_t MaxLines = 180000;

struct Log {
  std::string Bytes; ///< Whole lines, then LogLinePadding bytes.
  size_t Size = 0;
  uint64_t Lines = 0;
};

bool load(const std::string &Path, Log &Out) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  Out.Bytes.resize(MaxBytes);
  In.read(Out.Bytes.data(), MaxBytes);
  size_t Read = size_t(In.gcount());
  std::string_view Text(Out.Bytes.data(), Read);
  size_t LastNewline = std::string_view::npos;
  for (size_t Lines = 0, At = 0; Lines < MaxLines; ++Lines) {
    size_t Newline = Text.find('\n', At);
    if (Newline == std::string_view::npos)
      break;
    LastNewline = Newline;
    At = Newline + 1;
  }
  if (LastNewline == std::string_view::npos)
    return false;
  Out.Size = LastNewline + 1;
  Out.Bytes.resize(Out.Size + LogLinePadding, '\0');
  return true;
}

void readLog(benchmark::State &State, const Log &L) {
  LogWindow Window;
  uint64_t Lines = 0;
  for (auto _ : State) {
    CounterIds Ids;
    ThreadCounts Counts(Ids, KeyBudget);
    LogFileProblems Problems;
    LineReader Reader(Counts, Problems, Window);
    for (size_t At = 0; At < L.Size; At += LogMapping::WindowBytes)
      Reader.consume(L.Bytes.data() + At,
                     std::min(LogMapping::WindowBytes, L.Size - At));
    Reader.finish();
    Lines = Reader.lines();
    if (Problems.Malformed)
      State.SkipWithError("malformed lines: not a log of the runtime's");
    benchmark::DoNotOptimize(Counts.Lines);
  }
  State.SetItemsProcessed(int64_t(State.iterations() * Lines));
  State.SetBytesProcessed(int64_t(State.iterations() * L.Size));
  State.counters["s/line"] = benchmark::Counter(
      double(State.iterations() * Lines),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/// The validating parser alone over the same lines, nothing counted: what
/// a line in another shape than the runtime's costs to read.
void parseValidating(benchmark::State &State, const Log &L) {
  uint64_t Lines = 0, Events = 0;
  LogLineParser Parser;
  for (auto _ : State) {
    const char *At = L.Bytes.data(), *End = At + L.Size;
    Lines = 0;
    while (At < End) {
      size_t Length =
          static_cast<const char *>(std::memchr(At, '\n', End - At)) - At;
      LogLine Fields;
      if (Parser.parse(At, Length, (End - At) + LogLinePadding, Fields) !=
          LogLineError::None) {
        State.SkipWithError("a line the validating parser refuses");
        return;
      }
      Events += Fields.Event.size();
      At += Length + 1;
      ++Lines;
    }
  }
  benchmark::DoNotOptimize(Events);
  State.SetItemsProcessed(int64_t(State.iterations() * Lines));
  State.counters["s/line"] = benchmark::Counter(
      double(State.iterations() * Lines),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

} // namespace

int main(int Argc, char **Argv) {
  benchmark::Initialize(&Argc, Argv);
  static std::vector<Log> Logs;
  std::vector<std::string> Paths(Argv + 1, Argv + Argc);
  if (Paths.empty()) {
    std::cerr << "usage: " << Argv[0] << " LOG... [--benchmark_...]\n";
    return 2;
  }
  Logs.resize(Paths.size());
  for (size_t I = 0; I < Paths.size(); ++I) {
    if (!load(Paths[I], Logs[I])) {
      std::cerr << Paths[I] << ": cannot read it, or no line in it\n";
      return 1;
    }
    std::string Name = Paths[I];
    size_t Slash = Name.rfind('/');
    if (Slash != std::string::npos && Slash > 0) {
      size_t Before = Name.rfind('/', Slash - 1);
      Name = Name.substr(Before == std::string::npos ? 0 : Before + 1);
    }
    benchmark::RegisterBenchmark(("read/" + Name).c_str(), readLog,
                                 std::cref(Logs[I]))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("validating/" + Name).c_str(),
                                 parseValidating, std::cref(Logs[I]))
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
