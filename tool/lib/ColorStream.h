//===- ColorStream.h - Colours clang-style diagnostic lines ------*- C++
//-*-===//
//
// A stream that passes text through to another one and colours each line of
// the form "file:line:col: warning|error|note: message" as clang does: the
// location bold, the severity in its colour, the message bold.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_COLORSTREAM_H
#define APISTAMP_LIB_COLORSTREAM_H

#include "llvm/Support/raw_ostream.h"
#include <string>

namespace apistamp {

class DiagnosticColorStream : public llvm::raw_ostream {
public:
  explicit DiagnosticColorStream(llvm::raw_ostream &Target) : Target(Target) {
    SetUnbuffered();
  }
  ~DiagnosticColorStream() override;
  bool is_displayed() const override { return Target.is_displayed(); }
  bool has_colors() const override { return Target.has_colors(); }

private:
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Position; }
  void emitLine(llvm::StringRef Line);

  llvm::raw_ostream &Target;
  std::string Pending; ///< The current line, until its '\n'.
  uint64_t Position = 0;
};

} // namespace apistamp

#endif // APISTAMP_LIB_COLORSTREAM_H
