//===- Unselected.cpp - The public API no rule covers: list and gate ------===//
//
// catalog --unselected lists the definitions of the rules' public surface
// that no rule selects, with every rule's reason (explain's words);
// check --fail-on-unselected makes each an error with a rule that would
// select it.
//
//===----------------------------------------------------------------------===//

#include "Catalog.h"
#include "Commands.h"
#include "Csv.h"
#include "PublicSurface.h"
#include "Suggestions.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace apistamp {

namespace {

/// A definition of the public surface that no rule selects.
struct UnselectedApi {
  const UnselectedSite *Site;
  std::string Header; ///< The public header that declares it, canonical.
  /// A rule that selects it, checked; std::nullopt if none of that form can.
  std::optional<std::string> Suggestion;
};

/// The unselected definitions of \p Ctx on their rules' public surface;
/// \p Excluded counts those `public_surface`'s exclusions take out.
std::vector<UnselectedApi> unselectedApi(const CommandContext &Ctx,
                                         unsigned &Excluded) {
  std::vector<UnselectedApi> Found;
  for (const UnselectedSite &U : Ctx.Result.Unselected) {
    const RuleSet &Rules = *U.Rules;
    std::string Header =
        surfaceHeader(U.Definition, Rules, [&](StringRef Path) {
          return !publicHeaderReason(Ctx.Plan, Rules, Path).empty();
        });
    if (Header.empty())
      continue;
    if (excludedFromSurface(U.Definition, Rules.Surface, Rules.Root)) {
      ++Excluded;
      continue;
    }
    Found.push_back(
        {&U, std::move(Header), checkedSuggestion(U.Definition, Rules)});
  }
  return Found;
}

/// The rules files of the plan that say nothing of a public surface.
std::vector<const RuleSet *> withoutSurface(const CommandContext &Ctx) {
  bool Installs = !Ctx.Plan.Installed.Files.empty() ||
                  !Ctx.Plan.Installed.Directories.empty();
  std::vector<const RuleSet *> Without;
  for (const RuleSet *Rules : Ctx.Plan.sortedRuleSets())
    if (!hasPublicSurface(*Rules, Installs))
      Without.push_back(Rules);
  return Without;
}

/// What to say of a rules file without a public surface.
std::string noSurfaceMessage(const CommandContext &Ctx, const RuleSet &Rules) {
  return "'" + Ctx.Display(Rules.Path) +
         "' declares no public surface ('public_surface: headers', or "
         "'public_headers') and the build installs no headers";
}

/// Each rule's verdict on \p U: all rejections.
std::vector<Explanation::RuleLine> ruleLines(const UnselectedSite &U) {
  std::vector<Explanation::RuleLine> Lines;
  for (auto [R, Why] : zip(U.Rules->Rules, U.Definition.Rejections))
    if (R.Lang == U.Definition.Lang) // The other language's say nothing.
      Lines.push_back({R.Id, R.Line, Why});
  return Lines;
}

/// "1 public definition", "2 public definitions".
std::string definitions(size_t N) {
  return std::to_string(N) +
         (N == 1 ? " public definition" : " public definitions");
}

} // namespace

int printUnselectedCatalog(CommandContext &Ctx) {
  for (const RuleSet *Rules : withoutSurface(Ctx))
    Ctx.Err << "apistamp: warning: "
            << printableLine(noSurfaceMessage(Ctx, *Rules)) << "\n";
  unsigned Excluded = 0;
  std::vector<UnselectedApi> Found = unselectedApi(Ctx, Excluded);
  raw_ostream &Out = Ctx.Out;
  // CSV and JSON are data: files relative to the root of their rules.
  PathDisplay Display =
      Ctx.Opts.Format == OutputFormat::Text
          ? Ctx.Display
          : rootRelative(Ctx.Plan.sortedRuleSets(), Ctx.Display);
  if (Ctx.Opts.Format == OutputFormat::Json) {
    json::Array Entries;
    for (const UnselectedApi &A : Found) {
      const UnselectedDefinition &U = A.Site->Definition;
      json::Array Rules;
      for (const Explanation::RuleLine &R : ruleLines(*A.Site))
        Rules.push_back(json::Object{
            {"rule", R.Id}, {"line", R.Line}, {"rejection", R.Rejection}});
      json::Object Entry{
          {"name", U.QualifiedName},  {"kind", kindName(U.Kind)},
          {"file", Display(U.File)},  {"line", U.Line},
          {"column", U.Column},       {"header", Display(A.Header)},
          {"rules", std::move(Rules)}};
      if (A.Suggestion)
        Entry["suggested_rule"] = *A.Suggestion;
      Entries.push_back(std::move(Entry));
    }
    Out << formatv("{0:2}", json::Value(std::move(Entries))) << "\n";
  } else if (Ctx.Opts.Format == OutputFormat::Csv) {
    Out << "name,kind,file,line,header,rule,rule_line,rejection\n";
    for (const UnselectedApi &A : Found) {
      const UnselectedDefinition &U = A.Site->Definition;
      for (const Explanation::RuleLine &R : ruleLines(*A.Site))
        Out << csvField(U.QualifiedName) << "," << kindName(U.Kind) << ","
            << csvField(Display(U.File)) << "," << U.Line << ","
            << csvField(Display(A.Header)) << "," << csvField(R.Id) << ","
            << R.Line << "," << csvField(R.Rejection) << "\n";
    }
  } else {
    // As explain prints a definition: names and files are escaped.
    for (const UnselectedApi &A : Found) {
      const UnselectedDefinition &U = A.Site->Definition;
      Out << printableLine(Display(U.File)) << ":" << U.Line << ":" << U.Column
          << ": "
          << printableLine(U.QualifiedName + " (" + kindName(U.Kind).str() +
                           "), declared in " + Display(A.Header))
          << "\n";
      printRuleVerdicts(Out, ruleLines(*A.Site));
    }
  }
  Ctx.summary(Ctx.Err) << "apistamp: " << definitions(Found.size())
                       << " selected by no rule"
                       << (Excluded ? "; " + std::to_string(Excluded) +
                                          " more excluded by public_surface"
                                    : "")
                       << Ctx.Notes << "\n";
  return Ctx.exitCode(ExitClean);
}

std::optional<std::vector<Finding>> unselectedFindings(CommandContext &Ctx) {
  std::vector<const RuleSet *> Without = withoutSurface(Ctx);
  for (const RuleSet *Rules : Without)
    Ctx.Err << "apistamp: error: --fail-on-unselected: "
            << printableLine(noSurfaceMessage(Ctx, *Rules)) << "\n";
  if (!Without.empty())
    return std::nullopt;
  unsigned Excluded = 0;
  std::vector<Finding> Findings;
  for (UnselectedApi &A : unselectedApi(Ctx, Excluded)) {
    const UnselectedDefinition &U = A.Site->Definition;
    Finding F;
    F.File = U.File;
    F.Line = U.Line;
    F.Column = U.Column;
    F.Level = Severity::Error;
    F.Message = "public " + kindName(U.Kind).str() + " '" + U.QualifiedName +
                "' (declared in " + Ctx.Display(A.Header) +
                ") is selected by no rule; " +
                (A.Suggestion ? "a rule that selects it:"
                              : "no rule by where, namespace, class and name "
                                "can select it (see apistamp explain)");
    F.RuleId = UnselectedRule.str();
    F.FromUnselected = &U;
    F.SuggestedRule = A.Suggestion.value_or("");
    Findings.push_back(std::move(F));
  }
  if (!Findings.empty())
    Ctx.Notes += "; " + definitions(Findings.size()) + " selected by no rule";
  return Findings;
}

} // namespace apistamp
