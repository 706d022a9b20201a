//===- Rules.cpp - The rules' data model, and finding a rules file --------===//
//
// What a rule is made of that does not need yaml-cpp: the kinds of
// definitions, name regular expressions, namespace patterns, and the search
// for the nearest .apistamp.yaml. Reading and validating a rules file is in
// RulesLoader.cpp, RulesFileKeys.cpp, RulesRuleKeys.cpp, RulesValues.cpp and
// RulesDiagnostics.cpp.
//
//===----------------------------------------------------------------------===//

#include "apistamp/Rules.h"
#include "Suggestions.h"
#include "clang/Basic/CharInfo.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace apistamp {

StringRef kindName(DeclKind Kind) {
  switch (Kind) {
  case DeclKind::Function:
    return "function";
  case DeclKind::Method:
    return "method";
  case DeclKind::Constructor:
    return "constructor";
  }
  llvm_unreachable("unknown DeclKind");
}

ArrayRef<StringRef> knownApiUsageMacros() {
  static const StringRef Known[] = {"C10_LOG_API_USAGE_ONCE",
                                    "APISTAMP_LOG_API_USAGE_ONCE",
                                    "APISTAMP_LOG_API_ENTRY"};
  return Known;
}

ArrayRef<StringRef> knownApiUsageCalls() {
  static const StringRef Known[] = {"_log_api_usage_once",
                                    "torch._C._log_api_usage_once"};
  return Known;
}

std::vector<std::string> RuleSet::recognisedCalls() const {
  std::vector<std::string> Names;
  auto Add = [&Names](StringRef Name) {
    if (!llvm::is_contained(Names, Name))
      Names.push_back(Name.str());
  };
  for (const Rule &R : Rules)
    if (R.Lang == Language::Python)
      Add(R.Call.Callee);
  for (StringRef Known : knownApiUsageCalls())
    Add(Known);
  for (const std::string &Former : FormerCalls)
    Add(Former);
  return Names;
}

std::vector<std::string> RuleSet::recognisedMacros() const {
  std::vector<std::string> Names = {Macro};
  auto Add = [&Names](StringRef Name) {
    if (!llvm::is_contained(Names, Name))
      Names.push_back(Name.str());
  };
  for (StringRef Known : knownApiUsageMacros())
    Add(Known);
  Add(InternalEntryMacro);
  for (const std::string &Former : FormerMacros)
    Add(Former);
  return Names;
}

bool RuleSet::recognisesMacro(StringRef Name) const {
  return llvm::is_contained(recognisedMacros(), Name);
}

bool RuleSet::mentionsAMacro(StringRef Text) const {
  return llvm::any_of(recognisedMacros(), [Text](const std::string &Macro) {
    return Text.contains(Macro);
  });
}

std::optional<std::string> EventAlias::map(StringRef Event) const {
  if (!From.matches(Event))
    return std::nullopt;
  size_t Star = To.find('*');
  if (Star == std::string::npos)
    return To;
  StringRef Middle = Event.drop_front(Prefix.size()).drop_back(Suffix.size());
  return To.substr(0, Star) + Middle.str() + To.substr(Star + 1);
}

std::string currentEventName(ArrayRef<EventAlias> Aliases, StringRef Event) {
  for (const EventAlias &A : Aliases)
    if (std::optional<std::string> Current = A.map(Event))
      return *Current;
  return Event.str();
}

Expected<NameRegex> NameRegex::create(StringRef Pattern) {
  NameRegex Result;
  Result.Pattern = Pattern.str();
  Result.Compiled = std::make_shared<Regex>("^(" + Pattern.str() + ")$");
  std::string Error;
  if (!Result.Compiled->isValid(Error))
    return createStringError(inconvertibleErrorCode(),
                             "bad regular expression '" + printable(Pattern) +
                                 "': " + Error);
  return Result;
}

bool NameRegex::matches(StringRef Text) const { return Compiled->match(Text); }

/// How clang names an anonymous namespace in a qualified name.
static constexpr StringRef AnonymousNamespace = "(anonymous namespace)";

Expected<NamespacePattern> NamespacePattern::create(StringRef Pattern) {
  NamespacePattern Result;
  Result.Pattern = Pattern.str();
  StringRef Text = Pattern.trim();
  Text.consume_front("::");
  if (Text == "**") {
    Result.Nested = true;
    return Result;
  }
  if (Text.consume_back("::**"))
    Result.Nested = true;
  SmallVector<StringRef, 4> Parts;
  if (!Text.empty())
    Text.split(Parts, "::");
  for (StringRef Part : Parts)
    if (!clang::isValidAsciiIdentifier(Part) && Part != AnonymousNamespace)
      return createStringError(
          inconvertibleErrorCode(),
          "bad namespace '" + printable(Pattern) +
              "': expected 'a::b', 'a::b::**' (it or any nested namespace), "
              "'::' (global) or '**' (any)");
  Result.Prefix = Text.str();
  return Result;
}

StringRef languageName(Language L) {
  return L == Language::Python ? "python" : "c++";
}

Expected<ModulePattern> ModulePattern::create(StringRef Pattern) {
  ModulePattern Result;
  Result.Pattern = Pattern.str();
  StringRef Text = Pattern.trim();
  auto Bad = [&] {
    return createStringError(
        inconvertibleErrorCode(),
        "bad module pattern '" + printable(Pattern) +
            "': expected a dotted module name with globs, e.g. "
            "'torchvision.models' (it alone), 'torchvision.models.*' (its "
            "modules) or 'torchvision.models.**' (it and everything in it)");
  };
  if (Text.empty() || Text.contains('/') || Text.starts_with(".") ||
      Text.ends_with(".") || Text.contains(".."))
    return Bad();
  if (Text.consume_back(".**") && !Text.contains_insensitive("*") &&
      !Text.contains('{') && !Text.contains('[') && !Text.contains('?')) {
    Result.Prefix = Text.str();
    return Result;
  }
  std::string Slashed = Pattern.trim().str();
  std::replace(Slashed.begin(), Slashed.end(), '.', '/');
  Expected<PathGlob> Glob = PathGlob::create(Slashed);
  if (!Glob) {
    consumeError(Glob.takeError());
    return Bad();
  }
  Result.Glob = std::move(*Glob);
  return Result;
}

bool ModulePattern::matches(StringRef Module) const {
  if (!Glob)
    return Module == Prefix || (Module.starts_with(Prefix) &&
                                Module.substr(Prefix.size()).starts_with("."));
  std::string Slashed = Module.str();
  std::replace(Slashed.begin(), Slashed.end(), '.', '/');
  return Glob->matches(Slashed);
}

bool NamespacePattern::matches(StringRef Namespace) const {
  if (!Nested)
    return Namespace == Prefix;
  if (Prefix.empty())
    return true;
  return Namespace == Prefix ||
         (Namespace.starts_with(Prefix) &&
          Namespace.substr(Prefix.size()).starts_with("::"));
}

std::string findRulesFileFor(StringRef File) {
  SmallString<256> Dir(File);
  sys::fs::make_absolute(Dir);
  sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
  if (!sys::fs::is_directory(Dir))
    sys::path::remove_filename(Dir);
  for (StringRef D = Dir; !D.empty(); D = sys::path::parent_path(D)) {
    SmallString<256> Candidate(D);
    sys::path::append(Candidate, ".apistamp.yaml");
    if (sys::fs::is_regular_file(Candidate))
      return std::string(Candidate);
  }
  return "";
}

} // namespace apistamp
