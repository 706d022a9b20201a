//===- PublicSurfaceTest.cpp - Tests of the public surface and its rules --===//

#include "PublicSurface.h"
#include "TestSupport.h"
#include "apistamp/Rules.h"
#include "gtest/gtest.h"

using namespace apistamp;

namespace {

RuleSet rulesFrom(llvm::StringRef Text) {
  RuleSet Rules = valueOrFail(parseRules(Text, "rules.yaml"));
  Rules.Root = "/src";
  return Rules;
}

UnselectedDefinition definition(DeclKind Kind, std::string Qualified,
                                std::string Name,
                                std::vector<std::string> Namespaces,
                                std::vector<std::string> Classes = {}) {
  UnselectedDefinition U;
  U.File = "/src/lib/a.cpp";
  U.Kind = Kind;
  U.QualifiedName = std::move(Qualified);
  U.Name = std::move(Name);
  U.Namespaces = std::move(Namespaces);
  U.Classes = std::move(Classes);
  U.DeclaredIn = {"include/a.h", "lib/a.cpp"};
  return U;
}

TEST(PublicSurfaceTest, KeyIsParsed) {
  RuleSet Rules = rulesFrom("version: 1\n"
                            "public_surface:\n"
                            "  headers: [\"include/**\", \"api/*.h\"]\n"
                            "  exclude_namespaces: detail\n"
                            "  exclude_names: [\"_.*\"]\n"
                            "rules:\n  - id: a\n");
  ASSERT_EQ(Rules.Surface.Headers.size(), 2u);
  ASSERT_EQ(Rules.Surface.ExcludeNamespaces.size(), 1u);
  EXPECT_TRUE(Rules.Surface.ExcludeNamespaces[0].matches("detail"));
  EXPECT_FALSE(Rules.Surface.ExcludeNamespaces[0].matches("details"));
  ASSERT_EQ(Rules.Surface.ExcludeNames.size(), 1u);
}

TEST(PublicSurfaceTest, BadKeysAreErrorsWithSuggestions) {
  EXPECT_EQ(errorOf(parseRules("version: 1\n"
                               "public_surface:\n"
                               "  header: \"include/**\"\n"
                               "rules:\n  - id: a\n",
                               "r.yaml")),
            "r.yaml:3:3: error: unknown key 'header' in 'public_surface'; did "
            "you mean 'headers'?");
  EXPECT_EQ(errorOf(parseRules("version: 1\n"
                               "public_surface: [a]\n"
                               "rules:\n  - id: a\n",
                               "r.yaml")),
            "r.yaml:2:17: error: 'public_surface' must be a mapping with "
            "'headers', 'exclude_namespaces', 'exclude_names' and "
            "'exclude_files' (each a string or a list of strings)");
  std::string BadRegex = errorOf(parseRules("version: 1\n"
                                            "public_surface:\n"
                                            "  exclude_names: \"(\"\n"
                                            "rules:\n  - id: a\n",
                                            "r.yaml"));
  EXPECT_EQ(BadRegex.rfind("r.yaml:3:19: error: ", 0), 0u) << BadRegex;
}

TEST(PublicSurfaceTest, HeadersGlobsOrThePublicHeaders) {
  UnselectedDefinition U =
      definition(DeclKind::Function, "lib::f", "f", {"lib"});
  auto Never = [](llvm::StringRef) { return false; };
  auto AH = [](llvm::StringRef Path) { return Path == "/src/include/a.h"; };
  RuleSet Globbed = rulesFrom("version: 1\npublic_surface:\n  headers: "
                              "\"include/*.h\"\nrules:\n  - id: a\n");
  EXPECT_EQ(surfaceHeader(U, Globbed, Never), "/src/include/a.h");
  // With globs, the public headers do not count.
  RuleSet Other = rulesFrom("version: 1\npublic_surface:\n  headers: "
                            "\"other/*.h\"\nrules:\n  - id: a\n");
  EXPECT_EQ(surfaceHeader(U, Other, AH), "");
  // Without, they are the surface.
  RuleSet Default = rulesFrom("version: 1\nrules:\n  - id: a\n");
  EXPECT_EQ(surfaceHeader(U, Default, AH), "/src/include/a.h");
  EXPECT_EQ(surfaceHeader(U, Default, Never), "");
  EXPECT_FALSE(hasPublicSurface(Default, false));
  EXPECT_TRUE(hasPublicSurface(Default, true));
  EXPECT_TRUE(hasPublicSurface(Globbed, false));
}

TEST(PublicSurfaceTest, Exclusions) {
  RuleSet Rules = rulesFrom("version: 1\npublic_surface:\n"
                            "  exclude_namespaces: [detail, \"_.*\"]\n"
                            "  exclude_names: [\"_.*\"]\nrules:\n  - id: a\n");
  const PublicSurface &S = Rules.Surface;
  EXPECT_FALSE(excludedFromSurface(
      definition(DeclKind::Function, "a::f", "f", {"a"}), S, "/src"));
  EXPECT_TRUE(
      excludedFromSurface(definition(DeclKind::Function, "a::detail::b::f", "f",
                                     {"a", "detail", "b"}),
                          S, "/src"));
  EXPECT_FALSE(excludedFromSurface(
      definition(DeclKind::Function, "a::details::f", "f", {"a", "details"}), S,
      "/src"));
  EXPECT_TRUE(excludedFromSurface(
      definition(DeclKind::Function, "a::_impl::f", "f", {"a", "_impl"}), S,
      "/src"));
  EXPECT_TRUE(excludedFromSurface(
      definition(DeclKind::Function, "a::_f", "_f", {"a"}), S, "/src"));
  EXPECT_TRUE(excludedFromSurface(
      definition(DeclKind::Method, "a::_C::run", "run", {"a"}, {"_C"}), S,
      "/src"));
}

// exclude_files: the file a definition is written in, relative to the root
// (inline definitions in installed headers, not those in sources).
TEST(PublicSurfaceTest, ExcludedFiles) {
  RuleSet Rules = rulesFrom("version: 1\npublic_surface:\n"
                            "  exclude_files: [\"include/**/*.h\"]\n"
                            "rules:\n  - id: a\n");
  UnselectedDefinition U = definition(DeclKind::Function, "a::f", "f", {"a"});
  EXPECT_FALSE(excludedFromSurface(U, Rules.Surface, "/src"));
  U.File = "/src/include/a/inline.h";
  EXPECT_TRUE(excludedFromSurface(U, Rules.Surface, "/src"));
  EXPECT_FALSE(excludedFromSurface(U, Rules.Surface, "/elsewhere"));
}

// Each suggestion is parsed and tested against the definition's facts: it
// selects what it was made for.
TEST(PublicSurfaceTest, SuggestedRulesSelectTheirDefinition) {
  RuleSet Rules = rulesFrom("version: 1\nrules:\n  - id: a\n    name: x\n");
  std::vector<UnselectedDefinition> Definitions = {
      definition(DeclKind::Function, "lib::ops::f", "f", {"lib", "ops"}),
      definition(DeclKind::Function, "g", "g", {}),
      definition(DeclKind::Method, "lib::Vec::operator+", "operator+", {"lib"},
                 {"Vec"}),
      definition(DeclKind::Method, "lib::Outer::Inner::operator()",
                 "operator()", {"lib"}, {"Outer", "Inner"}),
      definition(DeclKind::Constructor, "lib::Vec::Vec", "Vec", {"lib"},
                 {"Vec"}),
  };
  for (const UnselectedDefinition &U : Definitions) {
    std::optional<std::string> Yaml = checkedSuggestion(U, Rules);
    ASSERT_TRUE(Yaml) << U.QualifiedName << "\n" << suggestedRule(U);
    EXPECT_EQ(*Yaml, suggestedRule(U));
  }
  EXPECT_EQ(suggestedRule(Definitions[0]), "  - id: 'lib::ops::f'\n"
                                           "    where: function\n"
                                           "    namespace: 'lib::ops'\n"
                                           "    name: 'f'\n");
  EXPECT_EQ(suggestedRule(Definitions[1]), "  - id: 'g'\n"
                                           "    where: function\n"
                                           "    namespace: '::'\n"
                                           "    name: 'g'\n");
  EXPECT_EQ(suggestedRule(Definitions[2]), "  - id: 'lib::Vec::operator+'\n"
                                           "    where: method\n"
                                           "    class: 'lib::Vec'\n"
                                           "    name: 'operator\\+'\n");
  EXPECT_EQ(suggestedRule(Definitions[4]), "  - id: 'lib::Vec::Vec'\n"
                                           "    where: constructor\n"
                                           "    class: 'lib::Vec'\n");
}

// A rule of that form cannot select a definition in a file the rules
// exclude for every rule: no suggestion then.
TEST(PublicSurfaceTest, NoSuggestionWhereTheRulesExcludeTheFile) {
  RuleSet Rules =
      rulesFrom("version: 1\nexclude_files: \"lib/**\"\nrules:\n  - id: a\n");
  EXPECT_FALSE(checkedSuggestion(
      definition(DeclKind::Function, "lib::f", "f", {"lib"}), Rules));
}

} // namespace
