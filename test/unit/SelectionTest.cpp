//===- SelectionTest.cpp - Tests for rule selection -----------------------===//

#include "apistamp/Selection.h"
#include "TestSupport.h"
#include "gmock/gmock.h"

using namespace apistamp;
using ::testing::HasSubstr;

namespace {

RuleSet rules(llvm::StringRef RulesYaml) {
  return valueOrFail(
      parseRules(("version: 1\nrules:\n" + RulesYaml).str(), "r.yaml"));
}

DeclFacts freeFunction(std::string Name, std::vector<std::string> NS,
                       std::string Path = "src/a.cpp") {
  DeclFacts F;
  F.Kind = DeclKind::Function;
  F.Name = std::move(Name);
  F.Namespaces = std::move(NS);
  F.RelativePath = std::move(Path);
  return F;
}

DeclFacts member(DeclKind Kind, std::string Name,
                 std::vector<std::string> Classes) {
  DeclFacts F = freeFunction(std::move(Name), {"lib"});
  F.Kind = Kind;
  F.Classes = std::move(Classes);
  return F;
}

std::string selected(const RuleSet &Rules, const DeclFacts &F) {
  const Rule *R = selectRule(Rules, F);
  return R ? R->Id : "";
}

TEST(SelectionTest, WhereFiltersKinds) {
  RuleSet R = rules("  - id: f\n    where: function\n"
                    "  - id: m\n    where: method\n"
                    "  - id: c\n    where: constructor\n");
  EXPECT_EQ(selected(R, freeFunction("f", {"lib"})), "f");
  EXPECT_EQ(selected(R, member(DeclKind::Method, "get", {"A"})), "m");
  EXPECT_EQ(selected(R, member(DeclKind::Constructor, "A", {"A"})), "c");
}

TEST(SelectionTest, FirstMatchingRuleWins) {
  RuleSet R = rules("  - id: narrow\n    name: nms\n  - id: broad\n");
  EXPECT_EQ(selected(R, freeFunction("nms", {})), "narrow");
  EXPECT_EQ(selected(R, freeFunction("roi", {})), "broad");
}

TEST(SelectionTest, NameTakesAList) {
  RuleSet R = rules("  - id: io\n    name: [\"read_.*\", \"write_.*\"]\n");
  EXPECT_EQ(selected(R, freeFunction("read_file", {})), "io");
  EXPECT_EQ(selected(R, freeFunction("write_file", {})), "io");
  EXPECT_EQ(selected(R, freeFunction("seek", {})), "");
  EXPECT_THAT(evaluateRule(R.Rules[0], freeFunction("seek", {})).Rejection,
              HasSubstr("does not match 'read_.*' or 'write_.*'"));
}

TEST(SelectionTest, AccessProtectedTakesPublicAndProtected) {
  RuleSet R = rules("  - id: hooks\n    access: protected\n");
  DeclFacts Public = member(DeclKind::Method, "run", {"A"});
  DeclFacts Protected = Public, Private = Public;
  Protected.Public = false;
  Private.Public = Private.PublicOrProtected = false;
  EXPECT_EQ(selected(R, Public), "hooks");
  EXPECT_EQ(selected(R, Protected), "hooks");
  EXPECT_EQ(selected(R, Private), "");
  EXPECT_THAT(evaluateRule(R.Rules[0], Private).Rejection,
              HasSubstr("access is private; the rule wants public or "
                        "protected"));
  RuleSet Default = rules("  - id: api\n");
  EXPECT_EQ(selected(Default, Protected), "");
}

TEST(SelectionTest, DeclaredInWantsADeclarationInAMatchingFile) {
  RuleSet R = rules("  - id: api\n    declared_in: \"include/**/*.h\"\n");
  DeclFacts Api = freeFunction("blur", {"lib"});
  Api.DeclaredIn = {"src/a.cpp", "include/lib/ops.h"};
  EXPECT_EQ(selected(R, Api), "api");

  DeclFacts Helper = freeFunction("helper", {"lib"});
  Helper.DeclaredIn = {"src/a.cpp", "src/internal.h"};
  RuleVerdict Verdict = evaluateRule(R.Rules[0], Helper);
  EXPECT_FALSE(Verdict.Selected);
  EXPECT_EQ(Verdict.Rejection,
            "declared only in 'src/a.cpp', 'src/internal.h', none of which "
            "matches 'include/**/*.h'");
}

TEST(SelectionTest, FileCanBeSelectedIfSomeRuleCoversIt) {
  RuleSet R = rules("  - id: ops\n    files: \"ops/**\"\n"
                    "    exclude_files: \"**/cpu/**\"\n"
                    "  - id: io\n    files: \"io/*.cpp\"\n");
  EXPECT_TRUE(fileCanBeSelected(R, "ops/nms.cpp"));
  EXPECT_TRUE(fileCanBeSelected(R, "io/read.cpp"));
  EXPECT_FALSE(fileCanBeSelected(R, "ops/cpu/nms_kernel.cpp"));
  EXPECT_FALSE(fileCanBeSelected(R, "io/detail/x.cpp"));
  EXPECT_FALSE(fileCanBeSelected(R, "tests/t.cpp"));
  EXPECT_TRUE(fileCanBeSelected(rules("  - id: any\n"), "tests/t.cpp"));
}

TEST(SelectionTest, NamespaceExactAndNested) {
  RuleSet Exact = rules("  - id: r\n    namespace: vision::ops\n");
  EXPECT_EQ(selected(Exact, freeFunction("f", {"vision", "ops"})), "r");
  EXPECT_EQ(selected(Exact, freeFunction("f", {"vision", "ops", "detail"})),
            "");
  EXPECT_EQ(selected(Exact, freeFunction("f", {"vision"})), "");
  RuleSet Nested = rules("  - id: r\n    namespace: vision::**\n");
  EXPECT_EQ(selected(Nested, freeFunction("f", {"vision"})), "r");
  EXPECT_EQ(selected(Nested, freeFunction("f", {"vision", "a", "b"})), "r");
  EXPECT_EQ(selected(Nested, freeFunction("f", {"visionary"})), "");
  RuleSet Global = rules("  - id: r\n    namespace: '::'\n");
  EXPECT_EQ(selected(Global, freeFunction("f", {})), "r");
  EXPECT_EQ(selected(Global, freeFunction("f", {"a"})), "");
  RuleSet Either = rules("  - id: r\n    namespace: [a, b]\n");
  EXPECT_EQ(selected(Either, freeFunction("f", {"b"})), "r");
}

TEST(SelectionTest, FilesAndExcludes) {
  RuleSet R = rules("  - id: r\n    files: ['ops/**']\n"
                    "    exclude_files: ['**/cpu/**']\n");
  EXPECT_EQ(selected(R, freeFunction("f", {}, "ops/nms.cpp")), "r");
  EXPECT_EQ(selected(R, freeFunction("f", {}, "ops/cpu/nms_kernel.cpp")), "");
  EXPECT_EQ(selected(R, freeFunction("f", {}, "io/image.cpp")), "");
}

TEST(SelectionTest, NamesAreWholeMatches) {
  RuleSet R = rules("  - id: r\n    name: 'n.s'\n    exclude_names: ['_.*']\n");
  EXPECT_EQ(selected(R, freeFunction("nms", {})), "r");
  EXPECT_EQ(selected(R, freeFunction("nms2", {})), "");
  RuleSet Ex = rules("  - id: r\n    exclude_names: ['_.*', 'detail.*']\n");
  EXPECT_EQ(selected(Ex, freeFunction("_nms", {})), "");
  EXPECT_EQ(selected(Ex, freeFunction("detail_x", {})), "");
  EXPECT_EQ(selected(Ex, freeFunction("x_detail", {})), "r");
}

TEST(SelectionTest, ClassIsQualified) {
  RuleSet R = rules("  - id: r\n    class: 'lib::(Video|Image)'\n");
  EXPECT_EQ(selected(R, member(DeclKind::Method, "f", {"Video"})), "r");
  EXPECT_EQ(selected(R, member(DeclKind::Method, "f", {"Video", "Helper"})),
            "");
  EXPECT_EQ(selected(R, freeFunction("f", {"lib"})), "");
}

TEST(SelectionTest, DerivedFrom) {
  RuleSet R = rules("  - id: r\n    derived_from: torch::nn::Module\n");
  DeclFacts Ctor = member(DeclKind::Constructor, "Net", {"Net"});
  EXPECT_EQ(selected(R, Ctor), "");
  Ctor.Bases = {"torch::nn::Cloneable", "torch::nn::Module"};
  EXPECT_EQ(selected(R, Ctor), "r");
  // A list: any of them.
  RuleSet Either = rules("  - id: r\n    derived_from: [a::A, b::B]\n");
  Ctor.Bases = {"b::B"};
  EXPECT_EQ(selected(Either, Ctor), "r");
  Ctor.Bases = {"c::C"};
  EXPECT_EQ(selected(Either, Ctor), "");
}

TEST(SelectionTest, LinkageAndAccess) {
  RuleSet Default = rules("  - id: r\n");
  RuleSet Any = rules("  - id: r\n    linkage: any\n    access: any\n");
  DeclFacts Static = freeFunction("f", {});
  Static.ExternalLinkage = false;
  EXPECT_EQ(selected(Default, Static), "");
  EXPECT_EQ(selected(Any, Static), "r");
  DeclFacts Private = member(DeclKind::Method, "f", {"A"});
  Private.Public = false;
  EXPECT_EQ(selected(Default, Private), "");
  EXPECT_EQ(selected(Any, Private), "r");
}

TEST(SelectionTest, RejectionSaysWhichFilter) {
  RuleSet R = rules("  - id: r\n    namespace: vision::ops\n");
  RuleVerdict V =
      evaluateRule(R.Rules[0], freeFunction("f", {"vision", "ops", "detail"}));
  EXPECT_FALSE(V.Selected);
  EXPECT_THAT(V.Rejection,
              HasSubstr("namespace 'vision::ops' != 'vision::ops::detail'"));
  RuleSet W = rules("  - id: r\n    where: constructor\n");
  EXPECT_THAT(evaluateRule(W.Rules[0], freeFunction("f", {})).Rejection,
              HasSubstr("where 'constructor' but this is a function"));
}

} // namespace
