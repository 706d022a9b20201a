//===- RulesDiagnostics.h - Errors of one rules file ------------*- C++ -*-===//
//
// The "path:line:col: error: ..." diagnostics of a rules file, placed at
// yaml-cpp's marks and, within a value, at the column of the character they
// are about. Internal to the rules loader (Rules*.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_RULESDIAGNOSTICS_H
#define APISTAMP_LIB_RULESDIAGNOSTICS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace apistamp {
namespace rulesfile {

/// UTF-8's byte order mark, which may start a rules file.
constexpr llvm::StringRef ByteOrderMark = "\xEF\xBB\xBF";

/// Collects the "path:line:col: error: ..." diagnostics of one rules file.
class Diagnostics {
public:
  /// Diagnostics of the rules file \p Path, whose text is \p Text (which
  /// must outlive them).
  Diagnostics(llvm::StringRef Path, llvm::StringRef Text);

  /// An error at \p M, \p Offset columns to the right.
  void error(const YAML::Mark &M, const llvm::Twine &Message,
             unsigned Offset = 0);
  /// An error at \p N's mark, \p Offset columns to the right.
  void error(const YAML::Node &N, const llvm::Twine &Message,
             unsigned Offset = 0) {
    error(N.Mark(), Message, Offset);
  }
  /// An error at 0-based \p Line and 1-based \p Column. Nothing from the
  /// rules file reaches the terminal raw: the message is made printable.
  void errorAt(size_t Line, size_t Column, const llvm::Twine &Message);

  /// Columns from \p N's mark to byte \p Offset of its value: a quoted value
  /// starts after the quote, and an escape sequence or a doubled quote is one
  /// character of the value but several of the file. An offset that is not
  /// on the value's first line is the value's start.
  unsigned valueOffset(const YAML::Node &N, size_t Offset = 0) const;

  /// Whether the value at \p M is a block scalar: '|' (literal) or '>'
  /// (folded) there, and the value on the lines below.
  bool isBlockScalar(const YAML::Mark &M) const;

  /// Line \p Line (0-based) of the file, or "".
  llvm::StringRef line(int Line) const {
    return Line >= 0 && size_t(Line) < Lines.size() ? Lines[Line]
                                                    : llvm::StringRef();
  }

  /// Whether no error was reported.
  bool empty() const { return Errors.empty(); }
  /// The first error by position alone.
  llvm::Error first() const;
  /// Every error, joined, by line and column (keys are checked in the
  /// order of their tables, not of the file).
  llvm::Error all() const;

private:
  /// One error and where it is, for sorting.
  struct Located {
    size_t Line, Column;
    std::string Text;
  };
  /// The errors by line and column; those at one place in report order.
  std::vector<const Located *> sorted() const;

  std::string Path;
  std::vector<llvm::StringRef> Lines; ///< Of the rules file, for block scalars.
  std::vector<Located> Errors;
};

} // namespace rulesfile
} // namespace apistamp

#endif // APISTAMP_LIB_RULESDIAGNOSTICS_H
