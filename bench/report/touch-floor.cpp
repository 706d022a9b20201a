// touch-floor: the CPU a set of logs costs before any line is parsed. Maps
// each file as `apistamp report` does (LogMapping: MADV_SEQUENTIAL, windows
// of 8 MiB, each dropped with MADV_DONTNEED once read) and loads one byte of
// every 64, so that every page is faulted in and every cache line brought
// from memory. compare-binaries.py --floor runs it beside report.
//
//   touch-floor FILE...
#include <cstdint>
#include <cstdio>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  const size_t WindowBytes = size_t(8) << 20; // LogMapping::WindowBytes
  const uintptr_t Page = uintptr_t(sysconf(_SC_PAGESIZE));
  uint64_t Sum = 0;
  for (int I = 1; I < argc; ++I) {
    int Fd = open(argv[I], O_RDONLY);
    struct stat St;
    if (Fd < 0 || fstat(Fd, &St) != 0) {
      perror(argv[I]);
      return 1;
    }
    size_t Size = size_t(St.st_size);
    if (!Size) {
      close(Fd);
      continue;
    }
    void *Map = mmap(nullptr, Size, PROT_READ, MAP_SHARED, Fd, 0);
    if (Map == MAP_FAILED) {
      perror(argv[I]);
      return 1;
    }
    const char *Data = static_cast<const char *>(Map);
    madvise(Map, Size, MADV_SEQUENTIAL);
    for (size_t At = 0; At < Size; At += WindowBytes) {
      size_t Length = Size - At < WindowBytes ? Size - At : WindowBytes;
      for (size_t K = 0; K < Length; K += 64)
        Sum += static_cast<unsigned char>(Data[At + K]);
      uintptr_t First = uintptr_t(Data + At) & ~(Page - 1);
      uintptr_t Last = uintptr_t(Data + At + Length) & ~(Page - 1);
      if (Last > First)
        madvise(reinterpret_cast<void *>(First), Last - First, MADV_DONTNEED);
    }
    munmap(Map, Size);
    close(Fd);
  }
  // The sum is printed so that the loads are not optimised away.
  std::printf("%llu\n", static_cast<unsigned long long>(Sum));
  return 0;
}
