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
#include "StoredFacts.h"
#include "apistamp/Site.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <map>
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

/// Candidates as result files spell them (root-relative), each JSON text
/// parsed once for every result that has it: a header's inline definitions
/// are the same text in every TU's result.
class ParsedCandidates {
public:
  /// \p Raw's candidate (a copy of the text is kept to compare).
  llvm::Expected<const Candidate *> of(llvm::StringRef Raw);

private:
  std::map<std::pair<uint64_t, uint64_t>, std::pair<std::string, Candidate>>
      Known;
};

/// The result files of a plan's TUs, indexed: each TU's file found, and
/// every file checked against the plan, the rules and the root's files
/// before any is decided; a TU's result is read again and decided when the
/// merge takes it, so that memory holds one file's contents at a time.
class TUResultFiles {
public:
  /// Indexes the result files \p Paths (files, or directories whose
  /// `*.json` files are all results) for \p P's TUs, to be decided with
  /// \p Unselected as AnalysisOptions says. The error names every TU without
  /// a result, every file for no TU of \p P, and every file that does not
  /// check out (another format version, other rules' parse settings, a file
  /// of the root changed since), as "FILE: error: ...".
  static llvm::Expected<TUResultFiles>
  index(const Project &P, llvm::ArrayRef<std::string> Paths, bool Unselected);

  /// TU \p I's result, decided by its rules; an error if its file changed
  /// since it was indexed or its facts do not describe the files.
  llvm::Expected<TUResult> take(size_t I) const;

  /// Drops what take keeps for the results still to come (the files
  /// lexed, the candidates parsed): after the last one, nothing needs it.
  void forgetParsed() {
    Lexed = std::make_shared<LexedFiles>();
    Candidates = std::make_shared<ParsedCandidates>();
  }
  size_t size() const { return Of.size(); }

private:
  /// One TU's files: its results' paths and digests (two when two rules
  /// roots hold the same relative path and command), its relative source
  /// and the TUs of the same path and command.
  struct TUFiles {
    std::vector<std::pair<std::string, uint64_t>> Candidates;
    std::string Source;
    std::vector<size_t> SameKey;
  };
  const Project *Plan = nullptr;
  bool Unselected = false;
  std::vector<TUFiles> Of;
  /// The root's files, lexed once for every result that reads them.
  std::shared_ptr<LexedFiles> Lexed = std::make_shared<LexedFiles>();
  /// Their candidates, parsed once for every result that has them.
  std::shared_ptr<ParsedCandidates> Candidates =
      std::make_shared<ParsedCandidates>();
};

/// The results of every TU of \p P from the result files \p Paths, in
/// P.TUs' order, each decided (TUResultFiles::index, then take of each);
/// the error names every problem of either.
llvm::Expected<std::vector<TUResult>>
readResultsFor(const Project &P, llvm::ArrayRef<std::string> Paths,
               bool Unselected);

} // namespace apistamp

#endif // APISTAMP_LIB_TURESULTFILE_H
