//===- Report.cpp - Render findings and summaries -------------------------===//

#include "Report.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include <tuple>
#include <vector>

using namespace llvm;

namespace apistamp {

static std::string joinQuoted(ArrayRef<std::string> Events) {
  std::string Result;
  for (const std::string &E : Events)
    Result += (Result.empty() ? "'" : ", '") + E + "'";
  return Result;
}

namespace {
/// One line of output at a source location.
struct Finding {
  std::string File;
  unsigned Line, Column;
  std::string Text; ///< After "file:line:col: ".
  bool Problem;
};
} // namespace

static void siteFindings(const Site &S, bool Verbose,
                         std::vector<Finding> &Out) {
  std::string Rule = " [" + S.RuleId + "]";
  auto Add = [&](std::string Text, bool Problem) {
    Out.push_back({S.File, S.ReportLine, S.ReportColumn, Text + Rule, Problem});
  };
  switch (S.Status) {
  case SiteStatus::Missing:
    Add("warning: missing API usage event '" + S.Event + "'", true);
    break;
  case SiteStatus::Wrong:
    Add("warning: wrong API usage event '" + S.FoundEvents.front() +
            "', expected '" + S.Event + "'",
        true);
    break;
  case SiteStatus::Duplicate:
    Add("warning: duplicate API usage events " + joinQuoted(S.FoundEvents) +
            " in one body, expected one '" + S.Event + "'",
        true);
    break;
  case SiteStatus::Skipped:
    if (Verbose)
      Add("note: skipped " + S.QualifiedName + ": " + S.SkipReason, false);
    break;
  case SiteStatus::Present:
    if (Verbose)
      Add("note: instrumented '" + S.Event + "'", false);
    break;
  case SiteStatus::Suppressed:
    if (Verbose)
      Add("note: suppressed " + S.QualifiedName + ": " +
              (S.SkipReason.empty() ? "(no reason given)" : S.SkipReason),
          false);
    break;
  }
}

unsigned printFindings(raw_ostream &OS, ArrayRef<Site> Sites,
                       ArrayRef<Suppression> Suppressions,
                       const PathDisplay &Display, bool Verbose) {
  std::vector<Finding> Findings;
  for (const Site &S : Sites)
    siteFindings(S, Verbose, Findings);
  for (const Suppression &S : Suppressions) {
    if (S.Reason.empty())
      Findings.push_back({S.File, S.Line, S.Column,
                          "error: apistamp-ignore needs a reason: '// "
                          "apistamp-ignore: <why this is not instrumented>'",
                          true});
    if (!S.Used)
      Findings.push_back({S.File, S.Line, S.Column,
                          "warning: apistamp-ignore suppresses nothing: no "
                          "definition that a rule selects starts on this line "
                          "or the next",
                          true});
  }
  llvm::stable_sort(Findings, [](const Finding &L, const Finding &R) {
    return std::tie(L.File, L.Line, L.Column) <
           std::tie(R.File, R.Line, R.Column);
  });
  unsigned Problems = 0;
  for (const Finding &F : Findings) {
    OS << Display(F.File) << ":" << F.Line << ":" << F.Column << ": " << F.Text
       << "\n";
    Problems += F.Problem;
  }
  return Problems;
}

SiteCounts countSites(ArrayRef<Site> Sites) {
  SiteCounts Counts;
  StringSet<> Files;
  for (const Site &S : Sites) {
    ++Counts.Selected;
    Files.insert(S.File);
    switch (S.Status) {
    case SiteStatus::Present:
      ++Counts.Present;
      break;
    case SiteStatus::Missing:
      ++Counts.Missing;
      break;
    case SiteStatus::Wrong:
      ++Counts.Wrong;
      break;
    case SiteStatus::Duplicate:
      ++Counts.Duplicate;
      break;
    case SiteStatus::Skipped:
      ++Counts.Skipped;
      break;
    case SiteStatus::Suppressed:
      ++Counts.Suppressed;
      break;
    }
  }
  Counts.Files = Files.size();
  return Counts;
}

} // namespace apistamp
