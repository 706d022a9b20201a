//===- PythonProject.h - The Python modules of a run ------------*- C++ -*-===//
//
// The Python front end's second stage: every Python source of a run read
// once (PythonFacts.h), each class's bases resolved across the project's
// modules (reading the modules a base chain leads to, and only those), and
// each file's facts decided by the rules (sitesFromFacts) into a TUResult,
// as a C++ TU's are. The merge, decideSite and the commands then serve both
// languages alike.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_PYTHON_PYTHONPROJECT_H
#define APISTAMP_LIB_PYTHON_PYTHONPROJECT_H

#include "PythonFacts.h"
#include "apistamp/Site.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace apistamp {

struct TUJob;

namespace python {

/// A Python file's module name under the rules' `python: path:`.
struct ModuleName {
  std::string Module;     ///< "torchvision.models.resnet"
  bool IsPackage = false; ///< An __init__.py: Module is the package.
};

/// The module \p File (canonical) is, under \p Rules' Python path; none if
/// it is under none of its directories (or its name is not a module's).
std::optional<ModuleName> moduleNameOf(llvm::StringRef File,
                                       const RuleSet &Rules);

/// The Python sources of one run, read and resolved.
class Project {
public:
  /// Reads the file of each Python job of \p Jobs (others are ignored).
  explicit Project(llvm::ArrayRef<TUJob> Jobs);
  ~Project();

  /// What the rules of \p Job make of its file, as analyseTU gives a C++
  /// TU's result; a file that does not read or parse is a failed TU.
  TUResult analyse(const TUJob &Job, const ExplainTarget *Target,
                   bool Unselected) const;

private:
  struct Module {
    std::unique_ptr<llvm::MemoryBuffer> Bytes;
    std::optional<ModuleFacts> Facts;
    std::string Error; ///< Why it could not be read, if it could not.
  };
  /// The module \p Dotted of \p Rules' project, read if not yet; null if
  /// the project has no such module or it does not parse.
  const ModuleFacts *moduleNamed(llvm::StringRef Dotted, const RuleSet &Rules);
  /// Every base of a class whose direct bases are \p Direct, through the
  /// project's modules: each as written (resolved through imports) and as
  /// the class it re-exports.
  std::vector<std::string> allBases(llvm::ArrayRef<std::string> Direct,
                                    const RuleSet &Rules);
  Module read(llvm::StringRef File, const RuleSet &Rules);

  /// By canonical path: the jobs' files and the modules base chains read.
  std::map<std::string, Module> Files;
  /// Dotted module name -> canonical path ("" if none), per rules file.
  std::map<std::pair<const RuleSet *, std::string>, std::string> Found;
  CallNames Calls;
};

} // namespace python
} // namespace apistamp

#endif // APISTAMP_LIB_PYTHON_PYTHONPROJECT_H
