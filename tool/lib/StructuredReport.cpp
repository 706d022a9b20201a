//===- StructuredReport.cpp - check's JSON and SARIF reports --------------===//

#include "StructuredReport.h"
#include "apistamp/Paths.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include <map>
#include <set>

using namespace llvm;

namespace apistamp {

std::vector<std::vector<TextEdit>> fixesOf(const ReportInput &In) {
  // Per file: the replacements no site made (the #include), not yet handed
  // out.
  std::map<std::string, std::set<TextEdit>> Unclaimed;
  for (const auto &[File, Edits] : In.FileFixes)
    Unclaimed[File].insert(Edits.begin(), Edits.end());
  for (const Finding &F : In.Findings)
    if (F.FromSite)
      for (const TextEdit &E : F.FromSite->Edits)
        Unclaimed[F.File].erase(E);

  std::vector<std::vector<TextEdit>> Fixes(In.Findings.size());
  for (size_t I = 0; I < In.Findings.size(); ++I) {
    const Finding &F = In.Findings[I];
    // Notes (an overlap of rules, a verbose "instrumented") point at a site
    // too, but only its warning carries the fix, or it would apply twice.
    if (!F.FromSite || !F.isProblem() || F.FromSite->Edits.empty())
      continue;
    llvm::copy_if(
        F.FromSite->Edits, std::back_inserter(Fixes[I]),
        [](const TextEdit &E) { return E.Kind == TextEdit::Replace; });
    std::set<TextEdit> &Include = Unclaimed[F.File];
    Fixes[I].insert(Fixes[I].end(), Include.begin(), Include.end());
    Include.clear();
    llvm::sort(Fixes[I]);
  }
  return Fixes;
}

/// A usage-gate finding's figures, as JSON and SARIF carry them.
static json::Object usageObject(const UsageFigures &U) {
  json::Array LoggedAs;
  for (const std::string &Name : U.LoggedAs)
    LoggedAs.push_back(Name);
  auto Day = [](const std::string &D) {
    return D.empty() ? json::Value(nullptr) : json::Value(D);
  };
  return json::Object{{"event", U.Event},
                      {"jobs", int64_t(U.Jobs)},
                      {"since", Day(U.Since)},
                      {"last_seen", Day(U.LastSeen)},
                      {"min_jobs", int64_t(U.MinJobs)},
                      {"logged_as", std::move(LoggedAs)}};
}

static json::Object countsObject(const ReportInput &In) {
  json::Object Skipped;
  for (const auto &[Reason, Count] : In.Counts.SkippedByReason)
    Skipped[Reason] = Count;
  return json::Object{
      {"tus", In.TUs},
      {"parse_failures", In.ParseFailures},
      {"selected", In.Counts.Selected},
      {"instrumented", In.Counts.Present},
      {"missing", In.Counts.Missing},
      {"wrong", In.Counts.Wrong},
      {"duplicate", In.Counts.Duplicate},
      {"skipped", In.Counts.Skipped},
      {"skipped_by_reason", std::move(Skipped)},
      {"suppressed", In.Counts.Suppressed},
      {"stale", In.Counts.Stale},
      {"conflict", In.Counts.Conflict},
      {"not_checked", In.Counts.NotChecked},
      {"not_checked_allowed", In.Counts.NotCheckedAllowed},
      {"rules_selecting_nothing", In.Counts.RulesSelectingNothing}};
}

void printJsonReport(raw_ostream &OS, const ReportInput &In,
                     const PathDisplay &Display) {
  json::Array Findings;
  std::vector<std::vector<TextEdit>> Fixes = fixesOf(In);
  for (size_t I = 0; I < In.Findings.size(); ++I) {
    const Finding &F = In.Findings[I];
    json::Object Entry{
        {"file", Display(F.File)}, {"line", F.Line},
        {"column", F.Column},      {"severity", severityName(F.Level)},
        {"message", F.Message},    {"rule", F.RuleId}};
    if (const Site *S = F.FromSite) {
      Entry["status"] = statusName(S->Status);
      Entry["event"] = S->Event;
      Entry["name"] = S->QualifiedName;
      Entry["kind"] = kindName(S->Kind);
    }
    if (F.Usage)
      Entry["usage"] = usageObject(*F.Usage);
    if (const UnselectedDefinition *U = F.FromUnselected) {
      Entry["name"] = U->QualifiedName;
      Entry["kind"] = kindName(U->Kind);
      if (!F.SuggestedRule.empty())
        Entry["suggested_rule"] = F.SuggestedRule;
    }
    json::Array Fix;
    for (const TextEdit &E : Fixes[I])
      Fix.push_back(json::Object{{"file", Display(E.File)},
                                 {"offset", E.Offset},
                                 {"length", E.Length},
                                 {"text", E.Text}});
    if (!Fix.empty())
      Entry["fix"] = std::move(Fix);
    Findings.push_back(std::move(Entry));
  }
  json::Value Report = json::Object{{"version", 1},
                                    {"findings", std::move(Findings)},
                                    {"summary", countsObject(In)}};
  OS << formatv("{0:2}", Report) << "\n";
}

void printExportedFixes(raw_ostream &OS, const ReportInput &In,
                        StringRef BuildDirectory) {
  clang::tooling::TranslationUnitDiagnostics Exported;
  std::vector<std::vector<TextEdit>> Fixes = fixesOf(In);
  for (size_t I = 0; I < In.Findings.size(); ++I) {
    const Finding &F = In.Findings[I];
    const std::vector<TextEdit> &Fix = Fixes[I];
    if (Fix.empty())
      continue;
    // "apistamp-<rule>", as clang-tidy names a check; the stale-event
    // finding's name has the prefix already.
    StringRef Rule = F.RuleId;
    clang::tooling::Diagnostic D(
        Rule.starts_with("apistamp-") ? Rule.str() : "apistamp-" + Rule.str(),
        clang::tooling::Diagnostic::Warning, BuildDirectory);
    D.Message.Message = F.Message;
    D.Message.FilePath = F.File;
    D.Message.FileOffset = F.FromSite->Offset;
    for (const TextEdit &E : Fix)
      consumeError(D.Message.Fix[E.File].add(
          clang::tooling::Replacement(E.File, E.Offset, E.Length, E.Text)));
    Exported.Diagnostics.push_back(std::move(D));
  }
  yaml::Output YAML(OS);
  YAML << Exported;
}

/// \p Path as a URI path (RFC 3986; SARIF 2.1.0, 3.4.3): every byte but
/// the unreserved characters and '/' percent-encoded, so that "a#b.cpp" is
/// not a fragment, "q?x.cpp" not a query and "50%25.cpp" not "50%.cpp".
static std::string uriPath(StringRef Path) {
  std::string Out;
  for (unsigned char C : Path) {
    if (isAlnum(C) || C == '-' || C == '.' || C == '_' || C == '~' ||
        C == '/') {
      Out += C;
      continue;
    }
    Out += '%';
    Out += hexdigit(C >> 4);
    Out += hexdigit(C & 15);
  }
  return Out;
}

static json::Object artifactLocation(StringRef Path, StringRef Base) {
  if (std::optional<StringRef> Relative = pathUnder(Path, Base))
    return json::Object{{"uri", uriPath(*Relative)}, {"uriBaseId", "SRCROOT"}};
  return json::Object{{"uri", "file://" + uriPath(Path)}};
}

/// The SARIF "fixes" of finding \p F: its edits as one change.
static json::Array sarifFixes(const Finding &F, ArrayRef<TextEdit> Fix,
                              StringRef BaseDirectory) {
  json::Array Replacements;
  for (const TextEdit &E : Fix)
    Replacements.push_back(
        json::Object{{"deletedRegion", json::Object{{"byteOffset", E.Offset},
                                                    {"byteLength", E.Length}}},
                     {"insertedContent", json::Object{{"text", E.Text}}}});
  const Site &S = *F.FromSite;
  std::string Description =
      S.Status == SiteStatus::Wrong && !S.FoundMacro.empty()
          ? (S.FoundEvents.size() > 1
                 ? "Remove the call of '" + S.FoundMacro + "'"
                 : "Call '" + S.ExpectedMacro + "' instead of '" +
                       S.FoundMacro + "'")
      : S.Status == SiteStatus::Wrong ? "Correct the event to '" + S.Event + "'"
      : S.Status == SiteStatus::Stale
          ? "Remove the stale event '" + S.Event + "'"
          : "Insert the event '" + S.Event + "'";
  return json::Array{json::Object{
      {"description", json::Object{{"text", std::move(Description)}}},
      {"artifactChanges",
       json::Array{json::Object{
           {"artifactLocation", artifactLocation(F.File, BaseDirectory)},
           {"replacements", std::move(Replacements)}}}}}};
}

namespace {

/// SARIF's rules array, and each rule's index in it.
struct SarifRules {
  json::Array Rules;
  StringMap<unsigned> Index;
  void add(StringRef Id, std::string Description) {
    if (Index.try_emplace(Id, Rules.size()).second)
      Rules.push_back(
          json::Object{{"id", Id},
                       {"shortDescription",
                        json::Object{{"text", std::move(Description)}}}});
  }
};

/// The rules of the run's rules files, and apistamp's own.
SarifRules sarifRules(const ReportInput &In, StringRef BaseDirectory) {
  SarifRules Rules;
  // The rules file relative to the base (SRCROOT): a log uploaded from CI
  // says nothing about the runner's directories.
  for (const RuleSet *Set : In.RuleSets) {
    // Relative points into RulesPath: it must outlive it.
    std::string RulesPath = canonicalPath(Set->Path);
    std::optional<StringRef> Relative = pathUnder(RulesPath, BaseDirectory);
    std::string RulesFile =
        Relative ? Relative->str() : sys::path::filename(Set->Path).str();
    for (const Rule &R : Set->Rules)
      Rules.add(R.Id, "API usage events selected by rule '" + R.Id + "' of " +
                          RulesFile + ":" + std::to_string(R.Line));
  }
  Rules.add(StaleEventRule,
            "API usage events in the first statement of definitions that no "
            "rule selects (or that are suppressed): they keep firing");
  Rules.add(directiveSpelling(Directive::Ignore),
            "apistamp-ignore comments without a reason, or "
            "that suppress nothing");
  if (any_of(In.Findings, [](const Finding &F) { return F.FromUnselected; }))
    Rules.add(UnselectedRule, "public definitions (declared in a header of "
                              "the rules' public surface) that no rule "
                              "selects");
  return Rules;
}

/// One finding as a SARIF result, with its fixes.
json::Object sarifResult(const Finding &F, unsigned RuleIndex,
                         ArrayRef<TextEdit> Fixes, StringRef BaseDirectory) {
  json::Object Result{
      {"ruleId", F.RuleId},
      {"ruleIndex", RuleIndex},
      {"level", severityName(F.Level)},
      {"message", json::Object{{"text", F.Message}}},
      {"locations",
       json::Array{json::Object{
           {"physicalLocation",
            json::Object{
                {"artifactLocation", artifactLocation(F.File, BaseDirectory)},
                {"region", json::Object{{"startLine", F.Line},
                                        {"startColumn", F.Column}}}}}}}}};
  if (!Fixes.empty())
    Result["fixes"] = sarifFixes(F, Fixes, BaseDirectory);
  if (F.FromSite)
    Result["properties"] =
        json::Object{{"event", F.FromSite->Event},
                     {"status", statusName(F.FromSite->Status)},
                     {"name", F.FromSite->QualifiedName}};
  if (F.Usage)
    Result["properties"] = usageObject(*F.Usage);
  if (const UnselectedDefinition *U = F.FromUnselected)
    Result["properties"] = json::Object{{"name", U->QualifiedName},
                                        {"kind", kindName(U->Kind)},
                                        {"suggestedRule", F.SuggestedRule}};
  return Result;
}

} // namespace

void printSarifReport(raw_ostream &OS, const ReportInput &In,
                      StringRef BaseDirectory, bool WithBaseUri) {
  SarifRules Rules = sarifRules(In, BaseDirectory);
  json::Array Results;
  std::vector<std::vector<TextEdit>> Fixes = fixesOf(In);
  for (size_t I = 0; I < In.Findings.size(); ++I) {
    const Finding &F = In.Findings[I];
    if (!Rules.Index.count(F.RuleId))
      Rules.add(F.RuleId, "rule '" + F.RuleId + "'");
    Results.push_back(
        sarifResult(F, Rules.Index.lookup(F.RuleId), Fixes[I], BaseDirectory));
  }
  json::Object Run{
      {"tool", json::Object{{"driver",
                             json::Object{{"name", "apistamp"},
                                          {"version", APISTAMP_VERSION},
                                          {"rules", std::move(Rules.Rules)}}}}},
      {"results", std::move(Results)},
      {"properties", json::Object{{"summary", countsObject(In)}}}};
  if (!BaseDirectory.empty() && WithBaseUri)
    Run["originalUriBaseIds"] = json::Object{
        {"SRCROOT",
         json::Object{{"uri", "file://" + uriPath(BaseDirectory) + "/"}}}};
  json::Value Log =
      json::Object{{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
                   {"version", "2.1.0"},
                   {"runs", json::Array{std::move(Run)}}};
  OS << formatv("{0:2}", Log) << "\n";
}

} // namespace apistamp
