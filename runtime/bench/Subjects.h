//===- Subjects.h - The functions the benchmarks call ---------------------===//
//
// Each is defined in its own TU (no inlining into the benchmark loop) with
// the same body, uninstrumented or instrumented with one of the macros.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_RUNTIME_BENCH_SUBJECTS_H
#define APISTAMP_RUNTIME_BENCH_SUBJECTS_H

/// Uninstrumented, in the executable.
int plainCall(int X);
/// Instrumented with the apistamp runtime's macro, in the executable.
int apistampCall(int X);
/// Instrumented with APISTAMP_LOG_API_ENTRY (outermost calls only), in the
/// executable.
int apistampEntryCall(int X);
/// Instrumented with the real c10 macro (libtorch-dev), in the executable.
int c10Call(int X);
/// Uninstrumented, in a shared library.
int plainCallDso(int X);
/// Instrumented with the apistamp runtime's macro, in a shared library that
/// links the shared runtime.
int apistampCallDso(int X);
/// Instrumented with APISTAMP_LOG_API_ENTRY, in the same shared library.
int apistampEntryCallDso(int X);

#endif // APISTAMP_RUNTIME_BENCH_SUBJECTS_H
