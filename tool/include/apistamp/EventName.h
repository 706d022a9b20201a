//===- EventName.h - Event name templates ------------------------*- C++
//-*-===//
//
// An event template such as "{path}.{name}" is validated once when rules are
// loaded and expanded for every selected definition.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_EVENTNAME_H
#define APISTAMP_EVENTNAME_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace apistamp {

struct DeclFacts;

/// A parsed event template: literal text and placeholders.
class EventTemplate {
public:
  /// The placeholders a template may use.
  static llvm::ArrayRef<llvm::StringRef> placeholders();

  /// Longest template accepted, in bytes.
  static constexpr size_t MaxLength = 1024;

  /// Parses \p Text: valid UTF-8 of at most MaxLength bytes, without control
  /// characters, quotes or backslashes. On error, \p ErrorColumn receives
  /// the 0-based column (byte offset) of the problem inside \p Text.
  static llvm::Expected<EventTemplate> parse(llvm::StringRef Text,
                                             size_t &ErrorColumn);

  /// The event for \p Facts.
  std::string expand(const DeclFacts &Facts) const;
  const std::string &text() const { return Text; }

private:
  struct Piece {
    bool IsPlaceholder;
    std::string Text; ///< Literal text, or the placeholder's name.
  };
  std::string Text = "{qualified}";
  std::vector<Piece> Pieces = {{true, "qualified"}};
};

} // namespace apistamp

#endif // APISTAMP_EVENTNAME_H
