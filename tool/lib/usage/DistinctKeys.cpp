//===- DistinctKeys.cpp - Count distinct keys per counter, in cache -------===//

#include "DistinctKeys.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <atomic>
#include <cassert>
#include <new>
#include <thread>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace apistamp {

namespace {

/// A set of 64-bit records whose high bits are a hash, sized once for
/// \p Expected keys (at most half full): a partition's keys, in cache.
class ScratchSet {
public:
  ScratchSet(std::vector<uint64_t> &Slots, size_t Expected) : Slots(Slots) {
    size_t Size = llvm::PowerOf2Ceil(std::max<size_t>(16, Expected * 2));
    Slots.assign(Size, 0);
    Mask = Size - 1;
    Shift = 64 - llvm::Log2_64(Size);
  }

  /// True when \p Key was not in the set yet.
  bool insert(uint64_t Key) {
    if (Key == 0) {
      bool New = !HasZero;
      HasZero = true;
      return New;
    }
    for (size_t I = Key >> Shift;; I = (I + 1) & Mask) {
      if (Slots[I] == Key)
        return false;
      if (Slots[I] == 0) {
        Slots[I] = Key;
        return true;
      }
    }
  }

private:
  std::vector<uint64_t> &Slots;
  size_t Mask;
  unsigned Shift;
  bool HasZero = false;
};

} // namespace

DistinctKeys::DistinctKeys(size_t BudgetRecords)
    : CompactAt(std::max<size_t>(BudgetRecords, 1)) {}

DistinctKeys::~DistinctKeys() {
  for (Record *Block : Blocks)
    std::free(Block);
}

size_t DistinctKeys::records() const {
  size_t Count = 0;
  for (size_t I = 0; I < std::size(Partitions); ++I)
    Count += Partitions[I].Size + Staged[I];
  return Count + Wide.size();
}

void DistinctKeys::addWide(uint32_t Counter, uint64_t Mixed) {
  Wide.push_back({Mixed, Counter});
  if (++Buffered >= CompactAt)
    compact();
}

void DistinctKeys::dedupe(std::vector<WideRecord> &Wide) {
  llvm::sort(Wide);
  Wide.erase(std::unique(Wide.begin(), Wide.end()), Wide.end());
}

DistinctKeys::Record *DistinctKeys::takeChunk() {
  if (FreeChunks.empty()) {
    // Left uninitialized: a block's pages are touched as chunks fill.
    auto *Block = static_cast<Record *>(
        std::malloc(BlockChunks * ChunkRecords * sizeof(Record)));
    if (!Block)
      throw std::bad_alloc();
    Blocks.push_back(Block);
    for (size_t I = BlockChunks; I-- > 0;)
      FreeChunks.push_back(Block + I * ChunkRecords);
  }
  Record *Chunk = FreeChunks.back();
  FreeChunks.pop_back();
  return Chunk;
}

void DistinctKeys::flush(size_t I) {
  Partition &P = Partitions[I];
  const Record *From = Staging[I].Records;
  unsigned Count = Staged[I];
  // Usually one whole staging line into the last chunk; after a compaction
  // a chunk may end mid-line, and the rest goes into a new one.
  for (unsigned Done = 0; Done < Count;) {
    if (P.Size == P.Chunks.size() * ChunkRecords)
      P.Chunks.push_back(takeChunk());
    size_t Used = P.Size % ChunkRecords;
    unsigned Fit =
        unsigned(std::min<size_t>(Count - Done, ChunkRecords - Used));
    Record *To = P.Chunks.back() + Used;
#if defined(__SSE2__)
    // Streaming stores: the chunk's lines are written whole, never read
    // into the cache first (after a compaction, a partition may end mid-line:
    // its records are then copied).
    if (Fit == StagedRecords && Used % StagedRecords == 0) {
      for (unsigned R = 0; R < StagedRecords / 2; ++R)
        _mm_stream_si128(
            reinterpret_cast<__m128i *>(To) + R,
            _mm_load_si128(reinterpret_cast<const __m128i *>(From) + R));
    } else
#endif
      std::copy(From + Done, From + Done + Fit, To);
    Done += Fit;
    P.Size += Fit;
  }
  Buffered += Count;
  Staged[I] = 0;
  if (Buffered >= CompactAt)
    compact();
}

void DistinctKeys::compact(Partition &P) {
  ScratchSet Seen(Scratch, P.Size);
  size_t Kept = 0;
  for (size_t I = 0; I < P.Size; ++I) {
    const Record &R = P.Chunks[I / ChunkRecords][I % ChunkRecords];
    if (Seen.insert(R)) {
      P.Chunks[Kept / ChunkRecords][Kept % ChunkRecords] = R;
      ++Kept;
    }
  }
  P.Size = Kept;
  size_t Needed = (Kept + ChunkRecords - 1) / ChunkRecords;
  while (P.Chunks.size() > Needed) {
    FreeChunks.push_back(P.Chunks.back());
    P.Chunks.pop_back();
  }
}

void DistinctKeys::compact() {
#if defined(__SSE2__)
  _mm_sfence(); // The streaming stores are done.
#endif
  dedupe(Wide);
  Buffered = Wide.size();
  for (Partition &P : Partitions) {
    compact(P);
    Buffered += P.Size;
  }
  // Deduplicated again when it has doubled: at most half the records are
  // ever duplicates, and each record is looked at a few times on average.
  CompactAt = std::max(CompactAt, 2 * Buffered);
}

void DistinctKeys::finish() {
  for (size_t I = 0; I < std::size(Partitions); ++I)
    if (Staged[I])
      flush(I);
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

std::vector<uint64_t>
DistinctKeys::countDistinct(llvm::ArrayRef<DistinctKeys *> All, size_t Counters,
                            unsigned Threads) {
  constexpr size_t PartitionCount = size_t(1) << PartitionBits;
  // Anything still staged is written here, on this thread.
  for (DistinctKeys *Keys : All)
    Keys->finish();
  std::atomic<size_t> Next{0};
  std::vector<std::vector<uint64_t>> Counts(std::max(1u, Threads));
  auto Work = [&](std::vector<uint64_t> &Count) {
    Count.assign(Counters, 0);
    std::vector<uint64_t> Slots;
    for (size_t I = Next++; I < PartitionCount; I = Next++) {
      size_t Size = 0;
      for (DistinctKeys *Keys : All)
        Size += Keys->Partitions[I].Size;
      ScratchSet Seen(Slots, Size);
      for (DistinctKeys *Keys : All) {
        Partition &P = Keys->Partitions[I];
        for (size_t R = 0; R < P.Size; ++R) {
          Record Rec = P.Chunks[R / ChunkRecords][R % ChunkRecords];
          if (Seen.insert(Rec))
            ++Count[Rec & CounterMask];
        }
        P.Size = 0;
        P.Chunks.clear();
      }
    }
  };
  std::vector<std::thread> Workers;
  for (size_t I = 1; I < Counts.size(); ++I)
    Workers.emplace_back(Work, std::ref(Counts[I]));
  Work(Counts[0]);
  // Counters past CounterMask, all threads' together.
  std::vector<WideRecord> Wide;
  for (DistinctKeys *Keys : All) {
    llvm::append_range(Wide, Keys->Wide);
    Keys->Wide.clear();
  }
  dedupe(Wide);
  for (const WideRecord &W : Wide) {
    assert(W.Counter < Counters && "a counter past the ones counted");
    ++Counts[0][W.Counter];
  }
  for (std::thread &T : Workers)
    T.join();
  for (size_t I = 1; I < Counts.size(); ++I)
    for (size_t C = 0; C < Counters; ++C)
      Counts[0][C] += Counts[I][C];
  return std::move(Counts[0]);
}

void DistinctKeys::forEachDistinct(
    llvm::ArrayRef<DistinctKeys *> All,
    llvm::function_ref<void(uint32_t Counter, uint64_t Key)> Each) {
  constexpr uint64_t Kept = ~((uint64_t(1) << (64 - KeptKeyBits)) - 1);
  static_assert(64 - KeptKeyBits == 20 - PartitionBits,
                "a record keeps the top KeptKeyBits bits of a key");
  auto Unmix = [](uint32_t Counter, uint64_t Mixed) {
    return (Mixed ^ (uint64_t(Counter) + 1) * 0x9E3779B97F4A7C15ULL) & Kept;
  };
  std::vector<uint64_t> Slots;
  for (size_t I = 0; I < (size_t(1) << PartitionBits); ++I) {
    size_t Size = 0;
    for (DistinctKeys *Keys : All)
      Size += Keys->Partitions[I].Size;
    ScratchSet Seen(Slots, Size);
    for (DistinctKeys *Keys : All) {
      const Partition &P = Keys->Partitions[I];
      for (size_t R = 0; R < P.Size; ++R) {
        Record Rec = P.Chunks[R / ChunkRecords][R % ChunkRecords];
        if (!Seen.insert(Rec))
          continue;
        // The record holds the mixed key's bits 55..12 in its bits 63..20,
        // and the partition its bits 63..56.
        uint64_t Mixed = (uint64_t(I) << (64 - PartitionBits)) |
                         ((Rec >> 20) << (64 - KeptKeyBits));
        uint32_t Counter = uint32_t(Rec & CounterMask);
        Each(Counter, Unmix(Counter, Mixed));
      }
    }
  }
  // Counters past CounterMask keep their whole key: the kept bits of two
  // of them may agree (odds as in a record's), and they are one key then.
  std::vector<WideRecord> Wide;
  for (DistinctKeys *Keys : All)
    for (const WideRecord &W : Keys->Wide)
      Wide.push_back({Unmix(W.Counter, W.Mixed), W.Counter});
  dedupe(Wide);
  for (const WideRecord &W : Wide)
    Each(W.Counter, W.Mixed);
}

} // namespace apistamp
