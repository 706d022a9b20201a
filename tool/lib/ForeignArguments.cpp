//===- ForeignArguments.cpp - GCC's options clang's driver rejects --------===//

#include "ForeignArguments.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"

using namespace llvm;
namespace options = clang::driver::options;

namespace apistamp {

namespace {

/// GCC's options whose value is the next argument and that clang's driver
/// does not read so: it rejects them, or (-dumpbase, -dumpbase-ext) reads
/// them as an option of its own without a value. Their value would be left
/// behind as an input file ("no such file or directory"). GCC's driver
/// takes all but -imultiarch and -auxbase(-strip), which are its cc1's;
/// -Hd, -Hf, -Xf (D's) and -J, -fintrinsic-modules-path (Fortran's) it
/// takes with their value in a C++ command too, and ignores.
/// ForeignArgumentsTest checks the installed GCC's `--help=separate`
/// against this list.
constexpr llvm::StringLiteral GccOptionsWithSeparateValue[] = {
    "--dump",
    "--dumpbase",
    "--dumpbase-ext",
    "--dumpdir",
    "-Hd",
    "-Hf",
    "-J",
    "-Xf",
    "-aux-info",
    "-auxbase",
    "-auxbase-strip",
    "-dumpbase",
    "-dumpbase-ext",
    "-fintrinsic-modules-path",
    "-imultiarch",
    "-wrapper"};

bool takesSeparateValueInGcc(StringRef Spelling) {
  return llvm::is_contained(GccOptionsWithSeparateValue, Spelling);
}

} // namespace

clang::tooling::ArgumentsAdjuster dropOptionsClangDoesNotKnow() {
  return [](const clang::tooling::CommandLineArguments &Args,
            StringRef) -> clang::tooling::CommandLineArguments {
    if (Args.empty())
      return Args;
    std::vector<const char *> Argv;
    for (const std::string &Arg : Args)
      Argv.push_back(Arg.c_str());
    if (clang::driver::IsClangCL(clang::driver::getDriverMode(
            Argv.front(), ArrayRef(Argv).drop_front())))
      return Args;
    unsigned MissingIndex, MissingCount;
    opt::InputArgList Parsed = clang::driver::getDriverOptTable().ParseArgs(
        ArrayRef(Argv).drop_front(), MissingIndex, MissingCount,
        llvm::opt::Visibility(options::ClangOption));
    // Indices into Args: the driver's start after the program's name.
    std::vector<bool> Dropped(Args.size(), false), Starts(Args.size(), false),
        Input(Args.size(), false);
    for (const opt::Arg *A : Parsed) {
      Starts[A->getIndex() + 1] = true;
      if (A->getOption().matches(options::OPT_UNKNOWN))
        Dropped[A->getIndex() + 1] = true;
      else if (A->getOption().matches(options::OPT_INPUT))
        Input[A->getIndex() + 1] = true;
    }
    // GCC's option and its value, which the driver took for an input.
    for (size_t I = 1; I + 1 < Args.size(); ++I)
      if (Starts[I] && Input[I + 1] && takesSeparateValueInGcc(Args[I]))
        Dropped[I] = Dropped[I + 1] = true;
    clang::tooling::CommandLineArguments Kept;
    for (size_t I = 0; I < Args.size(); ++I)
      if (!Dropped[I])
        Kept.push_back(Args[I]);
    return Kept;
  };
}

} // namespace apistamp
