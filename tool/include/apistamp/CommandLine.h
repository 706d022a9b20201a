//===- CommandLine.h - apistamp's command line into Options -----*- C++ -*-===//
//
// The options and subcommands of apistamp, as llvm::cl declares them
// (CommandLine.cpp), parsed into one Options.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_COMMANDLINE_H
#define APISTAMP_COMMANDLINE_H

#include "apistamp/Options.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace apistamp {

/// Parses \p Args (argv: the program first) into Options and validates
/// them (validateOptions, with the process's environment): the subcommand,
/// its options and, after "--", a compile command. llvm::cl's warnings go
/// to \p Warnings. The error is what to print for bad usage (exit code
/// ExitBadUsage), with a hint after an unknown option; it is empty when
/// llvm::cl printed the error itself (a value an option does not take). --help
/// and --version print and exit, as llvm::cl does. Callable again: each call
/// starts from the defaults.
llvm::Expected<Options> parseCommandLine(llvm::ArrayRef<const char *> Args,
                                         llvm::raw_ostream &Warnings);

} // namespace apistamp

#endif // APISTAMP_COMMANDLINE_H
