//===- Commands.h - One function per apistamp command -----------*- C++ -*-===//
//
// The last stage: each command turns the merged AnalysisResult (and the
// options) into output and an exit code, and writes what it is asked to
// (fix's sources, tu's result, -o, --export-fixes). Each lives in its own
// file here; docs/architecture.md's recipe "A new command" lists every file
// a new one touches.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_COMMANDS_COMMANDS_H
#define APISTAMP_LIB_COMMANDS_COMMANDS_H

#include "../Catalog.h"
#include "Changes.h"
#include "Findings.h"
#include "Project.h"
#include "ProjectAnalysis.h"
#include "apistamp/Options.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>

namespace apistamp {

/// What every command gets.
struct CommandContext {
  const Options &Opts;
  const Project &Plan;
  /// The merged results; a command may narrow it (--changed-since).
  AnalysisResult &Result;
  llvm::raw_ostream &Out;
  llvm::raw_ostream &Err;
  PathDisplay Display;
  std::string WorkingDirectory; ///< Canonical; "" if unknown.
  std::chrono::steady_clock::time_point Start;
  /// "; 2 of 9 TUs failed to parse"...: said at the end of every summary.
  std::string Notes;
  /// explain: the definition asked about.
  const ExplainTarget *Target = nullptr;

  /// Where summary lines go: \p Stream, or nowhere with --quiet.
  llvm::raw_ostream &summary(llvm::raw_ostream &Stream) const {
    return Opts.Quiet ? llvm::nulls() : Stream;
  }

  /// Hygiene (unused rules, overlaps) is about a whole project, not a part.
  bool wholeProject() const {
    return Opts.Sources.empty() && Opts.ChangedSince.empty() &&
           Opts.Part.Count <= 1;
  }
  /// ExitParseFailed if a TU failed, else \p Otherwise.
  int exitCode(int Otherwise) const {
    return Result.Failed.empty() ? Otherwise : int(ExitParseFailed);
  }
};

// Each command's run function is declared beside its row of the command
// table (CommandTable.cpp), the one place that calls it.

// Shared pieces of the commands (Common.cpp).

/// --changed-since: keeps the sites and suppressions on lines changed since
/// the revision and adds a note; false (after printing why) if git failed.
bool narrowToChangedLines(CommandContext &Ctx);

/// "apistamp: skipped: 23 no constructor body to instrument, 1 constexpr
/// function", if anything was skipped.
void printSkipReasons(llvm::raw_ostream &OS, const SiteCounts &Counts);

/// TUs, wall time, bodies not parsed and cache use, on stderr, so that stdout
/// is the same for every -j.
void printWallTime(const CommandContext &Ctx);

/// Prints, on stderr, why each file of \p Problems was not changed.
void printFileProblems(const CommandContext &Ctx,
                       llvm::ArrayRef<FileProblem> Problems);

/// Writes the replacements of \p Findings' fixes as clang-tidy YAML to
/// --export-fixes; false (after printing why) if it could not be written.
bool exportFixes(const CommandContext &Ctx, llvm::ArrayRef<Finding> Findings,
                 const std::map<std::string, std::vector<TextEdit>> &FileFixes);

/// Removes the temporary files a killed `fix` left beside the files this
/// run parsed (those of processes that are gone): check, diff and fix do.
void removeLeftoverTemporaries(const CommandContext &Ctx);

/// What fix and diff start with: the changes (problems printed), the
/// --export-fixes file, and the duplicates that need a manual fix, on
/// stderr. \p Errors is set if anything could not be done.
ChangeSet prepareChanges(const CommandContext &Ctx, bool &Errors);

/// Prints each rule's verdict on a definition, as explain does:
/// "  rule 'ops' (line 4): rejects: namespace 'a' != 'b'".
void printRuleVerdicts(llvm::raw_ostream &Out,
                       llvm::ArrayRef<Explanation::RuleLine> Rules);

/// catalog --unselected (Unselected.cpp): the public definitions no rule
/// selects, each with every rule's reason, as text, CSV or JSON.
int printUnselectedCatalog(CommandContext &Ctx);

/// check --fail-on-unselected (Unselected.cpp): an error per public
/// definition no rule selects, with a rule that would select it; a note on
/// the summary line. std::nullopt (after saying why) if some rules file has
/// no public surface to check.
std::optional<std::vector<Finding>> unselectedFindings(CommandContext &Ctx);

/// Hygiene of a whole-project run: a warning per rule that selected
/// nothing, naming the earlier rules that took what it matches.
std::vector<Finding> unusedRuleWarnings(const CommandContext &Ctx);

/// Hygiene of a whole-project run: a note per definition that several rules
/// select, with the rule that won.
std::vector<Finding> overlapNotes(llvm::ArrayRef<Site> Sites);

/// The rule id of the usage gate's findings.
constexpr llvm::StringLiteral UsageGateRule = "apistamp-usage-gate";

/// check --usage (CheckUsage.cpp): an error per event the usage file shows
/// used by --min-jobs jobs (since --since) that \p WholeCatalog, the whole
/// tree's, no longer places (an alias's old name counted as its event); a
/// note per such event used less, and per event of the sites left in the
/// result used less (a deprecation candidate). An unreadable usage file is
/// an error.
llvm::Expected<std::vector<Finding>>
usageGateFindings(const CommandContext &Ctx,
                  llvm::ArrayRef<CatalogEvent> WholeCatalog);

} // namespace apistamp

#endif // APISTAMP_LIB_COMMANDS_COMMANDS_H
