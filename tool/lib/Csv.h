//===- Csv.h - One CSV field, quoted when it must be ------------*- C++ -*-===//

#ifndef APISTAMP_LIB_CSV_H
#define APISTAMP_LIB_CSV_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace apistamp {

/// \p Text as one CSV field (RFC 4180): as it is, unless it holds a comma,
/// a double quote, a newline or a carriage return; then in double quotes,
/// its double quotes doubled. A field a spreadsheet would read as a formula
/// (starting with '=', '+', '-', '@', a tab or a CR) gets a leading "'"
/// inside the quotes, as OWASP advises. Leading and trailing spaces are
/// kept.
inline std::string csvField(llvm::StringRef Text) {
  bool Formula = !Text.empty() && llvm::StringRef("=+-@\t\r").contains(Text[0]);
  if (!Formula && Text.find_first_of(",\"\n\r") == llvm::StringRef::npos)
    return Text.str();
  std::string Quoted = Formula ? "\"'" : "\"";
  for (char C : Text)
    Quoted += C == '"' ? std::string("\"\"") : std::string(1, C);
  return Quoted + "\"";
}

} // namespace apistamp

#endif // APISTAMP_LIB_CSV_H
