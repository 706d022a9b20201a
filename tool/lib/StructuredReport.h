//===- StructuredReport.h - check's JSON and SARIF reports ------*- C++ -*-===//

#ifndef APISTAMP_LIB_STRUCTUREDREPORT_H
#define APISTAMP_LIB_STRUCTUREDREPORT_H

#include "Findings.h"
#include "apistamp/Rules.h"
#include <map>
#include <vector>

namespace apistamp {

/// Everything a structured report of one run says.
struct ReportInput {
  llvm::ArrayRef<Finding> Findings;
  SiteCounts Counts;
  unsigned TUs = 0;
  unsigned ParseFailures = 0;
  /// Per file with changes, every replacement fix would make, the #include
  /// included (FileEdits' fileReplacements).
  std::map<std::string, std::vector<TextEdit>> FileFixes;
  /// The rules files in use, for SARIF's rule descriptors.
  std::vector<const RuleSet *> RuleSets;
};

/// The replacements that fix each finding of \p In, in order: for a
/// warning, its site's edits, and for the first finding of a file that has
/// edits also the #include the file needs (so that applying every fix inserts
/// it once).
std::vector<std::vector<TextEdit>> fixesOf(const ReportInput &In);

/// {"version": 1, "findings": [...], "summary": {...}}: every finding with
/// its location, severity, rule, event, status and fix (byte offsets), and
/// the counts.
void printJsonReport(llvm::raw_ostream &OS, const ReportInput &In,
                     const PathDisplay &Display);

/// The fixes of every finding, in the YAML of clang-tidy's --export-fixes
/// (one diagnostic per finding, its replacements as the fix), which
/// clang-apply-replacements reads. Identical replacements in files written
/// by several runs (shards sharing a header) are applied once.
void printExportedFixes(llvm::raw_ostream &OS, const ReportInput &In,
                        llvm::StringRef BuildDirectory);

/// A SARIF 2.1.0 log: one run of the tool "apistamp", a rule descriptor per
/// rule, one result per finding with its location and fix. Paths are
/// relative to \p BaseDirectory (uriBaseId "SRCROOT") when under it, and
/// SRCROOT's URI is BaseDirectory's unless \p WithBaseUri is unset (the
/// consumer then says where SRCROOT is, as SARIF allows).
void printSarifReport(llvm::raw_ostream &OS, const ReportInput &In,
                      llvm::StringRef BaseDirectory, bool WithBaseUri = true);

} // namespace apistamp

#endif // APISTAMP_LIB_STRUCTUREDREPORT_H
