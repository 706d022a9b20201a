//===- Driver.cpp - Run apistamp over sources -----------------------------===//
//
// run() sets up colours, plans and analyses (planAndAnalyse), and hands the
// merged result to the command's row of the command table.
//
//===----------------------------------------------------------------------===//

#include "apistamp/Driver.h"
#include "ColorStream.h"
#include "PlanAndAnalyse.h"
#include "PreambleStore.h"
#include "ResultCache.h"
#include "StageNotes.h"
#include "Suggestions.h"
#include "TUResultFile.h"
#include "apistamp/ChangedLines.h"
#include "apistamp/CommandTable.h"
#include "commands/Commands.h"

using namespace llvm;

namespace apistamp {

namespace {

/// The cache the options ask for, if the command uses one: --cache-dir, or
/// beside the compilation database of the build directory the plan used (-p,
/// or the rules file's `compile_commands`).
std::unique_ptr<ResultCache> cacheFor(const Options &Opts, const Project &P) {
  if (Opts.NoCache || !commandInfo(Opts.RunMode).UsesCache)
    return nullptr;
  if (!Opts.CacheDir.empty())
    return std::make_unique<ResultCache>(Opts.CacheDir,
                                         Opts.CacheLimitMiB << 20);
  if (!P.BuildDir.empty())
    return std::make_unique<ResultCache>(P.BuildDir + "/.apistamp-cache",
                                         Opts.CacheLimitMiB << 20);
  return nullptr;
}

/// The preamble store, in the cache's directory, if the run uses one.
std::unique_ptr<PreambleStore> preamblesFor(const Options &Opts,
                                            const Project &P) {
  if (Opts.Preambles == PreambleBuilds::Never ||
      !commandInfo(Opts.RunMode).UsesCache)
    return nullptr;
  if (!Opts.PreambleStoreDir.empty())
    return std::make_unique<PreambleStore>(Opts.PreambleStoreDir,
                                           Opts.PreambleLimitMiB << 20);
  if (Opts.NoCache)
    return nullptr;
  std::string Directory = !Opts.CacheDir.empty() ? Opts.CacheDir
                          : !P.BuildDir.empty()
                              ? P.BuildDir + "/.apistamp-cache"
                              : "";
  if (Directory.empty())
    return nullptr;
  return std::make_unique<PreambleStore>(Directory + "/preambles",
                                         Opts.PreambleLimitMiB << 20);
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

/// Whether --color asks for colours on \p Stream.
bool wantsColor(ColorMode Mode, raw_ostream &Stream) {
  return Mode == ColorMode::Always ||
         (Mode == ColorMode::Auto && Stream.has_colors());
}

/// Plans, analyses and runs the command on the result.
int runOnProject(const Options &Opts, raw_ostream &Out, raw_ostream &Err) {
  Expected<AnalysedRun> Run = planAndAnalyse(Opts, Err);
  if (!Run) {
    Err << printableLines(toString(Run.takeError())) << "\n";
    return ExitBadUsage;
  }
  if (commandInfo(Opts.OutputMode).ProposesEdits)
    StageNotes(Err, Run->Display, Opts.Verbose)
        .publicHeaderEdits(Run->Result.PublicHeaderEdits);
  CommandContext Ctx{Opts,
                     Run->Plan,
                     Run->Result,
                     Out,
                     Err,
                     Run->Display,
                     Run->WorkingDirectory,
                     Run->Start,
                     summaryNotes(Run->Plan, Run->Result),
                     Run->Target ? &*Run->Target : nullptr};
  return commandInfo(Opts.RunMode).Run(Ctx);
}

} // namespace

PlanRequest planRequestFor(const Options &Opts) {
  PlanRequest Request;
  Request.Sources = Opts.Sources;
  Request.BuildDir = Opts.BuildDir;
  Request.RulesFile = Opts.RulesFile;
  Request.Root = Opts.Root;
  Request.CompilerArgs = Opts.CompilerArgs;
  Request.ExtraArgsBefore = Opts.ExtraArgsBefore;
  Request.ExtraArgs = Opts.ExtraArgs;
  Request.ShardIndex = Opts.Part.Index;
  Request.ShardCount = Opts.Part.Count;
  // The public surface is also in files no rule can select.
  Request.SkipUnselectableFiles =
      !commandInfo(Opts.RunMode).ReadsEveryNamedFile && !Opts.Unselected;
  // Only run()'s analysis reads the other TUs of a partial run.
  Request.PlanOthers = commandInfo(Opts.RunMode).Run != nullptr;
  Request.WholeProjectPython = Opts.RunMode != Mode::Tu &&
                               Opts.RunMode != Mode::Merge &&
                               Opts.RunMode != Mode::Ninja;
  return Request;
}

std::optional<Project> planOrPrintError(const Options &Opts, raw_ostream &Err) {
  Expected<Project> Planned = planProject(planRequestFor(Opts));
  if (!Planned) {
    Err << printableLines(toString(Planned.takeError())) << "\n";
    return std::nullopt;
  }
  return std::move(*Planned);
}

Expected<AnalysedRun> planAndAnalyse(const Options &Opts, raw_ostream &Err) {
  AnalysedRun Run;
  Run.Start = std::chrono::steady_clock::now();
  Expected<Project> Planned = planProject(planRequestFor(Opts));
  if (!Planned)
    return Planned.takeError();
  Run.Plan = std::move(*Planned);
  Run.WorkingDirectory = currentDirectory();
  Run.Display = relativeTo(Run.WorkingDirectory);
  StageNotes Notes(Err, Run.Display, Opts.Verbose);
  Notes.planned(Run.Plan);
  if (Opts.RunMode == Mode::Explain)
    Run.Target = ExplainTarget{
        Opts.ExplainName.empty() ? canonicalPath(Opts.Sources.front()) : "",
        Opts.ExplainLine, Opts.ExplainName};
  std::unique_ptr<ResultCache> Cache = cacheFor(Opts, Run.Plan);
  ProjectAnalysisOptions Analysis;
  Analysis.Threads = Opts.Jobs;
  Analysis.Target = Run.Target ? &*Run.Target : nullptr;
  Analysis.SkipBodies = Opts.SkipBodies;
  Analysis.Unselected = Opts.Unselected;
  Analysis.Cache = Cache.get();
  std::unique_ptr<PreambleStore> Preambles = preamblesFor(Opts, Run.Plan);
  Analysis.Preambles = Preambles.get();
  Analysis.BuildPreambles =
      Opts.Preambles == PreambleBuilds::All ||
      (Opts.Preambles == PreambleBuilds::Auto && !Opts.Sources.empty());
  // With --changed-since, the TUs of the changed sources: the files being
  // edited. (A git error is reported with the findings.)
  std::optional<ChangedLines> Changed;
  if (Preambles && Opts.Preambles == PreambleBuilds::Auto &&
      !Opts.ChangedSince.empty()) {
    Expected<ChangedLines> Lines = changedLinesSince(
        Opts.ChangedSince,
        Run.WorkingDirectory.empty() ? "." : Run.WorkingDirectory);
    if (Lines)
      Changed = std::move(*Lines);
    else
      consumeError(Lines.takeError());
  }
  if (Changed)
    Analysis.BuildPreambleFor = [&Changed](StringRef Source) {
      return Changed->touches(Source);
    };
  Analysis.PartialView = !Opts.Sources.empty() || Opts.Part.Count > 1;
  // What fix writes, and what diff and --export-fixes show, comes from
  // parses made by this run.
  Analysis.FreshEdits = Opts.OutputMode == Mode::Fix ||
                        Opts.OutputMode == Mode::Diff ||
                        !Opts.ExportFixes.empty();
  // What reads the catalog: its rows of classes that log through a base.
  Analysis.InheritedEvents = Opts.RunMode == Mode::Catalog ||
                             Opts.RunMode == Mode::Explain ||
                             !Opts.UsageFile.empty();
  Analysis.Finished = [&Notes](StringRef Source) { Notes.finished(Source); };
  // merge: every TU's result from the files tu wrote, checked first and
  // decided one at a time; no parse.
  std::optional<TUResultFiles> Given;
  if (Opts.RunMode == Mode::Merge) {
    Expected<TUResultFiles> Indexed =
        TUResultFiles::index(Run.Plan, Opts.ResultFiles, Opts.Unselected);
    if (!Indexed)
      return Indexed.takeError();
    Given = std::move(*Indexed);
    Analysis.GivenResult = [&Given](size_t I) {
      Expected<TUResult> Result = Given->take(I);
      if (I + 1 == Given->size())
        Given->forgetParsed();
      return Result;
    };
  }
  Notes.startProgress(Run.Plan.TUs.size());
  Expected<AnalysisResult> Analysed = analyseProject(Run.Plan, Analysis);
  Notes.endProgress();
  if (!Analysed)
    return Analysed.takeError();
  Run.Result = std::move(*Analysed);
  Notes.analysed(Run.Result);
  return Run;
}

int run(const Options &Opts, raw_ostream &Out, raw_ostream &Err) {
  const CommandInfo &Command = commandInfo(Opts.RunMode);
  if (Command.RunAlone)
    return Command.RunAlone(Opts, Out, Err);
  if (Command.RunOnPlan) {
    std::optional<Project> Planned = planOrPrintError(Opts, Err);
    return Planned ? Command.RunOnPlan(Opts, *Planned, Err) : ExitBadUsage;
  }
  // Diagnostics are coloured; machine-readable output and diffs never are.
  bool TextOut = Opts.Format == OutputFormat::Text &&
                 !commandInfo(Opts.OutputMode).PrintsData;
  std::optional<DiagnosticColorStream> ColoredOut, ColoredErr;
  if (TextOut && wantsColor(Opts.Color, Out)) {
    Out.enable_colors(true);
    ColoredOut.emplace(Out);
  }
  if (wantsColor(Opts.Color, Err)) {
    Err.enable_colors(true);
    ColoredErr.emplace(Err);
  }
  return runOnProject(Opts, ColoredOut ? *ColoredOut : Out,
                      ColoredErr ? *ColoredErr : Err);
}

} // namespace apistamp
