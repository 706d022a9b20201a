//===- Findings.h - The findings of check, rendered -------------*- C++ -*-===//

#ifndef APISTAMP_LIB_FINDINGS_H
#define APISTAMP_LIB_FINDINGS_H

#include "ProjectAnalysis.h"
#include "apistamp/Options.h"
#include "apistamp/Paths.h"
#include "apistamp/Site.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace apistamp {

/// What is wrong with a Wrong site that calls another recognised macro
/// (Site::FoundMacro), in words: "API usage event 'e' is logged with
/// 'C10_LOG_API_USAGE_ONCE', not the rules' macro 'APISTAMP_LOG_API_ENTRY'".
std::string otherMacroProblem(const Site &S);

/// How serious a finding is; all but notes make check fail.
enum class Severity { Error, Warning, Note };

/// "error", "warning" or "note", as clang spells them.
llvm::StringRef severityName(Severity S);

/// What a finding of the usage gate (check --usage) counted.
struct UsageFigures {
  std::string Event;
  uint64_t Jobs = 0;
  std::string Since, LastSeen; ///< Days; "" if never seen.
  uint64_t MinJobs = 1;
  /// The old names its usage was logged under (aliases), if any.
  std::vector<std::string> LoggedAs;
};

/// One diagnostic of a report, at a source location.
struct Finding {
  std::string File; ///< Canonical absolute path.
  unsigned Line = 0, Column = 0;
  Severity Level = Severity::Warning;
  std::string Message;
  /// The rule that selected the site, or "apistamp-ignore" for a problem with
  /// a suppression comment.
  std::string RuleId;
  const Site *FromSite = nullptr; ///< Null for suppression problems.
  /// A public definition no rule selects (check --fail-on-unselected).
  const UnselectedDefinition *FromUnselected = nullptr;
  /// YAML of a rule that would select FromUnselected; printed below it.
  std::string SuggestedRule = {};
  /// The usage gate's figures; null for other findings.
  std::shared_ptr<const UsageFigures> Usage = nullptr;

  /// Makes check fail; notes do not.
  bool isProblem() const { return Level != Severity::Note; }
};

/// One finding per site that needs attention and per suppression without a
/// reason or that excluded nothing, in source order; with \p Verbose also
/// notes for instrumented, skipped and suppressed sites.
std::vector<Finding> collectFindings(llvm::ArrayRef<Site> Sites,
                                     llvm::ArrayRef<Suppression> Suppressions,
                                     bool Verbose);

/// The number of \p Findings that make check fail.
unsigned countProblems(llvm::ArrayRef<Finding> Findings);

/// Prints \p Findings as clang-style diagnostics.
void printFindings(llvm::raw_ostream &OS, llvm::ArrayRef<Finding> Findings,
                   const PathDisplay &Display);

/// The rule id of stale-event findings.
constexpr llvm::StringLiteral StaleEventRule = "apistamp-stale-event";

/// The rule id of findings about public definitions no rule selects.
constexpr llvm::StringLiteral UnselectedRule = "apistamp-unselected";

/// The selected definitions of \p Sites: all but stale events.
std::vector<Site> selectedSites(llvm::ArrayRef<Site> Sites);

/// Spelling of a status in reports and catalogs.
llvm::StringRef statusName(SiteStatus Status);

struct CatalogEvent;
struct CatalogDiff;

/// Prints \p Catalog (catalogOf's rows: event, rule, file, line, kind,
/// status, name, language, and the base an inherited event logs through)
/// as aligned text, CSV or JSON (an array of objects).
void printCatalog(llvm::raw_ostream &OS, llvm::ArrayRef<CatalogEvent> Catalog,
                  OutputFormat Format);

/// Prints \p Diff (`catalog --diff`) as text (renames, removals, additions,
/// with \p ListUnchanged the unchanged events too, notes, the counts, and
/// the suggested `aliases:` block) or JSON (every event, the counts, notes
/// and the suggested aliases).
void printCatalogDiff(llvm::raw_ostream &OS, const CatalogDiff &Diff,
                      OutputFormat Format, bool ListUnchanged);

/// A YAML scalar that reads back as \p Text: plain when it is a dotted name,
/// else double-quoted with escapes; with \p GlobEscaped, '*', '?', '[',
/// ']', '{', '}' and '\\' also escaped with '\\', so that as a glob it
/// matches \p Text alone. nullopt if \p Text is not UTF-8.
std::optional<std::string> yamlScalar(llvm::StringRef Text, bool GlobEscaped);

/// Counts of sites per status.
struct SiteCounts {
  unsigned Selected = 0, Present = 0, Missing = 0, Wrong = 0, Duplicate = 0,
           Skipped = 0, Suppressed = 0;
  unsigned Stale = 0; ///< Events in definitions no longer selected.
  /// Stale calls fix cannot remove: not what apistamp writes.
  unsigned StaleKept = 0;
  /// Bodies TUs reach with different events or include needs.
  unsigned Conflict = 0;
  /// Skipped sites per reason, the reason without its details ("body comes
  /// from macro", "constexpr function").
  std::map<std::string, unsigned> SkippedByReason;
  /// Of the skipped, those the rules' policy skipped (Site::SkippedByPolicy)
  /// whose rule does not say `allow_skipped`, and those whose rule does:
  /// set by check, which fails on the first.
  unsigned NotChecked = 0, NotCheckedAllowed = 0;
  /// Rules that selected nothing in a whole-project run (set by check).
  unsigned RulesSelectingNothing = 0;
};
SiteCounts countSites(llvm::ArrayRef<Site> Sites);

/// The warning about an edit proposed in a public header, as a finding
/// (it does not make check fail).
Finding publicHeaderFinding(const PublicHeaderEdit &E);

} // namespace apistamp

#endif // APISTAMP_LIB_FINDINGS_H
