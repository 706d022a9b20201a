//===- Suggestions.cpp - "did you mean ...?" for near-miss words ----------===//

#include "Suggestions.h"
#include <algorithm>

namespace apistamp {

std::string closestWord(llvm::StringRef Word,
                        llvm::ArrayRef<llvm::StringRef> Candidates) {
  std::string Best;
  unsigned BestDistance = std::max<unsigned>(2, Word.size() / 3) + 1;
  for (llvm::StringRef Candidate : Candidates) {
    unsigned Distance =
        Word.edit_distance(Candidate, /*AllowReplacements=*/true, BestDistance);
    if (Distance < BestDistance) {
      BestDistance = Distance;
      Best = Candidate.str();
    }
  }
  return Best;
}

} // namespace apistamp
