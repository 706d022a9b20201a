//===- ColorStream.cpp - Colours clang-style diagnostic lines -------------===//

#include "ColorStream.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace apistamp {

DiagnosticColorStream::~DiagnosticColorStream() {
  if (!Pending.empty())
    emitLine(Pending);
  Target.flush();
}

void DiagnosticColorStream::write_impl(const char *Ptr, size_t Size) {
  Position += Size;
  for (size_t I = 0; I < Size; ++I) {
    Pending += Ptr[I];
    if (Ptr[I] == '\n') {
      emitLine(Pending);
      Pending.clear();
    } else if (Ptr[I] == '\r') { // A progress line: shown as it comes.
      Target << Pending;
      Target.flush();
      Pending.clear();
    }
  }
}

/// Finds ": warning: " (or error, note) after a "file:line:col" location.
static bool splitDiagnostic(StringRef Line, StringRef &Location,
                            StringRef &Severity, StringRef &Message) {
  for (StringRef Kind : {"warning", "error", "note"}) {
    size_t At = Line.find((": " + Kind + ": ").str());
    if (At == StringRef::npos)
      continue;
    Location = Line.take_front(At + 1);
    Severity = Line.substr(At + 2, Kind.size() + 1);
    Message = Line.drop_front(At + 2 + Kind.size() + 1);
    return true;
  }
  return false;
}

void DiagnosticColorStream::emitLine(StringRef Line) {
  StringRef Location, Severity, Message;
  if (!splitDiagnostic(Line, Location, Severity, Message)) {
    Target << Line;
    return;
  }
  Target.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true) << Location;
  Target.resetColor() << " ";
  raw_ostream::Colors Color =
      Severity.starts_with("warning") ? raw_ostream::MAGENTA
      : Severity.starts_with("error") ? raw_ostream::RED
                                      : raw_ostream::BLACK;
  Target.changeColor(Color, /*Bold=*/true) << Severity;
  Target.resetColor();
  bool Newline = Message.consume_back("\n");
  if (Severity.starts_with("note"))
    Target << Message;
  else {
    Target.changeColor(raw_ostream::SAVEDCOLOR, /*Bold=*/true) << Message;
    Target.resetColor();
  }
  if (Newline)
    Target << "\n";
}

} // namespace apistamp
