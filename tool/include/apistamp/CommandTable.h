//===- CommandTable.h - One row per apistamp command ------------*- C++ -*-===//
//
// Everything that differs between commands, as data: the command line
// (ApiStampMain.cpp) makes one subcommand per row and gives each option to
// the rows that take it; run() dispatches through it. A new command is a
// row here, a run function in its own file, and nothing else.
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
  /// From a planned and analysed project to an exit code; or, if null,
  /// RunAlone.
  int (*Run)(CommandContext &Ctx);
  /// A command that plans nothing itself (report).
  int (*RunAlone)(const Options &Opts, llvm::raw_ostream &Out,
                  llvm::raw_ostream &Err);
};

/// Every command, in the order --help lists them.
llvm::ArrayRef<CommandInfo> commandTable();

/// The row of \p M.
const CommandInfo &commandInfo(Mode M);

} // namespace apistamp

#endif // APISTAMP_COMMANDTABLE_H
