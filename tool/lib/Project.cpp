//===- Project.cpp - Plan a run: which TUs, with which command and rules --===//

#include "Project.h"
#include "apistamp/Paths.h"
#include "clang/Driver/Types.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/Support/FileSystem.h"
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

Error usageError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(),
                           "apistamp: error: " + Message);
}

/// Checks what can be checked before anything is loaded.
Error validateOptions(const Options &Opts) {
  if (Opts.Sources.empty() && Opts.BuildDir.empty())
    return usageError("no sources given; pass source files or -p BUILD_DIR "
                      "to process every C++ file of a compilation database");
  if (Opts.Sources.empty() && Opts.CompilerArgs)
    return usageError("compiler arguments after '--' need source files");
  for (const std::string &Source : Opts.Sources)
    if (!sys::fs::is_regular_file(Source))
      return usageError("no such file: '" + Source + "'");
  return Error::success();
}

Expected<std::unique_ptr<CompilationDatabase>>
loadCompilationDatabase(const Options &Opts) {
  std::string Message;
  if (Opts.CompilerArgs)
    return std::make_unique<FixedCompilationDatabase>(".", *Opts.CompilerArgs);
  std::unique_ptr<CompilationDatabase> DB;
  std::string BuildDir = Opts.BuildDir;
  if (BuildDir.empty() && !Opts.Sources.empty()) {
    // The rules may say where the build is (`compile_commands:`).
    std::string RulesPath = Opts.RulesFile.empty()
                                ? findRulesFileFor(Opts.Sources.front())
                                : Opts.RulesFile;
    if (!RulesPath.empty())
      if (Expected<RuleSet> Rules = loadRules(RulesPath))
        BuildDir = Rules->CompileCommandsDir;
      else
        consumeError(Rules.takeError()); // Reported when planned.
  }
  if (!BuildDir.empty()) {
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
collectSources(const Options &Opts, const CompilationDatabase &DB) {
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
std::vector<std::string> withExtraArgs(const Options &Opts,
                                       std::vector<std::string> CommandLine,
                                       StringRef File) {
  ArgumentsAdjuster Adjust = combineAdjusters(
      getInsertArgumentAdjuster(Opts.ExtraArgsBefore,
                                ArgumentInsertPosition::BEGIN),
      getInsertArgumentAdjuster(Opts.ExtraArgs, ArgumentInsertPosition::END));
  return Adjust(CommandLine, File);
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

} // namespace

Expected<Project> planProject(const Options &Opts) {
  if (Error E = validateOptions(Opts))
    return std::move(E);
  Project P;
  Expected<std::unique_ptr<CompilationDatabase>> DB =
      loadCompilationDatabase(Opts);
  if (!DB)
    return DB.takeError();
  P.Database = std::move(*DB);
  Expected<std::vector<std::string>> Sources =
      collectSources(Opts, *P.Database);
  if (!Sources)
    return Sources.takeError();
  if (!Opts.Root.empty() && !sys::fs::is_directory(Opts.Root))
    return usageError("--root '" + Opts.Root + "' is not a directory");
  // One rules file for all, or the nearest .apistamp.yaml of each source; in
  // a whole-project run, TUs outside every policy are skipped.
  for (const std::string &Source : *Sources) {
    std::string RulesPath =
        Opts.RulesFile.empty() ? findRulesFileFor(Source) : Opts.RulesFile;
    if (RulesPath.empty() && Opts.Sources.empty()) {
      P.WithoutRules.push_back(Source);
      continue;
    }
    if (RulesPath.empty())
      return usageError("no .apistamp.yaml found in the directories above '" +
                        Source + "'; pass --rules FILE");
    std::unique_ptr<RuleSet> &Slot = P.RuleSets[canonicalPath(RulesPath)];
    if (!Slot) {
      Expected<RuleSet> Loaded = loadRules(RulesPath);
      if (!Loaded)
        return Loaded.takeError();
      if (!Opts.Root.empty())
        Loaded->Root = canonicalPath(Opts.Root);
      if (canonicalPath(Loaded->Root) == "/")
        return usageError(
            "the root of '" + Loaded->Path +
            "' would be '/', the whole file system: apistamp could then "
            "write anywhere; pass --root with the project's directory");
      Slot = std::make_unique<RuleSet>(std::move(*Loaded));
    }
    // Every distinct configuration of the file (shared and static builds,
    // other defines) is a TU of its own, in an order independent of the
    // database's.
    std::vector<CompileCommand> Commands =
        P.Database->getCompileCommands(Source);
    for (CompileCommand &Command : Commands)
      Command.CommandLine =
          withExtraArgs(Opts, Command.CommandLine, Command.Filename);
    llvm::sort(Commands, [](const CompileCommand &L, const CompileCommand &R) {
      return std::tie(L.Directory, L.CommandLine) <
             std::tie(R.Directory, R.CommandLine);
    });
    Commands.erase(
        std::unique(Commands.begin(), Commands.end(),
                    [](const CompileCommand &L, const CompileCommand &R) {
                      return L.Directory == R.Directory &&
                             L.CommandLine == R.CommandLine;
                    }),
        Commands.end());
    if (Commands.empty())
      P.TUs.push_back(TUJob{Source, Slot.get(), std::nullopt, 1});
    for (CompileCommand &Command : Commands)
      P.TUs.push_back(TUJob{Source, Slot.get(), std::move(Command),
                            unsigned(Commands.size())});
  }
  if (P.TUs.empty())
    return usageError("no source in '" + Opts.BuildDir +
                      "' has a .apistamp.yaml above it; pass --rules FILE");
  P.TUs = shardOf(std::move(P.TUs), Opts.ShardIndex, Opts.ShardCount);
  return std::move(P);
}

} // namespace apistamp
