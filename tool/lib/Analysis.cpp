//===- Analysis.cpp - Find selected definitions in a translation unit -----===//
//
// Parses one TU with clang's syntax-only front end and hands the AST to the
// SiteCollector; the preprocessor hooks record our macro's uses and the
// directive comments on the way.
//
//===----------------------------------------------------------------------===//

#include "apistamp/Analysis.h"
#include "AbsenceRecorder.h"
#include "BodySkipper.h"
#include "ForeignArguments.h"
#include "Preamble.h"
#include "SiteCollector.h"
#include "SourceRecorders.h"
#include "UnsafeArguments.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Driver/Types.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

using namespace clang;
using namespace clang::tooling;
using namespace llvm;

namespace apistamp {

namespace {

bool isHeader(StringRef Path) {
  clang::driver::types::ID Type = clang::driver::types::lookupTypeForExtension(
      sys::path::extension(Path).drop_front());
  return Type != clang::driver::types::TY_INVALID &&
         clang::driver::types::onlyPrecompileType(Type);
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

class AnalysisConsumer : public ASTConsumer {
public:
  AnalysisConsumer(const RuleSet &Rules, TUResult &Result, MacroUses &Uses,
                   std::vector<DirectiveComment> &Comments,
                   const ExplainTarget *Target, bool Unselected,
                   const RegionFacts *Region, bool &RegionMismatch)
      : Rules(Rules), Result(Result), Uses(Uses), Comments(Comments),
        Target(Target), Unselected(Unselected), Region(Region),
        RegionMismatch(RegionMismatch), Skipper(Rules) {}

  /// Called only with FrontendOptions::SkipFunctionBodies: as clangd does
  /// for preambles, bodies that no rule can select are not parsed.
  bool shouldSkipFunctionBody(Decl *D) override {
    return Skipper.shouldSkip(D);
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    Result.SkippedBodies = Skipper.Skipped;
    // Nothing from a TU that did not compile may be applied.
    if (Ctx.getDiagnostics().hasErrorOccurred()) {
      Result.ParseFailed = true;
      return;
    }
    const LangOptions &LO = Ctx.getLangOpts();
    if (!LO.CPlusPlus || LO.ObjC)
      return; // C and Objective-C are never instrumented.
    if (Region) {
      RestoredRegion Restored;
      if (!restoreRegion(Ctx, *PP, *Region, Rules, Uses, Comments, Restored)) {
        RegionMismatch = true;
        return;
      }
      Result.SkippedBodies += Region->SkippedBodies;
      Ctx.setTraversalScope(Restored.Scope);
    }
    // Other rules may select something in a file whose bodies were
    // skipped (here or in the preamble): not from these facts.
    std::set<std::string> Skipped = Skipper.SkippedUnderRoot;
    if (Region)
      Skipped.insert(Region->SkippedFiles.begin(), Region->SkippedFiles.end());
    Result.Facts.BodiesSkippedIn.assign(Skipped.begin(), Skipped.end());
    collectSites(Ctx, Rules, Uses, Comments, Target, Unselected, Result);
  }

  Preprocessor *PP = nullptr;

private:
  const RuleSet &Rules;
  TUResult &Result;
  MacroUses &Uses;
  std::vector<DirectiveComment> &Comments;
  const ExplainTarget *Target;
  bool Unselected;
  const RegionFacts *Region;
  bool &RegionMismatch;
  BodySkipper Skipper;
};

class AnalysisAction : public ASTFrontendAction {
public:
  AnalysisAction(const RuleSet &Rules, TUResult &Result,
                 const AnalysisOptions &Options,
                 const PreambleEntry *Preamble = nullptr)
      : Rules(Rules), Result(Result), Target(Options.Target),
        SkipBodies(Options.SkipBodies), Unselected(Options.Unselected),
        Preamble(Preamble) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    // "N errors generated." would go straight to stderr; diagnostics are
    // collected by the caller instead.
    CI.setVerboseOutputStream(llvm::nulls());
    // explain reports on any definition, so it parses every body.
    CI.getFrontendOpts().SkipFunctionBodies = SkipBodies && !Target;
    Preprocessor &PP = CI.getPreprocessor();
    PP.addPPCallbacks(
        std::make_unique<MacroUseRecorder>(PP, Rules.recognisedMacros(), Uses));
    PP.addCommentHandler(&CommentCollector);
    auto Consumer = std::make_unique<AnalysisConsumer>(
        Rules, Result, Uses, Comments, Target, Unselected,
        Preamble ? &Preamble->Region : nullptr, RegionMismatch);
    Consumer->PP = &PP;
    return Consumer;
  }

  void EndSourceFileAction() override {
    CompilerInstance &CI = getCompilerInstance();
    CI.getPreprocessor().removeCommentHandler(&CommentCollector);
    SourceManager &SM = CI.getSourceManager();
    llvm::StringMap<uint64_t> Checked; // By the lookup, against the PCH.
    if (Preamble)
      for (const auto &[Path, Hash] : Preamble->Files)
        Checked[Path] = Hash;
    std::map<std::string, std::optional<uint64_t>> Read;
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
      std::optional<uint64_t> Hash;
      if (std::optional<llvm::MemoryBufferRef> Buffer =
              It->second->getBufferIfLoaded())
        Hash = llvm::xxh3_64bits(Buffer->getBuffer());
      std::string Path = SM.getFileManager().getCanonicalName(It->first).str();
      if (Preamble && isPreamblePath(Path))
        continue;
      // The PCH describes the bytes the lookup checked; a file of the prefix
      // is read only when its bytes are needed, maybe after another run or
      // an editor replaced it. Bytes that are not the checked ones make
      // every offset into them meaningless.
      auto Prefix = Checked.find(Path);
      if (Hash && Prefix != Checked.end() && *Hash != Prefix->second)
        ChangedPrefixFiles.push_back(Path);
      std::optional<uint64_t> &Known = Read[Path];
      if (!Known)
        Known = Hash;
    }
    // The preamble's files were read by the parse that built it, which
    // looked for its absent ones.
    if (Preamble) {
      for (const auto &[Path, Hash] : Preamble->Files)
        Read[Path] = Hash;
      Result.Absent.insert(Result.Absent.end(), Preamble->Absent.begin(),
                           Preamble->Absent.end());
    }
    Result.Dependencies.assign(Read.begin(), Read.end());
  }

  bool regionMismatch() const { return RegionMismatch; }
  /// Files of the preamble's prefix whose bytes, as this parse read them,
  /// are not the ones its lookup checked.
  ArrayRef<std::string> changedPrefixFiles() const {
    return ChangedPrefixFiles;
  }

private:
  const RuleSet &Rules;
  TUResult &Result;
  const ExplainTarget *Target;
  bool SkipBodies;
  bool Unselected;
  const PreambleEntry *Preamble;
  bool RegionMismatch = false;
  std::vector<std::string> ChangedPrefixFiles;
  MacroUses Uses;
  std::vector<DirectiveComment> Comments;
  DirectiveCommentCollector CommentCollector{Comments};
};

/// Runs \p Action on \p Invocation, as LibTooling's own actions do.
bool runFrontendAction(std::shared_ptr<CompilerInvocation> Invocation,
                       FileManager *Files,
                       std::shared_ptr<PCHContainerOperations> PCHOps,
                       DiagnosticConsumer *Diags, FrontendAction &Action) {
  CompilerInstance Compiler(std::move(PCHOps));
  Compiler.setInvocation(std::move(Invocation));
  Compiler.setFileManager(Files);
  Compiler.createDiagnostics(Diags, /*ShouldOwnClient=*/false);
  if (!Compiler.hasDiagnostics())
    return false;
  Compiler.createSourceManager(*Files);
  bool Success = Compiler.ExecuteAction(Action);
  Files->clearStatCache();
  return Success;
}

/// The analysis of a TU on top of its stored preamble (built if need be),
/// or, without one, of the whole TU.
class PreambleAnalysis : public ToolAction {
public:
  PreambleAnalysis(const AnalysisOptions &Options, TUResult &Result,
                   IntrusiveRefCntPtr<vfs::FileSystem> FS)
      : Options(Options), Result(Result), FS(std::move(FS)) {}

  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHOps,
                     DiagnosticConsumer *Diags) override {
    std::optional<ActivePreamble> Preamble;
    const FrontendOptions &FO = Invocation->getFrontendOpts();
    if (FO.Inputs.size() == 1 && FO.Inputs[0].isFile())
      if (auto Main = Files->getBufferForFile(FO.Inputs[0].getFile()))
        Preamble = preambleFor(*Invocation, std::move(*Main), FS, PCHOps,
                               {Options.Preambles, Options.Rules,
                                Options.SkipBodies && !Options.Target,
                                Options.BuildPreamble});
    if (Preamble) {
      auto OnPreamble = std::make_shared<CompilerInvocation>(*Invocation);
      IntrusiveRefCntPtr<FileManager> PreambleFiles = new FileManager(
          Files->getFileSystemOpts(), usePreamble(*OnPreamble, *Preamble, FS));
      AnalysisAction Action(*Options.Rules, Result, Options,
                            &Preamble->Loaded.Entry);
      bool Success = runFrontendAction(OnPreamble, PreambleFiles.get(), PCHOps,
                                       Diags, Action);
      if (Success && !Result.ParseFailed && Diags->getNumErrors() == 0 &&
          !Action.regionMismatch() && Action.changedPrefixFiles().empty()) {
        ++Options.Preambles->Used;
        Result.From = TUResult::Origin::ParsedOnPreamble;
        return true;
      }
      // The stored facts do not match what the PCH holds, a file of the
      // prefix changed after the lookup checked it, or the parse failed
      // (the main file has an error): the whole TU is parsed, and says what
      // it says.
      ++Options.Preambles->Mismatches;
      for (const std::string &Path : Action.changedPrefixFiles())
        Options.Preambles->fileChanged(Path);
      if (Action.regionMismatch())
        Options.Preambles->forget(Preamble->Key);
      Result = TUResult();
      Diags->clear();
    }
    AnalysisAction Action(*Options.Rules, Result, Options);
    return runFrontendAction(Invocation, Files, PCHOps, Diags, Action);
  }

private:
  const AnalysisOptions &Options;
  TUResult &Result;
  IntrusiveRefCntPtr<vfs::FileSystem> FS;
};

/// Records every file the preprocessor reads.
class ReachedFilesAction : public PreprocessOnlyAction {
public:
  explicit ReachedFilesAction(std::vector<std::string> &Files) : Files(Files) {}

  void EndSourceFileAction() override {
    SourceManager &SM = getCompilerInstance().getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It)
      Files.push_back(SM.getFileManager().getCanonicalName(It->first).str());
    llvm::sort(Files);
    Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
  }

private:
  std::vector<std::string> &Files;
};

/// The front end's adjustments of a compile command: no option clang does
/// not know (GCC's), no output files and no plugins (a compilation database
/// is untrusted input), our resource directory, headers as C++ headers, no
/// warnings.
ArgumentsAdjuster frontendAdjuster() {
  // First: LibTooling's adjusters read "-MF" or "-o" without their
  // context, and would take "-Xclang -o -Xclang F" apart.
  return combineAdjusters(
      combineAdjusters(dropOptionsClangDoesNotKnow(),
                       dropWritingAndLoadingArguments()),
      combineAdjusters(
          combineAdjusters(getClangStripOutputAdjuster(),
                           getClangStripDependencyFileAdjuster()),
          combineAdjusters(getClangSyntaxOnlyAdjuster(), analysisAdjuster())));
}

} // namespace

std::vector<std::string> frontendArguments(const CompileCommand &Command) {
  return frontendAdjuster()(Command.CommandLine, Command.Filename);
}

std::vector<std::string> filesReachedBy(const CompileCommand &Command,
                                        IntrusiveRefCntPtr<vfs::FileSystem> FS,
                                        bool *Failed) {
  std::vector<std::string> Files;
  if (Failed)
    *Failed = true;
  if (!FS)
    FS = vfs::createPhysicalFileSystem();
  if (FS->setCurrentWorkingDirectory(Command.Directory))
    return Files;
  IntrusiveRefCntPtr<FileManager> FileMgr =
      new FileManager(FileSystemOptions(), FS);
  // Counts the errors (Invocation.run() is false after one), prints none.
  DiagnosticConsumer Quiet;
  ToolInvocation Invocation(
      frontendAdjuster()(Command.CommandLine, Command.Filename),
      std::make_unique<ReachedFilesAction>(Files), FileMgr.get(),
      std::make_shared<PCHContainerOperations>());
  Invocation.setDiagnosticConsumer(&Quiet);
  bool Preprocessed = Invocation.run();
  if (Failed)
    *Failed = !Preprocessed;
  return Files;
}

TUResult analyseTU(const CompileCommand &Command,
                   const AnalysisOptions &Options,
                   IntrusiveRefCntPtr<vfs::FileSystem> FS) {
  TUResult Result;
  if (!FS)
    FS = vfs::createPhysicalFileSystem();
  if (std::error_code EC = FS->setCurrentWorkingDirectory(Command.Directory)) {
    Result.ParseFailed = true;
    Result.Diagnostics = "error: cannot enter directory '" + Command.Directory +
                         "' of the compile command: " + EC.message() + "\n";
    return Result;
  }
  ArgumentsAdjuster Adjust = frontendAdjuster();
  FS = makeIntrusiveRefCnt<AbsenceRecorder>(FS, Result.Absent);
  IntrusiveRefCntPtr<FileManager> Files =
      new FileManager(FileSystemOptions(), FS);
  raw_string_ostream DiagStream(Result.Diagnostics);
  TextDiagnosticPrinter Printer(DiagStream, new DiagnosticOptions());
  std::vector<std::string> Arguments =
      Adjust(Command.CommandLine, Command.Filename);
  auto PCHOps = std::make_shared<PCHContainerOperations>();
  PreambleAnalysis OnPreamble(Options, Result, FS);
  std::unique_ptr<ToolInvocation> Owned;
  if (Options.Preambles)
    Owned = std::make_unique<ToolInvocation>(Arguments, &OnPreamble,
                                             Files.get(), PCHOps);
  else
    Owned = std::make_unique<ToolInvocation>(
        Arguments,
        std::make_unique<AnalysisAction>(*Options.Rules, Result, Options),
        Files.get(), PCHOps);
  ToolInvocation &Invocation = *Owned;
  Invocation.setDiagnosticConsumer(&Printer);
  if (!Invocation.run() || Printer.getNumErrors() > 0)
    Result.ParseFailed = true;
  sortUnique(Result.Absent);
  DiagStream.flush();
  return Result;
}

} // namespace apistamp
