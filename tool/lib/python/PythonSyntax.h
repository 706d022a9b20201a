//===- PythonSyntax.h - A Python file parsed by tree-sitter -----*- C++ -*-===//
//
// The Python front end's parser: tree-sitter 0.20.7 with the vendored
// tree-sitter-python 0.23.6 grammar (third_party/). A file is accepted only
// if its tree has no ERROR or MISSING node, and its bytes are UTF-8 (or in
// the ASCII-compatible encoding its coding cookie names): a tree-sitter tree
// is error-tolerant, so an edit made on a tree with errors could land
// anywhere.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PYTHON_PYTHONSYNTAX_H
#define APISTAMP_LIB_PYTHON_PYTHONSYNTAX_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <tree_sitter/api.h>

namespace apistamp {
namespace python {

/// A syntax tree over the bytes it was parsed from (which must outlive it).
class SyntaxTree {
public:
  /// Parses \p Code, the bytes of \p File (named in errors): an Error
  /// "File:line:col: error: ..." at the first syntax error, missing token
  /// or byte that is not in the file's encoding.
  static llvm::Expected<SyntaxTree> parse(llvm::StringRef File,
                                          llvm::StringRef Code);

  TSNode root() const;
  llvm::StringRef code() const { return Code; }
  /// The bytes \p Node spans.
  llvm::StringRef text(TSNode Node) const;

private:
  struct TreeDeleter {
    void operator()(TSTree *T) const;
  };
  std::unique_ptr<TSTree, TreeDeleter> Tree;
  llvm::StringRef Code;
};

/// What a walk does after visiting a node.
enum class Walk { Descend, Skip, Stop };

/// Visits \p Root and the nodes under it in source order, iteratively (a
/// tree can nest 100,000 deep): into a node's children only if \p Visit
/// says Descend; no further at all once it says Stop.
void walk(TSNode Root, llvm::function_ref<Walk(TSNode)> Visit);

/// The node's type, as the grammar names it ("function_definition").
inline llvm::StringRef type(TSNode Node) { return ts_node_type(Node); }

/// The child of \p Node in \p Field, or a null node.
TSNode field(TSNode Node, llvm::StringRef Field);

/// Whether \p Name is a Python identifier (ASCII letters, digits, '_', or
/// any non-ASCII character; no digit first).
bool isIdentifier(llvm::StringRef Name);

/// Whether \p Name is identifiers joined by '.' ("torch.nn.Module").
bool isDottedName(llvm::StringRef Name);

/// The encoding a PEP 263 coding cookie on one of \p Code's first two lines
/// names, lower-cased ("utf-8", "latin-1"); "" if there is none.
std::string codingCookie(llvm::StringRef Code);

} // namespace python
} // namespace apistamp

#endif // APISTAMP_LIB_PYTHON_PYTHONSYNTAX_H
