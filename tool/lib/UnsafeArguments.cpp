//===- UnsafeArguments.cpp - Compile-command options that write or load ---===//

#include "UnsafeArguments.h"
#include "clang/Driver/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"

using namespace llvm;
namespace options = clang::driver::options;

namespace apistamp {

namespace {

/// Whether \p O (or the option it aliases: --write-dependencies is -MD)
/// writes a file or loads code. \p Forwarded: a front-end option behind
/// -Xclang, -Xpreprocessor or -Wp, where an action (-emit-pch, -E...) would
/// also replace the syntax-only one.
bool writesOrLoads(const opt::Option &O, bool Forwarded) {
  static const unsigned Unsafe[] = {
      // Driver options.
      options::OPT__serialize_diags, options::OPT_MF, options::OPT_MJ,
      options::OPT_MT, options::OPT_MQ, options::OPT_MD, options::OPT_MMD,
      options::OPT_M, options::OPT_MM, options::OPT_MV,
      options::OPT_dependency_file, options::OPT_dependency_dot,
      options::OPT_ftime_trace, options::OPT_ftime_trace_EQ,
      options::OPT_save_temps, options::OPT_save_temps_EQ,
      options::OPT_save_stats, options::OPT_save_stats_EQ,
      options::OPT_fcrash_diagnostics_dir, options::OPT_fcrash_diagnostics,
      options::OPT_fcrash_diagnostics_EQ, options::OPT_gen_reproducer,
      options::OPT_gen_reproducer_eq, options::OPT_fplugin_EQ,
      options::OPT_fpass_plugin_EQ, options::OPT_fplugin_arg,
      options::OPT_fmodules_cache_path, options::OPT_fmodules_user_build_path,
      options::OPT_fbuild_session_file,
      // Implicit module builds write a module cache (its path, else
      // $XDG_CACHE_HOME or ~/.cache): without them headers are read as
      // text, as in a build without modules.
      options::OPT_fmodules, options::OPT_fcxx_modules,
      // Front-end dumps print to standard output, inside apistamp's output
      // (JSON, SARIF, a diff).
      options::OPT_fdump_record_layouts,
      options::OPT_fdump_record_layouts_canonical,
      options::OPT_fdump_record_layouts_complete,
      options::OPT_fdump_record_layouts_simple,
      options::OPT_fdump_vtable_layouts, options::OPT_print_stats,
      options::OPT_dump_deserialized_pch_decls,
      // Ignored by clang, but names the object file (Bazel sets it to the
      // output's path): commands that differ only there are one parse.
      options::OPT_frandom_seed_EQ,
      // Front-end (cc1) options.
      options::OPT_stats_file, options::OPT_header_include_file,
      options::OPT_header_include_format_EQ,
      options::OPT_header_include_filtering_EQ,
      options::OPT_diagnostic_serialized_file, options::OPT_diagnostic_log_file,
      options::OPT_module_dependency_dir, options::OPT_load,
      options::OPT_plugin, options::OPT_add_plugin, options::OPT_plugin_arg};
  // The driver's -o is the output adjuster's business.
  if (Forwarded &&
      (O.matches(options::OPT_Action_Group) || O.matches(options::OPT_o)))
    return true;
  return llvm::any_of(Unsafe, [&O](unsigned Id) { return O.matches(Id); });
}

/// The options \p Args parse to under \p Visibility, each with the range
/// of \p Args it was read from: [first, end).
struct ParsedArg {
  const opt::Arg *A;
  unsigned Begin, End;
};
std::vector<ParsedArg> parseWithSpans(const opt::InputArgList &Parsed,
                                      unsigned Count) {
  std::vector<ParsedArg> Spans;
  for (const opt::Arg *A : Parsed)
    Spans.push_back({A, A->getIndex(), Count});
  llvm::sort(Spans, [](const ParsedArg &L, const ParsedArg &R) {
    return L.Begin < R.Begin;
  });
  for (size_t I = 0; I + 1 < Spans.size(); ++I)
    Spans[I].End = Spans[I + 1].Begin;
  return Spans;
}

/// Which of \p Values, front-end arguments in order, belong to an option
/// that writes or loads (with its value).
std::vector<bool> unsafeForwarded(ArrayRef<const char *> Values) {
  std::vector<bool> Drop(Values.size(), false);
  unsigned MissingIndex, MissingCount;
  opt::InputArgList Parsed = clang::driver::getDriverOptTable().ParseArgs(
      Values, MissingIndex, MissingCount,
      // The driver translates some (-Wp,-MD,F is -MD -MF F), passes the
      // rest on.
      llvm::opt::Visibility(options::ClangOption | options::CC1Option));
  for (const ParsedArg &P : parseWithSpans(Parsed, Values.size()))
    if (writesOrLoads(P.A->getOption(), /*Forwarded=*/true))
      for (unsigned I = P.Begin; I < P.End; ++I)
        Drop[I] = true;
  return Drop;
}

} // namespace

clang::tooling::ArgumentsAdjuster dropWritingAndLoadingArguments() {
  return [](const clang::tooling::CommandLineArguments &Args,
            StringRef) -> clang::tooling::CommandLineArguments {
    if (Args.empty())
      return Args;
    // Args[0] is the compiler; its options are read as clang's driver reads
    // them (aliases, joined and separate forms, -Wp, lists).
    std::vector<const char *> Argv;
    for (size_t I = 1; I < Args.size(); ++I)
      Argv.push_back(Args[I].c_str());
    unsigned MissingIndex, MissingCount;
    opt::InputArgList Parsed = clang::driver::getDriverOptTable().ParseArgs(
        Argv, MissingIndex, MissingCount,
        llvm::opt::Visibility(options::ClangOption));
    std::vector<bool> Drop(Argv.size(), false);
    // What -Xclang and -Xpreprocessor forward is one front-end command line
    // each: "-Xclang -dependency-file -Xclang F" names F.
    std::vector<ParsedArg> Xclang, Xpreprocessor;
    for (const ParsedArg &P : parseWithSpans(Parsed, Argv.size())) {
      const opt::Option &O = P.A->getOption();
      bool Unsafe = false;
      if (O.matches(options::OPT_Xclang))
        Xclang.push_back(P);
      else if (O.matches(options::OPT_Xpreprocessor))
        Xpreprocessor.push_back(P);
      else if (O.matches(options::OPT_Wp_COMMA))
        Unsafe = llvm::is_contained(
            unsafeForwarded(
                ArrayRef(P.A->getValues().begin(), P.A->getValues().end())),
            true);
      else
        Unsafe = writesOrLoads(O, /*Forwarded=*/false);
      for (unsigned I = P.Begin; Unsafe && I < P.End; ++I)
        Drop[I] = true;
    }
    for (ArrayRef<ParsedArg> Forwarded :
         {ArrayRef(Xclang), ArrayRef(Xpreprocessor)}) {
      std::vector<const char *> Values;
      for (const ParsedArg &P : Forwarded)
        Values.push_back(P.A->getValue());
      std::vector<bool> Unsafe = unsafeForwarded(Values);
      for (size_t V = 0; V < Forwarded.size(); ++V)
        for (unsigned I = Forwarded[V].Begin; Unsafe[V] && I < Forwarded[V].End;
             ++I)
          Drop[I] = true;
    }
    clang::tooling::CommandLineArguments Kept{Args[0]};
    for (size_t I = 0; I < Argv.size(); ++I)
      if (!Drop[I])
        Kept.push_back(Args[I + 1]);
    return Kept;
  };
}

} // namespace apistamp
