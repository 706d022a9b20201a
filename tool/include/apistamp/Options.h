//===- Options.h - What a run of apistamp is asked to do --------*- C++ -*-===//
//
// The command line as data: the commands, their formats, the options of a
// run and the documented exit codes. The command table (CommandTable.h)
// says what each command takes; validateOptions checks a run against it and
// resolves the defaults, so that nothing after it looks at Options::Given
// or the environment.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_OPTIONS_H
#define APISTAMP_OPTIONS_H

#include "apistamp/Glob.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Process.h"
#include <optional>
#include <string>
#include <vector>

namespace apistamp {

/// What the user asked for: one per row of the command table.
enum class Mode {
  Check,
  Fix,
  Diff,
  Explain,
  Catalog,
  Verify,
  Report,
  Tu,
  Merge,
  Ninja
};

/// --format of check and catalog (the command table lists which of them a
/// command takes).
enum class OutputFormat { Text, Csv, Json, Sarif };

/// --format of report.
enum class ReportFormat { Text, Csv, Json, Markdown, Html };

/// One value of an enumerated option: the enumerator, its name on the
/// command line and its line of --help.
template <class Enum> struct NamedValue {
  Enum Value;
  llvm::StringLiteral Name;
  llvm::StringLiteral Help;
};

/// check's and catalog's --format values, the only place their names are
/// spelled.
llvm::ArrayRef<NamedValue<OutputFormat>> outputFormats();

/// report's --format values, the only place their names are spelled.
llvm::ArrayRef<NamedValue<ReportFormat>> reportFormats();

/// --by of report: one row per event, per rule or per file.
enum class ReportGrouping { Event, Rule, File, Module, Language };

/// --unknown of report: which logged events that no rule places and no
/// layer declares are unknown.
enum class UnknownScope {
  /// Those whose first name component (up to the first '.') is a catalog
  /// event's: the others are reported as other libraries'.
  SameLibrary,
  /// All of them.
  All,
};

/// --color: colour diagnostics on a terminal (auto), always, or never.
enum class ColorMode { Auto, Always, Never };

/// Documented exit codes.
enum ExitCode : int {
  ExitClean = 0,       ///< Clean, or the requested change was made.
  ExitFindings = 1,    ///< check found something missing or wrong, or
                       ///< verify a mismatch, or fix --fail-on-change
                       ///< changed a file, or fix or tu could not write
                       ///< one.
  ExitBadUsage = 2,    ///< Bad command line or bad rules file.
  ExitParseFailed = 3, ///< A source failed to parse.
};

/// --shard I/N: the I-th (1-based) of N deterministic parts of the TUs.
struct Shard {
  unsigned Index = 1, Count = 1;
};

/// Which TUs a run builds a preamble for (--preamble).
enum class PreambleBuilds {
  Never, ///< --no-preamble: the store is not read or written.
  /// TUs of named files, and with --changed-since, the TUs of the sources
  /// changed: an edit loop's TUs.
  Auto,
  All, ///< Every TU analysed afresh.
};

/// Options of one run, as parsed from the command line.
struct Options {
  Mode RunMode = Mode::Check;
  std::string RulesFile; ///< Empty: the nearest .apistamp.yaml per source.
  std::string BuildDir;  ///< Directory with compile_commands.json.
  std::string Root;      ///< Empty: the rules file's directory.
  unsigned Jobs = 0;     ///< 0: all cores (validateOptions resolves it).
  bool Verbose = false;
  /// No summary lines (hooks print them on every commit otherwise).
  bool Quiet = false;
  ColorMode Color = ColorMode::Auto;
  /// explain: "<source>:<line>" is given as the only source with Line set,
  /// or ExplainName names the definition.
  unsigned ExplainLine = 0;
  std::string ExplainName;
  OutputFormat Format = OutputFormat::Text;
  /// check, diff, fix: also write the replacements fix makes, as YAML for
  /// clang-apply-replacements, to this file.
  std::string ExportFixes;
  /// catalog --diff: a saved `catalog --format=json` to compare the current
  /// catalog with.
  std::string CatalogDiffFile;
  /// --format=sarif: leave SRCROOT's absolute URI (the working directory)
  /// out, so that the log is the same from every checkout.
  bool SarifWithoutBaseUri = false;
  /// fix: exit 1 when a file was changed (for pre-commit, as formatters do).
  bool FailOnChange = false;
  /// catalog --unselected: list the public definitions no rule selects;
  /// check --fail-on-unselected: each is an error.
  bool Unselected = false;
  /// Do not parse the bodies of functions no rule can select (faster; the
  /// same results).
  bool SkipBodies = true;
  /// Where TU results are cached: --cache-dir, else BUILD_DIR/.apistamp-cache
  /// with -p; NoCache turns caching off.
  std::string CacheDir;
  bool NoCache = false;
  /// Which TUs get a preamble built into the cache directory's store
  /// (`preambles/`); stored ones are used by every TU that matches one.
  PreambleBuilds Preambles = PreambleBuilds::Auto;
  /// APISTAMP_PREAMBLE_STORE (for tests and benchmarks): the store's
  /// directory, used with or without a cache, and a preamble for every TU.
  std::string PreambleStoreDir;
  /// The store's size limit, in MiB.
  uint64_t PreambleLimitMiB = 2048;
  /// The result cache's size after a run that stored in it (--cache-limit).
  uint64_t CacheLimitMiB = 1024;
  Shard Part;
  /// Only definitions whose lines changed since this git revision.
  std::string ChangedSince;
  /// check --usage: a JSON report or aggregates CSV; a removed event that
  /// at least MinJobs jobs used (since Report.Since) is an error.
  std::string UsageFile;
  uint64_t MinJobs = 1;
  /// --min-jobs was given (it needs --usage).
  bool MinJobsGiven = false;
  std::vector<std::string> Sources;
  /// --extra-arg-before and --extra-arg: added to every compile command,
  /// at its front (after the compiler) and at its end, as clang-tidy does.
  std::vector<std::string> ExtraArgsBefore, ExtraArgs;
  /// report: Sources are the logs; the catalog comes from CatalogFile (a
  /// saved `catalog --format=json`) or from the rules and the build, and the
  /// counts from the logs or from AggregatesFile (docs/report-sql.md's SQL).
  struct ReportOptions {
    std::string CatalogFile, AggregatesFile;
    /// --sources: what the computed catalog covers (Python packages, as
    /// `catalog` names them) besides the build's C++.
    std::vector<std::string> CatalogSources;
    std::string Since, Until; ///< ISO 8601 prefixes; [Since, Until).
    ReportFormat Format = ReportFormat::Text;
    ReportGrouping By = ReportGrouping::Event;
    std::string Output; ///< -o FILE; "" is standard output.
    /// --layer NAME=GLOB[,GLOB...] as given; validateOptions parses them
    /// into Layers (one per name, in the order first named).
    std::vector<std::string> LayerArgs;
    std::vector<EventLayer> Layers;
    UnknownScope Unknown = UnknownScope::SameLibrary;
    /// Logs in c10's stderr form: every one's job (--stderr-job-id), or a
    /// regular expression whose one group takes it from the file's base
    /// name (--stderr-job-from); at most one of them.
    std::string StderrJobId, StderrJobFrom;
    /// --emit-partial FILE: the logs' (or the merged partials') distinct
    /// keys are written there, and no report.
    std::string EmitPartial;
    /// --merge: Sources are partials, not logs.
    bool Merge = false;
  } Report;
  /// tu: the result file to write (-o), the depfile beside it (--depfile),
  /// and which of the source's compile commands (0-based, in plan order).
  std::string TUOutput, TUDepfile;
  unsigned TUConfiguration = 0;
  /// merge: the result files (and directories of them) tu wrote.
  std::vector<std::string> ResultFiles;
  /// The command whose output this run prints and whose edits it makes:
  /// RunMode's, but merge's, which is check's (the default), diff's
  /// (--diff) or fix's (--fix). validateOptions sets it.
  Mode OutputMode = Mode::Check;
  /// Compiler arguments after "--"; set when "--" was given.
  std::optional<std::vector<std::string>> CompilerArgs;

  /// The options as the command line gave them, where several options (or
  /// an environment variable) decide one field above: validateOptions
  /// resolves them into OutputMode, Unselected, SkipBodies, Preambles,
  /// PreambleStoreDir and Part.
  struct GivenOptions {
    bool MergeDiff = false, MergeFix = false; ///< merge --diff, --fix.
    /// catalog --unselected, check --fail-on-unselected.
    bool ListUnselected = false, FailOnUnselected = false;
    bool NoSkipBodies = false; ///< --no-skip-bodies.
    bool NoPreamble = false;   ///< --no-preamble.
    bool Preamble = false;     ///< --preamble=... was given.
    std::string Shard;         ///< --shard I/N as written.
  } Given;
};

/// Reads an environment variable: its value, or std::nullopt when unset.
using EnvironmentLookup =
    llvm::function_ref<std::optional<std::string>(llvm::StringRef)>;

/// "I/N" with 1 <= I <= N, as --shard takes it.
llvm::Expected<Shard> parseShard(llvm::StringRef Text);

/// One --layer: "NAME=GLOB[,GLOB...]", the globs split at the commas
/// outside braces ('{a,b}' is one glob) and not escaped ('\,').
llvm::Expected<EventLayer> parseLayerOption(llvm::StringRef Text);

/// The name --format gives \p Format ("text", "csv", "json", "sarif").
llvm::StringRef formatName(OutputFormat Format);

/// Whether \p Time is an ISO 8601 UTC time or the start of one that ends at
/// a field (2026, 2026-11, 2026-11-16, 2026-11-16T12:00, ...) with a month
/// and day that exist: what report's --since and --until take.
bool isTimePrefix(llvm::StringRef Time);

/// The option names of one command (without dashes), for hints about an
/// option it does not take.
struct CommandOptions {
  llvm::StringRef Command;
  std::vector<llvm::StringRef> Options;
};

/// What to say about \p Arg (as written: "--format=json", "-Q"), an option
/// that \p Command does not take: that other commands of \p Commands take
/// it ("'--format' is not an option of 'diff'; it is one of check, catalog
/// and report"), or the option of \p Command it is a likely typo of ("did
/// you mean '--format=json'?"); "" if neither. llvm::cl's own suggestion is
/// the nearest option however far, '--root=json' for '--format=json'.
std::string unknownOptionHint(llvm::StringRef Arg, llvm::StringRef Command,
                              llvm::ArrayRef<CommandOptions> Commands);

/// Checks \p Opts against the command table (formats, the arguments each
/// command needs, options that exclude each other) and resolves what the
/// command line leaves open: Opts.Given and the environment variables
/// APISTAMP_PREAMBLE, APISTAMP_PREAMBLE_STORE and APISTAMP_NO_SKIP_BODIES
/// (read through \p Environment), the number of jobs, merge's result
/// files and explain's "<source>:<line>". Errors are bad usage
/// ("apistamp: error: ..."); nothing is read from disk.
llvm::Error
validateOptions(Options &Opts,
                EnvironmentLookup Environment = llvm::sys::Process::GetEnv);

} // namespace apistamp

#endif // APISTAMP_OPTIONS_H
