//===- LogReaderFuzzer.cpp - The log reader against its slow path ---------===//
//
// libFuzzer target: a log's bytes read as report reads them (the runtime's
// fast path, the shapes and templates of a collector's lines, the segments
// fit) must count exactly what the validating parser alone counts, whole
// and in pieces of any size; built with AddressSanitizer, a read past a
// line's padding or into a freed piece stops it too.
//
// The first byte chooses the pieces (0: whole, else 1 to 255 bytes) and the
// second the window; the rest is the log. With APISTAMP_FUZZ_SELF_CHECK set,
// the whole read's counts lose their last byte: the run must stop (the
// runner's check that a difference is caught).
//
//===----------------------------------------------------------------------===//

#include "usage/UsageLog.h"
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace apistamp;

namespace {

/// Everything \p Counts says, as text: two counts are the same when their
/// texts are.
std::string describe(const UsageCounts &Counts) {
  std::string Out = "files " + std::to_string(Counts.Files) + ", lines " +
                    std::to_string(Counts.Lines) + ", event lines " +
                    std::to_string(Counts.EventLines) + ", malformed " +
                    std::to_string(Counts.Malformed) + ", outside " +
                    std::to_string(Counts.OutsideWindow) + "\n";
  for (const auto &[Name, E] : Counts.Events) {
    Out += "event '" + Name + "': jobs " + std::to_string(E.Jobs) +
           ", processes " + std::to_string(E.Processes) + ", hosts " +
           std::to_string(E.Hosts) + ", first " + E.FirstSeen + ", last " +
           E.LastSeen + ", days";
    for (const auto &[Day, Jobs] : E.JobsByDay)
      Out += " " + Day + "=" + std::to_string(Jobs);
    Out += "\n";
  }
  for (const LogFileProblems &P : Counts.Problems) {
    Out += "problems of " + P.File + ": " + std::to_string(P.Malformed);
    for (const auto &[Line, Why] : P.First)
      Out += "; " + std::to_string(Line) + ": " + Why;
    Out += "\n";
  }
  for (const StderrLog &L : Counts.StderrLogs)
    Out += "stderr log: events " + std::to_string(L.Events) + ", ignored " +
           std::to_string(L.Ignored) + ", malformed " +
           std::to_string(L.Malformed) + "\n";
  return Out;
}

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
  StderrFileInfo Stderr{"2026-11-13T14:47:18.035804Z", std::nullopt};
  std::string Want = describe(readUsageText("log", Text, Window, Stderr, {},
                                            {/*ValidatingOnly=*/true, 0}));
  std::string Whole = describe(readUsageText("log", Text, Window, Stderr));
  static const bool SelfCheck = std::getenv("APISTAMP_FUZZ_SELF_CHECK");
  if (SelfCheck)
    Whole.pop_back();
  if (Whole != Want)
    differ("read whole", Whole, Want);
  if (Piece) {
    std::string Pieces = describe(readUsageText(
        "log", Text, Window, Stderr, {}, {/*ValidatingOnly=*/false, Piece}));
    if (Pieces != Want)
      differ("read in pieces of " + std::to_string(Piece) + " bytes", Pieces,
             Want);
  }
  return 0;
}
