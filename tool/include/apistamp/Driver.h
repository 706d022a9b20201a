//===- Driver.h - Run apistamp over sources ---------------------*- C++ -*-===//
//
// The driver ties the stages together: find compile commands and rules for
// each source, analyse TUs in parallel, merge their findings, then hand them
// to the command (report, render a diff or write the files).
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_DRIVER_H
#define APISTAMP_DRIVER_H

#include "apistamp/Options.h"
#include "llvm/Support/raw_ostream.h"

namespace apistamp {

/// Runs apistamp with validated options (validateOptions); findings and
/// results go to \p Out, errors to \p Err. Returns an ExitCode.
int run(const Options &Opts, llvm::raw_ostream &Out, llvm::raw_ostream &Err);

} // namespace apistamp

#endif // APISTAMP_DRIVER_H
