//===- StageNotes.h - What the driver says between stages -------*- C++ -*-===//
//
// The one printer of the notes, warnings and errors that the plan and the
// analysis leave as data: skipped sources and configurations (--verbose),
// progress on a terminal, TUs that failed to parse, a cache that could not
// be written, and edits proposed in public headers.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_STAGENOTES_H
#define APISTAMP_LIB_STAGENOTES_H

#include "Project.h"
#include "ProjectAnalysis.h"
#include "apistamp/Paths.h"
#include "llvm/Support/raw_ostream.h"

namespace apistamp {

/// "cache: H hits, M misses", and how many hits were decided anew under
/// edited rules if any: for the summary and --verbose (which also says why
/// each miss missed).
std::string cacheCounts(const AnalysisResult &Result);

/// Prints what the stages of a run leave to say, on standard error.
class StageNotes {
public:
  StageNotes(llvm::raw_ostream &Err, PathDisplay Display, bool Verbose)
      : Err(Err), Display(std::move(Display)), Verbose(Verbose) {}

  /// --verbose: the sources the plan skipped, the headers analysed through
  /// an includer, the sources with several configurations.
  void planned(const Project &P);

  /// "[37/120] path" on one terminal line as TUs finish (never under
  /// CI=true); \p Total TUs.
  void startProgress(size_t Total);
  void finished(llvm::StringRef Source);
  void endProgress();

  /// A cache that could not be written, the TUs that failed to parse
  /// (with a hint when the rules' include was not found), and with
  /// --verbose what the cache served (cacheCounts).
  void analysed(const AnalysisResult &Result);

  /// In a run on a part of the database: which shared files were judged
  /// from every TU that reads them, and through which other TUs.
  void completedView(const AnalysisResult &Result);

  /// A warning per edit proposed in a public header, by location.
  void publicHeaderEdits(std::vector<PublicHeaderEdit> Edits);

private:
  llvm::raw_ostream &Err;
  PathDisplay Display;
  bool Verbose;
  bool ShowProgress = false;
  size_t Total = 0, Done = 0;
};

} // namespace apistamp

#endif // APISTAMP_LIB_STAGENOTES_H
