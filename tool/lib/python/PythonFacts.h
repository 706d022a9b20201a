//===- PythonFacts.h - What one Python module's syntax says -----*- C++ -*-===//
//
// The Python front end's first stage: from a module's tree (PythonSyntax.h)
// to the facts the rules decide on, as the C++ front end gives them
// (Site.h's Candidates, with a PythonBody each), and what the project
// needs to resolve base classes across modules. Pure: no file is read.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PYTHON_PYTHONFACTS_H
#define APISTAMP_LIB_PYTHON_PYTHONFACTS_H

#include "apistamp/Site.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <map>
#include <string>
#include <vector>

namespace apistamp {
namespace python {

/// How one class is constructed, as far as its own text says.
struct ClassShape {
  unsigned Line = 0, Column = 0; ///< Of its name.
  /// It defines __init__; that __init__ calls `super().__init__(...)` (or
  /// `Base.__init__(self, ...)`) somewhere in its body.
  bool HasInit = false, InitCallsSuper = false;
};

/// What is read of one module.
struct ModuleFacts {
  std::string File;   ///< Canonical path.
  std::string Module; ///< Dotted name.
  bool IsPackage = false;
  /// The definitions, in source order, as candidates: their DeclFacts'
  /// Bases are the class's direct bases, resolved through this module's
  /// imports only (the project completes them: resolveBases).
  TUFacts Facts;
  /// Its classes, by their name in the module ("A", "A.B"): direct bases,
  /// dotted and resolved through the module's imports.
  std::map<std::string, std::vector<std::string>> Classes;
  /// The same classes' shapes.
  std::map<std::string, ClassShape> Shapes;
  /// Names bound at top level by imports: local name -> dotted target.
  std::map<std::string, std::string> Imports;
  /// Modules imported with `from M import *`.
  std::vector<std::string> StarImports;
};

/// What calls a definition's body may hold: the rules' callees.
struct CallNames {
  std::vector<std::string> Callees;
  /// The conditions of the rules' guards (conditionText): a call alone in
  /// an `if` of one of them is removed with it; in another `if`, it is
  /// reported, not removed (apistamp did not write that `if`).
  std::vector<std::string> Guards;
};

/// \p Condition with its runs of blanks and line breaks made one space:
/// how guard conditions are compared.
std::string conditionText(llvm::StringRef Condition);

/// Reads the module \p Module (a package's __init__ if \p IsPackage) from
/// \p Code, the bytes of \p File; \p RelativePath is File under the rules'
/// root. Errors as SyntaxTree::parse gives them.
llvm::Expected<ModuleFacts>
readModuleFacts(llvm::StringRef File, llvm::StringRef Code,
                llvm::StringRef Module, bool IsPackage,
                llvm::StringRef RelativePath, const CallNames &Calls);

/// The absolute module a `from` import names: \p Written ("..utils",
/// "torch.nn") in module \p Module; "" if it climbs above the top package.
std::string absoluteModule(llvm::StringRef Written, llvm::StringRef Module,
                           bool IsPackage);

} // namespace python
} // namespace apistamp

#endif // APISTAMP_LIB_PYTHON_PYTHONFACTS_H
