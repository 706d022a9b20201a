//===- Report.h - Render findings and summaries -----------------*- C++ -*-===//

#ifndef APISTAMP_LIB_REPORT_H
#define APISTAMP_LIB_REPORT_H

#include "apistamp/Analysis.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>

namespace apistamp {

/// Maps a canonical path to the spelling shown to the user.
using PathDisplay = std::function<std::string(llvm::StringRef)>;

/// Prints one clang-style diagnostic per site that needs attention and per
/// suppression without a reason or that excluded nothing, in source order;
/// with \p Verbose also notes for instrumented, skipped and suppressed sites.
/// Returns the number of problems printed (notes are not problems).
unsigned printFindings(llvm::raw_ostream &OS, llvm::ArrayRef<Site> Sites,
                       llvm::ArrayRef<Suppression> Suppressions,
                       const PathDisplay &Display, bool Verbose);

/// Spelling of a status in reports and catalogs.
llvm::StringRef statusName(SiteStatus Status);

/// Prints the catalog of every selected definition (event, rule, file, line,
/// kind, status) as aligned text, CSV or JSON (an array of objects).
void printCatalog(llvm::raw_ostream &OS, llvm::ArrayRef<Site> Sites,
                  const PathDisplay &Display, llvm::StringRef Format);

/// Counts of sites per status.
struct SiteCounts {
  unsigned Selected = 0, Present = 0, Missing = 0, Wrong = 0, Duplicate = 0,
           Skipped = 0, Suppressed = 0, Files = 0;
};
SiteCounts countSites(llvm::ArrayRef<Site> Sites);

} // namespace apistamp

#endif // APISTAMP_LIB_REPORT_H
