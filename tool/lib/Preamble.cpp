//===- Preamble.cpp - Parse a TU on top of its stored preamble ------------===//

#include "Preamble.h"
#include "AbsenceRecorder.h"
#include "BodySkipper.h"
#include "ResultCache.h"
#include "apistamp/Paths.h"
#include "clang/AST/DeclBase.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExternalASTSource.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/xxhash.h"
#include <map>

using namespace clang;
using namespace llvm;

namespace apistamp {

namespace {

/// Where a parse finds the PCH: a name no real file has.
constexpr llvm::StringLiteral PchDirectory = "/__apistamp_preamble__";

/// The canonical path of \p FID's file, "" if it has none.
std::string pathOf(const SourceManager &SM, FileID FID) {
  if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID))
    return SM.getFileManager().getCanonicalName(*FE).str();
  return "";
}

void markNamespacesReferenced(Decl *D) {
  if (!isa<NamespaceDecl, LinkageSpecDecl, ExportDecl>(D))
    return;
  D->setReferenced();
  for (Decl *Member : cast<DeclContext>(D)->decls())
    markNamespacesReferenced(Member);
}

/// Records, while the preamble is built, what apistamp records in a parse:
/// the macro's uses, the directive comments and the skipped bodies.
class RegionRecorder : public PreambleCallbacks {
public:
  explicit RegionRecorder(const RuleSet &Rules)
      : Rules(Rules), Skipper(Rules) {}

  void BeforeExecute(CompilerInstance &CI) override { this->CI = &CI; }
  std::unique_ptr<PPCallbacks> createPPCallbacks() override {
    return std::make_unique<MacroUseRecorder>(CI->getPreprocessor(),
                                              Rules.recognisedMacros(), Uses);
  }
  CommentHandler *getCommentHandler() override { return &CommentCollector; }
  bool shouldSkipFunctionBody(Decl *D) override {
    return Skipper.shouldSkip(D);
  }

  /// Namespaces are marked referenced: the PCH writer asks each of them,
  /// and each walks every reopening of its namespace until one is, which
  /// is quadratic in headers that reopen `at` or `std` thousands of times.
  /// Nothing reads the mark of a namespace.
  void HandleTopLevelDecl(DeclGroupRef Group) override {
    for (Decl *D : Group)
      markNamespacesReferenced(D);
  }

  /// The region's facts, and every file it read with the xxh3 of its bytes.
  void AfterExecute(CompilerInstance &CI) override {
    SourceManager &SM = CI.getSourceManager();
    FileManager &FM = SM.getFileManager();
    std::string MainPath = pathOf(SM, SM.getMainFileID());
    for (auto It = SM.fileinfo_begin(); It != SM.fileinfo_end(); ++It) {
      std::string Path = FM.getCanonicalName(It->first).str();
      if (Path == MainPath)
        continue; // Its prefix is in the key.
      std::optional<uint64_t> Hash;
      if (std::optional<MemoryBufferRef> Buffer =
              It->second->getBufferIfLoaded())
        Hash = xxh3_64bits(Buffer->getBuffer());
      Files[Path] = Hash;
    }
    // Inclusions of files under the root, in the order they were entered.
    std::map<FileID, int> Inclusion;
    for (unsigned I = 1, N = SM.local_sloc_entry_size(); I < N; ++I) {
      if (!SM.getLocalSLocEntry(I).isFile())
        continue;
      FileID FID = SM.getFileID(SourceLocation::getFromRawEncoding(
          SM.getLocalSLocEntry(I).getOffset()));
      if (FID == SM.getMainFileID()) {
        Inclusion[FID] = -1;
        continue;
      }
      std::string Path = pathOf(SM, FID);
      if (Path.empty() || !pathUnder(Path, Rules.Root))
        continue;
      Inclusion[FID] = int(Region.Inclusions.size());
      Region.Inclusions.push_back(std::move(Path));
      Region.InclusionStarts.push_back(
          SM.getLocalSLocEntry(I).getOffset() -
          SM.getLocForStartOfFile(SM.getMainFileID()).getRawEncoding());
    }
    for (const DirectiveComment &C : Comments) {
      auto It = Inclusion.find(C.File);
      if (It != Inclusion.end())
        Region.Comments.push_back({It->second, C.Offset});
    }
    for (const auto &[FID, Index] : Inclusion) {
      auto It = Uses.find(FID);
      if (It == Uses.end())
        continue;
      for (const MacroUse &Use : It->second)
        Region.MacroUses.push_back({Index, Use.Offset});
    }
    Region.SkippedBodies = Skipper.Skipped;
    Region.SkippedFiles.assign(Skipper.SkippedUnderRoot.begin(),
                               Skipper.SkippedUnderRoot.end());
  }

  RegionFacts Region;
  std::map<std::string, std::optional<uint64_t>> Files;

private:
  const RuleSet &Rules;
  BodySkipper Skipper;
  CompilerInstance *CI = nullptr;
  MacroUses Uses;
  std::vector<DirectiveComment> Comments;
  DirectiveCommentCollector CommentCollector{Comments};
};

/// The key of a preamble: apistamp and clang, the invocation (every option
/// the driver resolved, the environment's include paths among them), the
/// main file's prefix, and the rules' parts that decide what is recorded.
std::string preambleKey(const CompilerInvocation &Invocation, StringRef Prefix,
                        bool EndsAtStartOfLine, const PreambleRequest &Request,
                        StringRef Directory) {
  SHA256 Key;
  auto Add = [&Key](StringRef Part) {
    Key.update(Part);
    Key.update(StringRef("\0", 1));
  };
  Add(apistampIdentity());
  Add(getClangFullVersion());
  Add(APISTAMP_CLANG_RESOURCE_DIR);
  Add(Directory);
  for (const std::string &Arg : Invocation.getCC1CommandLine())
    Add(Arg);
  Add(Prefix);
  Add(EndsAtStartOfLine ? "eol" : "mid-line");
  Add(Request.Rules->Root);
  for (const std::string &Macro : Request.Rules->recognisedMacros())
    Add(Macro);
  Add(Request.SkipBodies ? "skip-bodies" : "every-body");
  return toHex(Key.final(), /*LowerCase=*/true);
}

/// A stored preamble skipped bodies in a file that these rules parse.
bool skipsWhatRulesNeed(const PreambleEntry &Entry, const RuleSet &Rules) {
  for (const std::string &File : Entry.Region.SkippedFiles) {
    std::optional<StringRef> Relative = pathUnder(File, Rules.Root);
    if (!Relative)
      return true;
    ErrorOr<std::unique_ptr<MemoryBuffer>> Contents =
        MemoryBuffer::getFile(File);
    if (!Contents ||
        BodySkipper::parsesBodiesIn(Rules, *Relative, (*Contents)->getBuffer()))
      return true;
  }
  return false;
}

/// Builds the preamble of \p Main's first \p Bounds bytes.
std::optional<LoadedPreamble>
buildPreamble(const CompilerInvocation &Invocation, const MemoryBuffer &Main,
              PreambleBounds Bounds, IntrusiveRefCntPtr<vfs::FileSystem> FS,
              std::shared_ptr<PCHContainerOperations> PCHOps,
              const PreambleRequest &Request, StringRef Key) {
  CompilerInvocation Copy(Invocation);
  Copy.getFrontendOpts().SkipFunctionBodies = Request.SkipBodies;
  std::vector<std::string> Absent;
  auto Recording = makeIntrusiveRefCnt<AbsenceRecorder>(FS, Absent);
  IgnoringDiagConsumer Quiet;
  IntrusiveRefCntPtr<DiagnosticsEngine> Diags =
      CompilerInstance::createDiagnostics(new DiagnosticOptions(), &Quiet,
                                          /*ShouldOwnClient=*/false);
  RegionRecorder Recorder(*Request.Rules);
  ErrorOr<PrecompiledPreamble> Built = PrecompiledPreamble::Build(
      Copy, &Main, Bounds, *Diags, Recording, PCHOps,
      /*StoreInMemory=*/true, /*StoragePath=*/"", Recorder);
  // A prefix that does not compile is parsed with the rest, which reports
  // its errors as a parse without a preamble does.
  if (!Built || Diags->hasErrorOccurred())
    return std::nullopt;
  // The PCH's bytes, from where clang would read them.
  CompilerInvocation Probe(Invocation);
  IntrusiveRefCntPtr<vfs::FileSystem> Served = FS;
  std::unique_ptr<MemoryBuffer> MainCopy =
      MemoryBuffer::getMemBufferCopy(Main.getBuffer());
  Built->AddImplicitPreamble(Probe, Served, MainCopy.get());
  ErrorOr<std::unique_ptr<MemoryBuffer>> Pch =
      Served->getBufferForFile(Probe.getPreprocessorOpts().ImplicitPCHInclude);
  Probe.getPreprocessorOpts().clearRemappedFiles();
  if (!Pch)
    return std::nullopt;

  LoadedPreamble P;
  PreambleEntry &E = P.Entry;
  E.Bounds = Bounds.Size;
  E.EndsAtStartOfLine = Bounds.PreambleEndsAtStartOfLine;
  for (auto &[Path, Hash] : Recorder.Files) {
    if (!Hash)
      Hash = Request.Store->currentHash(Path);
    if (!Hash)
      return std::nullopt; // Gone already.
    E.Files.push_back({Path, *Hash});
  }
  sortUnique(Absent);
  E.Absent = std::move(Absent);
  E.Region = std::move(Recorder.Region);
  P.Pch = MemoryBuffer::getMemBufferCopy((*Pch)->getBuffer());
  Request.Store->store(Key, E, P.Pch->getBuffer());
  return P;
}

} // namespace

std::optional<ActivePreamble>
preambleFor(const CompilerInvocation &Invocation,
            std::unique_ptr<MemoryBuffer> Main,
            IntrusiveRefCntPtr<vfs::FileSystem> FS,
            std::shared_ptr<PCHContainerOperations> PCHOps,
            const PreambleRequest &Request) {
  const LangOptions &LO = Invocation.getLangOpts();
  if (!LO.CPlusPlus || LO.ObjC ||
      Invocation.getFrontendOpts().Inputs.size() != 1)
    return std::nullopt;
  PreambleBounds Bounds =
      ComputePreambleBounds(LO, Main->getMemBufferRef(), /*MaxLines=*/0);
  if (Bounds.Size == 0)
    return std::nullopt;
  ErrorOr<std::string> Directory = FS->getCurrentWorkingDirectory();
  std::string Key = preambleKey(
      Invocation, Main->getBuffer().take_front(Bounds.Size),
      Bounds.PreambleEndsAtStartOfLine, Request, Directory ? *Directory : "");
  std::optional<LoadedPreamble> Loaded = Request.Store->lookup(Key);
  if (Loaded &&
      (Loaded->Entry.Bounds != Bounds.Size ||
       Loaded->Entry.EndsAtStartOfLine != Bounds.PreambleEndsAtStartOfLine ||
       skipsWhatRulesNeed(Loaded->Entry, *Request.Rules)))
    Loaded.reset();
  if (!Loaded && Request.Build) {
    Loaded = buildPreamble(Invocation, *Main, Bounds, FS, std::move(PCHOps),
                           Request, Key);
  }
  if (!Loaded)
    return std::nullopt;
  return ActivePreamble{std::move(Key), std::move(*Loaded), std::move(Main)};
}

bool isPreamblePath(StringRef Path) { return Path.starts_with(PchDirectory); }

IntrusiveRefCntPtr<vfs::FileSystem>
usePreamble(CompilerInvocation &Invocation, const ActivePreamble &P,
            IntrusiveRefCntPtr<vfs::FileSystem> FS) {
  PreprocessorOptions &PPOpts = Invocation.getPreprocessorOpts();
  // The bytes the preamble was found for are the bytes parsed.
  PPOpts.addRemappedFile(
      Invocation.getFrontendOpts().Inputs[0].getFile(),
      MemoryBuffer::getMemBufferCopy(P.MainFile->getBuffer(),
                                     P.MainFile->getBufferIdentifier())
          .release());
  PPOpts.PrecompiledPreambleBytes = {P.Loaded.Entry.Bounds,
                                     P.Loaded.Entry.EndsAtStartOfLine};
  // Its files were checked by content against the entry, which is more
  // than clang's own validation (sizes and times) would do.
  PPOpts.DisablePCHOrModuleValidation = DisableValidationForModuleKind::PCH;
  PPOpts.UsePredefines = false; // They are in the PCH.
  std::string PchPath = (PchDirectory + "/preamble.pch").str();
  PPOpts.ImplicitPCHInclude = PchPath;
  auto InMemory = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  InMemory->addFile(PchPath, 0,
                    MemoryBuffer::getMemBuffer(P.Loaded.Pch->getMemBufferRef(),
                                               /*RequiresNullTerminator=*/
                                               false));
  auto Overlay = makeIntrusiveRefCnt<vfs::OverlayFileSystem>(FS);
  Overlay->pushOverlay(InMemory);
  if (ErrorOr<std::string> CWD = FS->getCurrentWorkingDirectory())
    Overlay->setCurrentWorkingDirectory(*CWD);
  return Overlay;
}

namespace {

/// A directive comment read again from the bytes at \p Offset of \p FID.
std::optional<DirectiveComment> commentAt(const SourceManager &SM, FileID FID,
                                          unsigned Offset,
                                          const LangOptions &LO) {
  StringRef Buffer = SM.getBufferData(FID);
  if (Offset >= Buffer.size())
    return std::nullopt;
  Lexer Raw(SM.getLocForStartOfFile(FID), LO, Buffer.begin(),
            Buffer.begin() + Offset, Buffer.end());
  Raw.SetCommentRetentionState(true);
  Token Tok;
  Raw.LexFromRawLexer(Tok);
  if (Tok.isNot(tok::comment) || SM.getFileOffset(Tok.getLocation()) != Offset)
    return std::nullopt;
  return directiveCommentIn(SourceRange(Tok.getLocation(), Tok.getEndLoc()), SM,
                            LO);
}

/// The use of one of \p Macros (the rules' first) at \p Offset of \p FID,
/// read again from the bytes: its name, and its first argument as written.
std::optional<MacroUse> macroUseAt(Preprocessor &PP, FileID FID,
                                   unsigned Offset,
                                   ArrayRef<std::string> Macros) {
  const SourceManager &SM = PP.getSourceManager();
  const LangOptions &LO = PP.getLangOpts();
  StringRef Buffer = SM.getBufferData(FID);
  if (Offset >= Buffer.size())
    return std::nullopt;
  Lexer Raw(SM.getLocForStartOfFile(FID), LO, Buffer.begin(),
            Buffer.begin() + Offset, Buffer.end());
  Token Tok;
  Raw.LexFromRawLexer(Tok);
  if (Tok.isNot(tok::raw_identifier) ||
      !llvm::is_contained(Macros, Tok.getRawIdentifier()) ||
      SM.getFileOffset(Tok.getLocation()) != Offset)
    return std::nullopt;
  MacroUse Use;
  Use.Offset = Offset;
  if (Tok.getRawIdentifier() != Macros.front())
    Use.Macro = Tok.getRawIdentifier().str();
  Raw.LexFromRawLexer(Tok);
  if (Tok.isNot(tok::l_paren))
    return Use;
  SmallVector<Token, 4> Argument;
  unsigned Depth = 0;
  while (true) {
    Raw.LexFromRawLexer(Tok);
    if (Tok.is(tok::eof))
      return std::nullopt;
    if (Depth == 0 && Tok.isOneOf(tok::comma, tok::r_paren))
      break;
    if (Tok.isOneOf(tok::l_paren, tok::l_square, tok::l_brace))
      ++Depth;
    else if (Tok.isOneOf(tok::r_paren, tok::r_square, tok::r_brace) && Depth)
      --Depth;
    Argument.push_back(Tok);
  }
  describeArgument(Use, Argument, PP);
  return Use;
}

/// The PCH's inclusions of the region's files under the root, found where
/// the entry says they start relative to the PCH's main file, each checked
/// (it starts there, it is that file, and no other file under the root is
/// between them is not checked: the inclusions' count and order are).
bool findInclusions(const SourceManager &SM, const RegionFacts &Region,
                    const RuleSet &Rules, std::vector<FileID> &Inclusions) {
  // A PCH built for another file is not this one's.
  FileID PchMain = SM.getPreambleFileID();
  if (PchMain.isInvalid() ||
      pathOf(SM, PchMain) != pathOf(SM, SM.getMainFileID()))
    return false;
  SourceLocation::UIntTy Base =
      SM.getLocForStartOfFile(PchMain).getRawEncoding();
  for (size_t I = 0; I < Region.Inclusions.size(); ++I) {
    SourceLocation Start =
        SourceLocation::getFromRawEncoding(Base + Region.InclusionStarts[I]);
    if (!SM.isLoadedSourceLocation(Start))
      return false;
    FileID FID = SM.getFileID(Start);
    if (FID.isInvalid() || SM.getLocForStartOfFile(FID) != Start ||
        pathOf(SM, FID) != Region.Inclusions[I] ||
        !pathUnder(Region.Inclusions[I], Rules.Root))
      return false;
    Inclusions.push_back(FID);
  }
  return true;
}

/// The top-level declaration (in the TU's lexical context) holding \p D.
Decl *topLevel(Decl *D) {
  while (D && !isa<TranslationUnitDecl>(D->getLexicalDeclContext()))
    D = dyn_cast<Decl>(D->getLexicalDeclContext());
  return D;
}

} // namespace

bool restoreRegion(ASTContext &Ctx, Preprocessor &PP, const RegionFacts &Region,
                   const RuleSet &Rules, MacroUses &Uses,
                   std::vector<DirectiveComment> &Comments,
                   RestoredRegion &Restored) {
  SourceManager &SM = Ctx.getSourceManager();
  std::vector<FileID> Inclusions;
  if (!findInclusions(SM, Region, Rules, Inclusions))
    return false;
  auto FileOf = [&](const RegionMark &M) {
    return M.Inclusion < 0 ? SM.getMainFileID() : Inclusions[M.Inclusion];
  };

  std::vector<DirectiveComment> RegionComments;
  for (const RegionMark &M : Region.Comments) {
    std::optional<DirectiveComment> C =
        commentAt(SM, FileOf(M), M.Offset, Ctx.getLangOpts());
    if (!C)
      return false;
    RegionComments.push_back(std::move(*C));
  }
  Comments.insert(Comments.begin(), RegionComments.begin(),
                  RegionComments.end());
  MacroUses RegionUses;
  std::vector<std::string> Macros = Rules.recognisedMacros();
  for (const RegionMark &M : Region.MacroUses) {
    std::optional<MacroUse> Use = macroUseAt(PP, FileOf(M), M.Offset, Macros);
    if (!Use)
      return false;
    RegionUses[FileOf(M)].push_back(std::move(*Use));
  }
  for (auto &[FID, List] : RegionUses) {
    std::vector<MacroUse> &Into = Uses[FID];
    Into.insert(Into.begin(), List.begin(), List.end());
  }

  // The declarations to traverse: the main file's own, and those of the
  // region's files under the root (read from the PCH, nothing else).
  std::vector<Decl *> Scope;
  llvm::DenseSet<Decl *> Seen;
  for (Decl *D : Ctx.getTranslationUnitDecl()->noload_decls())
    if (!D->isFromASTFile() && D->getLocation().isValid() &&
        Seen.insert(D).second)
      Scope.push_back(D);
  if (ExternalASTSource *Source = Ctx.getExternalSource())
    for (FileID FID : Inclusions) {
      SmallVector<Decl *, 64> InFile;
      Source->FindFileRegionDecls(FID, 0, SM.getFileIDSize(FID), InFile);
      for (Decl *D : InFile)
        if (Decl *Top = topLevel(D))
          if (Seen.insert(Top).second)
            Scope.push_back(Top);
    }
  llvm::stable_sort(Scope, [&SM](Decl *A, Decl *B) {
    return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
  });
  Restored.Scope = std::move(Scope);
  return true;
}

} // namespace apistamp
