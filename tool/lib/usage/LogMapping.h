//===- LogMapping.h - A plain log mapped, safe if it shrinks ----*- C++ -*-===//
//
// Plain log files are read through a mapping, not read(2): the kernel's
// copy into a read buffer was the largest single cost of reading logs that
// are in the page cache.
//
// A file that shrinks while it is mapped (logrotate's copytruncate) raises
// SIGBUS when a page past its new end is touched. While a LogMapping
// exists, a SIGBUS handler is installed (shared by nested and concurrent
// mappings, the previous one restored after the last): a fault inside the
// mapping of the faulting thread maps a page of zeros there and flags the
// mapping as shrunk, and the reader reads the file no further (what it read
// is counted; the rest, zeros now, is not a line). A fault anywhere else
// does what it would have done without the handler: the previous handler
// runs, or the default action (the access faults again).
//
// A log is mapped whole, up to the size it had when it was opened, and read
// a window of WindowBytes at a time; a window read is dropped from the
// process (MADV_DONTNEED; the pages stay in the page cache), so that the
// process holds a window of the log, not all of it. Dropping a window
// interrupts the other reading threads (their TLBs are flushed): 1 MiB
// windows cost 6% more CPU at -j2 than 8 MiB ones.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_USAGE_LOGMAPPING_H
#define APISTAMP_LIB_USAGE_LOGMAPPING_H

#include <cstddef>
#include <cstdint>

namespace apistamp {

/// A read-only mapping of a log file, with SIGBUS past the file's end
/// caught while it exists. A thread has at most one at a time.
class LogMapping {
public:
  /// The bytes read between two drops (see the file's comment).
  static constexpr size_t WindowBytes = size_t(8) << 20;

  /// Maps \p Size bytes of \p Fd, which may be more than the file has (a
  /// file that shrank).
  LogMapping(int Fd, uint64_t Size);
  ~LogMapping();
  LogMapping(const LogMapping &) = delete;
  LogMapping &operator=(const LogMapping &) = delete;

  /// False when the file could not be mapped.
  bool mapped() const { return Data != nullptr; }
  const char *data() const { return Data; }
  uint64_t size() const { return Size; }

  /// True once a page past the file's end was touched: it and what
  /// follows read as zeros.
  bool shrank() const;

  /// Tells the kernel that the mapping is read in order.
  void adviseSequential() const;

  /// Drops the whole pages of [\p From, \p From + \p Length), which were
  /// read, from the process; they stay in the page cache.
  void dropRead(const char *From, size_t Length) const;

private:
  const char *Data = nullptr;
  uint64_t Size = 0;
};

} // namespace apistamp

#endif // APISTAMP_LIB_USAGE_LOGMAPPING_H
