//===- RulesValues.h - The shapes of a rules file's values ------*- C++ -*-===//
//
// ValueParser: a string, one of a few words, a string or a list of strings,
// each made into a typed value; what is wrong is reported with its position.
// Internal to the rules loader (Rules*.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_RULESVALUES_H
#define APISTAMP_LIB_RULESVALUES_H

#include "RulesDiagnostics.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include <yaml-cpp/yaml.h>

namespace apistamp {
namespace rulesfile {

/// Parsers for the shapes a value can take. Each reports what is wrong with
/// a value and then gives nothing.
class ValueParser {
public:
  /// A parser that reports to \p Diags.
  explicit ValueParser(Diagnostics &Diags) : Diags(Diags) {}

  /// Where the problems go.
  Diagnostics &Diags;

  /// Reports keys of \p Map not in \p Known, with a suggestion.
  void checkKeys(const YAML::Node &Map, llvm::ArrayRef<llvm::StringRef> Known,
                 llvm::StringRef Where);
  /// A string; one that spans lines (\p Multiline) may hold tabs and line
  /// breaks, but no string holds other control characters.
  std::optional<std::string> scalar(const YAML::Node &N, llvm::StringRef Key,
                                    bool Multiline = false);
  /// Whether \p Value, of \p N, has no control characters (but tabs and
  /// line breaks if \p Multiline); reports the first.
  bool printableValue(const YAML::Node &N, llvm::StringRef Key,
                      llvm::StringRef Value, bool Multiline = false);
  /// A string or a list of strings.
  std::vector<std::pair<std::string, YAML::Node>>
  stringList(const YAML::Node &N, llvm::StringRef Key);
  /// A string that is one of \p Allowed, with a suggestion if it is not.
  std::optional<std::string> oneOf(const YAML::Node &N, llvm::StringRef Key,
                                   llvm::ArrayRef<llvm::StringRef> Allowed);

  /// A string or list of strings, each made by \p Create into \p Out.
  template <typename T, typename CreateFn>
  void eachString(const YAML::Node &N, llvm::StringRef Key, CreateFn Create,
                  std::vector<T> &Out) {
    for (auto &[Text, Item] : stringList(N, Key)) {
      llvm::Expected<T> Made = Create(Text);
      if (Made)
        Out.push_back(std::move(*Made));
      else
        Diags.error(Item, llvm::toString(Made.takeError()),
                    Diags.valueOffset(Item));
    }
  }
  /// One string made by \p Create into \p Out.
  template <typename T, typename CreateFn>
  void oneString(const YAML::Node &N, llvm::StringRef Key, CreateFn Create,
                 std::optional<T> &Out) {
    if (std::optional<std::string> Text = scalar(N, Key)) {
      llvm::Expected<T> Made = Create(*Text);
      if (Made)
        Out = std::move(*Made);
      else
        Diags.error(N, llvm::toString(Made.takeError()), Diags.valueOffset(N));
    }
  }
};

} // namespace rulesfile
} // namespace apistamp

#endif // APISTAMP_LIB_RULESVALUES_H
