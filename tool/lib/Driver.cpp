//===- Driver.cpp - Run apistamp over sources -----------------------------===//

#include "apistamp/Driver.h"
#include "Changes.h"
#include "Report.h"
#include "ResultCache.h"
#include "StructuredReport.h"
#include "apistamp/Analysis.h"
#include "apistamp/ChangedLines.h"
#include "apistamp/Paths.h"
#include "apistamp/Rules.h"
#include "apistamp/UnifiedDiff.h"
#include "apistamp/Verify.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/Types.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>

using namespace llvm;
using namespace clang;
using namespace clang::tooling;

namespace apistamp {

namespace {

/// One translation unit to analyse and the rules that apply to it.
struct Job {
  std::string Source;
  const RuleSet *Rules;
  TUResult Result;
};

/// The driver's idea of a file's language, from its extension.
driver::types::ID languageOf(StringRef Path) {
  return driver::types::lookupTypeForExtension(
      sys::path::extension(Path).drop_front());
}

/// A C++ source file: not a header, not Objective-C++, CUDA or HIP.
bool isCppSource(StringRef Path) {
  return languageOf(Path) == driver::types::TY_CXX;
}

bool isHeader(StringRef Path) {
  driver::types::ID Type = languageOf(Path);
  return Type != driver::types::TY_INVALID &&
         driver::types::onlyPrecompileType(Type);
}

/// Clang's builtin headers: the resource directory of the Clang we link.
std::string resourceDir() {
  if (sys::fs::is_directory(APISTAMP_CLANG_RESOURCE_DIR))
    return APISTAMP_CLANG_RESOURCE_DIR;
  return "";
}

ArgumentsAdjuster analysisAdjuster() {
  std::string ResourceDir = resourceDir();
  return [ResourceDir](const CommandLineArguments &Args,
                       StringRef File) -> CommandLineArguments {
    // Our flags go right after the compiler's name: interpolated commands
    // end in "-- <file>", where anything appended would be an input file.
    std::vector<std::string> Extra;
    bool HasResourceDir = llvm::any_of(Args, [](const std::string &A) {
      return StringRef(A).starts_with("-resource-dir");
    });
    if (!HasResourceDir && !ResourceDir.empty())
      Extra.push_back("-resource-dir=" + ResourceDir);
    bool HasLanguage = llvm::any_of(Args, [](const std::string &A) {
      return StringRef(A).starts_with("-x");
    });
    if (isHeader(File) && !HasLanguage)
      Extra.push_back("-xc++-header");
    // Warnings are not our business, and -Werror must not fail the parse.
    Extra.push_back("-w");
    CommandLineArguments Result = Args;
    if (!Result.empty())
      Result.insert(Result.begin() + 1, Extra.begin(), Extra.end());
    return Result;
  };
}

/// Parses \p J.Source with its compile command and runs the analysis.
void analyse(const CompilationDatabase &DB, Job &J, const ExplainTarget *Target,
             bool SkipBodies) {
  TUResult &Result = J.Result;
  std::vector<CompileCommand> Commands = DB.getCompileCommands(J.Source);
  if (Commands.empty()) {
    Result.ParseFailed = true;
    Result.Diagnostics = "error: no compile command for '" + J.Source +
                         "'; pass -p BUILD_DIR or compiler arguments after "
                         "'--'\n";
    return;
  }
  const CompileCommand &Command = Commands.front();
  IntrusiveRefCntPtr<vfs::FileSystem> FS = vfs::createPhysicalFileSystem();
  if (std::error_code EC = FS->setCurrentWorkingDirectory(Command.Directory)) {
    Result.ParseFailed = true;
    Result.Diagnostics = "error: cannot enter directory '" + Command.Directory +
                         "' of the compile command: " + EC.message() + "\n";
    return;
  }
  ArgumentsAdjuster Adjust = combineAdjusters(
      combineAdjusters(getClangStripOutputAdjuster(),
                       getClangStripDependencyFileAdjuster()),
      combineAdjusters(getClangSyntaxOnlyAdjuster(), analysisAdjuster()));
  IntrusiveRefCntPtr<FileManager> Files =
      new FileManager(FileSystemOptions(), FS);
  std::unique_ptr<FrontendActionFactory> Factory =
      makeAnalysisActionFactory(*J.Rules, Result, Target, SkipBodies);
  raw_string_ostream DiagStream(Result.Diagnostics);
  TextDiagnosticPrinter Printer(DiagStream, new DiagnosticOptions());
  ToolInvocation Invocation(Adjust(Command.CommandLine, Command.Filename),
                            Factory.get(), Files.get(),
                            std::make_shared<PCHContainerOperations>());
  Invocation.setDiagnosticConsumer(&Printer);
  if (!Invocation.run() || Printer.getNumErrors() > 0)
    Result.ParseFailed = true;
  DiagStream.flush();
}

/// Loads the compilation database the options ask for.
Expected<std::unique_ptr<CompilationDatabase>>
loadCompilationDatabase(const Options &Opts) {
  std::string Message;
  if (Opts.CompilerArgs)
    return std::make_unique<FixedCompilationDatabase>(".", *Opts.CompilerArgs);
  std::unique_ptr<CompilationDatabase> DB;
  if (!Opts.BuildDir.empty()) {
    DB = CompilationDatabase::loadFromDirectory(Opts.BuildDir, Message);
    if (!DB)
      return createStringError(inconvertibleErrorCode(),
                               "error: cannot load a compilation database "
                               "from '" +
                                   Opts.BuildDir + "': " + Message);
  } else {
    DB = CompilationDatabase::autoDetectFromSource(Opts.Sources.front(),
                                                   Message);
    if (!DB)
      return createStringError(
          inconvertibleErrorCode(),
          "error: no compile_commands.json found above '" +
              Opts.Sources.front() +
              "'; pass -p BUILD_DIR or compiler arguments after '--'");
  }
  // Headers and new files get a command inferred from a neighbouring source.
  return inferMissingCompileCommands(std::move(DB));
}

std::string currentDirectory() {
  SmallString<256> CWD;
  if (sys::fs::current_path(CWD))
    return "";
  return canonicalPath(CWD);
}

/// Merges the sites of all TUs: a header's sites, seen by several TUs, are
/// kept once. The result is sorted by file and offset whatever -j was.
std::vector<Site> mergeSites(std::vector<Job> &Jobs) {
  std::map<std::pair<std::string, unsigned>, Site> Unique;
  for (Job &J : Jobs) {
    if (J.Result.ParseFailed)
      continue;
    for (Site &S : J.Result.Sites)
      Unique.try_emplace({S.File, S.Offset}, std::move(S));
  }
  std::vector<Site> Sites;
  for (auto &Entry : Unique)
    Sites.push_back(std::move(Entry.second));
  return Sites;
}

/// Merges the suppressions of all TUs: one is used if any TU used it.
std::vector<Suppression> mergeSuppressions(const std::vector<Job> &Jobs) {
  std::map<std::pair<std::string, unsigned>, Suppression> Unique;
  for (const Job &J : Jobs) {
    if (J.Result.ParseFailed)
      continue;
    for (const Suppression &S : J.Result.Suppressions) {
      auto [It, New] = Unique.try_emplace({S.File, S.Offset}, S);
      It->second.Used |= S.Used;
    }
  }
  std::vector<Suppression> Result;
  for (auto &Entry : Unique)
    Result.push_back(std::move(Entry.second));
  return Result;
}

std::vector<Expectation> collectExpectations(const std::vector<Job> &Jobs) {
  std::vector<Expectation> All;
  for (const Job &J : Jobs)
    if (!J.Result.ParseFailed)
      llvm::append_range(All, J.Result.Expectations);
  return All;
}

Error usageError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(),
                           "apistamp: error: " + Message);
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

/// Jobs with their rules, and the rules they share.
struct Plan {
  StringMap<std::unique_ptr<RuleSet>> RuleSets;
  std::vector<Job> Jobs;
  unsigned WithoutRules = 0; ///< Skipped: no .apistamp.yaml above them.

  /// The rules files in use, by path.
  std::vector<const RuleSet *> sortedRuleSets() const {
    std::vector<const RuleSet *> Sets;
    for (const auto &Entry : RuleSets)
      Sets.push_back(Entry.second.get());
    llvm::sort(Sets, [](const RuleSet *L, const RuleSet *R) {
      return L->Path < R->Path;
    });
    return Sets;
  }
};

/// Finds and loads the rules of every source: one file for all, or the
/// nearest .apistamp.yaml of each. In a whole-project run, TUs outside every
/// policy are skipped.
Expected<std::unique_ptr<Plan>>
planJobs(const Options &Opts, ArrayRef<std::string> Sources, raw_ostream &Err) {
  if (!Opts.Root.empty() && !sys::fs::is_directory(Opts.Root))
    return usageError("--root '" + Opts.Root + "' is not a directory");
  auto Result = std::make_unique<Plan>();
  for (const std::string &Source : Sources) {
    std::string RulesPath =
        Opts.RulesFile.empty() ? findRulesFileFor(Source) : Opts.RulesFile;
    if (RulesPath.empty() && Opts.Sources.empty()) {
      ++Result->WithoutRules;
      if (Opts.Verbose)
        Err << "apistamp: note: skipping '" << Source
            << "': no .apistamp.yaml above it\n";
      continue;
    }
    if (RulesPath.empty())
      return usageError("no .apistamp.yaml found in the directories above '" +
                        Source + "'; pass --rules FILE");
    std::unique_ptr<RuleSet> &Slot = Result->RuleSets[canonicalPath(RulesPath)];
    if (!Slot) {
      Expected<RuleSet> Loaded = loadRules(RulesPath);
      if (!Loaded)
        return Loaded.takeError();
      if (!Opts.Root.empty())
        Loaded->Root = canonicalPath(Opts.Root);
      Slot = std::make_unique<RuleSet>(std::move(*Loaded));
    }
    Result->Jobs.push_back(Job{Source, Slot.get(), {}});
  }
  if (Result->Jobs.empty())
    return usageError("no source in '" + Opts.BuildDir +
                      "' has a .apistamp.yaml above it; pass --rules FILE");
  return std::move(Result);
}

/// Analyses every job, \p Threads at a time; results stay in job order.
/// "[37/120] path" on one terminal line, redrawn as TUs finish.
class Progress {
public:
  Progress(raw_ostream &Err, size_t Total, bool Enabled,
           const PathDisplay &Display)
      : Err(Err), Total(Total), Enabled(Enabled), Display(Display) {}
  ~Progress() {
    if (Enabled && Done)
      Err << "\r\x1b[K";
  }
  void finished(StringRef Source) {
    if (!Enabled)
      return;
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Done;
    Err << "\r\x1b[K[" << Done << "/" << Total << "] " << Display(Source);
    Err.flush();
  }

private:
  raw_ostream &Err;
  std::mutex Mutex;
  size_t Total, Done = 0;
  bool Enabled;
  const PathDisplay &Display;
};

/// Progress is for people: only on a terminal, and never under CI=true.
bool wantsProgress(raw_ostream &Err) {
  const char *CI = std::getenv("CI");
  return Err.is_displayed() && !(CI && StringRef(CI) == "true");
}

void analyseAll(const CompilationDatabase &DB, std::vector<Job> &Jobs,
                unsigned Threads, const ExplainTarget *Target, bool SkipBodies,
                ResultCache *Cache, Progress &Shown, ParsedFiles &Parsed) {
  auto Run = [&DB, Target, SkipBodies, Cache, &Shown, &Parsed](Job &J) {
    std::string Key;
    if (Cache) {
      std::vector<CompileCommand> Commands = DB.getCompileCommands(J.Source);
      if (!Commands.empty())
        Key = Cache->keyFor(*J.Rules, Commands.front(), SkipBodies);
    }
    std::optional<TUResult> Cached;
    if (!Key.empty())
      Cached = Cache->lookup(Key);
    if (Cached) {
      J.Result = std::move(*Cached);
    } else {
      analyse(DB, J, Target, SkipBodies);
      if (!Key.empty())
        Cache->store(Key, J.Result);
    }
    Parsed.absorb(J.Rules, J.Result);
    Shown.finished(J.Source);
  };
  Threads = std::max(1u, std::min<unsigned>(Threads, Jobs.size()));
  if (Threads == 1) {
    for (Job &J : Jobs)
      Run(J);
    return;
  }
  DefaultThreadPool Pool(hardware_concurrency(Threads));
  for (Job &J : Jobs)
    Pool.async([&Run, &J] { Run(J); });
  Pool.wait();
}

/// In a whole-project run, a rule that selected nothing in any TU is dead
/// policy: one warning per such rule, at its line in the rules file, naming
/// the earlier rules that took what it matches. Must run before the sites are
/// merged (moved) out of the jobs.
std::vector<Finding> unusedRuleWarnings(const Plan &P) {
  DenseMap<const RuleSet *, StringSet<>> Used;
  // Per rule set and rule: the earlier rules that won what it also selects.
  DenseMap<const RuleSet *, StringMap<std::set<std::string>>> ShadowedBy;
  for (const Job &J : P.Jobs)
    for (const Site &S : J.Result.Sites) {
      Used[J.Rules].insert(S.RuleId);
      for (const std::string &Loser : S.AlsoSelectedBy)
        ShadowedBy[J.Rules][Loser].insert(S.RuleId);
    }
  std::vector<Finding> Warnings;
  for (const RuleSet *Rules : P.sortedRuleSets())
    for (const Rule &R : Rules->Rules)
      if (!Used[Rules].count(R.Id)) {
        std::string Warning =
            "rule '" + R.Id + "' selected nothing in this project";
        auto Winners = ShadowedBy[Rules].find(R.Id);
        if (Winners != ShadowedBy[Rules].end()) {
          std::vector<std::string> Quoted;
          for (const std::string &Id : Winners->second)
            Quoted.push_back("'" + Id + "'");
          Warning += ": everything it matches is taken by the earlier rule" +
                     std::string(Quoted.size() > 1 ? "s " : " ") +
                     join(Quoted, ", ");
        }
        Warnings.push_back({Rules->Path, R.Line, 5, "warning",
                            std::move(Warning), R.Id, true, nullptr});
      }
  return Warnings;
}

/// In a whole-project run, each definition that several rules select, once,
/// with the rule that won: the overlap is often deliberate (a narrow rule
/// before a broad one), so these are notes.
std::vector<Finding> overlapNotes(ArrayRef<Site> Sites) {
  std::vector<Finding> Notes;
  for (const Site &S : Sites) {
    if (S.AlsoSelectedBy.empty())
      continue;
    std::vector<std::string> Others;
    for (const std::string &Id : S.AlsoSelectedBy)
      Others.push_back("'" + Id + "'");
    Notes.push_back({S.File, S.Line, S.Column, "note",
                     "'" + S.QualifiedName + "' is selected by rule '" +
                         S.RuleId + "', which wins, and also by " +
                         join(Others, ", "),
                     S.RuleId, false, &S});
  }
  return Notes;
}

/// Prints what `explain` found: per definition, every rule's verdict and
/// the outcome. With a line, only the innermost definition spanning it.
int printExplanations(raw_ostream &Out, raw_ostream &Err,
                      const std::vector<Job> &Jobs, const ExplainTarget &Target,
                      const PathDisplay &Display, unsigned Failed) {
  std::map<std::pair<std::string, unsigned>, const Explanation *> Unique;
  for (const Job &J : Jobs)
    for (const Explanation &E : J.Result.Explanations)
      Unique.try_emplace({E.File, E.Line}, &E);
  std::vector<const Explanation *> Found;
  for (auto &Entry : Unique)
    Found.push_back(Entry.second);
  if (Target.QualifiedName.empty() && Found.size() > 1) {
    const Explanation *Innermost = *llvm::min_element(
        Found, [](const Explanation *L, const Explanation *R) {
          return L->SpanLines < R->SpanLines;
        });
    Found = {Innermost};
  }
  if (Found.empty()) {
    Err << "apistamp: error: no definition "
        << (Target.QualifiedName.empty()
                ? "at " + Display(Target.File) + ":" +
                      std::to_string(Target.Line)
                : "named '" + Target.QualifiedName + "'")
        << "\n";
    return Failed ? ExitParseFailed : ExitBadUsage;
  }
  for (const Explanation *E : Found) {
    Out << Display(E->File) << ":" << E->Line << ":" << E->Column << ": "
        << E->QualifiedName << (E->Kind.empty() ? "" : " (" + E->Kind + ")")
        << "\n";
    bool Won = false;
    for (const Explanation::RuleLine &R : E->Rules) {
      Out << "  rule '" << R.Id << "' (line " << R.Line << "): ";
      if (!R.Rejection.empty())
        Out << "rejects: " << R.Rejection << "\n";
      else
        Out << (Won ? "selects, but an earlier rule won" : "selects") << "\n";
      Won |= R.Rejection.empty();
    }
    Out << "  => " << E->Outcome << "\n";
  }
  return Failed ? ExitParseFailed : ExitClean;
}

/// "apistamp: skipped: 23 no constructor body to instrument, 1 constexpr
/// function", if anything was skipped.
void printSkipReasons(raw_ostream &Out, const SiteCounts &Counts) {
  if (Counts.SkippedByReason.empty())
    return;
  std::vector<std::pair<unsigned, std::string>> ByCount;
  for (const auto &[Reason, Count] : Counts.SkippedByReason)
    ByCount.push_back({Count, Reason});
  llvm::stable_sort(
      ByCount, [](const auto &L, const auto &R) { return L.first > R.first; });
  Out << "apistamp: skipped:";
  for (size_t I = 0; I < ByCount.size(); ++I)
    Out << (I ? ", " : " ") << ByCount[I].first << " " << ByCount[I].second;
  Out << "\n";
}

/// Wall time goes to stderr, so that stdout is the same for every -j.
void printWallTime(raw_ostream &Err, const std::vector<Job> &Jobs,
                   const std::optional<ResultCache> &Cache,
                   std::chrono::steady_clock::time_point Start) {
  std::chrono::duration<double> Elapsed =
      std::chrono::steady_clock::now() - Start;
  unsigned Skipped = 0;
  for (const Job &J : Jobs)
    Skipped += J.Result.SkippedBodies;
  Err << "apistamp: " << Jobs.size() << " TUs in "
      << formatv("{0:f1}", Elapsed.count()) << " s; " << Skipped
      << " function bodies no rule can select were not parsed";
  if (Cache)
    Err << "; cache: " << Cache->hits() << " hits, " << Cache->misses()
        << " misses";
  Err << "\n";
}

} // namespace

int run(const Options &Opts, raw_ostream &Out, raw_ostream &Err) {
  auto Start = std::chrono::steady_clock::now();
  if (Opts.Sources.empty() && Opts.BuildDir.empty()) {
    Err << "apistamp: error: no sources given; pass source files or -p "
           "BUILD_DIR to process every C++ file of a compilation database\n";
    return ExitBadUsage;
  }
  if (Opts.Sources.empty() && Opts.CompilerArgs) {
    Err << "apistamp: error: compiler arguments after '--' need source "
           "files\n";
    return ExitBadUsage;
  }
  for (const std::string &Source : Opts.Sources)
    if (!sys::fs::is_regular_file(Source)) {
      Err << "apistamp: error: no such file: '" << Source << "'\n";
      return ExitBadUsage;
    }
  Expected<std::unique_ptr<CompilationDatabase>> DB =
      loadCompilationDatabase(Opts);
  if (!DB) {
    Err << "apistamp: " << toString(DB.takeError()) << "\n";
    return ExitBadUsage;
  }
  Expected<std::vector<std::string>> Sources = collectSources(Opts, **DB);
  if (!Sources) {
    Err << toString(Sources.takeError()) << "\n";
    return ExitBadUsage;
  }
  Expected<std::unique_ptr<Plan>> Planned = planJobs(Opts, *Sources, Err);
  if (!Planned) {
    Err << toString(Planned.takeError()) << "\n";
    return ExitBadUsage;
  }
  std::vector<Job> &Jobs = (*Planned)->Jobs;
  if (Opts.ShardCount > 1) {
    // Every ShardCount-th TU by path, from the ShardIndex-th: the same split
    // on every machine, whatever order the database lists TUs in.
    llvm::stable_sort(
        Jobs, [](const Job &L, const Job &R) { return L.Source < R.Source; });
    std::vector<Job> Mine;
    for (size_t I = Opts.ShardIndex - 1; I < Jobs.size(); I += Opts.ShardCount)
      Mine.push_back(std::move(Jobs[I]));
    Jobs = std::move(Mine);
  }
  std::optional<ExplainTarget> Target;
  if (Opts.RunMode == Mode::Explain)
    Target = ExplainTarget{Opts.ExplainName.empty() ? (*Sources).front() : "",
                           Opts.ExplainLine, Opts.ExplainName};
  std::string CWD = currentDirectory();
  PathDisplay Display = [&CWD](StringRef Path) {
    if (!CWD.empty() && Path.starts_with(CWD + "/"))
      return Path.substr(CWD.size() + 1).str();
    return Path.str();
  };
  ParsedFiles Parsed;
  // explain looks at every definition, whatever a cached result holds.
  std::optional<ResultCache> Cache;
  if (!Opts.NoCache && !Target) {
    if (!Opts.CacheDir.empty())
      Cache.emplace(Opts.CacheDir);
    else if (!Opts.BuildDir.empty())
      Cache.emplace((Opts.BuildDir + "/.apistamp-cache"));
  }
  {
    Progress Shown(Err, Jobs.size(), wantsProgress(Err), Display);
    analyseAll(**DB, Jobs,
               Opts.Jobs ? Opts.Jobs
                         : hardware_concurrency().compute_thread_count(),
               Target ? &*Target : nullptr, Opts.SkipBodies,
               Cache ? &*Cache : nullptr, Shown, Parsed);
  }

  unsigned Failed = 0;
  for (const Job &J : Jobs)
    if (J.Result.ParseFailed) {
      ++Failed;
      Err << J.Result.Diagnostics;
      Err << "apistamp: error: '" << Display(J.Source)
          << "' failed to parse; nothing in it was checked or changed\n";
    }
  std::string Notes;
  if (Failed)
    Notes += "; " + std::to_string(Failed) + " of " +
             std::to_string(Jobs.size()) + " TUs failed to parse";
  if (unsigned WithoutRules = (*Planned)->WithoutRules)
    Notes += "; " + std::to_string(WithoutRules) +
             " TUs without a .apistamp.yaml skipped";

  if (Opts.RunMode == Mode::Explain)
    return printExplanations(Out, Err, Jobs, *Target, Display, Failed);

  // Hygiene is about the whole project, not a part of it.
  bool WholeProject =
      Opts.Sources.empty() && Opts.ChangedSince.empty() && Opts.ShardCount <= 1;
  std::vector<Finding> UnusedRules;
  if (Opts.RunMode == Mode::Check && WholeProject && !Failed)
    UnusedRules = unusedRuleWarnings(**Planned);
  std::vector<Site> Sites = mergeSites(Jobs);
  std::vector<Suppression> Suppressions = mergeSuppressions(Jobs);
  if (!Opts.ChangedSince.empty()) {
    Expected<ChangedLines> Changed =
        changedLinesSince(Opts.ChangedSince, CWD.empty() ? "." : CWD);
    if (!Changed) {
      Err << "apistamp: error: " << toString(Changed.takeError()) << "\n";
      return ExitBadUsage;
    }
    size_t Before = Sites.size();
    llvm::erase_if(Sites, [&](const Site &S) {
      return !Changed->intersects(S.File, S.BeginLine, S.EndLine);
    });
    llvm::erase_if(Suppressions, [&](const Suppression &S) {
      return !Changed->intersects(S.File, S.Line, S.Line + 1);
    });
    Notes += "; " + std::to_string(Before - Sites.size()) +
             " selected definitions unchanged since " + Opts.ChangedSince +
             " not considered";
  }
  SiteCounts Counts = countSites(Sites);
  if (Opts.RunMode == Mode::Catalog) {
    printCatalog(Out, Sites, Display,
                 Opts.Format == OutputFormat::Json  ? "json"
                 : Opts.Format == OutputFormat::Csv ? "csv"
                                                    : "text");
    return Failed ? ExitParseFailed : ExitClean;
  }
  if (Opts.RunMode == Mode::Verify) {
    std::vector<Expectation> Expectations = collectExpectations(Jobs);
    std::vector<VerifyMismatch> Mismatches =
        verifyExpectations(Sites, Expectations);
    for (const VerifyMismatch &M : Mismatches)
      Out << Display(M.File) << ":" << M.Line << ":" << M.Column
          << ": error: " << M.Message << "\n";
    std::set<std::pair<std::string, unsigned>> Comments;
    for (const Expectation &E : Expectations)
      Comments.insert({E.File, E.Line});
    Out << "apistamp verify: " << Jobs.size() << " TUs, " << Comments.size()
        << " expectations, " << Counts.Selected << " definitions selected, "
        << Mismatches.size() << " mismatches" << Notes << "\n";
    if (Failed)
      return ExitParseFailed;
    return Mismatches.empty() ? ExitClean : ExitFindings;
  }

  bool Errors = false;
  bool Structured =
      Opts.RunMode == Mode::Check && Opts.Format != OutputFormat::Text;
  std::vector<FileChange> Changes;
  if (Opts.RunMode != Mode::Check || Structured || !Opts.ExportFixes.empty())
    Changes = computeChanges(Sites, Parsed, Display, Err, Errors);
  auto MakeReport = [&](ArrayRef<Finding> Findings) {
    ReportInput In;
    In.Findings = Findings;
    In.Counts = Counts;
    In.TUs = Jobs.size();
    In.ParseFailures = Failed;
    for (const FileChange &C : Changes)
      In.FileFixes[C.Path] = C.Replacements;
    In.RuleSets = (*Planned)->sortedRuleSets();
    return In;
  };
  if (!Opts.ExportFixes.empty()) {
    std::vector<Finding> Fixable = collectFindings(Sites, {}, false);
    ReportInput In = MakeReport(Fixable);
    if (Error Written = writeToOutput(Opts.ExportFixes, [&](raw_ostream &OS) {
          printExportedFixes(OS, In, CWD);
          return Error::success();
        })) {
      Err << "apistamp: error: cannot write '" << Opts.ExportFixes
          << "': " << toString(std::move(Written)) << "\n";
      Errors = true;
    }
  }

  if (Opts.RunMode == Mode::Check) {
    std::vector<Finding> Findings =
        collectFindings(Sites, Suppressions, Opts.Verbose);
    std::vector<Finding> Overlaps;
    if (WholeProject && !Failed)
      Overlaps = overlapNotes(Sites);
    unsigned Problems = UnusedRules.size();
    for (const Finding &F : Findings)
      Problems += F.Problem;
    if (Structured) {
      append_range(Findings, UnusedRules);
      append_range(Findings, Overlaps);
      ReportInput In = MakeReport(Findings);
      if (Opts.Format == OutputFormat::Json)
        printJsonReport(Out, In, Display);
      else
        printSarifReport(Out, In, CWD);
    } else {
      printFindings(Out, Findings, Display);
      printFindings(Out, UnusedRules, Display);
      printFindings(Out, Overlaps, Display);
      Out << "apistamp: " << Jobs.size() << " TUs, " << Counts.Selected
          << " definitions selected: " << Counts.Present << " instrumented, "
          << Counts.Missing << " missing, " << Counts.Wrong << " wrong, "
          << Counts.Duplicate << " duplicate, " << Counts.Skipped
          << " skipped, " << Counts.Suppressed << " suppressed" << Notes
          << "\n";
      printSkipReasons(Out, Counts);
    }
    Out.flush();
    printWallTime(Err, Jobs, Cache, Start);
    if (Failed)
      return ExitParseFailed;
    return Problems || Errors ? ExitFindings : ExitClean;
  }

  std::vector<Site> Duplicates;
  llvm::copy_if(Sites, std::back_inserter(Duplicates), [](const Site &S) {
    return S.Status == SiteStatus::Duplicate;
  });
  printFindings(Err, collectFindings(Duplicates, {}, /*Verbose=*/false),
                Display);

  if (Opts.RunMode == Mode::Diff) {
    for (const FileChange &C : Changes)
      Out << unifiedDiff(C.Before, C.After, Display(C.Path));
    Out.flush(); // The diff before the summary on stderr, when both are shown.
    Err << "apistamp: " << Counts.Missing << " to insert, " << Counts.Wrong
        << " to correct, in " << Changes.size() << " files" << Notes << "\n";
  } else {
    unsigned Written = writeChanges(Changes, Display, Err, Errors);
    if (Opts.FailOnChange && Written)
      Errors = true;
    Out << "apistamp: inserted " << Counts.Missing << ", corrected "
        << Counts.Wrong << " API usage events in " << Written << " files"
        << (Counts.Duplicate ? "; " + std::to_string(Counts.Duplicate) +
                                   " duplicates need a manual fix"
                             : "")
        << Notes << "\n";
    printSkipReasons(Out, Counts);
  }
  Out.flush();
  printWallTime(Err, Jobs, Cache, Start);
  if (Failed)
    return ExitParseFailed;
  return Errors ? ExitFindings : ExitClean;
}

} // namespace apistamp
