//===- PythonProject.cpp - The Python modules of a run --------------------===//

#include "PythonProject.h"
#include "../Project.h"
#include "../SitesFromFacts.h"
#include "PythonSyntax.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
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

std::vector<std::string> Project::allBases(ArrayRef<std::string> Direct,
                                           const RuleSet &Rules, Reads &Read) {
  std::vector<std::string> Result;
  std::vector<std::string> Work(Direct.rbegin(), Direct.rend());
  std::set<std::string> Seen;
  // A chain of classes and re-exports is short; a cycle ends here.
  for (unsigned Steps = 0; !Work.empty() && Steps < 1000; ++Steps) {
    std::string Name = Work.back();
    Work.pop_back();
    if (!Seen.insert(Name).second)
      continue;
    Result.push_back(Name);
    SmallVector<StringRef, 8> Parts;
    StringRef(Name).split(Parts, '.');
    // The longest prefix that is a module of the project holds the class.
    for (size_t Split = Parts.size() - 1; Split > 0; --Split) {
      const ModuleFacts *M = moduleNamed(
          join(Parts.begin(), Parts.begin() + Split, "."), Rules, Read);
      if (!M)
        continue;
      std::string InModule = join(Parts.begin() + Split, Parts.end(), ".");
      if (auto Class = M->Classes.find(InModule); Class != M->Classes.end()) {
        for (auto Base = Class->second.rbegin(); Base != Class->second.rend();
             ++Base)
          Work.push_back(*Base);
      } else if (auto Import = M->Imports.find(Parts[Split].str());
                 Import != M->Imports.end()) {
        // A re-export: `from .resnet import ResNet` in a package.
        std::string Target = Import->second;
        for (size_t I = Split + 1; I < Parts.size(); ++I)
          Target += "." + Parts[I].str();
        Work.push_back(Target);
      } else {
        for (const std::string &Star : M->StarImports)
          Work.push_back(Star + "." + InModule);
      }
      break;
    }
  }
  return Result;
}

Project::Project(ArrayRef<TUJob> Jobs) {
  std::set<std::string> Callees;
  for (const TUJob &Job : Jobs)
    if (Job.Python)
      for (const Rule &R : Job.Rules->Rules)
        if (R.Lang == Language::Python)
          Callees.insert(R.Call.Callee);
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
  Contents[M.File] = Mod.Bytes->getBuffer();
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
