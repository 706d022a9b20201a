// touch-floor: the CPU a set of logs costs before any line is parsed. Maps
// each file with report's own LogMapping (MADV_SEQUENTIAL, windows of
// LogMapping::WindowBytes, each dropped once read, as readMapped does) and
// loads one byte of every 64, so that every page is faulted in and every
// cache line brought from memory. compare-binaries.py --floor builds it with
// LogMapping.cpp and runs it beside report.
//
//   touch-floor FILE...
#include "LogMapping.h"
#include <cstdint>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using apistamp::LogMapping;

int main(int argc, char **argv) {
  uint64_t Sum = 0;
  for (int I = 1; I < argc; ++I) {
    int Fd = open(argv[I], O_RDONLY);
    struct stat St;
    if (Fd < 0 || fstat(Fd, &St) != 0) {
      perror(argv[I]);
      return 1;
    }
    uint64_t Size = uint64_t(St.st_size);
    if (Size) {
      LogMapping Map(Fd, Size);
      if (!Map.mapped()) {
        perror(argv[I]);
        return 1;
      }
      Map.adviseSequential();
      for (uint64_t At = 0; At < Size; At += LogMapping::WindowBytes) {
        size_t Length = size_t(Size - At < LogMapping::WindowBytes
                                   ? Size - At
                                   : LogMapping::WindowBytes);
        for (size_t K = 0; K < Length; K += 64)
          Sum += static_cast<unsigned char>(Map.data()[At + K]);
        Map.dropRead(Map.data() + At, Length);
      }
    }
    close(Fd);
  }
  // The sum is printed so that the loads are not optimised away.
  std::printf("%llu\n", static_cast<unsigned long long>(Sum));
  return 0;
}
