//===- LogReaderFuzzer.cpp - The log reader against its slow path ---------===//
//
// libFuzzer target: a log's bytes read as report reads them (the runtime's
// fast path and its tail cache; any other line, a collector's among them,
// through the validating parser) must count exactly what the validating
// parser alone counts: whole, in pieces of any size, from a file mapped in
// parts of 4 KiB on two threads, and through its partial (report
// --emit-partial, then --merge); built with AddressSanitizer, a read past
// a line's padding or into a freed piece stops it too.
//
// The first byte chooses the pieces (0: whole, else 1 to 255 bytes) and the
// second the window; the rest is the log. With APISTAMP_FUZZ_SELF_CHECK set,
// the whole read's counts lose their last byte: the run must stop (the
// runner's check that a difference is caught).
//
//===----------------------------------------------------------------------===//

#include "usage/UsageLog.h"
#include "usage/UsagePartial.h"
#include "llvm/Support/Error.h"
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace apistamp;

namespace {

/// \p Text with its bytes that are not printable ASCII (a NUL, UTF-8) as
/// \xHH, its newlines kept.
std::string printable(const std::string &Text) {
  std::string Out;
  for (unsigned char C : Text) {
    if (C == '\n' || (C >= 0x20 && C < 0x7f && C != '\\')) {
      Out += char(C);
      continue;
    }
    char Escaped[8];
    std::snprintf(Escaped, sizeof Escaped, "\\x%02x", C);
    Out += Escaped;
  }
  return Out;
}

[[noreturn]] void differ(const std::string &What, const std::string &Got,
                         const std::string &Want) {
  std::fprintf(stderr,
               "%s, the counts differ from the validating parser's:\n"
               "--- got\n%s--- validating parser\n%s",
               What.c_str(), printable(Got).c_str(), printable(Want).c_str());
  std::abort();
}

/// The time every log is at: a stderr log's lines, and the file's
/// modification time, which report formats to the same text.
constexpr const char *LogTime = "2026-11-13T14:47:18.035804Z";

/// An in-memory file of \p Text, modified at LogTime: report reads it by
/// its path, mapped in parts of 4 KiB on two threads.
class MemoryFile {
public:
  explicit MemoryFile(llvm::StringRef Text) {
    Fd = memfd_create("log", MFD_CLOEXEC);
    if (Fd < 0 || ::write(Fd, Text.data(), Text.size()) != ssize_t(Text.size()))
      fail("cannot write an in-memory file");
    struct timespec Times[2] = {{1794581238, 35804000}, {1794581238, 35804000}};
    if (futimens(Fd, Times) != 0)
      fail("cannot set an in-memory file's time");
    Path = "/proc/self/fd/" + std::to_string(Fd);
  }
  ~MemoryFile() { ::close(Fd); }
  std::string Path;

private:
  [[noreturn]] static void fail(const char *Why) {
    std::perror(Why);
    std::abort();
  }
  int Fd;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 2)
    return 0;
  size_t Piece = Data[0];
  LogWindow Window;
  switch (Data[1] % 4) {
  case 1:
    Window.Since = "2026-11-13T14";
    break;
  case 2:
    Window.Until = "2026-11-13T14:47:2";
    break;
  case 3:
    Window = {"2026-11-12", "2026-11-14"};
    break;
  }
  llvm::StringRef Text(reinterpret_cast<const char *>(Data + 2), Size - 2);
  // A log in c10's stderr form is counted at its file's time.
  StderrFileInfo Stderr{LogTime, std::nullopt};
  MemoryFile File(Text);
  std::string Want = describeCounts(readUsageText(
      File.Path, Text, Window, Stderr, {}, {/*ValidatingOnly=*/true, 0}));
  std::string Whole =
      describeCounts(readUsageText(File.Path, Text, Window, Stderr));
  static const bool SelfCheck = std::getenv("APISTAMP_FUZZ_SELF_CHECK");
  if (SelfCheck)
    Whole.pop_back();
  if (Whole != Want)
    differ("read whole", Whole, Want);
  if (Piece) {
    std::string Pieces =
        describeCounts(readUsageText(File.Path, Text, Window, Stderr, {},
                                     {/*ValidatingOnly=*/false, Piece}));
    if (Pieces != Want)
      differ("read in pieces of " + std::to_string(Piece) + " bytes", Pieces,
             Want);
  }
  // As report reads a file: mapped, in parts of 4 KiB on two threads.
  constexpr uint64_t PartBytes = 4096;
  std::string Mapped = describeCounts(
      readUsageLogs({File.Path}, Window, /*Threads=*/2, PartBytes));
  if (Mapped != Want)
    differ("read from a file in parts of 4 KiB", Mapped, Want);
  // Its partial, written, read and merged: the same counts.
  UsagePartial Partial =
      readUsagePartial({File.Path}, Window, /*Threads=*/2, PartBytes, {}, {});
  llvm::Expected<UsagePartial> Read =
      parsePartial(serializePartial(Partial), "partial");
  if (!Read)
    differ("its partial, written, does not read: " +
               llvm::toString(Read.takeError()),
           "", Want);
  PartialMerger Merger;
  if (llvm::Error E = Merger.add(std::move(*Read), "partial"))
    differ("its partial cannot be merged: " + llvm::toString(std::move(E)), "",
           Want);
  std::string Merged = describeCounts(Merger.counts(1));
  if (Merged != Want)
    differ("its partial, written, read and merged", Merged, Want);
  return 0;
}
