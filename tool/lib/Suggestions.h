//===- Suggestions.h - "did you mean ...?" for near-miss words --*- C++ -*-===//

#ifndef APISTAMP_LIB_SUGGESTIONS_H
#define APISTAMP_LIB_SUGGESTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace apistamp {

/// The candidate closest to \p Word by edit distance, if it is close enough
/// to be a typo of it (at most max(2, |Word| / 3) edits), else "".
std::string closestWord(llvm::StringRef Word,
                        llvm::ArrayRef<llvm::StringRef> Candidates);

} // namespace apistamp

#endif // APISTAMP_LIB_SUGGESTIONS_H
