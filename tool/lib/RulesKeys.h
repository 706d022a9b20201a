//===- RulesKeys.h - The keys of a rules file and of a rule -----*- C++ -*-===//
//
// Two parsers driven by key tables: FileParser walks the file-level keys,
// RuleParser the keys of one rule. Each key is listed once, in a table that
// names how its value is parsed; the tables drive parsing, the unknown-key
// suggestions and the "known keys" listings. Internal to the rules loader
// (Rules*.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_RULESKEYS_H
#define APISTAMP_LIB_RULESKEYS_H

#include "RulesDiagnostics.h"
#include "RulesValues.h"
#include "apistamp/Rules.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include <vector>
#include <yaml-cpp/yaml.h>

namespace apistamp {

struct MatcherErrorPosition;

namespace rulesfile {

/// Parses one rule: each key through the parser the key table names.
class RuleParser {
public:
  /// A parser of rules whose values \p P parses.
  explicit RuleParser(ValueParser &P) : P(P), Diags(P.Diags) {}

  /// Parses \p N into a rule of \p Rules; \p Ids are the ids seen so far.
  void parse(const YAML::Node &N, RuleSet &Rules, llvm::StringSet<> &Ids);

private:
  /// Parses the value of \p Key into \p R; \p Map is the whole rule.
  using KeyParser = void (RuleParser::*)(llvm::StringRef Key,
                                         const YAML::Node &Value,
                                         const YAML::Node &Map, Rule &R);
  /// A key a rule may have.
  struct Key {
    llvm::StringRef Name;
    /// Selects definitions, so `matcher:` (which does all the selecting)
    /// cannot be combined with it.
    bool Selects;
    /// Null for 'id', which is parsed first: it names the rule in messages.
    KeyParser Parse;
  };
  static const Key Keys[];
  /// The names of Keys, in order.
  static std::vector<llvm::StringRef> keyNames();

  /// A string or list of strings, each made by \p Create into \p Field.
  template <auto Field, auto Create>
  void strings(llvm::StringRef Key, const YAML::Node &Value, const YAML::Node &,
               Rule &R) {
    P.eachString(Value, Key, Create, R.*Field);
  }
  /// One regular expression into \p Field.
  template <auto Field>
  void regex(llvm::StringRef Key, const YAML::Node &Value, const YAML::Node &,
             Rule &R) {
    P.oneString(Value, Key, NameRegex::create, R.*Field);
  }
  void where(llvm::StringRef Key, const YAML::Node &Value, const YAML::Node &,
             Rule &R);
  void derivedFrom(llvm::StringRef Key, const YAML::Node &Value,
                   const YAML::Node &, Rule &R);
  void linkage(llvm::StringRef Key, const YAML::Node &Value, const YAML::Node &,
               Rule &R);
  void access(llvm::StringRef Key, const YAML::Node &Value, const YAML::Node &,
              Rule &R);
  void matcher(llvm::StringRef Key, const YAML::Node &Value,
               const YAML::Node &Map, Rule &R);
  void event(llvm::StringRef Key, const YAML::Node &Value, const YAML::Node &,
             Rule &R);
  // Python rules (`language: python`).
  void language(llvm::StringRef Key, const YAML::Node &Value,
                const YAML::Node &, Rule &R);
  void skipDecorators(llvm::StringRef Key, const YAML::Node &Value,
                      const YAML::Node &, Rule &R);
  void call(llvm::StringRef Key, const YAML::Node &Value, const YAML::Node &,
            Rule &R);
  void guard(llvm::StringRef Key, const YAML::Node &Value, const YAML::Node &,
             Rule &R);
  void import(llvm::StringRef Key, const YAML::Node &Value, const YAML::Node &,
              Rule &R);
  void relativeImport(llvm::StringRef Key, const YAML::Node &Value,
                      const YAML::Node &, Rule &R);
  void placement(llvm::StringRef Key, const YAML::Node &Value,
                 const YAML::Node &, Rule &R);
  void allowSkipped(llvm::StringRef Key, const YAML::Node &Value,
                    const YAML::Node &, Rule &R);
  void internal(llvm::StringRef Key, const YAML::Node &Value,
                const YAML::Node &Map, Rule &R);
  void skipStubs(llvm::StringRef Key, const YAML::Node &Value,
                 const YAML::Node &, Rule &R);
  /// Reports the keys of \p Map that a rule of another language than \p R's
  /// takes.
  void checkLanguageKeys(const YAML::Node &Map, const Rule &R);

  /// Reports the selection keys of \p Map, which `matcher:` replaces.
  void checkNoSelectionKeys(const YAML::Node &Map);
  /// Reports \p Message, an error in the matcher expression \p M at \p At.
  void matcherError(const YAML::Node &M, const MatcherErrorPosition &At,
                    const llvm::Twine &Message);
  /// Parses the 'id' of the rule \p N into \p R.
  void id(const YAML::Node &N, Rule &R, llvm::StringSet<> &Ids);

  ValueParser &P;
  Diagnostics &Diags;
};

/// Parses a whole rules file: the file-level keys through the key table.
class FileParser {
public:
  /// A parser of \p Text, the rules file \p Path (\p Text must outlive it).
  FileParser(llvm::StringRef Path, llvm::StringRef Text)
      : Path(Path), Text(Text), Diags(Path, Text), P(Diags), OneRule(P) {}

  /// The rules, or every problem with them (see parseRules).
  llvm::Expected<RuleSet> parse();

private:
  /// Parses the value of a file-level key into \p Rules.
  using KeyParser = void (FileParser::*)(const YAML::Node &Value,
                                         RuleSet &Rules);
  /// A key a rules file may have.
  struct Key {
    llvm::StringRef Name;
    /// The error when the key is absent, or null if it is optional.
    const char *Missing;
    KeyParser Parse;
  };
  static const Key Keys[];
  /// Keys, for the code outside RulesFileKeys.cpp (where its size is known).
  static llvm::ArrayRef<Key> keys();
  /// The names of Keys, in order.
  static std::vector<llvm::StringRef> keyNames();

  /// Whether the file's bytes are fit to parse: not too many, UTF-8, no
  /// control characters but tabs and line breaks.
  bool checkText();
  /// Loads the one YAML document into \p Doc; false on a syntax error.
  bool load(YAML::Node &Doc);
  /// Where the document \p Second starts: its '---' line if it has one.
  YAML::Mark documentStart(const YAML::Node &Second) const;
  /// Parses every key of the mapping \p Doc into \p Rules.
  void parseKeys(const YAML::Node &Doc, RuleSet &Rules);

  void version(const YAML::Node &Value, RuleSet &Rules);
  void macro(const YAML::Node &Value, RuleSet &Rules);
  void formerMacros(const YAML::Node &Value, RuleSet &Rules);
  void formerCalls(const YAML::Node &Value, RuleSet &Rules);
  void include(const YAML::Node &Value, RuleSet &Rules);
  void keepEvents(const YAML::Node &Value, RuleSet &Rules);
  void layers(const YAML::Node &Value, RuleSet &Rules);
  void pairs(const YAML::Node &Value, RuleSet &Rules);
  void aliases(const YAML::Node &Value, RuleSet &Rules);
  /// One entry of 'aliases', or none after an error; \p FirstLine has the
  /// line of each old name seen so far.
  std::optional<EventAlias> alias(const YAML::Node &From, const YAML::Node &To,
                                  llvm::StringMap<int> &FirstLine);
  void excludeFiles(const YAML::Node &Value, RuleSet &Rules);
  void compileCommands(const YAML::Node &Value, RuleSet &Rules);
  void publicHeaders(const YAML::Node &Value, RuleSet &Rules);
  void publicHeaderEdits(const YAML::Node &Value, RuleSet &Rules);
  void publicSurface(const YAML::Node &Value, RuleSet &Rules);
  void python(const YAML::Node &Value, RuleSet &Rules);
  void rules(const YAML::Node &Value, RuleSet &Rules);

  llvm::StringRef Path, Text;
  Diagnostics Diags;
  ValueParser P;
  RuleParser OneRule;
};

} // namespace rulesfile
} // namespace apistamp

#endif // APISTAMP_LIB_RULESKEYS_H
