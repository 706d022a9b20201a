//===- BodySkipper.cpp - Which function bodies a parse may skip ----------===//

#include "BodySkipper.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace apistamp {

bool BodySkipper::parsesBodiesIn(const RuleSet &Rules, llvm::StringRef Relative,
                                 llvm::StringRef Contents) {
  return fileCanBeSelected(Rules, Relative) || Rules.mentionsAMacro(Contents);
}

bool BodySkipper::shouldSkip(Decl *D) {
  const SourceManager &SM = D->getASTContext().getSourceManager();
  SourceLocation Loc = SM.getFileLoc(D->getLocation());
  if (SM.isInSystemHeader(Loc)) {
    ++Skipped;
    return true;
  }
  FileID FID = SM.getFileID(Loc);
  auto [It, New] = Verdicts.try_emplace(FID);
  if (New)
    if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID)) {
      std::string Path = SM.getFileManager().getCanonicalName(*FE).str();
      if (std::optional<llvm::StringRef> Relative =
              pathUnder(Path, Rules.Root)) {
        It->second.Parse =
            parsesBodiesIn(Rules, *Relative, SM.getBufferData(FID));
        It->second.UnderRoot = Path;
      }
    }
  if (It->second.Parse)
    return false;
  ++Skipped;
  if (!It->second.UnderRoot.empty())
    SkippedUnderRoot.insert(It->second.UnderRoot);
  return true;
}

} // namespace apistamp
