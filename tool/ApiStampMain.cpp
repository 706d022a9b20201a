//===- ApiStampMain.cpp - apistamp command line ---------------------------===//
//
// Parses the command line and hands over to apistamp::run().
//
//===----------------------------------------------------------------------===//

#include "apistamp/Driver.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>

using namespace llvm;

namespace {

cl::OptionCategory Category("apistamp options");

cl::SubCommand CheckCommand("check",
                            "Report missing or wrong API usage events; exit 1 "
                            "if there are any");
cl::SubCommand FixCommand("fix", "Insert or correct API usage events in place");
cl::SubCommand DiffCommand("diff",
                           "Print the changes fix would make as a unified "
                           "diff; write nothing");

cl::SubCommand
    ExplainCommand("explain",
                   "Explain rule by rule why the definition at <source>:<line> "
                   "(or --name) is or is not instrumented");

cl::SubCommand CatalogCommand(
    "catalog", "List every event the rules select, one per definition, with "
               "its rule, file, line, kind and status");

cl::SubCommand VerifyCommand(
    "verify", "Test rules: compare what they select with the '// "
              "expect-event: <event>', '// expect-no-event' and '// "
              "expect-skipped: <reason>' comments in the sources; exit 1 on "
              "any mismatch");

cl::SubCommand ReportCommand(
    "report", "Compare the events the rules place with API usage logs: "
              "which are used, by how many jobs, which are never used, and "
              "which logged events no rule places");

#define APISTAMP_ALL_COMMANDS                                                  \
  cl::sub(CheckCommand), cl::sub(FixCommand), cl::sub(DiffCommand),            \
      cl::sub(ExplainCommand), cl::sub(CatalogCommand),                        \
      cl::sub(VerifyCommand), cl::sub(ReportCommand)
/// The commands that run over a project (or a part of one) and report on it.
#define APISTAMP_PROJECT_COMMANDS                                              \
  cl::sub(CheckCommand), cl::sub(FixCommand), cl::sub(DiffCommand),            \
      cl::sub(CatalogCommand)

cl::opt<std::string>
    RulesFile("rules",
              cl::desc("Rules file (default: the nearest .apistamp.yaml above "
                       "each source)"),
              cl::value_desc("file"), cl::cat(Category), APISTAMP_ALL_COMMANDS);
cl::opt<std::string>
    BuildDir("p",
             cl::desc("Build directory with compile_commands.json; without "
                      "sources, every C++ file in it is processed"),
             cl::value_desc("build-dir"), cl::cat(Category),
             APISTAMP_ALL_COMMANDS);
cl::opt<std::string>
    Root("root",
         cl::desc("Paths in rules and events are relative to this "
                  "directory (default: the rules file's directory)"),
         cl::value_desc("dir"), cl::cat(Category), APISTAMP_ALL_COMMANDS);
cl::opt<unsigned> Jobs("j",
                       cl::desc("Translation units analysed in parallel; "
                                "report: logs read in parallel, large ones "
                                "in parts (default: all cores)"),
                       cl::value_desc("N"), cl::init(0), cl::Prefix,
                       cl::cat(Category), APISTAMP_ALL_COMMANDS);
cl::opt<bool> Verbose("verbose",
                      cl::desc("Also list instrumented and skipped "
                               "definitions"),
                      cl::cat(Category), APISTAMP_ALL_COMMANDS);
cl::opt<bool> Quiet("quiet",
                    cl::desc("No summary lines, only findings and errors"),
                    cl::cat(Category), APISTAMP_ALL_COMMANDS);
cl::alias QuietShort("q", cl::desc("Alias for --quiet"), cl::aliasopt(Quiet),
                     cl::cat(Category));
cl::opt<apistamp::ColorMode> Color(
    "color", cl::desc("Colour diagnostics, as clang does"),
    cl::values(clEnumValN(apistamp::ColorMode::Auto, "auto",
                          "on a terminal (default)"),
               clEnumValN(apistamp::ColorMode::Always, "always", "always"),
               clEnumValN(apistamp::ColorMode::Never, "never", "never")),
    cl::init(apistamp::ColorMode::Auto), cl::cat(Category),
    APISTAMP_ALL_COMMANDS);
cl::opt<std::string> ExplainName(
    "name", cl::desc("The qualified name of the definition to explain"),
    cl::value_desc("a::b::f"), cl::cat(Category), cl::sub(ExplainCommand));
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
    cl::init(apistamp::OutputFormat::Text), cl::cat(Category),
    cl::sub(CatalogCommand), cl::sub(CheckCommand));
cl::opt<std::string> ExportFixes(
    "export-fixes",
    cl::desc("Also write the replacements fix makes to this file, as YAML "
             "for clang-apply-replacements"),
    cl::value_desc("file"), cl::cat(Category), cl::sub(CheckCommand),
    cl::sub(FixCommand), cl::sub(DiffCommand));
cl::opt<bool> FailOnChange(
    "fail-on-change",
    cl::desc("Exit 1 when a file was changed (for pre-commit hooks)"),
    cl::cat(Category), cl::sub(FixCommand));
cl::opt<std::string> ChangedSince(
    "changed-since",
    cl::desc("Only definitions whose lines changed since this git revision "
             "(committed, staged, unstaged or untracked)"),
    cl::value_desc("git-ref"), cl::cat(Category), APISTAMP_PROJECT_COMMANDS);
cl::opt<bool> NoSkipBodies(
    "no-skip-bodies",
    cl::desc("Parse every function body, also those no rule can select "
             "(slower, the same results; for comparison). The environment "
             "variable APISTAMP_NO_SKIP_BODIES=1 does the same"),
    cl::cat(Category), APISTAMP_ALL_COMMANDS);
cl::opt<std::string> Shard(
    "shard",
    cl::desc("Process only part I of N of the translation units (1 <= I <= "
             "N); N runs with --export-fixes cover a project, merged by "
             "clang-apply-replacements"),
    cl::value_desc("I/N"), cl::cat(Category), APISTAMP_PROJECT_COMMANDS);
cl::opt<std::string> CacheDir(
    "cache-dir",
    cl::desc("Reuse the results of unchanged translation units from this "
             "directory (default with -p: BUILD_DIR/.apistamp-cache)"),
    cl::value_desc("dir"), cl::cat(Category), APISTAMP_PROJECT_COMMANDS,
    cl::sub(VerifyCommand), cl::sub(ReportCommand));
cl::opt<bool> NoCache("no-cache", cl::desc("Do not read or write the cache"),
                      cl::cat(Category), APISTAMP_PROJECT_COMMANDS,
                      cl::sub(VerifyCommand), cl::sub(ReportCommand));
cl::list<std::string> ExtraArgs(
    "extra-arg",
    cl::desc("Additional argument to append to every compile command (e.g. "
             "-I for the runtime's headers); repeatable"),
    cl::value_desc("arg"), cl::cat(Category), APISTAMP_ALL_COMMANDS);
cl::list<std::string> ExtraArgsBefore(
    "extra-arg-before",
    cl::desc("Additional argument to prepend to every compile command; "
             "repeatable"),
    cl::value_desc("arg"), cl::cat(Category), APISTAMP_ALL_COMMANDS);
cl::opt<std::string> ReportCatalog(
    "catalog",
    cl::desc("A saved 'apistamp catalog --format=json' (default: the catalog "
             "of the rules and the build, as 'catalog' computes it)"),
    cl::value_desc("file"), cl::cat(Category), cl::sub(ReportCommand));
cl::opt<std::string> ReportAggregates(
    "aggregates",
    cl::desc("Per-event aggregates from a warehouse (the CSV docs/report-sql.md's "
             "SQL produces) instead of logs"),
    cl::value_desc("file.csv"), cl::cat(Category), cl::sub(ReportCommand));
cl::opt<std::string> ReportSince("since",
                                 cl::desc("Only events at or after this time "
                                          "(ISO 8601, e.g. 2026-11-01)"),
                                 cl::value_desc("time"), cl::cat(Category),
                                 cl::sub(ReportCommand));
cl::opt<std::string> ReportUntil("until",
                                 cl::desc("Only events before this time"),
                                 cl::value_desc("time"), cl::cat(Category),
                                 cl::sub(ReportCommand));
cl::opt<std::string> ReportFormat(
    "format", cl::desc("text (default), csv, json, markdown or html"),
    cl::value_desc("format"), cl::init("text"), cl::cat(Category),
    cl::sub(ReportCommand));
cl::opt<std::string> ReportBy("by",
                              cl::desc("Rows per event (default), rule or file"),
                              cl::value_desc("event|rule|file"),
                              cl::init("event"), cl::cat(Category),
                              cl::sub(ReportCommand));
cl::opt<std::string> ReportOutput("o", cl::desc("Write the report to this file"),
                                  cl::value_desc("file"), cl::cat(Category),
                                  cl::sub(ReportCommand));
cl::list<std::string> Sources(cl::Positional, cl::desc("<source>..."),
                              cl::cat(Category), APISTAMP_ALL_COMMANDS);

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
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "apistamp: insert API usage events where policy rules say they "
          "belong\n\n"
          "  apistamp check|fix|diff|catalog|verify [options] [<source>...] "
          "[-- <compiler args>]\n"
          "  apistamp explain [options] <source>:<line> | --name <name> "
          "[-- <compiler args>]\n"
          "  apistamp report [options] <log>... | --aggregates <file.csv>\n\n"
          "Exit codes: 0 clean or done, 1 check found something, verify a "
          "mismatch, fix could not write a file or (with --fail-on-change) "
          "changed one, 2 bad usage or bad rules file, 3 a source failed to "
          "parse.\n",
          &errs()))
    return apistamp::ExitBadUsage;

  apistamp::Options Opts;
  if (CheckCommand) {
    Opts.RunMode = apistamp::Mode::Check;
  } else if (FixCommand) {
    Opts.RunMode = apistamp::Mode::Fix;
  } else if (DiffCommand) {
    Opts.RunMode = apistamp::Mode::Diff;
  } else if (ExplainCommand) {
    Opts.RunMode = apistamp::Mode::Explain;
  } else if (CatalogCommand) {
    Opts.RunMode = apistamp::Mode::Catalog;
  } else if (VerifyCommand) {
    Opts.RunMode = apistamp::Mode::Verify;
  } else if (ReportCommand) {
    Opts.RunMode = apistamp::Mode::Report;
    Opts.Report.CatalogFile = ReportCatalog;
    Opts.Report.AggregatesFile = ReportAggregates;
    Opts.Report.Since = ReportSince;
    Opts.Report.Until = ReportUntil;
    Opts.Report.Format = ReportFormat;
    Opts.Report.By = ReportBy;
    Opts.Report.Output = ReportOutput;
  } else {
    errs() << "apistamp: error: expected a command: check, fix, diff, "
              "explain, catalog, verify or report (see apistamp --help)\n";
    return apistamp::ExitBadUsage;
  }
  Opts.RulesFile = RulesFile;
  Opts.BuildDir = BuildDir;
  Opts.Root = Root;
  Opts.Jobs = Jobs;
  Opts.Verbose = Verbose;
  Opts.Quiet = Quiet;
  Opts.Color = Color;
  Opts.Sources.assign(Sources.begin(), Sources.end());
  Opts.ExplainName = ExplainName;
  Opts.ExtraArgs.assign(ExtraArgs.begin(), ExtraArgs.end());
  Opts.ExtraArgsBefore.assign(ExtraArgsBefore.begin(), ExtraArgsBefore.end());
  Opts.Format = Format;
  Opts.ExportFixes = ExportFixes;
  Opts.FailOnChange = FailOnChange;
  Opts.ChangedSince = ChangedSince;
  Opts.CacheDir = CacheDir;
  Opts.NoCache = NoCache;
  if (!Shard.empty()) {
    auto [Index, Count] = StringRef(Shard).split('/');
    if (Index.getAsInteger(10, Opts.ShardIndex) ||
        Count.getAsInteger(10, Opts.ShardCount) || Opts.ShardCount == 0 ||
        Opts.ShardIndex == 0 || Opts.ShardIndex > Opts.ShardCount) {
      errs() << "apistamp: error: --shard wants I/N with 1 <= I <= N, e.g. "
                "--shard 2/4, not '"
             << Shard << "'\n";
      return apistamp::ExitBadUsage;
    }
  }
  const char *NoSkipEnv = std::getenv("APISTAMP_NO_SKIP_BODIES");
  Opts.SkipBodies =
      !NoSkipBodies && !(NoSkipEnv && StringRef(NoSkipEnv) == "1");
  if ((CheckCommand && Format == apistamp::OutputFormat::Csv) ||
      (CatalogCommand && Format == apistamp::OutputFormat::Sarif)) {
    errs() << "apistamp: error: --format="
           << (Format == apistamp::OutputFormat::Csv ? "csv" : "sarif")
           << " is not a format of this command; check takes text, json or "
              "sarif, catalog text, csv or json\n";
    return apistamp::ExitBadUsage;
  }
  if (ExplainCommand && ExplainName.empty()) {
    // "<source>:<line>": the definition spanning that line.
    StringRef Source, Line;
    if (Opts.Sources.size() == 1)
      std::tie(Source, Line) = StringRef(Opts.Sources.front()).rsplit(':');
    if (Line.empty() || Line.getAsInteger(10, Opts.ExplainLine) ||
        Opts.ExplainLine == 0) {
      errs() << "apistamp: error: explain needs one <source>:<line>, or "
                "--name <qualified name>\n";
      return apistamp::ExitBadUsage;
    }
    Opts.Sources = {Source.str()};
  }
  Opts.CompilerArgs = std::move(CompilerArgs);
  return apistamp::run(Opts, outs(), errs());
}
