//===- Project.cpp - Plan a run: which TUs, with which command and rules --===//

#include "Project.h"
#include "apistamp/Analysis.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "python/PythonProject.h"
#include "clang/Driver/Types.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;
using namespace clang;
using namespace clang::tooling;

namespace apistamp {

bool isCppSource(StringRef Path) {
  return driver::types::lookupTypeForExtension(
             sys::path::extension(Path).drop_front()) == driver::types::TY_CXX;
}

std::vector<const RuleSet *> Project::sortedRuleSets() const {
  std::vector<const RuleSet *> Sets;
  for (const auto &Entry : RuleSets)
    Sets.push_back(Entry.second.get());
  llvm::sort(Sets, [](const RuleSet *L, const RuleSet *R) {
    return L->Path < R->Path;
  });
  return Sets;
}

namespace {

/// The rules file for \p Source: --rules, or the nearest .apistamp.yaml
/// above it; "" if none.
std::string rulesPathFor(const PlanRequest &Opts, StringRef Source) {
  return Opts.RulesFile.empty() ? findRulesFileFor(Source) : Opts.RulesFile;
}

Error usageError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(),
                           "apistamp: error: " + Message);
}

/// The rules files of a plan, each loaded once, with --root applied and
/// the root made canonical.
class RulesFiles {
public:
  RulesFiles(Project &P, StringRef Root) : P(P), Root(Root) {}

  /// The rules file at \p Path, loaded on first use.
  Expected<RuleSet *> load(StringRef Path) {
    return load(Path, P.RuleSets[canonicalPath(Path)]);
  }

  /// The rules file at \p Path for a TU of Project::Others: the one this
  /// run uses, or one of its own.
  Expected<RuleSet *> loadForOthers(StringRef Path) {
    std::string Canonical = canonicalPath(Path);
    auto Used = P.RuleSets.find(Canonical);
    if (Used != P.RuleSets.end())
      return Used->second.get();
    return load(Path, P.OtherRuleSets[Canonical]);
  }

private:
  Expected<RuleSet *> load(StringRef Path, std::unique_ptr<RuleSet> &Slot) {
    if (Slot)
      return Slot.get();
    Expected<RuleSet> Loaded = loadRules(Path);
    if (!Loaded)
      return Loaded.takeError();
    Loaded->Root = canonicalPath(Root.empty() ? Loaded->Root : Root);
    if (Loaded->Root == "/")
      return usageError(
          "the root of '" + Loaded->Path +
          "' would be '/', the whole file system: apistamp could then "
          "write anywhere; pass --root with the project's directory");
    Slot = std::make_unique<RuleSet>(std::move(*Loaded));
    return Slot.get();
  }

public:
  /// The `compile_commands` directory of the rules file that applies to
  /// \p File (--rules, or the nearest .apistamp.yaml), or "". A rules file
  /// that does not load is the error: it may be what names the build, and
  /// a missing database would be the wrong thing to say.
  Expected<std::string> compileCommandsDirFor(const PlanRequest &Opts,
                                              StringRef File) {
    std::string RulesPath = rulesPathFor(Opts, File);
    if (RulesPath.empty())
      return "";
    Expected<RuleSet *> Rules = load(RulesPath);
    if (!Rules)
      return Rules.takeError();
    const std::string &Dir = (*Rules)->CompileCommandsDir;
    if (!Dir.empty() && !pathUnder(canonicalPath(Dir), (*Rules)->Root))
      P.DatabaseOutsideRoot = {Dir, (*Rules)->Path};
    return Dir;
  }

private:
  Project &P;
  std::string Root;
};

/// Checks what can be checked before anything is loaded.
Error checkSources(const PlanRequest &Opts) {
  if (Opts.Sources.empty() && Opts.BuildDir.empty())
    return usageError("no sources given; pass source files or -p BUILD_DIR "
                      "to process every C++ file of a compilation database "
                      "(or set 'compile_commands' in the rules file)");
  if (Opts.Sources.empty() && Opts.CompilerArgs)
    return usageError("compiler arguments after '--' need source files");
  for (const std::string &Source : Opts.Sources)
    if (!sys::fs::is_regular_file(Source))
      return usageError("no such file: '" + Source + "'");
  return Error::success();
}

Expected<std::unique_ptr<CompilationDatabase>>
loadCompilationDatabase(const PlanRequest &Opts, RulesFiles &Rules,
                        std::string &BuildDirUsed) {
  std::string Message;
  if (Opts.CompilerArgs)
    return std::make_unique<FixedCompilationDatabase>(".", *Opts.CompilerArgs);
  std::unique_ptr<CompilationDatabase> DB;
  std::string BuildDir = Opts.BuildDir;
  // The rules may say where the build is (`compile_commands:`).
  if (BuildDir.empty() && !Opts.Sources.empty()) {
    Expected<std::string> Dir =
        Rules.compileCommandsDirFor(Opts, Opts.Sources.front());
    if (!Dir)
      return Dir.takeError();
    BuildDir = *Dir;
  }
  if (!BuildDir.empty()) {
    BuildDirUsed = BuildDir;
    DB = CompilationDatabase::loadFromDirectory(BuildDir, Message);
    if (!DB)
      return usageError(
          "cannot load a compilation database from '" + BuildDir + "'" +
          (Opts.BuildDir.empty() ? " (the rules file's 'compile_commands')"
                                 : "") +
          ": " + Message);
  } else {
    DB = CompilationDatabase::autoDetectFromSource(Opts.Sources.front(),
                                                   Message);
    if (!DB)
      return usageError("no compile_commands.json found above '" +
                        Opts.Sources.front() +
                        "'; pass -p BUILD_DIR or compiler arguments after "
                        "'--'");
  }
  // Headers and new files get a command inferred from a neighbouring source.
  return inferMissingCompileCommands(std::move(DB));
}

/// The TUs to analyse: the given sources, or every C++ file of the database.
Expected<std::vector<std::string>>
collectSources(const PlanRequest &Opts, const CompilationDatabase &DB) {
  std::vector<std::string> Sources;
  if (!Opts.Sources.empty()) {
    for (const std::string &Source : Opts.Sources)
      Sources.push_back(canonicalPath(Source));
  } else {
    for (const std::string &File : DB.getAllFiles())
      if (isCppSource(File))
        Sources.push_back(canonicalPath(File));
  }
  llvm::sort(Sources);
  Sources.erase(std::unique(Sources.begin(), Sources.end()), Sources.end());
  if (Sources.empty())
    return usageError("the compilation database in '" + Opts.BuildDir +
                      "' lists no C++ sources");
  return Sources;
}

/// \p CommandLine with --extra-arg-before after the compiler and --extra-arg
/// at the end (before a "--" that ends an interpolated command).
std::vector<std::string> withExtraArgs(const PlanRequest &Opts,
                                       std::vector<std::string> CommandLine,
                                       StringRef File) {
  ArgumentsAdjuster Adjust = combineAdjusters(
      getInsertArgumentAdjuster(Opts.ExtraArgsBefore,
                                ArgumentInsertPosition::BEGIN),
      getInsertArgumentAdjuster(Opts.ExtraArgs, ArgumentInsertPosition::END));
  return Adjust(CommandLine, File);
}

/// The compile commands of \p Source that parse differently, with the extra
/// arguments, in an order independent of the database's.
std::vector<CompileCommand> distinctCommands(const PlanRequest &Opts,
                                             const CompilationDatabase &DB,
                                             StringRef Source) {
  std::vector<CompileCommand> Commands = DB.getCompileCommands(Source);
  // Commands that differ only in what they would write (RE2 compiles
  // util/test.cc once per test binary, each with its own -o) are one
  // parse: the first of them by its whole command line stands for all.
  struct Keyed {
    std::vector<std::string> Parse;
    CompileCommand Command;
  };
  std::vector<Keyed> All;
  for (CompileCommand &Command : Commands) {
    Command.CommandLine =
        withExtraArgs(Opts, Command.CommandLine, Command.Filename);
    std::vector<std::string> Parse = frontendArguments(Command);
    All.push_back({std::move(Parse), std::move(Command)});
  }
  llvm::sort(All, [](const Keyed &L, const Keyed &R) {
    return std::tie(L.Command.Directory, L.Parse, L.Command.CommandLine) <
           std::tie(R.Command.Directory, R.Parse, R.Command.CommandLine);
  });
  All.erase(std::unique(All.begin(), All.end(),
                        [](const Keyed &L, const Keyed &R) {
                          return L.Command.Directory == R.Command.Directory &&
                                 L.Parse == R.Parse;
                        }),
            All.end());
  Commands.clear();
  for (Keyed &K : All)
    Commands.push_back(std::move(K.Command));
  return Commands;
}

/// Whether a run of \p Opts on named files skips those no rule can select.
bool skipsUnselectableFiles(const PlanRequest &Opts) {
  return !Opts.Sources.empty() && Opts.SkipUnselectableFiles;
}

/// Whether a run must parse \p Path: a rule can select something in it, or
/// it names the rules' macro (a call there may be stale: a rule removed, the
/// file newly excluded). Finding the name is cheaper than a parse.
bool canSelectIn(const RuleSet &Rules, StringRef Path) {
  std::optional<StringRef> Relative = pathUnder(Path, Rules.Root);
  if (!Relative)
    return false;
  if (fileCanBeSelected(Rules, *Relative))
    return true;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Path);
  return !Text || Rules.mentionsAMacro((*Text)->getBuffer());
}

/// The source files the database lists, canonical and sorted.
std::vector<std::string> listedSources(const CompilationDatabase &DB) {
  std::vector<std::string> Listed;
  for (const std::string &File : DB.getAllFiles())
    Listed.push_back(canonicalPath(File));
  llvm::sort(Listed);
  Listed.erase(std::unique(Listed.begin(), Listed.end()), Listed.end());
  return Listed;
}

/// The first source of \p Listed whose TU reads \p Header, trying the
/// sources nearest to it in the directory tree first, then by path: the
/// same choice on every machine. "" if none does.
std::string findIncludingSource(const PlanRequest &Opts,
                                const CompilationDatabase &DB,
                                std::vector<std::string> Listed,
                                StringRef Header) {
  // Directory steps from Header's directory to Path's: up, then down.
  auto Distance = [Header](StringRef Path) {
    StringRef From = sys::path::parent_path(Header);
    StringRef To = sys::path::parent_path(Path);
    size_t Common = 0;
    for (size_t I = 0; I <= std::min(From.size(), To.size()); ++I) {
      bool FromEnd = I == From.size() || From[I] == '/';
      bool ToEnd = I == To.size() || To[I] == '/';
      if (FromEnd && ToEnd)
        Common = I;
      if (I == From.size() || I == To.size() || From[I] != To[I])
        break;
    }
    return From.drop_front(Common).count('/') +
           To.drop_front(Common).count('/');
  };
  llvm::stable_sort(Listed, [&](const std::string &L, const std::string &R) {
    return Distance(L) < Distance(R);
  });
  for (const std::string &Source : Listed) {
    if (!isCppSource(Source))
      continue;
    std::vector<CompileCommand> Commands = distinctCommands(Opts, DB, Source);
    if (Commands.empty())
      continue;
    std::vector<std::string> Reached = filesReachedBy(Commands.front());
    if (std::binary_search(Reached.begin(), Reached.end(), Header.str()))
      return Source;
  }
  return "";
}

/// Every ShardCount-th TU by path, from the ShardIndex-th: the same split on
/// every machine, whatever order the database lists TUs in.
std::vector<TUJob> shardOf(std::vector<TUJob> TUs, unsigned Index,
                           unsigned Count) {
  if (Count <= 1)
    return TUs;
  std::vector<TUJob> Mine;
  for (size_t I = Index - 1; I < TUs.size(); I += Count)
    Mine.push_back(std::move(TUs[I]));
  return Mine;
}

/// Adds the TUs of \p Source, under \p Rules, to \p P: one per distinct
/// compile command. \p Listed caches the database's sources.
void addTUs(const PlanRequest &Opts, Project &P, std::vector<TUJob> &Into,
            const RuleSet &Rules, const std::string &Source,
            std::optional<std::vector<std::string>> &Listed) {
  // A header or fragment the database does not list (a .inl included
  // inside a namespace need not parse alone) is analysed through a TU
  // that includes it.
  std::string Includer;
  if (!Opts.Sources.empty() && !isCppSource(Source)) {
    if (!Listed)
      Listed = listedSources(*P.Database);
    if (!std::binary_search(Listed->begin(), Listed->end(), Source))
      Includer = findIncludingSource(Opts, *P.Database, *Listed, Source);
  }
  // Every distinct configuration of the file (shared and static builds,
  // other defines) is a TU of its own.
  std::vector<CompileCommand> Commands = distinctCommands(
      Opts, *P.Database, Includer.empty() ? StringRef(Source) : Includer);
  if (Commands.empty())
    Into.push_back(TUJob{Source, &Rules, std::nullopt, 1, "", {}});
  for (CompileCommand &Command : Commands)
    Into.push_back(TUJob{Includer.empty() ? Source : Includer,
                         &Rules,
                         std::move(Command),
                         unsigned(Commands.size()),
                         Includer.empty() ? "" : Source,
                         {}});
}

/// Plans Project::Others: every TU a whole-project run of \p Opts would
/// analyse but \p P's (whole) TUs. A source whose rules do not load is
/// listed in OthersUnplanned; it is this run's rules that must load.
void planOthers(const PlanRequest &Opts, Project &P, RulesFiles &Rules) {
  PlanRequest Whole = Opts;
  Whole.Sources.clear();
  Expected<std::vector<std::string>> Sources =
      collectSources(Whole, *P.Database);
  if (!Sources) {
    consumeError(Sources.takeError());
    return;
  }
  std::optional<std::vector<std::string>> Listed;
  std::vector<TUJob> All;
  for (const std::string &Source : *Sources) {
    std::string RulesPath = rulesPathFor(Opts, Source);
    if (RulesPath.empty())
      continue;
    Expected<RuleSet *> Loaded = Rules.loadForOthers(RulesPath);
    if (!Loaded) {
      consumeError(Loaded.takeError());
      P.OthersUnplanned.push_back(Source);
      continue;
    }
    addTUs(Whole, P, All, **Loaded, Source, Listed);
  }
  P.OthersPlanned = true;
  llvm::erase_if(All, [&P](const TUJob &Other) {
    return llvm::any_of(P.TUs, [&Other](const TUJob &Mine) {
      return Mine.ReportOnly.empty() && sameParse(Mine, Other);
    });
  });
  P.Others = std::move(All);
}

/// A proxy TU for a header is redundant when that TU is analysed whole.
void dropRedundantProxies(std::vector<TUJob> &TUs) {
  llvm::StringSet<> Whole;
  for (const TUJob &TU : TUs)
    if (TU.ReportOnly.empty())
      Whole.insert(TU.Source);
  llvm::erase_if(TUs, [&Whole](const TUJob &TU) {
    return !TU.ReportOnly.empty() && Whole.contains(TU.Source);
  });
}

} // namespace

bool sameParse(const TUJob &L, const TUJob &R) {
  if (L.Source != R.Source || L.Command.has_value() != R.Command.has_value())
    return false;
  return !L.Command || (L.Command->Directory == R.Command->Directory &&
                        L.Command->CommandLine == R.Command->CommandLine);
}

bool isPythonSource(StringRef Path) { return Path.ends_with(".py"); }

/// Adds every .py file under \p Dir (not under hidden directories or
/// __pycache__) to \p Python, canonical.
static Error addPythonFilesUnder(StringRef Dir,
                                 std::vector<std::string> &Python) {
  std::error_code EC;
  // Symbolic links are not followed: a linked directory can loop, and a
  // linked file is another file's (named, it is that file).
  for (sys::fs::recursive_directory_iterator It(Dir, EC,
                                                /*follow_symlinks=*/false),
       End;
       It != End && !EC; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    if (It->type() == sys::fs::file_type::directory_file) {
      if (Name.starts_with(".") || Name == "__pycache__")
        It.no_push();
      continue;
    }
    if (It->type() == sys::fs::file_type::regular_file && isPythonSource(Name))
      Python.push_back(canonicalPath(It->path()));
  }
  if (EC)
    return usageError("cannot list '" + Dir + "': " + EC.message());
  return Error::success();
}

/// The Python files among \p Sources, taken out of them: named .py files,
/// and every .py file under a named directory, canonical and sorted.
static Expected<std::vector<std::string>>
takePythonSources(std::vector<std::string> &Sources) {
  std::vector<std::string> Python, Rest;
  for (const std::string &Source : Sources) {
    if (isPythonSource(Source) && sys::fs::is_regular_file(Source)) {
      Python.push_back(canonicalPath(Source));
      continue;
    }
    if (!sys::fs::is_directory(Source)) {
      Rest.push_back(Source);
      continue;
    }
    if (Error E = addPythonFilesUnder(Source, Python))
      return std::move(E);
  }
  llvm::sort(Python);
  Python.erase(std::unique(Python.begin(), Python.end()), Python.end());
  Sources = std::move(Rest);
  return Python;
}

/// A whole-project run's Python files: those of \p Rules' Python path
/// under the packages its Python rules' `modules` name ("torchvision" for
/// "torchvision.models.**"; the whole path for a rule without `modules`, or
/// one whose first component is a glob), sorted. None without Python rules.
static Expected<std::vector<std::string>>
wholeProjectPython(const RuleSet &Rules) {
  std::vector<std::string> Python;
  std::set<std::string> Packages;
  bool WholePath = false;
  for (const Rule &R : Rules.Rules) {
    if (R.Lang != Language::Python)
      continue;
    if (R.Modules.empty())
      WholePath = true;
    for (const ModulePattern &M : R.Modules) {
      StringRef Top = StringRef(M.pattern()).split('.').first;
      if (Top.find_first_of("*?[]{}\\") != StringRef::npos)
        WholePath = true;
      else
        Packages.insert(Top.str());
    }
  }
  if (!WholePath && Packages.empty())
    return Python;
  for (const std::string &Entry : Rules.PythonPath) {
    SmallString<256> Dir(Rules.Root);
    if (Entry != ".")
      sys::path::append(Dir, Entry);
    if (!sys::fs::is_directory(Dir))
      continue;
    if (WholePath) {
      if (Error E = addPythonFilesUnder(Dir, Python))
        return std::move(E);
      continue;
    }
    for (const std::string &Package : Packages) {
      SmallString<256> Path(Dir);
      sys::path::append(Path, Package);
      if (sys::fs::is_directory(Path)) {
        if (Error E = addPythonFilesUnder(Path, Python))
          return std::move(E);
      } else if (sys::fs::is_regular_file(Path + ".py")) {
        Python.push_back(canonicalPath((Path + ".py").str()));
      }
    }
  }
  llvm::sort(Python);
  Python.erase(std::unique(Python.begin(), Python.end()), Python.end());
  return Python;
}

/// Whether a run must read the Python file \p Path: it is a module of the
/// rules' Python path and a Python rule can select something in it (by its
/// module and file), or it names a rule's callee (a call there may be
/// stale). Finding the name is cheaper than a parse.
static bool canSelectInPython(const RuleSet &Rules, StringRef Path) {
  std::optional<python::ModuleName> Name = python::moduleNameOf(Path, Rules);
  std::optional<StringRef> Relative = pathUnder(Path, Rules.Root);
  if (!Name || !Relative)
    return false;
  if (moduleCanBeSelected(Rules, Name->Module, *Relative))
    return true;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Path);
  return !Text || any_of(Rules.Rules, [&](const Rule &R) {
    return R.Lang == Language::Python &&
           (*Text)->getBuffer().contains(R.Call.Callee);
  });
}

/// Plans the Python files \p Python: one job each, with its rules.
static Error planPython(const PlanRequest &Opts, bool SkipUnselectable,
                        Project &P, RulesFiles &Rules,
                        ArrayRef<std::string> Python) {
  for (const std::string &Source : Python) {
    std::string RulesPath = rulesPathFor(Opts, Source);
    if (RulesPath.empty())
      return usageError("no .apistamp.yaml found in the directories above '" +
                        Source + "'; pass --rules FILE");
    Expected<RuleSet *> Loaded = Rules.load(RulesPath);
    if (!Loaded)
      return Loaded.takeError();
    if (!pathUnder(Source, (*Loaded)->Root))
      return usageError("'" + Source + "' is outside the root '" +
                        (*Loaded)->Root +
                        "': apistamp writes only under the root; pass "
                        "--root with the project's directory");
    if (std::vector<std::pair<python::ModuleName, std::string>> Names =
            python::moduleNamesOf(Source, **Loaded);
        Names.size() > 1)
      return usageError("'" + Source + "' is two modules at once: '" +
                        Names[0].first.Module + "' under '" + Names[0].second +
                        "' and '" + Names[1].first.Module + "' under '" +
                        Names[1].second +
                        "' ('python: path:' lists both); keep the directory "
                        "Python imports it from");
    // A Python file no rule can select: rules without Python rules, or a
    // script that is no module of the rules' Python path (setup.py, a CI
    // script the pre-commit hook passes): skipped, as a C++ file no rule's
    // files match is.
    TUJob Job;
    Job.Source = Source;
    Job.Rules = *Loaded;
    Job.Python = true;
    if (SkipUnselectable && !canSelectInPython(**Loaded, Source)) {
      P.NotSelectable.push_back(Source);
      P.UnselectablePython.push_back(std::move(Job));
      continue;
    }
    P.TUs.push_back(std::move(Job));
  }
  return Error::success();
}

/// Plans the C++ part of a run into \p P.
static Error planCxx(PlanRequest &Opts, Project &P, RulesFiles &Rules) {
  // No sources and no -p: the whole project whose rules file (found from
  // the current directory) says where its build is.
  if (Opts.Sources.empty() && Opts.BuildDir.empty() && !Opts.CompilerArgs) {
    Expected<std::string> Dir =
        Rules.compileCommandsDirFor(Opts, currentDirectory() + "/.");
    if (!Dir)
      return Dir.takeError();
    Opts.BuildDir = *Dir;
  }
  if (Error E = checkSources(Opts))
    return E;
  std::string BuildDir;
  Expected<std::unique_ptr<CompilationDatabase>> DB =
      loadCompilationDatabase(Opts, Rules, BuildDir);
  if (!DB)
    return DB.takeError();
  P.BuildDir = BuildDir;
  P.Database = std::move(*DB);
  if (!BuildDir.empty()) {
    P.Installed = readInstalledFiles(BuildDir);
    P.Installed.setCompiled(P.Database->getAllFiles());
  }
  Expected<std::vector<std::string>> Sources =
      collectSources(Opts, *P.Database);
  if (!Sources)
    return Sources.takeError();
  if (!Opts.Root.empty() && !sys::fs::is_directory(Opts.Root))
    return usageError("--root '" + Opts.Root + "' is not a directory");
  // One rules file for all, or the nearest .apistamp.yaml of each source; in
  // a whole-project run, TUs outside every policy are skipped.
  std::optional<std::vector<std::string>> Listed;
  for (const std::string &Source : *Sources) {
    std::string RulesPath = rulesPathFor(Opts, Source);
    if (RulesPath.empty() && Opts.Sources.empty()) {
      P.WithoutRules.push_back(Source);
      continue;
    }
    if (RulesPath.empty())
      return usageError("no .apistamp.yaml found in the directories above '" +
                        Source + "'; pass --rules FILE");
    Expected<RuleSet *> Loaded = Rules.load(RulesPath);
    if (!Loaded)
      return Loaded.takeError();
    RuleSet *Slot = *Loaded;
    if (skipsUnselectableFiles(Opts) && !canSelectIn(*Slot, Source)) {
      P.NotSelectable.push_back(Source);
      continue;
    }
    addTUs(Opts, P, P.TUs, *Slot, Source, Listed);
  }
  dropRedundantProxies(P.TUs);
  if (P.TUs.empty() && P.NotSelectable.empty())
    return usageError("no source in '" + Opts.BuildDir +
                      "' has a .apistamp.yaml above it; pass --rules FILE");
  P.TUs = shardOf(std::move(P.TUs), Opts.ShardIndex, Opts.ShardCount);
  if ((!Opts.Sources.empty() || Opts.ShardCount > 1) && !Opts.CompilerArgs &&
      Opts.PlanOthers)
    planOthers(Opts, P, Rules);
  return Error::success();
}

/// A whole-project run from a directory no rules file is above (`check -p
/// build` from anywhere): the rules files the database's sources found name
/// the Python modules of their Python path, planned into \p PythonJobs.
static Error planPythonOfCxxRules(const PlanRequest &Opts, Project &P,
                                  RulesFiles &Rules,
                                  std::vector<TUJob> &PythonJobs) {
  std::vector<const RuleSet *> Sets;
  for (const TUJob &TU : P.TUs)
    if (TU.Rules && !llvm::is_contained(Sets, TU.Rules))
      Sets.push_back(TU.Rules);
  std::vector<std::string> Python;
  for (const RuleSet *Set : Sets) {
    Expected<std::vector<std::string>> Found = wholeProjectPython(*Set);
    if (!Found)
      return Found.takeError();
    for (std::string &Module : *Found)
      if (!llvm::is_contained(Python, Module))
        Python.push_back(std::move(Module));
  }
  if (Python.empty())
    return Error::success();
  std::vector<TUJob> Cxx = std::move(P.TUs);
  P.TUs.clear();
  if (Error E = planPython(Opts, Opts.SkipUnselectableFiles, P, Rules, Python))
    return E;
  append_range(PythonJobs,
               shardOf(std::move(P.TUs), Opts.ShardIndex, Opts.ShardCount));
  P.TUs = std::move(Cxx);
  return Error::success();
}

Expected<Project> planProject(const PlanRequest &Request) {
  PlanRequest Opts = Request;
  Project P;
  RulesFiles Rules(P, Opts.Root);
  // Named files, Python ones too: those no rule can select are skipped.
  bool SkipUnselectable = skipsUnselectableFiles(Opts);
  Expected<std::vector<std::string>> Python = takePythonSources(Opts.Sources);
  if (!Python)
    return Python.takeError();
  // A whole-project run: the Python modules of the rules' Python path too
  // (of --rules, or the rules file above the current directory), those no
  // rule can select in skipped as for named files.
  bool WholeProjectPython = false;
  // No rules file there: those the database's sources find name it.
  bool PythonFromCxxRules = false;
  if (Request.Sources.empty() && !Opts.CompilerArgs &&
      Opts.WholeProjectPython) {
    std::string RulesPath = rulesPathFor(Opts, currentDirectory() + "/.");
    PythonFromCxxRules = RulesPath.empty();
    if (!RulesPath.empty()) {
      Expected<RuleSet *> Loaded = Rules.load(RulesPath);
      if (!Loaded)
        return Loaded.takeError();
      Expected<std::vector<std::string>> Found = wholeProjectPython(**Loaded);
      if (!Found)
        return Found.takeError();
      *Python = std::move(*Found);
      WholeProjectPython = !Python->empty();
      SkipUnselectable = Opts.SkipUnselectableFiles;
    }
  }
  if (!Python->empty()) {
    if (!Opts.Root.empty() && !sys::fs::is_directory(Opts.Root))
      return usageError("--root '" + Opts.Root + "' is not a directory");
    if (Error E = planPython(Opts, SkipUnselectable, P, Rules, *Python))
      return std::move(E);
    // Only Python named, and no build: no C++ part. A whole project's
    // rules without a C++ rule or a database: none either.
    const RuleSet *Set = P.TUs.empty() ? nullptr : P.TUs.front().Rules;
    if (!Set && !P.UnselectablePython.empty())
      Set = P.UnselectablePython.front().Rules;
    bool PythonOnly =
        !WholeProjectPython || (Set && Set->CompileCommandsDir.empty() &&
                                llvm::none_of(Set->Rules, [](const Rule &R) {
                                  return R.Lang == Language::Cxx;
                                }));
    if (Opts.Sources.empty() && Opts.BuildDir.empty() && !Opts.CompilerArgs &&
        PythonOnly) {
      P.TUs = shardOf(std::move(P.TUs), Opts.ShardIndex, Opts.ShardCount);
      P.OthersPlanned = true;
      return P;
    }
  }
  std::vector<TUJob> PythonJobs =
      shardOf(std::move(P.TUs), Opts.ShardIndex, Opts.ShardCount);
  P.TUs.clear();
  if (Error E = planCxx(Opts, P, Rules))
    return std::move(E);
  if (PythonFromCxxRules)
    if (Error E = planPythonOfCxxRules(Opts, P, Rules, PythonJobs))
      return std::move(E);
  append_range(P.TUs, PythonJobs);
  return P;
}

} // namespace apistamp
