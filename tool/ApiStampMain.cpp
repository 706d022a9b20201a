//===- ApiStampMain.cpp - apistamp command line ---------------------------===//
//
// Declares the options, one subcommand per row of the command table, and
// hands the parsed options to apistamp::validateOptions and apistamp::run.
//
//===----------------------------------------------------------------------===//

#include "apistamp/CommandTable.h"
#include "apistamp/Driver.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <functional>

using namespace llvm;
using apistamp::CommandInfo;
using apistamp::Mode;

namespace {

cl::OptionCategory Category("apistamp options");

/// One subcommand per row of the command table, in its order.
std::vector<std::unique_ptr<cl::SubCommand>> makeSubcommands() {
  std::vector<std::unique_ptr<cl::SubCommand>> Subcommands;
  for (const CommandInfo &C : apistamp::commandTable())
    Subcommands.push_back(
        std::make_unique<cl::SubCommand>(C.Name, C.Description));
  return Subcommands;
}
// Before the options below, which this file's order initialises after it.
std::vector<std::unique_ptr<cl::SubCommand>> Subcommands = makeSubcommands();

/// An option modifier: the option belongs to the subcommands of the rows
/// that Takes accepts.
struct OnCommands {
  std::function<bool(const CommandInfo &)> Takes;
  template <class Opt> void apply(Opt &O) const {
    for (size_t I = 0; I < apistamp::commandTable().size(); ++I)
      if (Takes(apistamp::commandTable()[I]))
        O.addSubCommand(*Subcommands[I]);
  }
};
const OnCommands OnAll{[](const CommandInfo &) { return true; }};
const OnCommands OnProjectCommands{
    [](const CommandInfo &C) { return C.TakesProjectOptions; }};
const OnCommands OnCacheUsers{[](const CommandInfo &C) { return C.UsesCache; }};
const OnCommands OnEditProposers{
    [](const CommandInfo &C) { return C.ProposesEdits; }};
const OnCommands OnFormatted{
    [](const CommandInfo &C) { return !C.Formats.empty(); }};
OnCommands on(Mode M) {
  return {[M](const CommandInfo &C) { return C.RunMode == M; }};
}
OnCommands on(Mode M, Mode Other) {
  return {[M, Other](const CommandInfo &C) {
    return C.RunMode == M || C.RunMode == Other;
  }};
}

cl::opt<std::string>
    RulesFile("rules",
              cl::desc("Rules file (default: the nearest .apistamp.yaml above "
                       "each source)"),
              cl::value_desc("file"), cl::cat(Category), OnAll);
cl::opt<std::string>
    BuildDir("p",
             cl::desc("Build directory with compile_commands.json; without "
                      "sources, every C++ file in it is processed"),
             cl::value_desc("build-dir"), cl::cat(Category), OnAll);
cl::opt<std::string>
    Root("root",
         cl::desc("Paths in rules and events are relative to this "
                  "directory (default: the rules file's directory)"),
         cl::value_desc("dir"), cl::cat(Category), OnAll);
cl::opt<unsigned> Jobs("j",
                       cl::desc("Translation units analysed in parallel; "
                                "report: logs read in parallel, large ones "
                                "in parts (default: all cores)"),
                       cl::value_desc("N"), cl::init(0), cl::Prefix,
                       cl::cat(Category), OnAll);
cl::opt<bool> Verbose("verbose",
                      cl::desc("Also list instrumented and skipped "
                               "definitions, and what the cache served"),
                      cl::cat(Category), OnAll);
cl::opt<bool> Quiet("quiet",
                    cl::desc("No summary lines, only findings and errors"),
                    cl::cat(Category), OnAll);
cl::alias QuietShort("q", cl::desc("Alias for --quiet"), cl::aliasopt(Quiet),
                     cl::cat(Category));
cl::opt<apistamp::ColorMode> Color(
    "color", cl::desc("Colour diagnostics, as clang does"),
    cl::values(clEnumValN(apistamp::ColorMode::Auto, "auto",
                          "on a terminal (default)"),
               clEnumValN(apistamp::ColorMode::Always, "always", "always"),
               clEnumValN(apistamp::ColorMode::Never, "never", "never")),
    cl::init(apistamp::ColorMode::Auto), cl::cat(Category), OnAll);
cl::opt<std::string> ExplainName(
    "name", cl::desc("The qualified name of the definition to explain"),
    cl::value_desc("a::b::f"), cl::cat(Category), on(Mode::Explain));
cl::opt<apistamp::OutputFormat> Format(
    "format", cl::desc("Output format"),
    cl::values(
        clEnumValN(apistamp::OutputFormat::Text, "text",
                   "clang-style diagnostics, or aligned columns (default)"),
        clEnumValN(apistamp::OutputFormat::Csv, "csv",
                   "catalog: comma-separated, with a header line"),
        clEnumValN(apistamp::OutputFormat::Json, "json",
                   "findings with fixes and a summary (check), or an array "
                   "of events (catalog)"),
        clEnumValN(apistamp::OutputFormat::Sarif, "sarif",
                   "check: a SARIF 2.1.0 log with rules, locations and "
                   "fixes")),
    cl::init(apistamp::OutputFormat::Text), cl::cat(Category), OnFormatted);
cl::opt<std::string> ExportFixes(
    "export-fixes",
    cl::desc("Also write the replacements fix makes to this file, as YAML "
             "for clang-apply-replacements"),
    cl::value_desc("file"), cl::cat(Category), OnEditProposers);
cl::opt<std::string> CatalogDiffFile(
    "diff",
    cl::desc("Compare with a saved 'catalog --format=json': events added, "
             "removed, renamed (with suggested aliases) and unchanged"),
    cl::value_desc("old-catalog.json"), cl::cat(Category), on(Mode::Catalog));
cl::opt<bool> NoSarifSrcroot(
    "no-sarif-srcroot",
    cl::desc("With --format=sarif: do not record the working directory as "
             "SRCROOT's absolute URI (paths stay relative to it): the same "
             "log from every checkout, for build caches"),
    cl::cat(Category), on(Mode::Check, Mode::Merge));
cl::opt<bool> FailOnChange(
    "fail-on-change",
    cl::desc("Exit 1 when a file was changed (for pre-commit hooks)"),
    cl::cat(Category), on(Mode::Fix));
cl::opt<bool> ListUnselected(
    "unselected",
    cl::desc("List the definitions of the public surface (public_surface, "
             "or the public headers) that no rule selects, with each rule's "
             "reason"),
    cl::cat(Category), on(Mode::Catalog));
cl::opt<bool> FailOnUnselected(
    "fail-on-unselected",
    cl::desc("An error, with a rule that would select it, for each "
             "definition of the public surface that no rule selects"),
    cl::cat(Category), on(Mode::Check));
cl::opt<std::string> ChangedSince(
    "changed-since",
    cl::desc("Only definitions whose lines changed since this git revision "
             "(committed, staged, unstaged or untracked)"),
    cl::value_desc("git-ref"), cl::cat(Category), OnProjectCommands);
cl::opt<bool> NoSkipBodies(
    "no-skip-bodies",
    cl::desc("Parse every function body, also those no rule can select "
             "(slower, the same results; for comparison). The environment "
             "variable APISTAMP_NO_SKIP_BODIES=1 does the same"),
    cl::cat(Category), OnAll);
cl::opt<std::string> Shard(
    "shard",
    cl::desc("Process only part I of N of the translation units (1 <= I <= "
             "N); N runs with --export-fixes cover a project, merged by "
             "clang-apply-replacements"),
    cl::value_desc("I/N"), cl::cat(Category), OnProjectCommands);
cl::opt<std::string> CacheDir(
    "cache-dir",
    cl::desc("Reuse the results of unchanged translation units from this "
             "directory (default with -p or the rules file's compile_commands: "
             "BUILD_DIR/.apistamp-cache)"),
    cl::value_desc("dir"), cl::cat(Category), OnCacheUsers);
cl::opt<bool> NoCache("no-cache", cl::desc("Do not read or write the cache"),
                      cl::cat(Category), OnCacheUsers);
cl::opt<apistamp::PreambleBuilds> Preamble(
    "preamble",
    cl::desc("Which TUs get their include prefix parsed once and stored in "
             "the cache directory (preambles/), so that the next run "
             "parses only the main file; stored ones are used by every TU. "
             "The environment variable APISTAMP_PREAMBLE=all does the same "
             "as --preamble=all"),
    cl::values(clEnumValN(apistamp::PreambleBuilds::Auto, "auto",
                          "TUs of named files, and with --changed-since "
                          "those of the changed sources (default)"),
               clEnumValN(apistamp::PreambleBuilds::All, "all",
                          "every TU analysed again"),
               clEnumValN(apistamp::PreambleBuilds::Never, "never",
                          "none; do not use the store (--no-preamble)")),
    cl::init(apistamp::PreambleBuilds::Auto), cl::cat(Category), OnCacheUsers);
cl::opt<bool> NoPreamble("no-preamble",
                         cl::desc("Do not read or write stored preambles "
                                  "(--preamble=never)"),
                         cl::cat(Category), OnCacheUsers);
cl::opt<uint64_t> PreambleLimit(
    "preamble-limit",
    cl::desc("Keep the preamble store under this size, evicting the least "
             "recently used (default 2048)"),
    cl::value_desc("MiB"), cl::init(2048), cl::cat(Category), OnCacheUsers);
cl::list<std::string> ExtraArgs(
    "extra-arg",
    cl::desc("Additional argument to append to every compile command (e.g. "
             "-I for the runtime's headers); repeatable"),
    cl::value_desc("arg"), cl::cat(Category), OnAll);
cl::list<std::string> ExtraArgsBefore(
    "extra-arg-before",
    cl::desc("Additional argument to prepend to every compile command; "
             "repeatable"),
    cl::value_desc("arg"), cl::cat(Category), OnAll);
cl::opt<std::string> ReportCatalog(
    "catalog",
    cl::desc("A saved 'apistamp catalog --format=json' (default: the catalog "
             "of the rules and the build, as 'catalog' computes it)"),
    cl::value_desc("file"), cl::cat(Category), on(Mode::Report));
cl::opt<std::string> ReportAggregates(
    "aggregates",
    cl::desc("Per-event aggregates from a warehouse (the CSV "
             "docs/report-sql.md's SQL produces) instead of logs"),
    cl::value_desc("file.csv"), cl::cat(Category), on(Mode::Report));
cl::opt<std::string> ReportSince(
    "since",
    cl::desc("Only events at or after this time (ISO 8601, e.g. 2026-11-01); "
             "check --usage: the jobs that used an event since then"),
    cl::value_desc("time"), cl::cat(Category), on(Mode::Report, Mode::Check));
cl::opt<std::string> UsageFile(
    "usage",
    cl::desc("Fail when an event this usage (a report --format=json, or "
             "aggregates CSV) shows used has no place in the tree any more"),
    cl::value_desc("report.json|aggregates.csv"), cl::cat(Category),
    on(Mode::Check));
cl::opt<uint64_t> MinJobs(
    "min-jobs",
    cl::desc("With --usage: a removed event used by fewer jobs is a note (a "
             "deprecation candidate), not an error (default 1)"),
    cl::init(1), cl::value_desc("n"), cl::cat(Category), on(Mode::Check));
cl::opt<std::string> ReportUntil("until",
                                 cl::desc("Only events before this time"),
                                 cl::value_desc("time"), cl::cat(Category),
                                 on(Mode::Report));
cl::opt<apistamp::ReportFormat> ReportFormat(
    "format", cl::desc("Output format"),
    cl::values(
        clEnumValN(apistamp::ReportFormat::Text, "text", "aligned (default)"),
        clEnumValN(apistamp::ReportFormat::Csv, "csv", "comma-separated"),
        clEnumValN(apistamp::ReportFormat::Json, "json",
                   "the versioned JSON report"),
        clEnumValN(apistamp::ReportFormat::Markdown, "markdown",
                   "tables for a pull request or a wiki"),
        clEnumValN(apistamp::ReportFormat::Html, "html",
                   "a self-contained page")),
    cl::init(apistamp::ReportFormat::Text), cl::cat(Category),
    on(Mode::Report));
cl::opt<apistamp::ReportGrouping>
    ReportBy("by", cl::desc("Rows per event (default), rule or file"),
             cl::values(clEnumValN(apistamp::ReportGrouping::Event, "event",
                                   "one row per event (default)"),
                        clEnumValN(apistamp::ReportGrouping::Rule, "rule",
                                   "one row per rule"),
                        clEnumValN(apistamp::ReportGrouping::File, "file",
                                   "one row per file")),
             cl::init(apistamp::ReportGrouping::Event), cl::cat(Category),
             on(Mode::Report));
cl::opt<std::string> ReportOutput("o",
                                  cl::desc("Write the report to this file"),
                                  cl::value_desc("file"), cl::cat(Category),
                                  on(Mode::Report));
cl::opt<std::string> TUOutput("o", cl::desc("The file to write (required)"),
                              cl::value_desc("file"), cl::cat(Category),
                              on(Mode::Tu, Mode::Ninja));
cl::opt<std::string>
    TUDepfile("depfile",
              cl::desc("Also write the files the TU read to this file, as "
                       "a Make rule for the result file (as -MD does)"),
              cl::value_desc("file"), cl::cat(Category), on(Mode::Tu));
cl::opt<unsigned> TUConfiguration(
    "configuration",
    cl::desc("Which of the source's compile commands (0-based, in the "
             "order merge and check use): a source compiled several ways "
             "has one result file per command"),
    cl::init(0), cl::value_desc("n"), cl::cat(Category), on(Mode::Tu));
cl::opt<bool> MergeDiff("diff",
                        cl::desc("Print the changes as a unified diff, as "
                                 "`apistamp diff` does"),
                        cl::cat(Category), on(Mode::Merge));
cl::opt<bool> MergeFix("fix",
                       cl::desc("Apply the changes, as `apistamp fix` does"),
                       cl::cat(Category), on(Mode::Merge));
cl::opt<std::string> ReportEmitPartial(
    "emit-partial",
    cl::desc("Write the logs' exact distinct keys to this file, a partial "
             "that --merge unites with others, instead of a report"),
    cl::value_desc("file"), cl::cat(Category), on(Mode::Report));
cl::opt<bool> ReportMerge(
    "merge",
    cl::desc("The arguments are partials (--emit-partial): report on their "
             "union, exactly as on all their logs"),
    cl::cat(Category), on(Mode::Report));
cl::list<std::string> ReportLayers(
    "layer",
    cl::desc("Events another layer logs (torchvision's Python side, torch "
             "core): reported as that layer's, not as unknown; repeatable, "
             "added to the rules file's 'layers'"),
    cl::value_desc("name=glob[,glob...]"), cl::cat(Category), on(Mode::Report));
cl::opt<apistamp::UnknownScope> ReportUnknown(
    "unknown",
    cl::desc("Which logged events no rule places and no layer declares are "
             "unknown"),
    cl::values(clEnumValN(apistamp::UnknownScope::SameLibrary, "same-library",
                          "those whose first name component a catalog event "
                          "has; the others are other libraries' (default)"),
               clEnumValN(apistamp::UnknownScope::All, "all", "all of them")),
    cl::init(apistamp::UnknownScope::SameLibrary), cl::cat(Category),
    on(Mode::Report));
cl::opt<std::string> ReportStderrJobId(
    "stderr-job-id",
    cl::desc("The job of every log in c10's stderr form (PYTORCH_API_USAGE "
             "lines)"),
    cl::value_desc("id"), cl::cat(Category), on(Mode::Report));
cl::opt<std::string> ReportStderrJobFrom(
    "stderr-job-from",
    cl::desc("A regular expression whose one group takes the job of a log in "
             "c10's stderr form from its file's base name"),
    cl::value_desc("regex"), cl::cat(Category), on(Mode::Report));

/// One positional list per command, named as its row says: sources, logs or
/// an explain target.
std::vector<std::unique_ptr<cl::list<std::string>>> makePositionals() {
  std::vector<std::unique_ptr<cl::list<std::string>>> Lists;
  for (size_t I = 0; I < apistamp::commandTable().size(); ++I)
    Lists.push_back(std::make_unique<cl::list<std::string>>(
        cl::Positional, cl::desc(apistamp::commandTable()[I].Arguments),
        cl::cat(Category), cl::sub(*Subcommands[I])));
  return Lists;
}
std::vector<std::unique_ptr<cl::list<std::string>>> Positionals =
    makePositionals();

/// The command chosen on the command line, if any.
const CommandInfo *chosenCommand() {
  for (size_t I = 0; I < Subcommands.size(); ++I)
    if (*Subcommands[I])
      return &apistamp::commandTable()[I];
  return nullptr;
}

/// "check, fix, diff, explain, catalog, verify or report".
std::string commandNames() {
  std::string Names;
  ArrayRef<CommandInfo> Table = apistamp::commandTable();
  for (size_t I = 0; I < Table.size(); ++I)
    Names += (I == 0                  ? ""
              : I + 1 == Table.size() ? " or "
                                      : ", ") +
             Table[I].Name.str();
  return Names;
}

/// The options each command takes, by name (llvm::cl's tables), for hints
/// about one it does not take.
std::vector<apistamp::CommandOptions> commandOptions() {
  std::vector<apistamp::CommandOptions> Result;
  for (size_t I = 0; I < Subcommands.size(); ++I) {
    apistamp::CommandOptions Command{apistamp::commandTable()[I].Name, {}};
    for (const auto &Entry : cl::getRegisteredOptions(*Subcommands[I]))
      if (Entry.second->getOptionHiddenFlag() != cl::ReallyHidden)
        Command.Options.push_back(Entry.first());
    Result.push_back(std::move(Command));
  }
  return Result;
}

/// Prints \p Errors, what llvm::cl said about the command line of
/// \p Command ("" if none was named) as \p Program, with apistamp's hint
/// after an unknown option instead of cl's "Did you mean", which names the
/// nearest option however far ('--root=json' for diff's '--format=json',
/// '-p' for '-Q').
void printParseErrors(StringRef Errors, StringRef Program, StringRef Command) {
  std::string Unknown = (Program + ": Unknown command line argument '").str();
  std::string DidYouMean = (Program + ": Did you mean '").str();
  bool AfterUnknown = false;
  while (!Errors.empty()) {
    auto [Line, Rest] = Errors.split('\n');
    Errors = Rest;
    if (AfterUnknown && Line.starts_with(DidYouMean)) {
      AfterUnknown = false;
      continue;
    }
    errs() << Line << "\n";
    AfterUnknown = Line.consume_front(Unknown);
    if (!AfterUnknown)
      continue;
    StringRef Arg = Line.take_front(Line.rfind("'.  Try: '"));
    std::string Hint =
        apistamp::unknownOptionHint(Arg, Command, commandOptions());
    if (!Hint.empty())
      errs() << Program << ": " << Hint << "\n";
  }
}

/// The parsed command line as the library's Options; false (after saying
/// why) if --shard cannot be read.
bool readOptions(const CommandInfo &Command, apistamp::Options &Opts) {
  Opts.RunMode = Command.RunMode;
  Opts.RulesFile = RulesFile;
  Opts.BuildDir = BuildDir;
  Opts.Root = Root;
  Opts.Jobs = Jobs;
  Opts.Verbose = Verbose;
  Opts.Quiet = Quiet;
  Opts.Color = Color;
  const cl::list<std::string> &Sources =
      *Positionals[&Command - apistamp::commandTable().data()];
  if (Command.RunMode == Mode::Merge)
    Opts.ResultFiles.assign(Sources.begin(), Sources.end());
  else
    Opts.Sources.assign(Sources.begin(), Sources.end());
  Opts.TUOutput = TUOutput;
  Opts.TUDepfile = TUDepfile;
  Opts.TUConfiguration = TUConfiguration;
  if (MergeDiff && MergeFix) {
    errs() << "apistamp: error: --diff and --fix: one or the other\n";
    return false;
  }
  Opts.MergeAs = MergeDiff ? Mode::Diff : MergeFix ? Mode::Fix : Mode::Check;
  Opts.ExplainName = ExplainName;
  Opts.ExtraArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  Opts.ExtraArgsBefore.assign(ExtraArgsBefore.begin(), ExtraArgsBefore.end());
  Opts.Format = Format;
  Opts.ExportFixes = ExportFixes;
  Opts.FailOnChange = FailOnChange;
  Opts.SarifWithoutBaseUri = NoSarifSrcroot;
  Opts.CatalogDiffFile = CatalogDiffFile;
  Opts.Unselected = ListUnselected || FailOnUnselected;
  Opts.ChangedSince = ChangedSince;
  Opts.UsageFile = UsageFile;
  Opts.MinJobs = MinJobs;
  Opts.MinJobsGiven = MinJobs.getNumOccurrences() > 0;
  Opts.CacheDir = CacheDir;
  Opts.NoCache = NoCache;
  Opts.Report.CatalogFile = ReportCatalog;
  Opts.Report.AggregatesFile = ReportAggregates;
  Opts.Report.Since = ReportSince;
  Opts.Report.Until = ReportUntil;
  Opts.Report.Format = ReportFormat;
  Opts.Report.By = ReportBy;
  Opts.Report.Output = ReportOutput;
  Opts.Report.EmitPartial = ReportEmitPartial;
  Opts.Report.Merge = ReportMerge;
  Opts.Report.LayerArgs.assign(ReportLayers.begin(), ReportLayers.end());
  Opts.Report.Unknown = ReportUnknown;
  Opts.Report.StderrJobId = ReportStderrJobId;
  Opts.Report.StderrJobFrom = ReportStderrJobFrom;
  const char *PreambleEnv = std::getenv("APISTAMP_PREAMBLE");
  Opts.Preambles = NoPreamble ? apistamp::PreambleBuilds::Never
                   : Preamble.getNumOccurrences() == 0 && PreambleEnv &&
                           StringRef(PreambleEnv) == "all"
                       ? apistamp::PreambleBuilds::All
                       : Preamble.getValue();
  Opts.PreambleLimitMiB = PreambleLimit;
  if (const char *Store = std::getenv("APISTAMP_PREAMBLE_STORE"))
    if (*Store && Opts.Preambles != apistamp::PreambleBuilds::Never) {
      Opts.PreambleStoreDir = Store;
      Opts.Preambles = apistamp::PreambleBuilds::All;
    }
  const char *NoSkipEnv = std::getenv("APISTAMP_NO_SKIP_BODIES");
  Opts.SkipBodies =
      !NoSkipBodies && !(NoSkipEnv && StringRef(NoSkipEnv) == "1");
  if (Shard.empty())
    return true;
  Expected<apistamp::Shard> Part = apistamp::parseShard(Shard);
  if (!Part) {
    errs() << toString(Part.takeError()) << "\n";
    return false;
  }
  Opts.Part = *Part;
  return true;
}

} // namespace

int main(int argc, const char **argv) {
  InitLLVM X(argc, argv);
  // Everything after "--" is the compile command of the sources.
  std::optional<std::vector<std::string>> CompilerArgs;
  for (int I = 1; I < argc; ++I)
    if (StringRef(argv[I]) == "--") {
      CompilerArgs.emplace(argv + I + 1, argv + argc);
      argc = I;
      break;
    }

  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "apistamp " APISTAMP_VERSION " (LLVM " LLVM_VERSION_STRING ")\n";
  });
  std::string Errors;
  raw_string_ostream ErrorStream(Errors);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "apistamp: insert API usage events where policy rules say they "
          "belong\n\n"
          "  apistamp check|fix|diff|catalog|verify [options] [<source>...] "
          "[-- <compiler args>]\n"
          "  apistamp explain [options] <source>:<line> | --name <name> "
          "<source>... [-- <compiler args>]\n"
          "  apistamp report [options] <log>... | --aggregates <file.csv> | "
          "--merge <partial>...\n"
          "  apistamp tu [options] -o <result> <source> [-- <compiler "
          "args>]\n"
          "  apistamp merge [options] [--diff | --fix] <result-or-dir>...\n\n"
          "Exit codes: 0 clean or done, 1 check found something, verify a "
          "mismatch, fix or tu could not write a file, fix (with "
          "--fail-on-change) "
          "changed one, 2 bad usage or bad rules file, 3 a source failed to "
          "parse.\n",
          &ErrorStream)) {
    StringRef Named = argc > 1 ? argv[1] : "";
    bool IsCommand =
        llvm::any_of(apistamp::commandTable(),
                     [&](const CommandInfo &C) { return C.Name == Named; });
    printParseErrors(Errors, sys::path::filename(argv[0]),
                     IsCommand ? Named : "");
    return apistamp::ExitBadUsage;
  }
  errs() << Errors; // Warnings, if any.

  const CommandInfo *Command = chosenCommand();
  if (!Command) {
    errs() << "apistamp: error: expected a command: " << commandNames()
           << " (see apistamp --help)\n";
    return apistamp::ExitBadUsage;
  }
  apistamp::Options Opts;
  if (!readOptions(*Command, Opts))
    return apistamp::ExitBadUsage;
  Opts.CompilerArgs = std::move(CompilerArgs);
  if (Error E = apistamp::validateOptions(Opts)) {
    errs() << toString(std::move(E)) << "\n";
    return apistamp::ExitBadUsage;
  }
  return apistamp::run(Opts, outs(), errs());
}
