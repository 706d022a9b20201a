//===- Selection.cpp - Which rule selects a definition --------------------===//

#include "apistamp/Selection.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace apistamp {

std::string DeclFacts::namespaceName() const { return join(Namespaces, "::"); }

std::string DeclFacts::qualifiedClassName() const {
  if (Classes.empty())
    return "";
  if (Lang == Language::Python)
    return join(Classes, ".");
  std::vector<std::string> Parts = Namespaces;
  append_range(Parts, Classes);
  return join(Parts, "::");
}

static std::string quoted(StringRef S) { return "'" + S.str() + "'"; }

static std::string describePatterns(ArrayRef<PathGlob> Globs) {
  std::vector<std::string> Patterns;
  for (const PathGlob &G : Globs)
    Patterns.push_back(quoted(G.pattern()));
  return join(Patterns, ", ");
}

/// Why the files and exclude_files of \p R rule out \p RelativePath, or "".
static std::string fileRejection(const Rule &R, StringRef RelativePath) {
  if (!R.Files.empty() && none_of(R.Files, [&](const PathGlob &G) {
        return G.matches(RelativePath);
      }))
    return "file " + quoted(RelativePath) + " matches none of " +
           describePatterns(R.Files);
  for (const PathGlob &G : R.ExcludeFiles)
    if (G.matches(RelativePath))
      return "file " + quoted(RelativePath) + " is excluded by " +
             quoted(G.pattern());
  return "";
}

/// Why the modules of \p R (a Python rule) rule out \p Module, or "".
static std::string moduleRejection(const Rule &R, StringRef Module) {
  if (R.Modules.empty() || any_of(R.Modules, [&](const ModulePattern &P) {
        return P.matches(Module);
      }))
    return "";
  std::vector<std::string> Patterns;
  for (const ModulePattern &P : R.Modules)
    Patterns.push_back(quoted(P.pattern()));
  return "module " + quoted(Module) + " matches none of " +
         join(Patterns, ", ");
}

RuleVerdict evaluateRule(const Rule &R, const DeclFacts &Facts) {
  auto Reject = [](std::string Why) { return RuleVerdict{false, Why}; };
  if (R.Lang != Facts.Lang)
    return Reject("a " + languageName(R.Lang).str() + " rule, and this is " +
                  languageName(Facts.Lang).str());
  if (R.Where && *R.Where != Facts.Kind)
    return Reject("where " + quoted(kindName(*R.Where)) + " but this is a " +
                  kindName(Facts.Kind).str());
  if (std::string Why = fileRejection(R, Facts.RelativePath); !Why.empty())
    return Reject(Why);
  if (R.Matcher) { // It replaces the remaining keys; files apply first.
    if (!Facts.MatchesMatcher || !Facts.MatchesMatcher(*R.Matcher))
      return Reject("the matcher does not match");
    return RuleVerdict{true, ""};
  }
  if (!R.DeclaredIn.empty() &&
      none_of(Facts.DeclaredIn, [&](const std::string &File) {
        return any_of(R.DeclaredIn,
                      [&](const PathGlob &G) { return G.matches(File); });
      })) {
    std::vector<std::string> Files;
    for (const std::string &File : Facts.DeclaredIn)
      Files.push_back(quoted(File));
    return Reject("declared only in " + join(Files, ", ") +
                  ", none of which matches " + describePatterns(R.DeclaredIn));
  }
  if (std::string Why = moduleRejection(R, Facts.Module); !Why.empty())
    return Reject(Why);
  for (const std::string &Decorator : Facts.Decorators)
    if (is_contained(R.SkipDecorators, Decorator))
      return Reject("decorated with '@" + Decorator +
                    "', which the rule skips (skip_decorators)");
  std::string Namespace = Facts.namespaceName();
  if (!R.Namespaces.empty() &&
      none_of(R.Namespaces, [&](const NamespacePattern &P) {
        return P.matches(Namespace);
      })) {
    std::vector<std::string> Patterns;
    for (const NamespacePattern &P : R.Namespaces)
      Patterns.push_back(quoted(P.pattern()));
    return Reject("namespace " + join(Patterns, " or ") +
                  " != " + quoted(Namespace.empty() ? "::" : Namespace));
  }
  if (!R.Names.empty() && none_of(R.Names, [&](const NameRegex &Name) {
        return Name.matches(Facts.Name);
      })) {
    std::vector<std::string> Patterns;
    for (const NameRegex &Name : R.Names)
      Patterns.push_back(quoted(Name.pattern()));
    return Reject("name " + quoted(Facts.Name) + " does not match " +
                  join(Patterns, " or "));
  }
  for (const NameRegex &Excluded : R.ExcludeNames)
    if (Excluded.matches(Facts.Name))
      return Reject("name " + quoted(Facts.Name) + " is excluded by " +
                    quoted(Excluded.pattern()));
  std::string Class = Facts.qualifiedClassName();
  if (R.Class && (Class.empty() || !R.Class->matches(Class)))
    return Reject(Class.empty()
                      ? "class " + quoted(R.Class->pattern()) +
                            " but this is not a member"
                      : "class " + quoted(Class) + " does not match " +
                            quoted(R.Class->pattern()));
  if (!R.DerivedFrom.empty() &&
      none_of(R.DerivedFrom, [&](const std::string &Base) {
        return is_contained(Facts.Bases, Base);
      })) {
    std::vector<std::string> Bases;
    for (const std::string &Base : R.DerivedFrom)
      Bases.push_back(quoted(Base));
    return Reject(Class.empty()
                      ? "derived_from " + join(Bases, " or ") +
                            " but this is not a member"
                      : "class " + quoted(Class) + " does not derive from " +
                            join(Bases, " or "));
  }
  if (R.ExternalLinkageOnly && !Facts.ExternalLinkage)
    return Reject("linkage is internal (static or in an anonymous "
                  "namespace); the rule wants external");
  if (R.Access == Rule::AccessFilter::Public && !Facts.Public)
    return Reject(Facts.Lang == Language::Python
                      ? "not public (not in its module's '__all__', or a "
                        "name with a leading '_', or nested in a function); "
                        "the rule wants public"
                      : "access is not public; the rule wants public");
  if (R.Access == Rule::AccessFilter::Protected && !Facts.PublicOrProtected)
    return Reject("access is private; the rule wants public or protected");
  return RuleVerdict{true, ""};
}

bool fileCanBeSelected(const RuleSet &Rules, StringRef RelativePath) {
  // Only the rules of the file's language: a Python rule without `files`
  // says nothing of a C++ file (whose bodies would be parsed for nothing).
  Language Of =
      RelativePath.ends_with(".py") ? Language::Python : Language::Cxx;
  return any_of(Rules.Rules, [&](const Rule &R) {
    return R.Lang == Of && fileRejection(R, RelativePath).empty();
  });
}

bool moduleCanBeSelected(const RuleSet &Rules, StringRef Module,
                         StringRef RelativePath) {
  return any_of(Rules.Rules, [&](const Rule &R) {
    return R.Lang == Language::Python && moduleRejection(R, Module).empty() &&
           fileRejection(R, RelativePath).empty();
  });
}

const Rule *selectRule(const RuleSet &Rules, const DeclFacts &Facts) {
  for (const Rule &R : Rules.Rules)
    if (evaluateRule(R, Facts).Selected)
      return &R;
  return nullptr;
}

} // namespace apistamp
