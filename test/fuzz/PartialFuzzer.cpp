//===- PartialFuzzer.cpp - report --merge on hostile partial files --------===//
//
// libFuzzer target: a partial file's bytes (report --emit-partial) with a
// checksum that matches them, so that the parser sees every mutation, as it
// would see a file made to pass the checksum. Parsing never crashes, reads
// out of bounds or allocates beyond what the bytes hold (AddressSanitizer,
// libFuzzer's -rss_limit_mb and -malloc_limit_mb); a partial that parses
// is written again to the same bytes' meaning (written, read and written
// again: the same bytes), and merged, alone or with itself, to the same
// distinct keys. With APISTAMP_FUZZ_SELF_CHECK set, the bytes written again
// gain one: the run must stop (the runner's check that a change is caught).
//
//===----------------------------------------------------------------------===//

#include "usage/UsageLog.h"
#include "usage/UsagePartial.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/xxhash.h"
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace apistamp;

namespace {

/// The bytes of a partial's checksum, at its end (UsagePartial.cpp).
constexpr size_t ChecksumBytes = 8;

[[noreturn]] void fail(const char *Why) {
  std::fprintf(stderr, "partial fuzzer: %s\n", Why);
  std::abort();
}

/// The events of \p P added \p Times times to a merge, as text.
std::string mergedEvents(const UsagePartial &P, unsigned Times) {
  PartialMerger Merger;
  for (unsigned I = 0; I < Times; ++I)
    if (llvm::Error E = Merger.add(UsagePartial(P), "p"))
      fail(("a partial that parsed cannot be merged with itself: " +
            llvm::toString(std::move(E)))
               .c_str());
  UsageCounts C = Merger.counts(1);
  // Added twice, its inputs count twice: only its events, distinct keys,
  // must be what they are added once.
  C.Files = 0;
  C.Lines = C.EventLines = C.Malformed = C.OutsideWindow = 0;
  C.Problems.clear();
  C.StderrLogs.clear();
  return describeCounts(C);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Bytes(reinterpret_cast<const char *>(Data), Size);
  if (Bytes.size() >= ChecksumBytes) {
    uint64_t Sum =
        llvm::xxh3_64bits(llvm::StringRef(Bytes).drop_back(ChecksumBytes));
    for (size_t I = 0; I < ChecksumBytes; ++I)
      Bytes[Bytes.size() - ChecksumBytes + I] = char(uint8_t(Sum >> (8 * I)));
  }
  llvm::Expected<UsagePartial> P = parsePartial(Bytes, "fuzz.partial");
  if (!P) {
    std::string Message = llvm::toString(P.takeError());
    if (Message.rfind("fuzz.partial: error: ", 0) != 0)
      fail(("an error that does not name the file: " + Message).c_str());
    return 0;
  }
  std::string Written = serializePartial(*P);
  llvm::Expected<UsagePartial> Again = parsePartial(Written, "again");
  if (!Again) {
    llvm::consumeError(Again.takeError());
    fail("a partial that parsed, written again, does not parse");
  }
  static const bool SelfCheck = std::getenv("APISTAMP_FUZZ_SELF_CHECK");
  if (serializePartial(*Again) + (SelfCheck ? "x" : "") != Written)
    fail("a partial written, read and written again changed");
  if (mergedEvents(*P, 1) != mergedEvents(*P, 2))
    fail("a partial merged with itself counts other distinct keys than "
         "alone");
  return 0;
}
