//===- DistinctKeysTest.cpp - Distinct counts by partition, any budget ----===//

#include "usage/DistinctKeys.h"
#include "gmock/gmock.h"
#include <map>
#include <memory>
#include <random>
#include <set>

using namespace apistamp;

namespace {

/// \p Pairs spread over \p Threads DistinctKeys with \p Budget, counted on
/// two threads, against std::set.
void expectExactCounts(const std::vector<std::pair<uint32_t, uint64_t>> &Pairs,
                       unsigned Threads, size_t Budget, size_t Counters) {
  std::vector<std::unique_ptr<DistinctKeys>> Keys;
  std::vector<DistinctKeys *> All;
  for (unsigned I = 0; I < Threads; ++I) {
    Keys.push_back(std::make_unique<DistinctKeys>(Budget));
    All.push_back(Keys.back().get());
  }
  std::vector<std::set<uint64_t>> Expected(Counters);
  for (size_t I = 0; I < Pairs.size(); ++I) {
    Keys[I % Threads]->add(Pairs[I].first, Pairs[I].second);
    Expected[Pairs[I].first].insert(Pairs[I].second);
  }
  std::vector<uint64_t> Counts = DistinctKeys::countDistinct(All, Counters, 2);
  ASSERT_EQ(Counts.size(), Counters);
  for (size_t C = 0; C < Counters; ++C)
    EXPECT_EQ(Counts[C], Expected[C].size()) << "counter " << C;
  for (DistinctKeys *K : All)
    EXPECT_EQ(K->records(), 0u);
}

std::vector<std::pair<uint32_t, uint64_t>>
randomPairs(size_t Count, uint32_t Counters, uint64_t Keys) {
  std::mt19937_64 Random(20261123);
  std::vector<std::pair<uint32_t, uint64_t>> Pairs;
  for (size_t I = 0; I < Count; ++I)
    Pairs.push_back({uint32_t(Random() % Counters), mix64(Random() % Keys)});
  return Pairs;
}

TEST(DistinctKeysTest, CountsAreExactWithoutCompaction) {
  expectExactCounts(randomPairs(200000, 37, 50000), 3, 1 << 24, 37);
}

TEST(DistinctKeysTest, CountsAreExactWhenABudgetForcesCompactions) {
  // Many duplicates, a budget far below the records: compacted many times.
  expectExactCounts(randomPairs(300000, 11, 3000), 2, 1000, 11);
  // Mostly distinct keys over the budget: compactions keep little.
  expectExactCounts(randomPairs(300000, 5, 1ull << 40), 1, 5000, 5);
}

TEST(DistinctKeysTest, CompactionsThatLeaveChunksEndingMidLine) {
  // Partitions past one 4096-record chunk, compacted to sizes that are not
  // multiples of a staging line: later lines straddle two chunks.
  expectExactCounts(randomPairs(1500000, 3, 1200000), 1, 1000003, 3);
}

TEST(DistinctKeysTest, TheKeyThatMixesToZeroCountsOnce) {
  // This key of counter 0 is packed as 0, the set's empty marker.
  uint64_t ZeroKey = 0x9E3779B97F4A7C15ULL;
  expectExactCounts({{0, ZeroKey}, {0, 1}, {0, ZeroKey}, {1, ZeroKey}}, 2, 1,
                    3);
}

TEST(DistinctKeysTest, CountersTooLargeToPackAreCountedApart) {
  // Counters around 2^20, where records stop being packed, on two threads,
  // with and without compactions.
  constexpr uint32_t First = (1u << 20) - 3, Counters = (1u << 20) + 3;
  for (size_t Budget : {size_t(1) << 24, size_t(100)}) {
    std::map<uint32_t, std::set<uint64_t>> Expected;
    DistinctKeys A(Budget), B(Budget);
    std::mt19937_64 Random(42);
    for (size_t I = 0; I < 20000; ++I) {
      uint32_t Counter = First + uint32_t(Random() % (Counters - First));
      uint64_t Key = mix64(Random() % 700);
      (I % 2 ? A : B).add(Counter, Key);
      Expected[Counter].insert(Key);
    }
    DistinctKeys *All[] = {&A, &B};
    std::vector<uint64_t> Counts =
        DistinctKeys::countDistinct(All, Counters, 2);
    for (uint32_t C = First; C < Counters; ++C)
      EXPECT_EQ(Counts[C], Expected[C].size()) << "counter " << C;
    EXPECT_EQ(A.records() + B.records(), 0u);
  }
}

TEST(DistinctKeysTest, KeysOfTwoCountersThatMixAlikeCountInBoth) {
  // add() mixes a key with its counter; these keys of two counters mix to
  // the same bits, packed (small counters) and kept apart (large ones).
  auto Alike = [](uint32_t Counter, uint32_t Other, uint64_t Key) {
    constexpr uint64_t Golden = 0x9E3779B97F4A7C15ULL;
    return Key ^ (uint64_t(Counter) + 1) * Golden ^
           (uint64_t(Other) + 1) * Golden;
  };
  uint64_t Key = mix64(7);
  expectExactCounts({{1, Key}, {2, Alike(1, 2, Key)}}, 1, 100, 3);
  constexpr uint32_t Large = 1u << 20;
  expectExactCounts({{Large, Key}, {Large + 1, Alike(Large, Large + 1, Key)}},
                    1, 100, Large + 2);
}

TEST(DistinctKeysTest, MemoryIsBoundedByTheDistinctKeysNotTheInput) {
  size_t Budget = 20000;
  DistinctKeys Keys(Budget);
  size_t MaxRecords = 0;
  std::mt19937_64 Random(7);
  // 2 million lines, 5000 distinct (counter, key) pairs.
  for (size_t I = 0; I < 2000000; ++I) {
    Keys.add(uint32_t(Random() % 5), mix64(Random() % 1000));
    if (I % 16 == 0)
      MaxRecords = std::max(MaxRecords, Keys.records());
  }
  // What is staged (under a cache line per partition) is not counted yet.
  size_t Staged = 256 * 8;
  EXPECT_LE(MaxRecords, Budget + Staged);
  // Past the budget: at most twice the distinct pairs.
  std::set<uint64_t> Distinct;
  DistinctKeys Grown(Budget);
  MaxRecords = 0;
  for (size_t I = 0; I < 3000000; ++I) {
    uint64_t Key = Random() % 300000;
    Distinct.insert(Key);
    Grown.add(0, mix64(Key));
    if (I % 16 == 0)
      MaxRecords = std::max(MaxRecords, Grown.records());
  }
  EXPECT_GT(MaxRecords, Budget);
  EXPECT_LE(MaxRecords, 2 * Distinct.size() + Staged);
  DistinctKeys *All[] = {&Grown};
  EXPECT_EQ(DistinctKeys::countDistinct(All, 1, 1)[0], Distinct.size());
}

} // namespace
