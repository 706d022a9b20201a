//===- ForeignArguments.h - GCC's options clang's driver rejects -*- C++
//-*-===//
//
// Most compilation databases on Linux are GCC's. GCC accepts options that
// clang's driver does not know (-fno-canonical-system-headers, which Bazel's
// GCC toolchain adds; -fconcepts-diagnostics-depth=N,
// -fno-var-tracking-assignments, -flto-partition=...), and clang's driver
// makes each an error: the TU failed to parse. None of them changes how
// clang would read the code, so they are dropped. GCC's options whose value
// is the next argument (-aux-info FILE, -dumpbase NAME, ...) clang's driver
// rejects or reads as flags: they are dropped with that value, which it
// would take for an input file.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_FOREIGNARGUMENTS_H
#define APISTAMP_LIB_FOREIGNARGUMENTS_H

#include "clang/Tooling/ArgumentsAdjusters.h"

namespace apistamp {

/// Drops every option of a compile command that clang's driver does not
/// know (its unknown-argument error), and the value of GCC's options that
/// take the next argument as theirs when clang's driver would take it for
/// an input file, keeping the rest in order. Commands for clang-cl are left
/// alone.
clang::tooling::ArgumentsAdjuster dropOptionsClangDoesNotKnow();

} // namespace apistamp

#endif // APISTAMP_LIB_FOREIGNARGUMENTS_H
