//===- CheckUsage.cpp - check --usage: removals usage says break users ---===//

#include "../Catalog.h"
#include "../usage/UsageGate.h"
#include "Commands.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace apistamp {

namespace {

/// "12 jobs since 2026-08-01 (last seen 2026-11-20)", "1 job since ...",
/// "no job since 2026-08-01", or "no job" for an event never seen.
std::string usedBy(const UsageVerdict &V) {
  std::string Text = V.Jobs == 0   ? "no job"
                     : V.Jobs == 1 ? "1 job"
                                   : std::to_string(V.Jobs) + " jobs";
  if (!V.Since.empty())
    Text += " since " + V.Since;
  if (!V.LastSeen.empty())
    Text += " (last seen " + V.LastSeen + ")";
  if (!V.LoggedAs.empty()) {
    std::vector<std::string> Quoted;
    for (const std::string &Name : V.LoggedAs)
      Quoted.push_back("'" + Name + "'");
    Text += ", logged as " + join(Quoted, ", ");
  }
  return Text;
}

/// The usage file, absolute (findings name canonical paths).
std::string usageFilePath(const CommandContext &Ctx) {
  SmallString<256> Path(Ctx.Opts.UsageFile);
  sys::fs::make_absolute(Path);
  return Path.str().str();
}

/// Where a removal is reported: the rule that placed the event when the
/// usage file names one that the rules still have (where hygiene reports
/// rules), else the usage file's start.
std::tuple<std::string, unsigned, unsigned>
removalLocation(const CommandContext &Ctx, const UsageVerdict &V) {
  if (!V.Rule.empty())
    for (const RuleSet *Rules : Ctx.Plan.sortedRuleSets())
      for (const Rule &R : Rules->Rules)
        if (R.Id == V.Rule)
          return {Rules->Path, R.Line, 5};
  return {usageFilePath(Ctx), 1, 1};
}

/// The finding a verdict of the gate makes, if any: a removal (not judged
/// when \p Partial: TUs failed), or a deprecation note on one of \p Sites.
std::optional<Finding>
verdictFinding(const CommandContext &Ctx, const UsageVerdict &V,
               const std::map<std::string, const Site *> &Sites, bool Partial) {
  uint64_t MinJobs = Ctx.Opts.MinJobs;
  auto Figures = std::make_shared<UsageFigures>(
      UsageFigures{V.Event, V.Jobs, V.Since, V.LastSeen, MinJobs, V.LoggedAs});
  std::string Fewer =
      V.Jobs ? ", fewer than --min-jobs " + std::to_string(MinJobs) : "";
  switch (V.What) {
  case UsageVerdict::RemovesUsed:
  case UsageVerdict::RemovesRarelyUsed: {
    if (Partial)
      return std::nullopt;
    auto [File, Line, Column] = removalLocation(Ctx, V);
    bool Used = V.What == UsageVerdict::RemovesUsed;
    return Finding{
        File,
        Line,
        Column,
        Used ? Severity::Error : Severity::Note,
        Used
            ? "removes API usage event '" + V.Event + "' used by " + usedBy(V) +
                  "; keep it, or if it was renamed, map the old name to "
                  "the new event under 'aliases:'"
            : "removes API usage event '" + V.Event + "', used by " +
                  usedBy(V) + Fewer + ": a deprecation candidate",
        std::string(UsageGateRule),
        nullptr,
        nullptr,
        "",
        std::move(Figures)};
  }
  case UsageVerdict::DeprecationCandidate: {
    auto S = Sites.find(V.Event);
    if (S == Sites.end())
      return std::nullopt;
    return Finding{S->second->File,
                   S->second->Line,
                   S->second->Column,
                   Severity::Note,
                   "deprecation candidate: API usage event '" + V.Event +
                       "' used by " + usedBy(V) + Fewer,
                   std::string(UsageGateRule),
                   nullptr,
                   nullptr,
                   "",
                   std::move(Figures)};
  }
  }
  llvm_unreachable("a UsageVerdict without a finding's words");
}

} // namespace

Expected<std::vector<Finding>>
usageGateFindings(const CommandContext &Ctx,
                  ArrayRef<CatalogEvent> WholeCatalog) {
  const Options &Opts = Ctx.Opts;
  std::vector<EventAlias> Aliases;
  std::vector<EventLayer> Layers;
  for (const RuleSet *Rules : Ctx.Plan.sortedRuleSets()) {
    append_range(Aliases, Rules->Aliases);
    append_range(Layers, Rules->Layers);
  }
  // A warehouse's usage holds every library's events: only this library's
  // (a placed event's first name component) can be judged, so only they are
  // kept.
  StringSet<> Libraries;
  for (const CatalogEvent &C : WholeCatalog)
    Libraries.insert(StringRef(C.Event).split('.').first);
  auto Ours = [&](StringRef Event) {
    return Libraries.contains(
        StringRef(currentEventName(Aliases, Event)).split('.').first);
  };
  Expected<UsageEvidence> Evidence = readUsageEvidence(Opts.UsageFile, Ours);
  if (!Evidence)
    return Evidence.takeError();
  mergeAliases(*Evidence, Aliases);
  GateRequest Request;
  Request.MinJobs = Opts.MinJobs;
  Request.Since = Opts.Report.Since;
  Request.Layers = Layers;
  std::vector<Finding> Findings;
  bool Partial = !Ctx.Result.Failed.empty();
  if (Partial)
    Findings.push_back(
        {usageFilePath(Ctx), 1, 1, Severity::Note,
         "the usage gate judged no removal: " +
             std::to_string(Ctx.Result.Failed.size()) +
             " TUs failed to parse, so the tree's events are not all known",
         std::string(UsageGateRule), nullptr, nullptr, "", nullptr});
  // The sites left after --changed-since: deprecation notes are about them.
  std::map<std::string, const Site *> Sites;
  for (const Site &S : Ctx.Result.Sites)
    if (S.Status != SiteStatus::Stale)
      Sites.try_emplace(S.Event, &S);
  for (UsageVerdict &V : judgeUsage(*Evidence, WholeCatalog, Request))
    if (std::optional<Finding> F = verdictFinding(Ctx, V, Sites, Partial))
      Findings.push_back(std::move(*F));
  return Findings;
}

} // namespace apistamp
