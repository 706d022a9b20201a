//===- Driver.h - Run apistamp over sources ---------------------*- C++ -*-===//
//
// The driver ties the stages together: find compile commands and rules for
// each source, analyse TUs in parallel, merge their findings, then report,
// render a diff or write the files.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_DRIVER_H
#define APISTAMP_DRIVER_H

#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace apistamp {

/// What the user asked for.
enum class Mode { Check, Fix, Diff, Explain, Catalog, Verify, Report };

/// Output format: `catalog` takes text, csv or json; `check` text, json or
/// sarif.
enum class OutputFormat { Text, Csv, Json, Sarif };

/// --color: colour diagnostics on a terminal (auto), always, or never.
enum class ColorMode { Auto, Always, Never };

/// Documented exit codes.
enum ExitCode : int {
  ExitClean = 0,       ///< Clean, or the requested change was made.
  ExitFindings = 1,    ///< check found something missing or wrong, or
                       ///< verify a mismatch, or fix --fail-on-change
                       ///< changed a file.
  ExitBadUsage = 2,    ///< Bad command line or bad rules file.
  ExitParseFailed = 3, ///< A source failed to parse.
};

/// Options of one run, as parsed from the command line.
struct Options {
  Mode RunMode = Mode::Check;
  std::string RulesFile; ///< Empty: the nearest .apistamp.yaml per source.
  std::string BuildDir;  ///< Directory with compile_commands.json.
  std::string Root;      ///< Empty: the rules file's directory.
  unsigned Jobs = 0;     ///< 0: all cores.
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
  /// fix: exit 1 when a file was changed (for pre-commit, as formatters do).
  bool FailOnChange = false;
  /// Do not parse the bodies of functions no rule can select (faster; the
  /// same results).
  bool SkipBodies = true;
  /// Where TU results are cached: --cache-dir, else BUILD_DIR/.apistamp-cache
  /// with -p; NoCache turns caching off.
  std::string CacheDir;
  bool NoCache = false;
  /// --shard I/N: only the I-th (1-based) of N deterministic parts of the
  /// TUs.
  unsigned ShardIndex = 1, ShardCount = 1;
  /// Only definitions whose lines changed since this git revision.
  std::string ChangedSince;
  std::vector<std::string> Sources;
  /// --extra-arg-before and --extra-arg: added to every compile command,
  /// at its front (after the compiler) and at its end, as clang-tidy does.
  std::vector<std::string> ExtraArgsBefore, ExtraArgs;
  /// report: Sources are the logs; the catalog comes from CatalogFile (a
  /// saved `catalog --format=json`) or from the rules and the build, and the
  /// counts from the logs or from AggregatesFile (docs/report-sql.md's SQL).
  struct ReportOptions {
    std::string CatalogFile, AggregatesFile;
    std::string Since, Until; ///< ISO 8601 prefixes; [Since, Until).
    std::string Format = "text"; ///< text, csv, json, markdown or html.
    std::string By = "event";    ///< event, rule or file.
    std::string Output;          ///< -o FILE; "" is standard output.
  } Report;
  /// Compiler arguments after "--"; set when "--" was given.
  std::optional<std::vector<std::string>> CompilerArgs;
};

/// Runs apistamp; findings and results go to \p Out, errors to \p Err.
/// Returns an ExitCode.
int run(const Options &Opts, llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace apistamp

#endif // APISTAMP_DRIVER_H
