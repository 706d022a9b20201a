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

/// Counts of sites per status.
struct SiteCounts {
  unsigned Selected = 0, Present = 0, Missing = 0, Wrong = 0, Duplicate = 0,
           Skipped = 0, Suppressed = 0, Files = 0;
};
SiteCounts countSites(llvm::ArrayRef<Site> Sites);

} // namespace apistamp

#endif // APISTAMP_LIB_REPORT_H
