//===- parse_only.cpp - The Python front end's parse alone, for scale -----===//
//
// Reads and parses each file named on the command line with the front
// end's parser (tree-sitter and the vendored grammar: SyntaxTree::parse,
// which also checks the encoding and finds the first error), and nothing
// else: the floor under `apistamp check` on Python sources, measured by
// bench/python/ast_vs_apistamp.py --cmd. Exit 1 if a file does not parse.
//
//===----------------------------------------------------------------------===//

#include "python/PythonSyntax.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  int Status = 0;
  for (int I = 1; I < argc; ++I) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Bytes =
        llvm::MemoryBuffer::getFile(argv[I], /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!Bytes) {
      llvm::errs() << argv[I] << ": " << Bytes.getError().message() << "\n";
      Status = 1;
      continue;
    }
    if (llvm::Expected<apistamp::python::SyntaxTree> Tree =
            apistamp::python::SyntaxTree::parse(argv[I], (*Bytes)->getBuffer());
        !Tree) {
      llvm::errs() << llvm::toString(Tree.takeError()) << "\n";
      Status = 1;
    }
  }
  return Status;
}
