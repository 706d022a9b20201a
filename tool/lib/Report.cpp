//===- Report.cpp - Render findings and summaries -------------------------===//

#include "Report.h"
#include "llvm/ADT/StringSet.h"

using namespace llvm;

namespace apistamp {

static std::string joinQuoted(ArrayRef<std::string> Events) {
  std::string Result;
  for (const std::string &E : Events)
    Result += (Result.empty() ? "'" : ", '") + E + "'";
  return Result;
}

void printFindings(raw_ostream &OS, ArrayRef<Site> Sites,
                   const PathDisplay &Display, bool Verbose) {
  for (const Site &S : Sites) {
    std::string Where = Display(S.File) + ":" + std::to_string(S.ReportLine) +
                        ":" + std::to_string(S.ReportColumn) + ": ";
    std::string Rule = " [" + S.RuleId + "]\n";
    switch (S.Status) {
    case SiteStatus::Missing:
      OS << Where << "warning: missing API usage event '" << S.Event << "'"
         << Rule;
      break;
    case SiteStatus::Wrong:
      OS << Where << "warning: wrong API usage event '" << S.FoundEvents.front()
         << "', expected '" << S.Event << "'" << Rule;
      break;
    case SiteStatus::Duplicate:
      OS << Where << "warning: duplicate API usage events "
         << joinQuoted(S.FoundEvents) << " in one body, expected one '"
         << S.Event << "'" << Rule;
      break;
    case SiteStatus::Skipped:
      if (Verbose)
        OS << Where << "note: skipped " << S.QualifiedName << ": "
           << S.SkipReason << Rule;
      break;
    case SiteStatus::Present:
      if (Verbose)
        OS << Where << "note: instrumented '" << S.Event << "'" << Rule;
      break;
    }
  }
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
    }
  }
  Counts.Files = Files.size();
  return Counts;
}

} // namespace apistamp
