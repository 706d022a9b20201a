//===- ViewCompletion.h - Judge shared files from every TU ------*- C++ -*-===//
//
// A run on a part of the database (named files, a shard) sees a header
// through some of the TUs that read it. Most verdicts do not depend on
// which: but a definition no analysed TU selects may be selected by another
// (declared_in), and a fragment included inside a namespace must get the
// same event and the #include in every file that includes it. Those files
// are judged as a whole-project run judges them: the database's other TUs
// that read them are found (preprocessed, not parsed) and analysed too, for
// those files only.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_VIEWCOMPLETION_H
#define APISTAMP_LIB_VIEWCOMPLETION_H

#include "Project.h"
#include "apistamp/Site.h"
#include "llvm/ADT/ArrayRef.h"
#include <set>
#include <string>
#include <vector>

namespace apistamp {

/// The files, read by TUs \p Jobs (results \p Results), whose verdict may
/// depend on TUs this run did not analyse: a header holding a definition
/// that a TU does not select while its first statement logs an event, or a
/// definition in a fragment included inside a namespace or class.
std::set<std::string> filesNeedingWholeView(llvm::ArrayRef<TUJob> Jobs,
                                            llvm::ArrayRef<TUResult> Results);

/// The other TUs to analyse so that \p Files are seen whole.
struct ViewCompletion {
  /// Each TU of Project::Others that reads some of the files, to take only
  /// those from (TUJob::Completes).
  std::vector<TUJob> Jobs;
  /// Others that did not preprocess: what they read is unknown.
  std::vector<std::string> Unreadable;
};

/// Preprocesses \p Others (on \p Threads threads) to find the ones that
/// read any of \p Files. A TU of \p Others that parses the same source as a
/// proxy in \p Analysed (a named header's includer) completes only the files
/// that proxy did not report.
ViewCompletion completeView(llvm::ArrayRef<TUJob> Others,
                            llvm::ArrayRef<TUJob> Analysed,
                            const std::set<std::string> &Files,
                            unsigned Threads);

} // namespace apistamp

#endif // APISTAMP_LIB_VIEWCOMPLETION_H
