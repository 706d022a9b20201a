//===- Json.h - A strict, minimal JSON parser for the runtime's tests -----===//

#ifndef APISTAMP_RUNTIME_TEST_JSON_H
#define APISTAMP_RUNTIME_TEST_JSON_H

#include <string>
#include <utility>
#include <vector>

namespace apistamp {
namespace test {

/// A parsed JSON value. Numbers keep their source text.
struct JsonValue {
  enum Kind { Null, Bool, Number, String, Array, Object };
  Kind K = Null;
  bool Boolean = false;
  /// The text of a number, or the decoded (UTF-8) contents of a string.
  std::string Text;
  std::vector<JsonValue> Elements;
  std::vector<std::pair<std::string, JsonValue>> Members;

  /// The member called \p Key of an object, or null if there is none.
  const JsonValue *get(const std::string &Key) const;
  /// The member names of an object, in order.
  std::vector<std::string> keys() const;
};

/// Parses exactly one JSON value (RFC 8259, UTF-8) from \p Text, allowing
/// surrounding whitespace only. On failure returns false and sets \p Error.
/// Duplicate object keys and invalid UTF-8 are errors.
bool parseJson(const std::string &Text, JsonValue &Out, std::string &Error);

} // namespace test
} // namespace apistamp

#endif // APISTAMP_RUNTIME_TEST_JSON_H
