//===- CommandLine.cpp - apistamp's options, bound to one Options ---------===//
//
// Declares every option, bound to a field of one apistamp::Options
// (cl::location), and a subcommand per row of the command table; parses a
// command line into it and validates it.
//
//===----------------------------------------------------------------------===//

#include "apistamp/CommandLine.h"
#include "apistamp/CommandTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <memory>
#include <optional>

using namespace llvm;

namespace apistamp {
namespace {

/// What the command line asks for; every option below is bound to a field.
Options Opts;

cl::OptionCategory Category("apistamp options");

/// One subcommand per row of the command table, in its order.
std::vector<std::unique_ptr<cl::SubCommand>> makeSubcommands() {
  std::vector<std::unique_ptr<cl::SubCommand>> Subcommands;
  for (const CommandInfo &C : commandTable())
    Subcommands.push_back(
        std::make_unique<cl::SubCommand>(C.Name, C.Description));
  return Subcommands;
}
// Before the options below, which this file's order initialises after it.
std::vector<std::unique_ptr<cl::SubCommand>> Subcommands = makeSubcommands();

/// An option modifier: the option belongs to the subcommands of the rows
/// that Takes accepts, and to the category --help shows.
struct OnCommands {
  std::function<bool(const CommandInfo &)> Takes;
  template <class Opt> void apply(Opt &O) const {
    O.addCategory(Category);
    for (size_t I = 0; I < commandTable().size(); ++I)
      if (Takes(commandTable()[I]))
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
OnCommands on(Mode M, std::optional<Mode> Other = std::nullopt) {
  return {[M, Other](const CommandInfo &C) {
    return C.RunMode == M || C.RunMode == Other;
  }};
}

/// An option modifier: the values of an enumerated option, from the table
/// that spells their names (Options.h).
template <class Enum> struct ValuesOf {
  ArrayRef<NamedValue<Enum>> Values;
  template <class Opt> void apply(Opt &O) const {
    for (const NamedValue<Enum> &V : Values)
      O.getParser().addLiteralOption(V.Name, V.Value, V.Help);
  }
};

/// Options whose value lives in a field of Opts (cl::location).
using Text = cl::opt<std::string, true>;
using Flag = cl::opt<bool, true>;
using Texts = cl::list<std::string, std::vector<std::string>>;

Text RulesFile("rules",
               cl::desc("Rules file (default: the nearest .apistamp.yaml "
                        "above each source)"),
               cl::value_desc("file"), cl::location(Opts.RulesFile), OnAll);
Text BuildDir("p",
              cl::desc("Build directory with compile_commands.json; without "
                       "sources, every C++ file in it is processed"),
              cl::value_desc("build-dir"), cl::location(Opts.BuildDir), OnAll);
Text Root("root",
          cl::desc("Paths in rules and events are relative to this directory "
                   "(default: the rules file's directory)"),
          cl::value_desc("dir"), cl::location(Opts.Root), OnAll);
cl::opt<unsigned, true>
    Jobs("j",
         cl::desc("Translation units analysed in parallel; report: logs read "
                  "in parallel, large ones in parts (default: all cores)"),
         cl::value_desc("N"), cl::Prefix, cl::location(Opts.Jobs), OnAll);
Flag Verbose("verbose",
             cl::desc("Also list instrumented and skipped definitions, and "
                      "what the cache served"),
             cl::location(Opts.Verbose), OnAll);
Flag Quiet("quiet", cl::desc("No summary lines, only findings and errors"),
           cl::location(Opts.Quiet), OnAll);
cl::alias QuietShort("q", cl::desc("Alias for --quiet"), cl::aliasopt(Quiet),
                     cl::cat(Category));
cl::opt<ColorMode, true> Color(
    "color", cl::desc("Colour diagnostics, as clang does"),
    cl::values(clEnumValN(ColorMode::Auto, "auto", "on a terminal (default)"),
               clEnumValN(ColorMode::Always, "always", "always"),
               clEnumValN(ColorMode::Never, "never", "never")),
    cl::location(Opts.Color), OnAll);
Text ExplainName("name",
                 cl::desc("The qualified name of the definition to explain"),
                 cl::value_desc("a::b::f"), cl::location(Opts.ExplainName),
                 on(Mode::Explain));
cl::opt<OutputFormat, true>
    FormatOption("format", cl::desc("Output format"),
                 ValuesOf<OutputFormat>{outputFormats()},
                 cl::location(Opts.Format), OnFormatted);
Text ExportFixes("export-fixes",
                 cl::desc("Also write the replacements fix makes to this "
                          "file, as YAML for clang-apply-replacements"),
                 cl::value_desc("file"), cl::location(Opts.ExportFixes),
                 OnEditProposers);
Text CatalogDiffFile(
    "diff",
    cl::desc("Compare with a saved 'catalog --format=json': events added, "
             "removed, renamed (with suggested aliases) and unchanged"),
    cl::value_desc("old-catalog.json"), cl::location(Opts.CatalogDiffFile),
    on(Mode::Catalog));
Flag NoSarifSrcroot(
    "no-sarif-srcroot",
    cl::desc("With --format=sarif: do not record the working directory as "
             "SRCROOT's absolute URI (paths stay relative to it): the same "
             "log from every checkout, for build caches"),
    cl::location(Opts.SarifWithoutBaseUri), on(Mode::Check, Mode::Merge));
Flag FailOnChange("fail-on-change",
                  cl::desc("Exit 1 when a file was changed (for pre-commit "
                           "hooks)"),
                  cl::location(Opts.FailOnChange), on(Mode::Fix));
Flag ListUnselected(
    "unselected",
    cl::desc("List the definitions of the public surface (public_surface, "
             "or the public headers) that no rule selects, with each rule's "
             "reason"),
    cl::location(Opts.Given.ListUnselected), on(Mode::Catalog));
Flag FailOnUnselected("fail-on-unselected",
                      cl::desc("An error, with a rule that would select it, "
                               "for each definition of the public surface "
                               "that no rule selects"),
                      cl::location(Opts.Given.FailOnUnselected),
                      on(Mode::Check));
Text ChangedSince("changed-since",
                  cl::desc("Only definitions whose lines changed since this "
                           "git revision (committed, staged, unstaged or "
                           "untracked)"),
                  cl::value_desc("git-ref"), cl::location(Opts.ChangedSince),
                  OnProjectCommands);
Flag NoSkipBodies(
    "no-skip-bodies",
    cl::desc("Parse every function body, also those no rule can select "
             "(slower, the same results; for comparison). The environment "
             "variable APISTAMP_NO_SKIP_BODIES=1 does the same"),
    cl::location(Opts.Given.NoSkipBodies), OnAll);
Text ShardPart(
    "shard",
    cl::desc("Process only part I of N of the translation units (1 <= "
             "I <= N); N runs with --export-fixes cover a project, "
             "merged by clang-apply-replacements"),
    cl::value_desc("I/N"), cl::location(Opts.Given.Shard), OnProjectCommands);
Text CacheDir("cache-dir",
              cl::desc("Reuse the results of unchanged translation units "
                       "from this directory (default with -p or the rules "
                       "file's compile_commands: BUILD_DIR/.apistamp-cache)"),
              cl::value_desc("dir"), cl::location(Opts.CacheDir), OnCacheUsers);
Flag NoCache("no-cache", cl::desc("Do not read or write the cache"),
             cl::location(Opts.NoCache), OnCacheUsers);
cl::opt<PreambleBuilds, true> Preamble(
    "preamble",
    cl::desc("Which TUs get their include prefix parsed once and stored in "
             "the cache directory (preambles/), so that the next run "
             "parses only the main file; stored ones are used by every TU. "
             "The environment variable APISTAMP_PREAMBLE=all does the same "
             "as --preamble=all"),
    cl::values(clEnumValN(PreambleBuilds::Auto, "auto",
                          "TUs of named files, and with --changed-since "
                          "those of the changed sources (default)"),
               clEnumValN(PreambleBuilds::All, "all",
                          "every TU analysed again"),
               clEnumValN(PreambleBuilds::Never, "never",
                          "none; do not use the store (--no-preamble)")),
    cl::location(Opts.Preambles),
    cl::callback([](const PreambleBuilds &) { Opts.Given.Preamble = true; }),
    OnCacheUsers);
Flag NoPreamble("no-preamble",
                cl::desc("Do not read or write stored preambles "
                         "(--preamble=never)"),
                cl::location(Opts.Given.NoPreamble), OnCacheUsers);
cl::opt<uint64_t, true>
    CacheLimit("cache-limit",
               cl::desc("Keep the result cache under this size after a run "
                        "that stored in it, evicting the least recently used "
                        "(default 1024)"),
               cl::value_desc("MiB"), cl::location(Opts.CacheLimitMiB),
               OnCacheUsers);
cl::opt<uint64_t, true>
    PreambleLimit("preamble-limit",
                  cl::desc("Keep the preamble store under this size, "
                           "evicting the least recently used (default 2048)"),
                  cl::value_desc("MiB"), cl::location(Opts.PreambleLimitMiB),
                  OnCacheUsers);
Texts ExtraArgs("extra-arg",
                cl::desc("Additional argument to append to every compile "
                         "command (e.g. -I for the runtime's headers); "
                         "repeatable"),
                cl::value_desc("arg"), cl::location(Opts.ExtraArgs), OnAll);
Texts ExtraArgsBefore("extra-arg-before",
                      cl::desc("Additional argument to prepend to every "
                               "compile command; repeatable"),
                      cl::value_desc("arg"), cl::location(Opts.ExtraArgsBefore),
                      OnAll);
Text ReportCatalog("catalog",
                   cl::desc("A saved 'apistamp catalog --format=json' "
                            "(default: the catalog of the rules and the "
                            "build, as 'catalog' computes it)"),
                   cl::value_desc("file"),
                   cl::location(Opts.Report.CatalogFile), on(Mode::Report));
Texts ReportSources(
    "sources",
    cl::desc("What the catalog covers besides the build's C++ (-p): Python "
             "packages, directories or files, as 'catalog' is given them; "
             "repeatable, comma-separated"),
    cl::value_desc("path[,path...]"), cl::CommaSeparated,
    cl::location(Opts.Report.CatalogSources), on(Mode::Report));
Text ReportAggregates("aggregates",
                      cl::desc("Per-event aggregates from a warehouse (the "
                               "CSV docs/report-sql.md's SQL produces) "
                               "instead of logs"),
                      cl::value_desc("file.csv"),
                      cl::location(Opts.Report.AggregatesFile),
                      on(Mode::Report));
Text ReportSince("since",
                 cl::desc("Only events at or after this time (ISO 8601, e.g. "
                          "2026-11-01); check --usage: the jobs that used an "
                          "event since then"),
                 cl::value_desc("time"), cl::location(Opts.Report.Since),
                 on(Mode::Report, Mode::Check));
Text UsageFile("usage",
               cl::desc("Fail when an event this usage (a report "
                        "--format=json, or aggregates CSV) shows used has no "
                        "place in the tree any more"),
               cl::value_desc("report.json|aggregates.csv"),
               cl::location(Opts.UsageFile), on(Mode::Check));
cl::opt<uint64_t, true> MinJobs(
    "min-jobs",
    cl::desc("With --usage: a removed event used by fewer jobs is a note (a "
             "deprecation candidate), not an error (default 1)"),
    cl::value_desc("n"), cl::location(Opts.MinJobs),
    cl::callback([](const uint64_t &) { Opts.MinJobsGiven = true; }),
    on(Mode::Check));
Text ReportUntil("until", cl::desc("Only events before this time"),
                 cl::value_desc("time"), cl::location(Opts.Report.Until),
                 on(Mode::Report));
cl::opt<ReportFormat, true>
    ReportFormatOption("format", cl::desc("Output format"),
                       ValuesOf<ReportFormat>{reportFormats()},
                       cl::location(Opts.Report.Format), on(Mode::Report));
cl::opt<ReportGrouping, true> ReportBy(
    "by",
    cl::desc("Rows per event (default), rule, file, module (package) or "
             "language"),
    cl::values(clEnumValN(ReportGrouping::Event, "event",
                          "one row per event (default)"),
               clEnumValN(ReportGrouping::Rule, "rule", "one row per rule"),
               clEnumValN(ReportGrouping::File, "file", "one row per file"),
               clEnumValN(ReportGrouping::Module, "module",
                          "one row per package: the definition's directory, "
                          "dotted (torchvision.transforms)"),
               clEnumValN(ReportGrouping::Language, "language",
                          "one row per language (c++, python)")),
    cl::location(Opts.Report.By), on(Mode::Report));
Text ReportOutput("o", cl::desc("Write the report to this file"),
                  cl::value_desc("file"), cl::location(Opts.Report.Output),
                  on(Mode::Report));
Text TUOutput("o", cl::desc("The file to write (required)"),
              cl::value_desc("file"), cl::location(Opts.TUOutput),
              on(Mode::Tu, Mode::Ninja));
Text TUDepfile("depfile",
               cl::desc("Also write the files the TU read to this file, as a "
                        "Make rule for the result file (as -MD does)"),
               cl::value_desc("file"), cl::location(Opts.TUDepfile),
               on(Mode::Tu));
cl::opt<unsigned, true> TUConfiguration(
    "configuration",
    cl::desc("Which of the source's compile commands (0-based, in the order "
             "merge and check use): a source compiled several ways has one "
             "result file per command"),
    cl::value_desc("n"), cl::location(Opts.TUConfiguration), on(Mode::Tu));
Flag MergeDiff("diff",
               cl::desc("Print the changes as a unified diff, as `apistamp "
                        "diff` does"),
               cl::location(Opts.Given.MergeDiff), on(Mode::Merge));
Flag MergeFix("fix", cl::desc("Apply the changes, as `apistamp fix` does"),
              cl::location(Opts.Given.MergeFix), on(Mode::Merge));
Text ReportEmitPartial("emit-partial",
                       cl::desc("Write the logs' exact distinct keys to this "
                                "file, a partial that --merge unites with "
                                "others, instead of a report"),
                       cl::value_desc("file"),
                       cl::location(Opts.Report.EmitPartial), on(Mode::Report));
Flag ReportMerge("merge",
                 cl::desc("The arguments are partials (--emit-partial): "
                          "report on their union, exactly as on all their "
                          "logs"),
                 cl::location(Opts.Report.Merge), on(Mode::Report));
Texts ReportLayers(
    "layer",
    cl::desc("Events another layer logs (torchvision's Python side, torch "
             "core): reported as that layer's, not as unknown; repeatable, "
             "added to the rules file's 'layers'"),
    cl::value_desc("name=glob[,glob...]"), cl::location(Opts.Report.LayerArgs),
    on(Mode::Report));
cl::opt<UnknownScope, true> ReportUnknown(
    "unknown",
    cl::desc("Which logged events no rule places and no layer declares are "
             "unknown"),
    cl::values(clEnumValN(UnknownScope::SameLibrary, "same-library",
                          "those whose first name component a catalog event "
                          "has; the others are other libraries' (default)"),
               clEnumValN(UnknownScope::All, "all", "all of them")),
    cl::location(Opts.Report.Unknown), on(Mode::Report));
Text ReportStderrJobId("stderr-job-id",
                       cl::desc("The job of every log in c10's stderr form "
                                "(PYTORCH_API_USAGE lines)"),
                       cl::value_desc("id"),
                       cl::location(Opts.Report.StderrJobId), on(Mode::Report));
Text ReportStderrJobFrom(
    "stderr-job-from",
    cl::desc("A regular expression whose one group takes the job of a log in "
             "c10's stderr form from its file's base name"),
    cl::value_desc("regex"), cl::location(Opts.Report.StderrJobFrom),
    on(Mode::Report));

/// One positional list per command, named as its row says (sources, logs,
/// an explain target or result files), each bound to Opts.Sources.
std::vector<std::unique_ptr<Texts>> makePositionals() {
  std::vector<std::unique_ptr<Texts>> Lists;
  for (size_t I = 0; I < commandTable().size(); ++I)
    Lists.push_back(std::make_unique<Texts>(
        cl::Positional, cl::desc(commandTable()[I].Arguments),
        cl::cat(Category), cl::sub(*Subcommands[I]),
        cl::location(Opts.Sources)));
  return Lists;
}
std::vector<std::unique_ptr<Texts>> Positionals = makePositionals();

/// The command chosen on the command line, if any.
const CommandInfo *chosenCommand() {
  for (size_t I = 0; I < Subcommands.size(); ++I)
    if (*Subcommands[I])
      return &commandTable()[I];
  return nullptr;
}

/// The options each command takes, by name (llvm::cl's tables), for hints
/// about one it does not take.
std::vector<CommandOptions> commandOptions() {
  std::vector<CommandOptions> Result;
  for (size_t I = 0; I < Subcommands.size(); ++I) {
    CommandOptions Command{commandTable()[I].Name, {}};
    for (const auto &Entry : cl::getRegisteredOptions(*Subcommands[I]))
      if (Entry.second->getOptionHiddenFlag() != cl::ReallyHidden)
        Command.Options.push_back(Entry.first());
    Result.push_back(std::move(Command));
  }
  return Result;
}

/// \p Errors, what llvm::cl said about the command line of \p Command (""
/// if none was named) as \p Program, with apistamp's hint after an unknown
/// option instead of cl's "Did you mean", which names the nearest option
/// however far ('--root=json' for diff's '--format=json', '-p' for '-Q').
std::string withHints(StringRef Errors, StringRef Program, StringRef Command) {
  std::string Result;
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
    Result += (Result.empty() ? "" : "\n") + Line.str();
    AfterUnknown = Line.consume_front(Unknown);
    if (!AfterUnknown)
      continue;
    StringRef Arg = Line.take_front(Line.rfind("'.  Try: '"));
    std::string Hint = unknownOptionHint(Arg, Command, commandOptions());
    if (!Hint.empty())
      Result += "\n" + (Program + ": " + Hint).str();
  }
  return Result;
}

} // namespace

Expected<Options> parseCommandLine(ArrayRef<const char *> Args,
                                   raw_ostream &Warnings) {
  Opts = Options();
  cl::ResetAllOptionOccurrences();
  // Everything after "--" is the compile command of the sources.
  const char *const *DashDash = llvm::find_if(
      Args, [](const char *Arg) { return StringRef(Arg) == "--"; });
  if (DashDash != Args.end())
    Opts.CompilerArgs.emplace(DashDash + 1, Args.end());
  int Argc = DashDash - Args.begin();

  cl::HideUnrelatedOptions(Category);
  cl::SetVersionPrinter([](raw_ostream &OS) {
    OS << "apistamp " APISTAMP_VERSION " (LLVM " LLVM_VERSION_STRING ")\n";
  });
  std::string Errors;
  raw_string_ostream ErrorStream(Errors);
  if (!cl::ParseCommandLineOptions(Argc, Args.data(), usageText(),
                                   &ErrorStream)) {
    StringRef Named = Argc > 1 ? Args[1] : "";
    bool IsCommand = llvm::any_of(
        commandTable(), [&](const CommandInfo &C) { return C.Name == Named; });
    return createStringError(inconvertibleErrorCode(),
                             withHints(Errors, sys::path::filename(Args[0]),
                                       IsCommand ? Named : ""));
  }
  Warnings << Errors;
  const CommandInfo *Command = chosenCommand();
  if (!Command)
    return createStringError(inconvertibleErrorCode(),
                             "apistamp: error: expected a command: " +
                                 commandNames() + " (see apistamp --help)");
  Opts.RunMode = Command->RunMode;
  if (Error E = validateOptions(Opts))
    return std::move(E);
  return Opts;
}

} // namespace apistamp
