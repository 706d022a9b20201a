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
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
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
/// Under two (nested path entries), the first.
std::optional<ModuleName> moduleNameOf(llvm::StringRef File,
                                       const RuleSet &Rules);

/// Every module \p File is under \p Rules' Python path, with the path
/// directory it is under: two make the file ambiguous.
std::vector<std::pair<ModuleName, std::string>>
moduleNamesOf(llvm::StringRef File, const RuleSet &Rules);

/// The Python sources of one run, read and resolved.
class Project {
public:
  /// A project of \p Jobs' Python files (others are ignored), each read
  /// when analysed.
  explicit Project(llvm::ArrayRef<TUJob> Jobs);
  ~Project();

  /// What the rules of \p Job make of its file, as analyseTU gives a C++
  /// TU's result; a file that does not read or parse is a failed TU.
  /// Thread-safe: the run's threads call it for their jobs.
  TUResult analyse(const TUJob &Job, const ExplainTarget *Target,
                   bool Unselected);

  /// The events the public classes of \p Modules log through a base's
  /// constructor that a selected site of \p Sites makes log `self`
  /// (InheritedEvent), in \p Modules' order, then by line. \p Modules are
  /// every Python file of the run with its rules, the ones no rule selects
  /// in too (a subclass in any module logs); those not yet read are read
  /// now. Not thread-safe: called once the jobs are analysed.
  /// With \p WhyNot, each other public class's reason (by qualified name).
  std::vector<InheritedEvent>
  inheritedEvents(llvm::ArrayRef<TUJob> Modules, llvm::ArrayRef<Site> Sites,
                  std::map<std::string, std::string> *WhyNot = nullptr);

  /// What the rules make a parse look for: the functions their calls call
  /// and their guards' conditions, sorted (a cache key's part).
  std::vector<std::string> callShapes() const {
    std::vector<std::string> Shapes = Calls.Callees;
    for (const std::string &Guard : Calls.Guards)
      Shapes.push_back("if " + Guard);
    return Shapes;
  }

private:
  struct Module {
    std::unique_ptr<llvm::MemoryBuffer> Bytes;
    std::optional<ModuleFacts> Facts;
    std::string Error; ///< Why it could not be read, if it could not.
  };
  /// What a job's facts depend on besides its file: the modules its
  /// classes' base chains were read from, and the paths probed for a
  /// module that were not there (one that appears may change a chain).
  struct Reads {
    std::set<std::string> Modules, Absent;
  };
  /// The module \p Dotted of \p Rules' project, read if not yet; null if
  /// the project has no such module or it does not parse. Adds what it
  /// looked at to \p Read.
  const ModuleFacts *moduleNamed(llvm::StringRef Dotted, const RuleSet &Rules,
                                 Reads &Read);
  /// Every base of a class whose direct bases are \p Direct, through the
  /// project's modules: each as written (resolved through imports) and as
  /// the class it re-exports.
  std::vector<std::string> allBases(llvm::ArrayRef<std::string> Direct,
                                    const RuleSet &Rules, Reads &Read);
  /// A class definition of the project: its module and its name there.
  struct ClassRef {
    const ModuleFacts *Module = nullptr;
    std::string InModule;
    bool operator<(const ClassRef &O) const {
      return std::tie(Module->File, InModule) <
             std::tie(O.Module->File, O.InModule);
    }
  };
  /// One step of resolving the class \p Dotted: its definition if the
  /// module holding it defines it (true), else the names it may be bound to
  /// there (a re-export, star imports) added to \p Next.
  bool lookUpClass(llvm::StringRef Dotted, const RuleSet &Rules, Reads &Read,
                   ClassRef &Found, std::vector<std::string> &Next);
  /// Walks the names of \p Work (the last first), each once, through the
  /// project's modules: \p Visit sees each name with its class definition
  /// (null for a name that is no class here, whose re-exports are walked
  /// next), may add names to walk, and returns true to stop.
  void walkNames(std::vector<std::string> Work, const RuleSet &Rules,
                 Reads &Read,
                 llvm::function_ref<bool(const std::string &, const ClassRef *,
                                         std::vector<std::string> &)>
                     Visit);
  /// The definition of the class \p Dotted, through re-exports; none if it
  /// is not the project's.
  std::optional<ClassRef> classNamed(llvm::StringRef Dotted,
                                     const RuleSet &Rules, Reads &Read);
  /// What a construction of \p C runs first: its own __init__ (unless
  /// \p Bases, what its super().__init__ calls), else the first one on its
  /// bases' chains, depth first; none if a base is not the project's (its
  /// constructor is unknown: named in \p Outside) or no class defines one.
  std::optional<ClassRef> initRun(const ClassRef &C, bool Bases,
                                  const RuleSet &Rules, Reads &Read,
                                  std::string &Outside);
  Module read(llvm::StringRef File, const RuleSet &Rules);
  /// The module in \p File, read if not yet.
  const Module &moduleAt(const std::string &File, const RuleSet &Rules);

  /// By canonical path: the jobs' files and the modules base chains read.
  std::map<std::string, Module> Files;
  /// Dotted module name -> canonical path ("" if none) and the paths
  /// probed before it, per rules file.
  struct Lookup {
    std::string Path;
    std::vector<std::string> Probed;
  };
  std::map<std::pair<const RuleSet *, std::string>, Lookup> Found;
  /// Guards Files and Found.
  std::mutex Mutex;
  CallNames Calls;
};

} // namespace python
} // namespace apistamp

#endif // APISTAMP_LIB_PYTHON_PYTHONPROJECT_H
