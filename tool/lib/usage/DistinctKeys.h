//===- DistinctKeys.h - Count distinct keys per counter -------*- C++ -*-===//
//
// The report's counts are distinct counts (jobs, processes and hosts per
// event, jobs per event and day) over millions of lines. One hash set per
// counter makes every line a few cache and TLB misses in sets that together
// do not fit in any cache. Here a key is instead appended, with its
// counter, to one of 256 partitions chosen by its hash, a cache line at a
// time with streaming stores into chunks that never move; a partition (1/256
// of the keys) is then deduplicated on its own, in a set that fits in cache:
// when the buffered records pass a budget, and at the end, where the
// threads' partitions are merged on every thread. Memory stays bounded by the
// distinct (counter, key) pairs: at most twice them, or the budget.
//
// A record is 8 bytes: the counter (below 2^20; larger ones, rare, are kept
// apart in 16 bytes) and 44 bits of the key's hash, which with the 8 bits
// of its partition make two keys of one counter one when 52 bits agree.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_DISTINCTKEYS_H
#define APISTAMP_LIB_USAGE_DISTINCTKEYS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <cstdint>
#include <cstdlib>
#include <tuple>
#include <vector>

namespace apistamp {

/// A bijection of 64-bit values that spreads their bits (MurmurHash3's
/// finalizer).
inline uint64_t mix64(uint64_t Key) {
  Key ^= Key >> 33;
  Key *= 0xff51afd7ed558ccdULL;
  Key ^= Key >> 33;
  Key *= 0xc4ceb9fe1a85ec53ULL;
  Key ^= Key >> 33;
  return Key;
}

/// One thread's (counter, key) pairs, to be counted with countDistinct().
/// Counters are small dense ids shared by all threads; keys are 64-bit
/// hashes (two keys are one when their hashes are).
class DistinctKeys {
public:
  /// Deduplicates what it holds when it holds \p BudgetRecords records
  /// (8 bytes each), or twice what it kept the last time, if more.
  explicit DistinctKeys(size_t BudgetRecords);
  ~DistinctKeys();
  DistinctKeys(const DistinctKeys &) = delete;
  DistinctKeys &operator=(const DistinctKeys &) = delete;

  /// Adds \p Key, a hash whose bits are spread (xxh3, mix64), to
  /// \p Counter. The partition and the slot in the deduplicating set come
  /// from its bits, so it is not mixed again here.
  void add(uint32_t Counter, uint64_t Key) {
    uint64_t Mixed = Key ^ (uint64_t(Counter) + 1) * 0x9E3779B97F4A7C15ULL;
    if (Counter > CounterMask)
      return addWide(Counter, Mixed);
    size_t Partition = Mixed >> (64 - PartitionBits);
    unsigned Slot = Staged[Partition]++;
    Staging[Partition].Records[Slot] =
        ((Mixed << PartitionBits) & ~uint64_t(CounterMask)) | Counter;
    if (Slot + 1 == StagedRecords)
      flush(Partition);
  }

  /// Writes what is staged and waits for the streaming stores: call it on
  /// the thread that added the keys before another thread counts them.
  void finish();

  /// Records held, duplicates included (for tests of the memory bound).
  size_t records() const;

  /// The number of distinct keys of each counter in [0, \p Counters) over
  /// all of \p All, on \p Threads threads (each finish()ed by the thread
  /// that filled it). Empties \p All.
  static std::vector<uint64_t> countDistinct(llvm::ArrayRef<DistinctKeys *> All,
                                             size_t Counters, unsigned Threads);

  /// The bits of a key that count: two keys of one counter whose top
  /// KeptKeyBits bits agree are one key.
  static constexpr unsigned KeptKeyBits = 52;

  /// Calls \p Each(Counter, Key) once for each distinct key of each
  /// counter over all of \p All (each finish()ed), Key as add() took it with
  /// its low 64 - KeptKeyBits bits zero: adding it again, to any counter,
  /// counts as adding the original. Keeps what \p All holds.
  static void forEachDistinct(
      llvm::ArrayRef<DistinctKeys *> All,
      llvm::function_ref<void(uint32_t Counter, uint64_t Key)> Each);

private:
  static constexpr unsigned PartitionBits = 8;
  /// Counters up to this are packed with their key in a Record.
  static constexpr uint32_t CounterMask = (uint32_t(1) << 20) - 1;
  static constexpr unsigned StagedRecords = 8; ///< One cache line.
  /// The counter in the low bits, the key's hash in the others.
  using Record = uint64_t;
  /// A key of a counter past CounterMask, and its counter.
  struct WideRecord {
    uint64_t Mixed;
    uint32_t Counter;
    bool operator<(const WideRecord &Other) const {
      return std::tie(Mixed, Counter) < std::tie(Other.Mixed, Other.Counter);
    }
    bool operator==(const WideRecord &Other) const {
      return Mixed == Other.Mixed && Counter == Other.Counter;
    }
  };
  /// Records are stored in chunks of 64 KiB taken from large blocks:
  /// nothing is moved when a partition grows.
  static constexpr size_t ChunkRecords = 8192;
  static constexpr size_t BlockChunks = 256;
  /// A partition's records waiting to be written, a cache line of them.
  struct alignas(64) StagingLine {
    Record Records[StagedRecords];
  };
  struct Partition {
    size_t Size = 0;              ///< Records in Chunks.
    std::vector<Record *> Chunks; ///< Full but for the last.
  };
  /// Moves partition \p I's staged records to its chunks.
  void flush(size_t I);
  Record *takeChunk();
  /// Drops every partition's duplicate records.
  void compact();
  /// Drops \p P's duplicates; \p P has nothing staged.
  void compact(Partition &P);
  void addWide(uint32_t Counter, uint64_t Mixed);
  /// Sorts \p Wide and drops its duplicates.
  static void dedupe(std::vector<WideRecord> &Wide);

  // What add() touches, apart: 16 KiB of staging lines, 256 bytes of counts.
  StagingLine Staging[size_t(1) << PartitionBits];
  uint8_t Staged[size_t(1) << PartitionBits] = {};
  Partition Partitions[size_t(1) << PartitionBits];
  size_t Buffered = 0, CompactAt;
  std::vector<Record *> Blocks, FreeChunks;
  std::vector<WideRecord> Wide;
  std::vector<uint64_t> Scratch;
};

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_DISTINCTKEYS_H
