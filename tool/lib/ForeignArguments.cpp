//===- ForeignArguments.cpp - GCC's options clang's driver rejects --------===//

#include "ForeignArguments.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Options.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Option/Option.h"

using namespace llvm;
namespace options = clang::driver::options;

namespace apistamp {

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
    std::vector<bool> Unknown(Args.size(), false);
    for (const opt::Arg *A : Parsed.filtered(options::OPT_UNKNOWN))
      Unknown[A->getIndex() + 1] = true;
    clang::tooling::CommandLineArguments Kept;
    for (size_t I = 0; I < Args.size(); ++I)
      if (!Unknown[I])
        Kept.push_back(Args[I]);
    return Kept;
  };
}

} // namespace apistamp
