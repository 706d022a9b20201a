//===- UnsafeArguments.cpp - Compile-command options that write or load ---===//

#include "UnsafeArguments.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

using namespace llvm;

namespace apistamp {

namespace {

/// An option that writes or loads; Separate: its value may be the next
/// argument (as in "-MF dep.d"); otherwise only "-opt" or "-opt=..." forms.
struct Unsafe {
  StringRef Name;
  bool Separate;
};

/// Driver options.
constexpr Unsafe DriverOptions[] = {
    {"--serialize-diagnostics", true},
    {"-serialize-diagnostics", true},
    {"-MF", true},
    {"-MJ", true},
    {"-MT", true},
    {"-MQ", true},
    {"-MD", false},
    {"-MMD", false},
    {"-M", false},
    {"-MM", false},
    {"-MV", false},
    {"-dependency-file", true},
    {"-dependency-dot", true},
    {"-ftime-trace", false},
    {"-save-temps", false},
    {"-save-stats", false},
    {"-fcrash-diagnostics-dir", false},
    {"-fcrash-diagnostics", false},
    {"-gen-reproducer", false},
    {"-fplugin", false},
    {"-fpass-plugin", false},
    {"-fplugin-arg-", false},
    {"-fmodules-cache-path", false},
    {"-fmodules-user-build-path", false},
    {"-fbuild-session-file", false},
};

/// Options of the front end itself (clang -cc1), written behind -Xclang.
constexpr Unsafe FrontendOptions[] = {
    {"-stats-file", false},
    {"-dependency-file", true},
    {"-header-include-file", true},
    {"-header-include-format", false},
    {"-header-include-filtering", false},
    {"-serialize-diagnostic-file", true},
    {"-diagnostic-log-file", true},
    {"-module-dependency-dir", true},
    {"-load", true},
    {"-plugin", true},
    {"-add-plugin", true},
    {"-plugin-arg-", true},
    {"-fmodules-cache-path", false},
    {"-ftime-trace", false},
    {"-o", true},
};

/// The entry of \p Table that \p Arg is (or starts, in "-opt=value" or,
/// for a prefix such as "-fplugin-arg-", "-fplugin-arg-name=..."), if any.
const Unsafe *findUnsafe(ArrayRef<Unsafe> Table, StringRef Arg) {
  for (const Unsafe &U : Table) {
    if (Arg == U.Name)
      return &U;
    if (Arg.starts_with(U.Name) &&
        (U.Name.ends_with("-") ||
         Arg.drop_front(U.Name.size()).starts_with("=") ||
         (U.Separate && U.Name.size() == 3))) // "-MFdep.d"
      return &U;
  }
  return nullptr;
}

} // namespace

clang::tooling::ArgumentsAdjuster dropWritingAndLoadingArguments() {
  return [](const clang::tooling::CommandLineArguments &Args,
            StringRef) -> clang::tooling::CommandLineArguments {
    clang::tooling::CommandLineArguments Kept;
    for (size_t I = 0; I < Args.size(); ++I) {
      StringRef Arg = Args[I];
      if (Arg == "-Xclang" && I + 1 < Args.size()) {
        const Unsafe *U = findUnsafe(FrontendOptions, Args[I + 1]);
        if (!U) {
          Kept.push_back(Args[I]);
          Kept.push_back(Args[++I]);
          continue;
        }
        I += 1;
        // Its separate value is the next "-Xclang VALUE".
        bool TakesValue =
            U->Separate && (Args[I] == U->Name || U->Name.ends_with("-"));
        if (TakesValue && I + 2 < Args.size() && Args[I + 1] == "-Xclang")
          I += 2;
        continue;
      }
      if (const Unsafe *U = findUnsafe(DriverOptions, Arg)) {
        if (U->Separate && Arg == U->Name && I + 1 < Args.size())
          ++I;
        continue;
      }
      Kept.push_back(Args[I]);
    }
    return Kept;
  };
}

} // namespace apistamp
