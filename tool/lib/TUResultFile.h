//===- TUResultFile.h - One TU's result, as `tu` writes it ------*- C++ -*-===//
//
// `apistamp tu` analyses one compile command and writes its result file: the
// parse's facts (StoredFacts.h) with every path relative to the rules' root,
// the xxh3 of the files whose bytes they describe, and what of the rules the
// parse depended on. It holds no time, process detail or absolute path under
// the root, so the same inputs give the same bytes in another checkout and
// build directory: a build system can cache it. `apistamp merge` reads the
// files of every TU of the database back, checks them like cache entries,
// and decides them as `check -p` decides its TUs.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_TURESULTFILE_H
#define APISTAMP_LIB_TURESULTFILE_H

#include "Project.h"
#include "apistamp/Site.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace apistamp {

/// The version of the result file's format: a reader refuses any other.
constexpr unsigned TUResultFileVersion = 1;

/// How a result file names its TU: the source, relative to the root if it
/// is under it, and which of the source's compile commands (0-based, in the
/// plan's order) it was parsed with.
struct TUIdentity {
  std::string Source;
  unsigned Configuration = 0;

  bool operator<(const TUIdentity &Other) const {
    return std::tie(Source, Configuration) <
           std::tie(Other.Source, Other.Configuration);
  }
};

/// Each of \p P's TUs' identity, in P.TUs' order.
std::vector<TUIdentity> identitiesOf(const Project &P);

/// The result file of \p Result, \p Job's analysis (a fresh parse, whose
/// Facts are set), as \p Id names it; an error if a fact names a file under
/// the root that cannot be read now.
llvm::Expected<std::string> renderTUResultFile(const TUJob &Job,
                                               const TUIdentity &Id,
                                               const TUResult &Result);

/// The depfile of a result file \p Target (Make syntax, as `clang -MD`
/// writes it): every file the TU read, and its rules file.
std::string renderDepfile(llvm::StringRef Target, const TUJob &Job,
                          const TUResult &Result);

/// The results of every TU of \p P from the result files \p Paths (files,
/// or directories whose `*.json` files are all results), in P.TUs' order,
/// each decided by its TU's rules (with \p Unselected, as
/// AnalysisOptions says). The error names every TU without a result, every
/// file for no TU of \p P, and every file that does not check out (another
/// format version, other rules' parse settings, a file of the root changed
/// since, facts that do not describe the files), as "FILE: error: ...".
llvm::Expected<std::vector<TUResult>>
readResultsFor(const Project &P, llvm::ArrayRef<std::string> Paths,
               bool Unselected);

} // namespace apistamp

#endif // APISTAMP_LIB_TURESULTFILE_H
