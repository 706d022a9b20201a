//===- Driver.cpp - Run apistamp over sources -----------------------------===//
//
// run() plans the TUs (Project), analyses them (ProjectAnalysis) and hands
// the merged result to the command that was asked for (commands/).
//
//===----------------------------------------------------------------------===//

#include "apistamp/Driver.h"
#include "Project.h"
#include "ColorStream.h"
#include "ProjectAnalysis.h"
#include "ResultCache.h"
#include "apistamp/Paths.h"
#include "commands/Commands.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Threading.h"
#include <cstdlib>
#include <mutex>

using namespace llvm;

namespace apistamp {

namespace {

/// "[37/120] path" on one terminal line, redrawn as TUs finish; only on a
/// terminal, and never under CI=true.
class Progress {
public:
  Progress(raw_ostream &Err, size_t Total, const PathDisplay &Display)
      : Err(Err), Total(Total), Display(Display) {
    const char *CI = std::getenv("CI");
    Enabled = Err.is_displayed() && !(CI && StringRef(CI) == "true");
  }
  ~Progress() {
    if (Enabled && Done)
      Err << "\r\x1b[K";
  }
  void finished(StringRef Source) {
    if (!Enabled)
      return;
    ++Done;
    Err << "\r\x1b[K[" << Done << "/" << Total << "] " << Display(Source);
    Err.flush();
  }

private:
  raw_ostream &Err;
  size_t Total, Done = 0;
  bool Enabled;
  const PathDisplay &Display;
};

/// The cache the options ask for; explain looks at every definition,
/// whatever a cached result holds, so it uses none.
std::unique_ptr<ResultCache> cacheFor(const Options &Opts) {
  if (Opts.NoCache || Opts.RunMode == Mode::Explain)
    return nullptr;
  if (!Opts.CacheDir.empty())
    return std::make_unique<ResultCache>(Opts.CacheDir);
  if (!Opts.BuildDir.empty())
    return std::make_unique<ResultCache>(Opts.BuildDir + "/.apistamp-cache");
  return nullptr;
}

/// The failures and skips every summary ends with.
std::string summaryNotes(const Project &P, const AnalysisResult &Result) {
  std::string Notes;
  if (!Result.Failed.empty())
    Notes += "; " + std::to_string(Result.Failed.size()) + " of " +
             std::to_string(Result.TUs) + " TUs failed to parse";
  if (!P.WithoutRules.empty())
    Notes += "; " + std::to_string(P.WithoutRules.size()) +
             " TUs without a .apistamp.yaml skipped";
  if (!P.NotSelectable.empty())
    Notes += "; " + std::to_string(P.NotSelectable.size()) +
             (P.NotSelectable.size() == 1 ? " file" : " files") +
             " no rule can select skipped";

  return Notes;
}

} // namespace

static int runUncolored(const Options &Opts, raw_ostream &Out,
                        raw_ostream &Err);

/// Whether --color asks for colours on \p Stream.
static bool wantsColor(ColorMode Mode, raw_ostream &Stream) {
  return Mode == ColorMode::Always ||
         (Mode == ColorMode::Auto && Stream.has_colors());
}

int run(const Options &Opts, raw_ostream &Out, raw_ostream &Err) {
  if (Opts.RunMode == Mode::Report)
    return runReport(Opts, Out, Err);
  // Diagnostics are coloured; machine-readable output and diffs never are.
  bool TextOut = Opts.Format == OutputFormat::Text &&
                 Opts.RunMode != Mode::Diff && Opts.RunMode != Mode::Catalog;
  std::optional<DiagnosticColorStream> ColoredOut, ColoredErr;
  if (TextOut && wantsColor(Opts.Color, Out)) {
    Out.enable_colors(true);
    ColoredOut.emplace(Out);
  }
  if (wantsColor(Opts.Color, Err)) {
    Err.enable_colors(true);
    ColoredErr.emplace(Err);
  }
  return runUncolored(Opts, ColoredOut ? *ColoredOut : Out,
                      ColoredErr ? *ColoredErr : Err);
}

static int runUncolored(const Options &Opts, raw_ostream &Out,
                        raw_ostream &Err) {
  auto Start = std::chrono::steady_clock::now();
  Expected<Project> Planned = planProject(Opts);
  if (!Planned) {
    Err << toString(Planned.takeError()) << "\n";
    return ExitBadUsage;
  }
  Project &P = *Planned;
  if (Opts.Verbose) {
    for (const std::string &Source : P.WithoutRules)
      Err << "apistamp: note: skipping '" << Source
          << "': no .apistamp.yaml above it\n";
    for (const std::string &Source : P.NotSelectable)
      Err << "apistamp: note: skipping '" << Source
          << "': no rule's 'files' and 'exclude_files' let it select "
             "anything in it; it is not parsed\n";
    for (size_t I = 0; I < P.TUs.size(); ++I)
      if (!P.TUs[I].ReportOnly.empty() &&
          (I == 0 || P.TUs[I - 1].ReportOnly != P.TUs[I].ReportOnly))
        Err << "apistamp: note: '" << P.TUs[I].ReportOnly
            << "' is not in the compilation database; analysed through '"
            << P.TUs[I].Source << "', which includes it\n";
    for (size_t I = 0; I < P.TUs.size(); ++I)
      if (P.TUs[I].Configurations > 1 &&
          (I == 0 || P.TUs[I - 1].Source != P.TUs[I].Source))
        Err << "apistamp: note: '" << P.TUs[I].Source << "' has "
            << P.TUs[I].Configurations
            << " configurations (compile commands); each is analysed\n";
  }

  std::optional<ExplainTarget> Target;
  if (Opts.RunMode == Mode::Explain)
    Target = ExplainTarget{
        Opts.ExplainName.empty() ? canonicalPath(Opts.Sources.front()) : "",
        Opts.ExplainLine, Opts.ExplainName};
  std::string CWD = currentDirectory();
  PathDisplay Display = [&CWD](StringRef Path) {
    if (std::optional<StringRef> Relative = pathUnder(Path, CWD))
      return Relative->str();
    return Path.str();
  };
  std::unique_ptr<ResultCache> Cache = cacheFor(Opts);
  AnalysisResult Result;
  {
    Progress Shown(Err, P.TUs.size(), Display);
    ProjectAnalysisOptions Analysis;
    Analysis.Threads =
        Opts.Jobs ? Opts.Jobs : hardware_concurrency().compute_thread_count();
    Analysis.Target = Target ? &*Target : nullptr;
    Analysis.SkipBodies = Opts.SkipBodies;
    Analysis.Cache = Cache.get();
    Analysis.Finished = [&Shown](StringRef Source) { Shown.finished(Source); };
    Result = analyseProject(P, Analysis);
  }
  if (!Result.CacheWriteError.empty())
    Err << "apistamp: warning: the result cache could not be written ("
        << Result.CacheWriteError << "); results are not affected\n";
  for (const FailedTU &F : Result.Failed) {
    Err << F.Diagnostics << "apistamp: error: '" << Display(F.Source)
        << "' failed to parse; nothing in it was checked or changed\n";
    if (F.Rules && !F.Rules->Include.empty() &&
        StringRef(F.Diagnostics)
            .contains("'" + F.Rules->Include + "' file not found"))
      Err << "apistamp: note: '" << F.Rules->Include
          << "', the rules' include, is not on the include path: pass "
             "--extra-arg=-I<dir> (for the runtime, the 'include' directory "
             "of its installation), or link apistamp::runtime and "
             "reconfigure the build\n";
  }

  if (Opts.RunMode == Mode::Check || Opts.RunMode == Mode::Fix ||
      Opts.RunMode == Mode::Diff) {
    llvm::sort(Result.PublicHeaderEdits,
               [](const PublicHeaderEdit &L, const PublicHeaderEdit &R) {
                 return std::tie(L.File, L.Line, L.Column) <
                        std::tie(R.File, R.Line, R.Column);
               });
    for (const PublicHeaderEdit &E : Result.PublicHeaderEdits)
      Err << Display(E.File) << ":" << E.Line << ":" << E.Column
          << ": warning: the API usage event '" << E.Event
          << "' goes into a public header (" << E.Why
          << "): every user of the library would need the rules' include; "
             "exclude the header, or set 'public_header_edits: forbid' [" << E.RuleId
          << "]\n";
  }

  CommandContext Ctx{
      Opts, P, Result, Out, Err, Display, CWD, Start, summaryNotes(P, Result)};
  switch (Opts.RunMode) {
  case Mode::Check:
    return runCheck(Ctx);
  case Mode::Fix:
    return runFix(Ctx);
  case Mode::Diff:
    return runDiff(Ctx);
  case Mode::Explain:
    return runExplain(Ctx, *Target);
  case Mode::Catalog:
    return runCatalog(Ctx);
  case Mode::Verify:
    return runVerify(Ctx);
  case Mode::Report:
    break; // Dispatched before any planning.
  }
  llvm_unreachable("unknown Mode");
}

} // namespace apistamp
