//===- Changes.cpp - Compute file changes and write them safely -----------===//

#include "Changes.h"
#include "Project.h"
#include "SafeWrite.h"
#include "apistamp/FileEdits.h"
#include "python/PythonEdits.h"
#include "python/PythonSyntax.h"
#include <map>

using namespace llvm;

namespace apistamp {

ChangeSet computeChanges(ArrayRef<Site> Sites,
                         const std::map<std::string, std::string> &Parsed) {
  std::map<std::string, std::vector<TextEdit>> EditsByFile;
  for (const Site &S : Sites)
    for (const TextEdit &E : S.Edits)
      EditsByFile[E.File].push_back(E);

  ChangeSet Result;
  for (auto &[Path, Edits] : EditsByFile) {
    auto Contents = Parsed.find(Path);
    if (Contents == Parsed.end()) {
      Result.Problems.push_back({Path, FileProblem::ChangedDuringRun, ""});
      continue;
    }
    StringRef Before = Contents->second;
    if (isPythonSource(Path))
      Edits = python::mergeInsertions(std::move(Edits));
    Expected<std::vector<TextEdit>> Replacements =
        fileReplacements(Path, Before, std::move(Edits));
    if (!Replacements) {
      Result.Problems.push_back(
          {Path, FileProblem::BadEdits, toString(Replacements.takeError())});
      continue;
    }
    std::string After = applyReplacements(Before, *Replacements);
    // A Python file was refused if it had a syntax error: one now is the
    // edits'. Nothing is written then.
    if (After != Before && isPythonSource(Path))
      if (Expected<python::SyntaxTree> Tree =
              python::SyntaxTree::parse(Path, After);
          !Tree) {
        Result.Problems.push_back({Path, FileProblem::BadEdits,
                                   "the edited file would not parse (" +
                                       toString(Tree.takeError()) +
                                       "); nothing is written"});
        continue;
      }
    if (After != Before)
      Result.Changes.push_back(
          {Path, Before.str(), std::move(After), std::move(*Replacements)});
  }
  return Result;
}

WriteResult writeChanges(ArrayRef<FileChange> Changes) {
  WriteResult Result;
  for (const FileChange &C : Changes) {
    Expected<ReplaceOutcome> Outcome =
        replaceFileContents(C.Path, C.Before, C.After);
    if (!Outcome) {
      Result.Problems.push_back(
          {C.Path, FileProblem::CannotWrite, toString(Outcome.takeError())});
      continue;
    }
    switch (*Outcome) {
    case ReplaceOutcome::Written:
      ++Result.Written;
      break;
    case ReplaceOutcome::AlreadyDone: // Another run made the same change.
      break;
    case ReplaceOutcome::Changed:
      Result.Problems.push_back({C.Path, FileProblem::ChangedBeforeWrite, ""});
      break;
    }
  }
  return Result;
}

} // namespace apistamp
