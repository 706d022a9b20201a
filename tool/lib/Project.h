//===- Project.h - Plan a run: the TUs, their commands, rules --*- C++ -*-===//
//
// The first stage: options and the compilation database become the list of
// translation units to analyse, each with its compile command and its rules
// (the rules files are loaded here), after sharding. Pure: nothing printed.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PROJECT_H
#define APISTAMP_LIB_PROJECT_H

#include "InstalledFiles.h"
#include "apistamp/Rules.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace apistamp {

/// One translation unit to analyse.
struct TUJob {
  std::string Source; ///< Canonical path.
  const RuleSet *Rules = nullptr;
  /// Its compile command; none if the database has none for it.
  std::optional<clang::tooling::CompileCommand> Command;
  /// How many distinct compile commands (configurations) the source has:
  /// each is a TUJob of its own.
  unsigned Configurations = 1;
  /// A named header or fragment that is not in the database, analysed
  /// through this TU (which includes it): only what lies in it is reported.
  /// Empty: everything the TU reaches.
  std::string ReportOnly;
  /// A TU of the database outside this run, analysed only because it reads
  /// these files (sorted), which this run's TUs read too: only what lies in
  /// them is taken, so that they are judged from every TU that reads them.
  std::vector<std::string> Completes;
  /// A Python source: read by the Python front end, with no compile
  /// command.
  bool Python = false;
};

/// Whether \p L and \p R parse the same source with the same command.
bool sameParse(const TUJob &L, const TUJob &R);

/// What a run works on.
struct Project {
  std::unique_ptr<clang::tooling::CompilationDatabase> Database;
  /// The rules files in use, by canonical path.
  llvm::StringMap<std::unique_ptr<RuleSet>> RuleSets;
  /// The TUs of this run (of this shard): one per source and distinct
  /// compile command, sorted by path, then command.
  std::vector<TUJob> TUs;
  /// Sources of the database skipped because no .apistamp.yaml is above
  /// them (whole-project runs only).
  std::vector<std::string> WithoutRules;
  /// The build directory whose compile_commands.json is used: -p, or the
  /// rules file's `compile_commands`; "" for "--" arguments or a database
  /// found above the sources.
  std::string BuildDir;
  /// What the build directory's cmake_install.cmake scripts install.
  InstalledFiles Installed;
  /// The database a rules file's `compile_commands:` names outside its root,
  /// and that rules file: read as trusted input (said so), though options
  /// that write or load are dropped from its commands.
  std::optional<std::pair<std::string, std::string>> DatabaseOutsideRoot;
  /// Named files skipped unparsed because no rule's `files` and
  /// `exclude_files` let it select anything in them.
  std::vector<std::string> NotSelectable;
  /// Its Python files, as jobs with their rules: not analysed, but read for
  /// the classes that log through a base's constructor (inheritedEvents).
  std::vector<TUJob> UnselectablePython;
  /// In a run on a part of the database (named files, a shard): the
  /// database's other TUs, as a whole-project run plans them, in TUs'
  /// order. They are analysed only for the files that every TU reading them
  /// must judge (ViewCompletion.h).
  std::vector<TUJob> Others;
  /// Sources of the database whose rules did not load: the files they read
  /// cannot be judged whole by a run on a part of it.
  std::vector<std::string> OthersUnplanned;
  /// Others was planned (a run on a part of a database that lists its
  /// sources): empty Others and OthersUnplanned then mean that this run
  /// analyses every TU.
  bool OthersPlanned = false;
  /// The rules files only Others use.
  llvm::StringMap<std::unique_ptr<RuleSet>> OtherRuleSets;

  /// The rules files in use, by path.
  std::vector<const RuleSet *> sortedRuleSets() const;
};

/// What the plan needs to know of a run.
struct PlanRequest {
  /// The named sources; empty: every C++ source of the database.
  std::vector<std::string> Sources;
  std::string BuildDir;  ///< -p; "" to find one.
  std::string RulesFile; ///< "" for the nearest .apistamp.yaml per source.
  std::string Root;      ///< "" for the rules file's directory.
  /// Compiler arguments after "--", when given: a fixed database.
  std::optional<std::vector<std::string>> CompilerArgs;
  /// Added to every compile command, at its front and at its end.
  std::vector<std::string> ExtraArgsBefore, ExtraArgs;
  /// Only the ShardIndex-th (1-based) of ShardCount parts of the TUs.
  unsigned ShardIndex = 1, ShardCount = 1;
  /// Named files no rule can select are skipped, unparsed (not for explain
  /// and verify, which look at any file they are given).
  bool SkipUnselectableFiles = true;
  /// In a run on a part of the database, plan Project::Others too: the
  /// commands run() analyses need them (a partial view is completed from
  /// them); tu, which analyses one TU alone, does not.
  bool PlanOthers = true;
  /// A run on the whole project (no sources named) plans the Python modules
  /// of its rules' Python path too (not tu, merge and ninja, whose results
  /// are C++ TUs').
  bool WholeProjectPython = true;
};

/// Plans the run \p Request asks for: loads the compilation database (from
/// "--" arguments, -p, or found above the first source; headers and new
/// files get an interpolated command), picks the sources (the given ones,
/// or every C++ source of the database), loads the rules of each, and keeps
/// this shard's part. A named file no rule can select is not parsed; a
/// named header or fragment that the database does not list is analysed
/// through the first database TU (nearest directory first, then by path)
/// that includes it, and only with an interpolated command if none does.
/// Errors are bad usage ("apistamp: error: ...").
llvm::Expected<Project> planProject(const PlanRequest &Request);

/// A C++ source file by its extension: not a header, not Objective-C++,
/// CUDA or HIP.
bool isCppSource(llvm::StringRef Path);

/// A Python source file by its extension.
bool isPythonSource(llvm::StringRef Path);

} // namespace apistamp

#endif // APISTAMP_LIB_PROJECT_H
