//===- ApiStampMain.cpp - apistamp command line ---------------------------===//
//
// Parses the command line into apistamp::Options (CommandLine.h) and runs
// the command it names.
//
//===----------------------------------------------------------------------===//

#include "apistamp/CommandLine.h"
#include "apistamp/Driver.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, const char **argv) {
  llvm::InitLLVM X(argc, argv);
  llvm::Expected<apistamp::Options> Opts =
      apistamp::parseCommandLine(llvm::ArrayRef(argv, argc), llvm::errs());
  if (!Opts) {
    // llvm::cl says some errors itself (a bad value): then the message is
    // empty.
    std::string Message = llvm::toString(Opts.takeError());
    if (!Message.empty())
      llvm::errs() << Message << "\n";
    return apistamp::ExitBadUsage;
  }
  return apistamp::run(*Opts, llvm::outs(), llvm::errs());
}
