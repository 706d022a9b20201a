//===- PublicSurface.cpp - The public API that no rule selects ------------===//

#include "PublicSurface.h"
#include "apistamp/DeclFacts.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

using namespace llvm;

namespace apistamp {

bool hasPublicSurface(const RuleSet &Rules, bool BuildInstalls) {
  // Python's public surface is its modules' public names.
  return !Rules.Surface.Headers.empty() || !Rules.PublicHeaders.empty() ||
         BuildInstalls || any_of(Rules.Rules, [](const Rule &R) {
           return R.Lang == Language::Python;
         });
}

std::string surfaceHeader(const UnselectedDefinition &U, const RuleSet &Rules,
                          PublicHeaderTest IsPublicHeader) {
  // A Python definition is public by its module's `__all__` or its name
  // (the facts say so): on the surface in its own module.
  if (U.Lang == Language::Python)
    return U.File;
  const std::vector<PathGlob> &Globs = Rules.Surface.Headers;
  for (const std::string &Relative : U.DeclaredIn) {
    SmallString<256> Path(Rules.Root);
    sys::path::append(Path, sys::path::Style::posix, Relative);
    bool OnSurface = Globs.empty() ? IsPublicHeader(Path)
                                   : any_of(Globs, [&](const PathGlob &G) {
                                       return G.matches(Relative);
                                     });
    if (OnSurface)
      return std::string(Path);
  }
  return "";
}

bool excludedFromSurface(const UnselectedDefinition &U,
                         const PublicSurface &Surface, StringRef Root) {
  if (std::optional<StringRef> Relative = pathUnder(U.File, Root))
    if (any_of(Surface.ExcludeFiles,
               [&](const PathGlob &G) { return G.matches(*Relative); }))
      return true;
  auto AnyMatches = [](ArrayRef<NameRegex> Patterns, StringRef Name) {
    return any_of(Patterns,
                  [&](const NameRegex &P) { return P.matches(Name); });
  };
  return any_of(U.Namespaces,
                [&](const std::string &Namespace) {
                  return AnyMatches(Surface.ExcludeNamespaces, Namespace);
                }) ||
         AnyMatches(Surface.ExcludeNames, U.Name) ||
         any_of(U.Classes, [&](const std::string &Class) {
           return AnyMatches(Surface.ExcludeNames, Class);
         });
}

/// \p Text as a single-quoted YAML scalar (backslashes are literal there).
static std::string yamlQuoted(StringRef Text) {
  std::string Quoted = "'";
  for (char C : Text)
    Quoted += C == '\'' ? std::string("''") : std::string(1, C);
  return Quoted + "'";
}

std::string suggestedRule(const UnselectedDefinition &U) {
  std::string Yaml = "  - id: " + yamlQuoted(U.QualifiedName) + "\n" +
                     "    where: " + kindName(U.Kind).str() + "\n";
  if (U.Lang == Language::Python)
    return Yaml + "    language: python\n    modules: " + yamlQuoted(U.Module) +
           "\n    name: " + yamlQuoted(Regex::escape(U.Name)) + "\n";
  if (U.Classes.empty()) {
    std::string Namespace = join(U.Namespaces, "::");
    Yaml +=
        "    namespace: " + yamlQuoted(Namespace.empty() ? "::" : Namespace) +
        "\n";
  } else {
    std::vector<std::string> Parts = U.Namespaces;
    append_range(Parts, U.Classes);
    Yaml += "    class: " + yamlQuoted(Regex::escape(join(Parts, "::"))) + "\n";
  }
  if (U.Kind != DeclKind::Constructor)
    Yaml += "    name: " + yamlQuoted(Regex::escape(U.Name)) + "\n";
  return Yaml;
}

std::optional<std::string> checkedSuggestion(const UnselectedDefinition &U,
                                             const RuleSet &Rules) {
  std::string Yaml = suggestedRule(U);
  Expected<RuleSet> Parsed =
      parseRules("version: 1\nrules:\n" + Yaml, "suggested rule");
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return std::nullopt;
  }
  Rule &Suggested = Parsed->Rules.front();
  append_range(Suggested.ExcludeFiles, Rules.ExcludeFiles);
  DeclFacts Facts;
  Facts.Kind = U.Kind;
  Facts.Name = U.Name;
  Facts.Namespaces = U.Namespaces;
  Facts.Classes = U.Classes;
  Facts.DeclaredIn = U.DeclaredIn;
  Facts.Lang = U.Lang;
  Facts.Module = U.Module;
  if (std::optional<StringRef> Relative = pathUnder(U.File, Rules.Root))
    Facts.RelativePath = Relative->str();
  // Recorded only if external and public (SiteCollector).
  Facts.ExternalLinkage = Facts.Public = Facts.PublicOrProtected = true;
  if (!evaluateRule(Suggested, Facts).Selected)
    return std::nullopt;
  return Yaml;
}

} // namespace apistamp
