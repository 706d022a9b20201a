//===- Verify.h - Compare selections with expectation comments --*- C++ -*-===//
//
// `apistamp verify` tests rules the way clang's -verify tests diagnostics:
// sources say, next to each definition, which event it should get, and every
// difference is a mismatch.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_VERIFY_H
#define APISTAMP_VERIFY_H

#include "apistamp/Site.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>
#include <vector>

namespace apistamp {

/// One difference between what the rules select and what a source expects.
struct VerifyMismatch {
  std::string File; ///< Canonical absolute path.
  unsigned Line = 0, Column = 0;
  std::string Message;
};

/// Compares \p Sites (merged over all TUs) with \p Expectations (the same
/// comment may come from several TUs). A selected definition without an
/// expectation is a mismatch too, so a rule cannot silently over-select; a
/// suppressed one counts as not selected. Sorted by file and line.
std::vector<VerifyMismatch>
verifyExpectations(llvm::ArrayRef<Site> Sites,
                   llvm::ArrayRef<Expectation> Expectations);

} // namespace apistamp

#endif // APISTAMP_VERIFY_H
