//===- PlanAndAnalyse.h - The first two stages of a run ---------*- C++ -*-===//
//
// Plans the TUs a run's options ask for and analyses them: what every
// command that works on a project starts from (run() dispatches it to the
// command; report takes its catalog from it).
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PLANANDANALYSE_H
#define APISTAMP_LIB_PLANANDANALYSE_H

#include "Project.h"
#include "ProjectAnalysis.h"
#include "apistamp/Options.h"
#include "apistamp/Paths.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <optional>

namespace apistamp {

/// A planned and analysed run.
struct AnalysedRun {
  Project Plan;
  AnalysisResult Result;
  /// explain: the definition asked about.
  std::optional<ExplainTarget> Target;
  std::string WorkingDirectory; ///< Canonical; "" if unknown.
  /// Paths under the working directory relative to it.
  PathDisplay Display;
  std::chrono::steady_clock::time_point Start;
};

/// The plan's part of \p Opts.
PlanRequest planRequestFor(const Options &Opts);

/// Plans the TUs \p Opts asks for without analysing them (for the commands
/// that run on the plan alone: tu, ninja); a plan that fails is printed to
/// \p Err and is std::nullopt (bad usage).
std::optional<Project> planOrPrintError(const Options &Opts,
                                        llvm::raw_ostream &Err);

/// Plans and analyses the run \p Opts asks for (validated options); the
/// notes between the stages go to \p Err. An error is bad usage (the plan
/// failed); TUs that fail to parse are in the result.
llvm::Expected<AnalysedRun> planAndAnalyse(const Options &Opts,
                                           llvm::raw_ostream &Err);

} // namespace apistamp

#endif // APISTAMP_LIB_PLANANDANALYSE_H
