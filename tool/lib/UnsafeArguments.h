//===- UnsafeArguments.h - Options that write or load code -----*- C++ -*-===//
//-*-===//
//
// A compilation database is untrusted input, like a rules file: the
// read-only commands must not create, truncate or append to a file that an
// option of a compile command names, nor load code. This adjuster drops the
// options that write an output (diagnostics, statistics, dependency and
// header-include files, traces, temporaries, crash reproducers, module
// caches) or load a plugin, in their driver forms and behind -Xclang.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_UNSAFEARGUMENTS_H
#define APISTAMP_LIB_UNSAFEARGUMENTS_H

#include "clang/Tooling/ArgumentsAdjusters.h"

namespace apistamp {

/// Drops every option of a compile command that names an output file or
/// loads code (with its value), and keeps the rest in order.
clang::tooling::ArgumentsAdjuster dropWritingAndLoadingArguments();

} // namespace apistamp

#endif // APISTAMP_LIB_UNSAFEARGUMENTS_H
