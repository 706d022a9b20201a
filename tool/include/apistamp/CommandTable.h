//===- CommandTable.h - One row per apistamp command ------------*- C++ -*-===//
//
// Everything that differs between commands, as data: the command line
// (CommandLine.cpp) makes one subcommand per row and gives each option to
// the rows that take it, --help's usage lines are made from it, and run()
// dispatches through it. docs/architecture.md's recipe "A new command"
// lists every file a new command touches.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_COMMANDTABLE_H
#define APISTAMP_COMMANDTABLE_H

#include "apistamp/Options.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace apistamp {

struct CommandContext;
struct Project;

/// One command: its name, what it takes and how it runs.
struct CommandInfo {
  Mode RunMode;
  llvm::StringLiteral Name;
  llvm::StringLiteral Description;
  /// Its positional arguments, as --help's usage line names them.
  llvm::StringLiteral Arguments;
  /// Formats --format offers it, the default first; empty: no --format.
  llvm::ArrayRef<OutputFormat> Formats;
  /// Runs over a project or a part of it: takes --changed-since and
  /// --shard.
  bool TakesProjectOptions;
  /// May reuse cached TU results: takes --cache-dir and --no-cache.
  bool UsesCache;
  /// Proposes edits: takes --export-fixes and warns about edits in public
  /// headers.
  bool ProposesEdits;
  /// Looks at any file it is named (explain, verify); the others skip
  /// named files no rule can select, unparsed.
  bool ReadsEveryNamedFile;
  /// Prints data or a diff on standard output, never coloured.
  bool PrintsData;
  /// Exactly one of the three is set. From a planned and analysed project
  /// to an exit code (the project commands).
  int (*Run)(CommandContext &Ctx);
  /// A command that plans nothing: report (logs and a catalog).
  int (*RunAlone)(const Options &Opts, llvm::raw_ostream &Out,
                  llvm::raw_ostream &Err);
  /// A command on the plan alone, which run() makes (and whose errors it
  /// prints) but does not analyse: tu (one TU, analysed by itself) and
  /// ninja (the plan's actions).
  int (*RunOnPlan)(const Options &Opts, const Project &P,
                   llvm::raw_ostream &Err);
};

/// Every command, in the order --help lists them.
llvm::ArrayRef<CommandInfo> commandTable();

/// The row of \p M.
const CommandInfo &commandInfo(Mode M);

/// Whether \p C's positional arguments are sources, which "--" and a
/// compile command may follow.
bool readsSources(const CommandInfo &C);

/// "check, fix, ..., merge or ninja": every command's name, in order.
std::string commandNames();

/// --help's overview: a line per set of commands that take the same
/// arguments ("apistamp check|fix|diff|catalog [options] [<source>...]
/// [-- <compiler args>]"), then the exit codes.
std::string usageText();

} // namespace apistamp

#endif // APISTAMP_COMMANDTABLE_H
