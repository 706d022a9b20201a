//===- ViewCompletion.cpp - Judge shared files from every TU --------------===//

#include "ViewCompletion.h"
#include "WorkerPool.h"
#include "apistamp/Analysis.h"
#include "llvm/ADT/STLExtras.h"
#include <atomic>
#include <mutex>

using namespace llvm;

namespace apistamp {

/// Whether TU \p Job reports what lies in \p File.
static bool reports(const TUJob &Job, StringRef File) {
  return (Job.ReportOnly.empty() || Job.ReportOnly == File) &&
         (Job.Completes.empty() || llvm::is_contained(Job.Completes, File));
}

std::set<std::string> filesNeedingWholeView(ArrayRef<TUJob> Jobs,
                                            ArrayRef<TUResult> Results) {
  std::set<std::string> Files;
  for (size_t I = 0; I < Jobs.size(); ++I)
    for (const Site &S : Results[I].Sites)
      if (S.File != Jobs[I].Source && reports(Jobs[I], S.File) &&
          ((S.RuleId.empty() && !S.Suppressed) || !S.IncludeFile.empty()))
        Files.insert(S.File);
  return Files;
}

ViewCompletion completeView(ArrayRef<TUJob> Others, ArrayRef<TUJob> Analysed,
                            const std::set<std::string> &Files,
                            unsigned Threads) {
  std::vector<std::vector<std::string>> Reached(Others.size());
  std::vector<char> Failed(Others.size(), 0);
  std::atomic<size_t> Next{0};
  runWorkers(
      std::max(1u, std::min<unsigned>(Threads, Others.size())), [&](unsigned) {
        for (size_t I = Next++; I < Others.size(); I = Next++) {
          if (!Others[I].Command) {
            Failed[I] = true;
            continue;
          }
          bool Error = false;
          Reached[I] = filesReachedBy(*Others[I].Command, nullptr, &Error);
          Failed[I] = Error;
        }
      });
  ViewCompletion Completion;
  for (size_t I = 0; I < Others.size(); ++I) {
    if (Failed[I]) {
      Completion.Unreadable.push_back(Others[I].Source);
      continue;
    }
    TUJob Job = Others[I];
    for (const std::string &File : Files)
      if (std::binary_search(Reached[I].begin(), Reached[I].end(), File))
        Job.Completes.push_back(File);
    // A named header's proxy already reported that header.
    for (const TUJob &Proxy : Analysed)
      if (!Proxy.ReportOnly.empty() && sameParse(Proxy, Job))
        llvm::erase(Job.Completes, Proxy.ReportOnly);
    if (!Job.Completes.empty())
      Completion.Jobs.push_back(std::move(Job));
  }
  return Completion;
}

} // namespace apistamp
