//===- Analysis.cpp - Find selected definitions in a translation unit -----===//
//
// Parses one TU with clang's syntax-only front end and hands the AST to the
// SiteCollector; the preprocessor hooks record our macro's uses and the
// directive comments on the way.
//
//===----------------------------------------------------------------------===//

#include "apistamp/Analysis.h"
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
                   const ExplainTarget *Target, bool Unselected)
      : Rules(Rules), Result(Result), Uses(Uses), Comments(Comments),
        Target(Target), Unselected(Unselected), Root(Rules.Root) {}

  /// Called only with FrontendOptions::SkipFunctionBodies: as clangd does
  /// for preambles, bodies that no rule can select are not parsed.
  bool shouldSkipFunctionBody(Decl *D) override {
    const SourceManager &SM = D->getASTContext().getSourceManager();
    SourceLocation Loc = SM.getFileLoc(D->getLocation());
    if (SM.isInSystemHeader(Loc)) {
      ++Result.SkippedBodies;
      return true;
    }
    FileID FID = SM.getFileID(Loc);
    auto [It, New] = Selectable.try_emplace(FID, false);
    if (New)
      if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID)) {
        std::string Path = SM.getFileManager().getCanonicalName(*FE).str();
        std::optional<llvm::StringRef> Relative = pathUnder(Path, Root);
        // A file that names the macro is parsed though no rule can select
        // anything in it: a call there may be stale.
        It->second = Relative && (fileCanBeSelected(Rules, *Relative) ||
                                  SM.getBufferData(FID).contains(Rules.Macro));
        // Other rules may select something there: not from these facts.
        if (Relative && !It->second)
          Result.Facts.BodiesSkippedIn.push_back(Path);
      }
    Result.SkippedBodies += !It->second;
    return !It->second;
  }

  void HandleTranslationUnit(ASTContext &Ctx) override {
    // Nothing from a TU that did not compile may be applied.
    if (Ctx.getDiagnostics().hasErrorOccurred()) {
      Result.ParseFailed = true;
      return;
    }
    const LangOptions &LO = Ctx.getLangOpts();
    if (!LO.CPlusPlus || LO.ObjC)
      return; // C and Objective-C are never instrumented.
    collectSites(Ctx, Rules, Uses, Comments, Target, Unselected, Result);
  }

private:
  const RuleSet &Rules;
  TUResult &Result;
  MacroUses &Uses;
  std::vector<DirectiveComment> &Comments;
  const ExplainTarget *Target;
  bool Unselected;
  std::string Root;
  llvm::DenseMap<FileID, bool> Selectable;
};

class AnalysisAction : public ASTFrontendAction {
public:
  AnalysisAction(const RuleSet &Rules, TUResult &Result,
                 const AnalysisOptions &Options)
      : Rules(Rules), Result(Result), Target(Options.Target),
        SkipBodies(Options.SkipBodies), Unselected(Options.Unselected) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    // "N errors generated." would go straight to stderr; diagnostics are
    // collected by the caller instead.
    CI.setVerboseOutputStream(llvm::nulls());
    // explain reports on any definition, so it parses every body.
    CI.getFrontendOpts().SkipFunctionBodies = SkipBodies && !Target;
    Preprocessor &PP = CI.getPreprocessor();
    PP.addPPCallbacks(
        std::make_unique<MacroUseRecorder>(PP, Rules.Macro, Uses));
    PP.addCommentHandler(&CommentCollector);
    return std::make_unique<AnalysisConsumer>(Rules, Result, Uses, Comments,
                                              Target, Unselected);
  }

  void EndSourceFileAction() override {
    CompilerInstance &CI = getCompilerInstance();
    CI.getPreprocessor().removeCommentHandler(&CommentCollector);
    SourceManager &SM = CI.getSourceManager();
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
      std::optional<uint64_t> Hash;
      if (std::optional<llvm::MemoryBufferRef> Buffer =
              It->second->getBufferIfLoaded())
        Hash = llvm::xxh3_64bits(Buffer->getBuffer());
      Result.Dependencies.push_back(
          {SM.getFileManager().getCanonicalName(It->first).str(), Hash});
    }
    llvm::sort(Result.Dependencies);
    Result.Dependencies.erase(
        std::unique(Result.Dependencies.begin(), Result.Dependencies.end()),
        Result.Dependencies.end());
  }

private:
  const RuleSet &Rules;
  TUResult &Result;
  const ExplainTarget *Target;
  bool SkipBodies;
  bool Unselected;
  MacroUses Uses;
  std::vector<DirectiveComment> Comments;
  DirectiveCommentCollector CommentCollector{Comments};
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

/// The front end's adjustments of a compile command: no output files and no
/// plugins (a compilation database is untrusted input), our resource
/// directory, headers as C++ headers, no warnings.
ArgumentsAdjuster frontendAdjuster() {
  // First: LibTooling's adjusters read "-MF" or "-o" without their
  // context, and would take "-Xclang -o -Xclang F" apart.
  return combineAdjusters(
      dropWritingAndLoadingArguments(),
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
  IntrusiveRefCntPtr<FileManager> Files =
      new FileManager(FileSystemOptions(), FS);
  raw_string_ostream DiagStream(Result.Diagnostics);
  TextDiagnosticPrinter Printer(DiagStream, new DiagnosticOptions());
  ToolInvocation Invocation(
      Adjust(Command.CommandLine, Command.Filename),
      std::make_unique<AnalysisAction>(*Options.Rules, Result, Options),
      Files.get(), std::make_shared<PCHContainerOperations>());
  Invocation.setDiagnosticConsumer(&Printer);
  if (!Invocation.run() || Printer.getNumErrors() > 0)
    Result.ParseFailed = true;
  DiagStream.flush();
  return Result;
}

} // namespace apistamp
