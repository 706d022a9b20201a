//===- Tu.cpp - apistamp tu: one compile command, one result file ---------===//
//
// The action a build system runs per TU (docs/ci.md, "At scale"): analyses
// one compile command of one source and writes its result file (always, also
// when there is nothing to report, and when the TU does not parse) and, with
// --depfile, the files it read. No cache, no preamble store: its only
// outputs are the files it is told to write.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "PlanAndAnalyse.h"
#include "SafeWrite.h"
#include "Suggestions.h"
#include "TUResultFile.h"
#include "apistamp/Paths.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace apistamp {

int runTu(const Options &Opts, const Project &P, raw_ostream &Err) {
  std::string Source = canonicalPath(Opts.Sources.front());
  if (isPythonSource(Source) || !P.Database) {
    Err << "apistamp: error: '" << Opts.Sources.front()
        << "' is not a C++ source: tu analyses one compile command of the "
           "compilation database; check, fix and diff read Python files "
           "themselves\n";
    return ExitBadUsage;
  }
  // A source the database does not list (a header, a new file) would get a
  // command inferred from a neighbour: no TU that merge would know.
  bool Listed =
      Opts.CompilerArgs.has_value() ||
      llvm::any_of(P.Database->getAllFiles(), [&](const std::string &File) {
        return canonicalPath(File) == Source;
      });
  std::vector<TUIdentity> Ids = identitiesOf(P);
  std::vector<size_t> Configurations;
  for (size_t I = 0; I < P.TUs.size(); ++I)
    if (P.TUs[I].Source == Source && P.TUs[I].ReportOnly.empty() &&
        P.TUs[I].Completes.empty() && P.TUs[I].Command)
      Configurations.push_back(I);
  if (!Listed || Configurations.empty()) {
    Err << "apistamp: error: '" << Opts.Sources.front()
        << "' has no compile command of its own in the compilation database "
           "(tu analyses one source of it; pass -p BUILD_DIR or compiler "
           "arguments after '--')\n";
    return ExitBadUsage;
  }
  if (Opts.TUConfiguration >= Configurations.size()) {
    Err << "apistamp: error: --configuration=" << Opts.TUConfiguration << ": '"
        << Opts.Sources.front() << "' has " << Configurations.size()
        << " compile command" << (Configurations.size() == 1 ? "" : "s")
        << " (0 to " << Configurations.size() - 1 << ")\n";
    return ExitBadUsage;
  }
  size_t Index = Configurations[Opts.TUConfiguration];
  const TUJob &Job = P.TUs[Index];
  ProjectAnalysisOptions Analysis;
  Analysis.SkipBodies = Opts.SkipBodies;
  TUResult Result = analyseAlone(Job, Analysis);
  Expected<std::string> File = renderTUResultFile(Job, Ids[Index], Result);
  if (!File) {
    Err << toString(File.takeError()) << "\n";
    return ExitBadUsage;
  }
  // The same bytes are not written again: a build system that compares
  // times (Ninja's restat) then knows the merge need not run.
  ErrorOr<std::unique_ptr<MemoryBuffer>> Before =
      MemoryBuffer::getFile(Opts.TUOutput, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  bool Unchanged = Before && (*Before)->getBuffer() == *File;
  if (Error E = Unchanged ? Error::success()
                          : writeOutputFile(Opts.TUOutput, *File)) {
    Err << Opts.TUOutput << ": error: " << toString(std::move(E)) << "\n";
    return ExitFindings; // As fix's file that could not be written.
  }
  if (!Opts.TUDepfile.empty())
    if (Error E = writeOutputFile(Opts.TUDepfile,
                                  renderDepfile(Opts.TUOutput, Job, Result))) {
      Err << Opts.TUDepfile << ": error: " << toString(std::move(E)) << "\n";
      return ExitFindings;
    }
  // The failure is in the result, for merge to report; said here too.
  if (Result.ParseFailed)
    Err << Result.Diagnostics;
  return ExitClean;
}

} // namespace apistamp
