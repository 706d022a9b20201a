//===- PythonProject.cpp - The Python modules of a run --------------------===//

#include "PythonProject.h"
#include "../Project.h"
#include "../SitesFromFacts.h"
#include "PythonEdits.h"
#include "PythonSyntax.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include <functional>
#include <set>

using namespace llvm;

namespace apistamp {
namespace python {

/// The directories of \p Rules' Python path, canonical.
static std::vector<std::string> pythonPath(const RuleSet &Rules) {
  std::vector<std::string> Dirs;
  for (const std::string &Entry : Rules.PythonPath) {
    SmallString<256> Dir(Rules.Root);
    if (Entry != ".")
      sys::path::append(Dir, Entry);
    std::string Canonical = canonicalPath(Dir);
    if (!Canonical.empty())
      Dirs.push_back(std::move(Canonical));
  }
  return Dirs;
}

std::vector<std::pair<ModuleName, std::string>>
moduleNamesOf(StringRef File, const RuleSet &Rules) {
  std::vector<std::pair<ModuleName, std::string>> Names;
  for (const std::string &Dir : pythonPath(Rules)) {
    std::optional<StringRef> Relative = pathUnder(File, Dir);
    if (!Relative || !Relative->ends_with(".py"))
      continue;
    SmallVector<StringRef, 8> Parts;
    Relative->drop_back(3).split(Parts, '/');
    ModuleName Name;
    if (Parts.back() == "__init__") {
      Parts.pop_back();
      Name.IsPackage = true;
    }
    if (Parts.empty() || !all_of(Parts, isIdentifier))
      continue;
    Name.Module = join(Parts, ".");
    Names.push_back({std::move(Name), Dir});
  }
  return Names;
}

std::optional<ModuleName> moduleNameOf(StringRef File, const RuleSet &Rules) {
  std::vector<std::pair<ModuleName, std::string>> Names =
      moduleNamesOf(File, Rules);
  if (Names.empty())
    return std::nullopt;
  return Names.front().first;
}

Project::Module Project::read(StringRef File, const RuleSet &Rules) {
  Module M;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes =
      MemoryBuffer::getFile(File, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Bytes) {
    M.Error =
        File.str() + ": error: cannot read: " + Bytes.getError().message();
    return M;
  }
  M.Bytes = std::move(*Bytes);
  std::vector<std::pair<ModuleName, std::string>> Names =
      moduleNamesOf(File, Rules);
  if (Names.size() > 1) {
    M.Error = File.str() + ":1:1: error: two modules at once: '" +
              Names[0].first.Module + "' under '" + Names[0].second +
              "' and '" + Names[1].first.Module + "' under '" +
              Names[1].second +
              "' ('python: path:' lists both); keep the directory Python "
              "imports it from";
    return M;
  }
  std::optional<ModuleName> Name;
  if (!Names.empty())
    Name = Names.front().first;
  if (!Name) {
    M.Error = File.str() +
              ":1:1: error: not a module under the rules' Python path (" +
              join(pythonPath(Rules), ", ") +
              "): a Python file's module name is its path under one of "
              "them; set 'python: path:' in the rules file";
    return M;
  }
  std::optional<StringRef> Relative = pathUnder(File, Rules.Root);
  Expected<ModuleFacts> Facts =
      readModuleFacts(File, M.Bytes->getBuffer(), Name->Module, Name->IsPackage,
                      Relative ? *Relative : File, Calls);
  if (!Facts)
    M.Error = toString(Facts.takeError());
  else
    M.Facts = std::move(*Facts);
  return M;
}

const ModuleFacts *Project::moduleNamed(StringRef Dotted, const RuleSet &Rules,
                                        Reads &Read) {
  auto [It, New] = Found.try_emplace({&Rules, Dotted.str()});
  Lookup &L = It->second;
  if (New) {
    std::string Slashed = Dotted.str();
    std::replace(Slashed.begin(), Slashed.end(), '.', '/');
    for (const std::string &Dir : pythonPath(Rules)) {
      for (const char *Suffix : {".py", "/__init__.py"}) {
        std::string Path = Dir + "/" + Slashed + Suffix;
        if (sys::fs::is_regular_file(Path)) {
          L.Path = canonicalPath(Path);
          break;
        }
        L.Probed.push_back(Path);
      }
      if (!L.Path.empty())
        break;
    }
    if (!L.Path.empty() && !Files.count(L.Path))
      Files.emplace(L.Path, read(L.Path, Rules));
  }
  Read.Absent.insert(L.Probed.begin(), L.Probed.end());
  if (L.Path.empty())
    return nullptr;
  Read.Modules.insert(L.Path);
  const Module &M = Files.at(L.Path);
  return M.Facts ? &*M.Facts : nullptr;
}

bool Project::lookUpClass(StringRef Dotted, const RuleSet &Rules, Reads &Read,
                          ClassRef &Found, std::vector<std::string> &Next) {
  SmallVector<StringRef, 8> Parts;
  Dotted.split(Parts, '.');
  // The longest prefix that is a module of the project holds the class.
  for (size_t Split = Parts.size() - 1; Split > 0; --Split) {
    const ModuleFacts *M = moduleNamed(
        join(Parts.begin(), Parts.begin() + Split, "."), Rules, Read);
    if (!M)
      continue;
    std::string InModule = join(Parts.begin() + Split, Parts.end(), ".");
    if (M->Classes.count(InModule)) {
      Found = {M, InModule};
      return true;
    }
    if (auto Import = M->Imports.find(Parts[Split].str());
        Import != M->Imports.end()) {
      // A re-export: `from .resnet import ResNet` in a package.
      std::string Target = Import->second;
      for (size_t I = Split + 1; I < Parts.size(); ++I)
        Target += "." + Parts[I].str();
      Next.push_back(Target);
    } else {
      for (const std::string &Star : M->StarImports)
        Next.push_back(Star + "." + InModule);
    }
    return false;
  }
  return false;
}

void Project::walkNames(std::vector<std::string> Work, const RuleSet &Rules,
                        Reads &Read,
                        function_ref<bool(const std::string &, const ClassRef *,
                                          std::vector<std::string> &)>
                            Visit) {
  std::set<std::string> Seen;
  // A chain of classes and re-exports is short; a cycle ends here.
  for (unsigned Steps = 0; !Work.empty() && Steps < 1000; ++Steps) {
    std::string Name = Work.back();
    Work.pop_back();
    if (!Seen.insert(Name).second)
      continue;
    ClassRef Found;
    std::vector<std::string> Next;
    bool IsClass = lookUpClass(Name, Rules, Read, Found, Next);
    if (Visit(Name, IsClass ? &Found : nullptr, Work))
      return;
    Work.insert(Work.end(), Next.begin(), Next.end());
  }
}

std::vector<std::string> Project::allBases(ArrayRef<std::string> Direct,
                                           const RuleSet &Rules, Reads &Read) {
  std::vector<std::string> Result;
  walkNames({Direct.rbegin(), Direct.rend()}, Rules, Read,
            [&](const std::string &Name, const ClassRef *Class,
                std::vector<std::string> &Work) {
              Result.push_back(Name);
              if (Class) {
                const std::vector<std::string> &Bases =
                    Class->Module->Classes.at(Class->InModule);
                Work.insert(Work.end(), Bases.rbegin(), Bases.rend());
              }
              return false;
            });
  return Result;
}

std::optional<Project::ClassRef>
Project::classNamed(StringRef Dotted, const RuleSet &Rules, Reads &Read) {
  std::optional<ClassRef> Result;
  walkNames({Dotted.str()}, Rules, Read,
            [&](const std::string &, const ClassRef *Class,
                std::vector<std::string> &) {
              if (Class)
                Result = *Class;
              return Class != nullptr;
            });
  return Result;
}

std::optional<Project::ClassRef> Project::initRun(const ClassRef &C, bool Bases,
                                                  const RuleSet &Rules,
                                                  Reads &Read,
                                                  std::string &Outside) {
  enum class Search { Found, Unknown, None };
  ClassRef Result;
  // Depth first through the bases in order: an approximation of the MRO
  // that is exact for single inheritance and for mixins without __init__.
  std::function<Search(const ClassRef &, bool, unsigned)> Walk =
      [&](const ClassRef &K, bool Self, unsigned Level) {
        if (Self && K.Module->Shapes.at(K.InModule).HasInit) {
          Result = K;
          return Search::Found;
        }
        if (Level > 100) // A cycle of bases (Python refuses one).
          return Search::Unknown;
        for (const std::string &Base : K.Module->Classes.at(K.InModule)) {
          // Bases outside the project known to define no __init__.
          if (Base == "object" || Base == "builtins.object" ||
              Base == "abc.ABC" || Base == "typing.Generic")
            continue;
          std::optional<ClassRef> B = classNamed(Base, Rules, Read);
          if (!B) { // Outside the project: its __init__ is unknown.
            Outside = Base;
            return Search::Unknown;
          }
          if (Search S = Walk(*B, true, Level + 1); S != Search::None)
            return S;
        }
        return Search::None;
      };
  Outside.clear();
  if (Walk(C, !Bases, 0) != Search::Found)
    return std::nullopt;
  return Result;
}

std::vector<InheritedEvent>
Project::inheritedEvents(ArrayRef<TUJob> Modules, ArrayRef<Site> Sites,
                         std::map<std::string, std::string> *WhyNot) {
  // The selected constructors that log `self`, by file and offset.
  std::map<std::pair<std::string, unsigned>,
           std::pair<const Site *, const Rule *>>
      Logging;
  std::map<std::string, const RuleSet *> RulesOf;
  for (const TUJob &Job : Modules)
    if (Job.Python)
      RulesOf.emplace(Job.Source, Job.Rules);
  for (const Site &S : Sites) {
    if (!S.Python || S.Kind != DeclKind::Constructor ||
        S.Status == SiteStatus::Stale || S.Status == SiteStatus::Skipped ||
        S.Status == SiteStatus::Suppressed || S.Status == SiteStatus::Conflict)
      continue;
    auto Rules = RulesOf.find(S.File);
    if (Rules == RulesOf.end())
      continue;
    const Rule *R = Rules->second->rule(S.RuleId);
    if (R && callArgument(S, *R) == "self")
      Logging[{S.File, S.Offset}] = {&S, R};
  }
  std::vector<InheritedEvent> Events;
  if (Logging.empty())
    return Events;
  std::lock_guard<std::mutex> Lock(Mutex);
  Reads Read; // The reads of no cache entry: discarded.
  // Each class's constructor candidate (one per class: its __init__, or the
  // class itself when it has none), by class.
  auto ConstructorOf = [](const ModuleFacts &M,
                          StringRef InModule) -> const Candidate * {
    for (const Candidate &C : M.Facts.Candidates)
      if (C.Facts.Kind == DeclKind::Constructor &&
          join(C.Facts.Classes, ".") == InModule)
        return &C;
    return nullptr;
  };
  for (const TUJob &Job : Modules) {
    if (!Job.Python)
      continue;
    auto [It, New] = Files.try_emplace(Job.Source);
    if (New)
      It->second = read(Job.Source, *Job.Rules);
    if (!It->second.Facts)
      continue; // A failed TU if planned; else a module that cannot be read.
    const ModuleFacts &M = *It->second.Facts;
    for (const Candidate &C : M.Facts.Candidates) {
      // A class whose name is public, in any module: a private module's
      // class may be re-exported (datasets._optical_flow.FlyingChairs is
      // torchvision.datasets.FlyingChairs), and its instances log its name.
      if (C.Facts.Kind != DeclKind::Constructor ||
          llvm::any_of(C.Facts.Classes, [](const std::string &Name) {
            return StringRef(Name).starts_with("_");
          }))
        continue;
      ClassRef Class{&M, join(C.Facts.Classes, ".")};
      std::string Qualified = M.Module + "." + Class.InModule;
      auto NameOf = [](const ClassRef &K) {
        return K.Module->Module + "." + K.InModule;
      };
      std::vector<std::string> Chain;
      std::string Outside, Why;
      std::optional<ClassRef> Runs =
          initRun(Class, false, *Job.Rules, Read, Outside);
      ClassRef Last = Class;
      for (unsigned Steps = 0; Steps < 100; ++Steps) {
        if (!Runs) {
          Why = !Outside.empty()
                    ? "the constructor it runs is that of '" + Outside +
                          "', a base outside the project (what it logs is "
                          "not known)"
                : Last.Module == &M && Last.InModule == Class.InModule
                    ? "no class on its bases' chains defines __init__"
                    : "no constructor it runs logs `self` (the chain ends "
                      "at '" +
                          NameOf(Last) + "')";
          break;
        }
        bool Itself = Runs->Module == &M && Runs->InModule == Class.InModule;
        const Candidate *Init = ConstructorOf(*Runs->Module, Runs->InModule);
        auto Log = Init ? Logging.find({Runs->Module->File, Init->Offset})
                        : Logging.end();
        if (Log != Logging.end()) {
          if (Itself)
            break; // Its own site.
          auto [Base, R] = Log->second;
          InheritedEvent E;
          E.Event = R->Event.expand(C.Facts);
          E.File = M.File;
          const ClassShape &Shape = M.Shapes.at(Class.InModule);
          E.Line = Shape.Line;
          E.Column = Shape.Column;
          E.QualifiedName = Qualified;
          E.ThroughEvent = Base->Event;
          E.ThroughFile = Base->File;
          E.ThroughLine = Base->Line;
          E.ThroughName = NameOf(*Runs);
          E.ThroughStatus = Base->Status;
          E.RuleId = Base->RuleId;
          E.Chain = std::move(Chain);
          Events.push_back(std::move(E));
          break;
        }
        if (!Runs->Module->Shapes.at(Runs->InModule).InitCallsSuper) {
          Why = Itself ? "its __init__ does not call super().__init__()"
                       : "the __init__ of '" + NameOf(*Runs) +
                             "', which it runs, does not call "
                             "super().__init__()";
          break;
        }
        if (!Itself)
          Chain.push_back(NameOf(*Runs));
        Last = *Runs;
        Runs = initRun(Last, true, *Job.Rules, Read, Outside);
      }
      if (WhyNot && !Why.empty())
        (*WhyNot)[Qualified] = "no event through a base: " + Why;
    }
  }
  return Events;
}

Project::Project(ArrayRef<TUJob> Jobs) {
  std::set<std::string> Callees;
  for (const TUJob &Job : Jobs)
    if (Job.Python)
      for (const std::string &Callee : Job.Rules->recognisedCalls())
        Callees.insert(Callee);
  Calls.Callees.assign(Callees.begin(), Callees.end());
  std::set<std::string> Guards;
  for (const TUJob &Job : Jobs)
    if (Job.Python)
      for (const Rule &R : Job.Rules->Rules)
        if (R.Lang == Language::Python && !R.Call.Guard.empty())
          Guards.insert(conditionText(R.Call.Guard));
  Calls.Guards.assign(Guards.begin(), Guards.end());
}

const Project::Module &Project::moduleAt(const std::string &File,
                                         const RuleSet &Rules) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (auto It = Files.find(File); It != Files.end())
      return It->second;
  }
  // Read outside the lock: the run's threads parse their files in parallel.
  Module Read = read(File, Rules);
  std::lock_guard<std::mutex> Lock(Mutex);
  return Files.try_emplace(File, std::move(Read)).first->second;
}

Project::~Project() = default;

/// Whether \p C is the definition \p Target names: by qualified name, or
/// the innermost one whose lines hold the target's line.
static bool isTarget(const Candidate &C, const ExplainTarget &Target) {
  if (!Target.QualifiedName.empty())
    return C.QualifiedName == Target.QualifiedName;
  return C.File == Target.File && C.BeginLine <= Target.Line &&
         Target.Line <= C.EndLine;
}

TUResult Project::analyse(const TUJob &Job, const ExplainTarget *Target,
                          bool Unselected) {
  TUResult Result;
  const Module &Mod = moduleAt(Job.Source, *Job.Rules);
  if (!Mod.Facts) {
    Result.ParseFailed = true;
    Result.Diagnostics = Mod.Error + "\n";
    return Result;
  }
  ModuleFacts M = *Mod.Facts;
  // Each class's bases through the project's modules (read as the chains
  // need them, one thread at a time).
  Reads Read;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    for (Candidate &C : M.Facts.Candidates)
      if (!C.Facts.Bases.empty())
        C.Facts.Bases = allBases(C.Facts.Bases, *Job.Rules, Read);
  }
  FileBytes Contents;
  Contents[M.File] = SharedBytes(Mod.Bytes->getBuffer());
  std::vector<std::optional<size_t>> SiteOf =
      sitesFromFacts(M.Facts, *Job.Rules, Unselected, Contents, Result);
  // What the result cache stores, and what an entry depends on.
  Result.Dependencies.push_back({M.File, xxh3_64bits(Mod.Bytes->getBuffer())});
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    for (const std::string &Path : Read.Modules) {
      auto Module = Files.find(Path);
      if (Path != M.File && Module != Files.end() && Module->second.Bytes)
        Result.Dependencies.push_back(
            {Path, xxh3_64bits(Module->second.Bytes->getBuffer())});
    }
  }
  Result.Absent.assign(Read.Absent.begin(), Read.Absent.end());
  llvm::sort(Result.Dependencies);
  Result.Facts = M.Facts;
  if (!Target)
    return Result;
  // explain: the innermost definition at the line, or every one so named.
  std::optional<size_t> Innermost;
  for (size_t I = 0; I < M.Facts.Candidates.size(); ++I) {
    const Candidate &C = M.Facts.Candidates[I];
    if (!isTarget(C, *Target))
      continue;
    if (Target->QualifiedName.empty() && Innermost &&
        M.Facts.Candidates[*Innermost].BeginLine > C.BeginLine)
      continue;
    if (Target->QualifiedName.empty()) {
      Innermost = I;
      continue;
    }
    Innermost = I;
    break;
  }
  if (!Innermost)
    return Result;
  const Candidate &C = M.Facts.Candidates[*Innermost];
  Explanation E;
  E.File = C.File;
  E.Line = C.Line;
  E.Column = C.Column;
  E.SpanLines = C.EndLine - C.BeginLine + 1;
  E.QualifiedName = C.QualifiedName;
  E.Kind = kindName(C.Facts.Kind).str();
  for (const Rule &R : Job.Rules->Rules)
    if (R.Lang == Language::Python) // C++ rules say nothing of Python.
      E.Rules.push_back({R.Id, R.Line, evaluateRule(R, C.Facts).Rejection});
  if (SiteOf[*Innermost]) {
    E.Outcome = Explanation::Selected;
    E.SelectedSite = Result.Sites[*SiteOf[*Innermost]];
  }
  Result.Explanations.push_back(std::move(E));
  return Result;
}

} // namespace python
} // namespace apistamp
