//===- Analysis.cpp - Find selected definitions in a translation unit -----===//

#include "apistamp/Analysis.h"
#include "DeclFacts.h"
#include "Insertion.h"
#include "Matcher.h"
#include "apistamp/Paths.h"
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/LiteralSupport.h"
#include "clang/Lex/MacroArgs.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

using namespace clang;

namespace apistamp {

namespace {

/// One expansion of the rules' macro written directly in a file.
struct MacroUse {
  unsigned Offset = 0; ///< Of the macro name.
  /// The event if the argument is a string literal, else its spelling.
  std::string Event;
  CharSourceRange ArgRange; ///< The first argument, to correct it.
};

/// Records every expansion of the rules' macro, per file.
class MacroUseRecorder : public PPCallbacks {
public:
  MacroUseRecorder(Preprocessor &PP, llvm::StringRef Macro,
                   llvm::DenseMap<FileID, std::vector<MacroUse>> &Uses)
      : PP(PP), Macro(Macro), Uses(Uses) {}

  void MacroExpands(const Token &MacroNameTok, const MacroDefinition &,
                    SourceRange, const MacroArgs *Args) override {
    const IdentifierInfo *II = MacroNameTok.getIdentifierInfo();
    SourceLocation Loc = MacroNameTok.getLocation();
    // A use inside another macro's expansion is that macro's business.
    if (!II || II->getName() != Macro || !Loc.isFileID())
      return;
    const SourceManager &SM = PP.getSourceManager();
    MacroUse Use;
    Use.Offset = SM.getFileOffset(Loc);
    if (Args && Args->getNumMacroArguments() > 0) {
      const Token *First = Args->getUnexpArgument(0);
      llvm::SmallVector<Token, 4> Tokens;
      for (const Token *T = First; T->isNot(tok::eof); ++T)
        Tokens.push_back(*T);
      if (!Tokens.empty() && Tokens.front().getLocation().isFileID() &&
          Tokens.back().getLocation().isFileID()) {
        Use.ArgRange = CharSourceRange::getTokenRange(
            Tokens.front().getLocation(), Tokens.back().getLocation());
        bool AllStrings = llvm::all_of(Tokens, [](const Token &T) {
          return tok::isStringLiteral(T.getKind());
        });
        if (AllStrings) {
          StringLiteralParser Literal(Tokens, PP);
          if (!Literal.hadError)
            Use.Event = Literal.GetString().str();
        } else {
          Use.Event =
              Lexer::getSourceText(Use.ArgRange, SM, PP.getLangOpts()).str();
        }
      }
    }
    Uses[SM.getFileID(Loc)].push_back(std::move(Use));
  }

private:
  Preprocessor &PP;
  std::string Macro;
  llvm::DenseMap<FileID, std::vector<MacroUse>> &Uses;
};

/// An "apistamp-ignore" or "expect-..." comment as the lexer saw it.
struct DirectiveComment {
  FileID File;
  unsigned Offset = 0, Line = 0, Column = 0;
  /// "apistamp-ignore", "expect-event", "expect-no-event", "expect-skipped".
  std::string Directive;
  std::string Argument; ///< After the ':', trimmed; "" if none.
};

/// Collects comments that start with "apistamp-ignore" (suppressions) or
/// "expect-event", "expect-no-event" or "expect-skipped" (for verify).
class DirectiveCommentCollector : public CommentHandler {
public:
  explicit DirectiveCommentCollector(std::vector<DirectiveComment> &Comments)
      : Comments(Comments) {}

  bool HandleComment(Preprocessor &PP, SourceRange Range) override {
    const SourceManager &SM = PP.getSourceManager();
    SourceLocation Begin = Range.getBegin();
    if (!Begin.isFileID())
      return false;
    llvm::StringRef Text = Lexer::getSourceText(
        CharSourceRange::getCharRange(Range), SM, PP.getLangOpts());
    llvm::StringRef Body = Text.drop_front(2); // "//" or "/*"
    if (Text.starts_with("/*"))
      Body.consume_back("*/");
    Body = Body.ltrim();
    llvm::StringRef Directive;
    for (llvm::StringRef Known : {"apistamp-ignore", "expect-event",
                                  "expect-no-event", "expect-skipped"})
      if (Body.consume_front(Known))
        Directive = Known;
    // "expect-events" or "apistamp-ignored" are other words.
    if (Directive.empty() || (!Body.empty() && !Body.starts_with(":") &&
                              !llvm::isSpace(Body.front())))
      return false;
    DirectiveComment C;
    C.File = SM.getFileID(Begin);
    C.Offset = SM.getFileOffset(Begin);
    C.Line = SM.getSpellingLineNumber(Begin);
    C.Column = SM.getSpellingColumnNumber(Begin);
    C.Directive = Directive.str();
    if (Body.consume_front(":"))
      C.Argument = Body.trim().str();
    Comments.push_back(std::move(C));
    return false;
  }

private:
  std::vector<DirectiveComment> &Comments;
};

/// Walks the AST and turns every selected definition into a Site.
class SiteCollector : public RecursiveASTVisitor<SiteCollector> {
public:
  SiteCollector(ASTContext &Ctx, const RuleSet &Rules,
                const llvm::DenseMap<FileID, std::vector<MacroUse>> &Uses,
                const std::vector<DirectiveComment> &Comments, TUResult &Result,
                const ExplainTarget *Target)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Rules(Rules), Uses(Uses),
        Result(Result), Target(Target), Root(canonicalPath(Rules.Root)) {
    for (const DirectiveComment &C : Comments) {
      const std::string *File = fileUnderRoot(C.File);
      if (!File)
        continue;
      if (C.Directive == "apistamp-ignore") {
        SuppressionIndex[{C.File, C.Line}] = Result.Suppressions.size();
        Result.Suppressions.push_back(
            Suppression{*File, C.Offset, C.Line, C.Column, C.Argument, false});
        continue;
      }
      Expectation E;
      E.Kind = C.Directive == "expect-event"      ? Expectation::Event
               : C.Directive == "expect-no-event" ? Expectation::NoEvent
                                                  : Expectation::Skipped;
      E.File = *File;
      E.Line = C.Line;
      E.Column = C.Column;
      E.Value = C.Argument;
      ExpectationIndex[{C.File, C.Line}] = Result.Expectations.size();
      Result.Expectations.push_back(std::move(E));
    }
  }

  /// A class that a constructor rule selects but that has no constructor
  /// body: reported as skipped, nothing is invented.
  bool VisitCXXRecordDecl(CXXRecordDecl *RD) {
    SourceLocation NameLoc = SM.getFileLoc(RD->getLocation());
    if (SM.isInSystemHeader(NameLoc))
      return true;
    CurrentFile = SM.getFileID(NameLoc);
    const std::string *File = fileUnderRoot(CurrentFile);
    if (!File)
      return true;
    if (RD->isThisDeclarationADefinition())
      bindExpectation(*RD, NameLoc, {RD->getOuterLocStart()});
    std::optional<DeclFacts> Facts = classWithoutConstructorBody(*RD);
    if (!Facts)
      return true;
    placeFacts(*Facts, *File, {RD});
    const Rule *R = selectRule(Rules, *Facts);
    if (!R || R->Where != DeclKind::Constructor)
      return true;
    Site S = newSite(*File, NameLoc, *Facts, *R, qualifiedName(*RD));
    setSpan(S, RD->getOuterLocStart(), RD->getEndLoc());
    if (suppress(S, {RD->getOuterLocStart()}))
      return record(std::move(S));
    S.Status = SiteStatus::Skipped;
    S.SkipReason = "no constructor body to instrument (implicit, defaulted, "
                   "deleted or inherited constructors only)";
    return record(std::move(S));
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    size_t SitesBefore = Result.Sites.size();
    visitFunction(FD);
    if (Target && isTarget(*FD))
      explain(*FD, Result.Sites.size() > SitesBefore ? &Result.Sites.back()
                                                     : nullptr);
    return true;
  }

private:
  bool isTarget(const FunctionDecl &FD) {
    if (!FD.doesThisDeclarationHaveABody())
      return false;
    if (!Target->QualifiedName.empty()) {
      // A class's name stands for its constructors.
      const auto *Ctor = dyn_cast<CXXConstructorDecl>(&FD);
      return qualifiedName(FD) == Target->QualifiedName ||
             (Ctor &&
              qualifiedName(*Ctor->getParent()) == Target->QualifiedName);
    }
    SourceLocation Begin = SM.getFileLoc(FD.getOuterLocStart());
    if (const FunctionTemplateDecl *T = FD.getDescribedFunctionTemplate())
      Begin = SM.getFileLoc(T->getBeginLoc());
    SourceLocation End = SM.getFileLoc(FD.getEndLoc());
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(SM.getFileID(Begin));
    return FE && SM.getFileManager().getCanonicalName(*FE) == Target->File &&
           SM.getSpellingLineNumber(Begin) <= Target->Line &&
           Target->Line <= SM.getSpellingLineNumber(End);
  }

  void explain(const FunctionDecl &FD, const Site *S) {
    Explanation E;
    SourceLocation NameLoc = SM.getFileLoc(FD.getLocation());
    if (OptionalFileEntryRef FE =
            SM.getFileEntryRefForID(SM.getFileID(NameLoc)))
      E.File = SM.getFileManager().getCanonicalName(*FE).str();
    E.Line = SM.getSpellingLineNumber(NameLoc);
    E.Column = SM.getSpellingColumnNumber(NameLoc);
    E.SpanLines =
        SM.getSpellingLineNumber(SM.getFileLoc(FD.getEndLoc())) -
        SM.getSpellingLineNumber(SM.getFileLoc(FD.getOuterLocStart()));
    E.QualifiedName = qualifiedName(FD);
    std::optional<DeclFacts> Facts = extractFacts(FD);
    const std::string *File = SM.isInSystemHeader(NameLoc)
                                  ? nullptr
                                  : fileUnderRoot(SM.getFileID(NameLoc));
    if (SM.isInSystemHeader(NameLoc))
      E.Outcome = "in a system header: never instrumented";
    else if (!File)
      E.Outcome = "outside the root '" + Root + "': never instrumented";
    else if (!Facts)
      E.Outcome = "never instrumented: not a user-written definition, or a "
                  "destructor, lambda, local class member, template "
                  "instantiation, deduction guide or CUDA device function";
    if (!E.Outcome.empty()) {
      Result.Explanations.push_back(std::move(E));
      return;
    }
    placeFacts(*Facts, *File, declarations(FD));
    Facts->MatchesMatcher = matcherTest(FD);
    E.Kind = kindName(Facts->Kind).str();
    for (const Rule &R : Rules.Rules)
      E.Rules.push_back({R.Id, R.Line, evaluateRule(R, *Facts).Rejection});
    if (!S) {
      E.Outcome = "not selected by any rule";
    } else {
      std::string Event =
          "event '" + S->Event + "' (rule '" + S->RuleId + "'): ";
      switch (S->Status) {
      case SiteStatus::Present:
        E.Outcome = Event + "present";
        break;
      case SiteStatus::Missing:
        E.Outcome = Event + "missing; fix inserts it";
        break;
      case SiteStatus::Wrong:
        E.Outcome = Event + "wrong, '" + S->FoundEvents.front() +
                    "' is there; fix corrects it";
        break;
      case SiteStatus::Duplicate:
        E.Outcome = Event + "called more than once; remove the extra calls";
        break;
      case SiteStatus::Skipped:
        E.Outcome = Event + "skipped: " + S->SkipReason;
        break;
      case SiteStatus::Suppressed:
        E.Outcome = Event + "suppressed: " + S->SkipReason;
        break;
      }
    }
    Result.Explanations.push_back(std::move(E));
  }

  void visitFunction(FunctionDecl *FD) {
    // Where first: it is cheap, and most declarations are in headers that
    // no rule can select. A body that was skipped is a body for expectation
    // comments (verify), though no rule can select it.
    if (!FD->doesThisDeclarationHaveABody() && !FD->hasSkippedBody())
      return;
    SourceLocation NameLoc = SM.getFileLoc(FD->getLocation());
    if (SM.isInSystemHeader(NameLoc))
      return;
    CurrentFile = SM.getFileID(NameLoc);
    const std::string *File = fileUnderRoot(CurrentFile);
    if (!File)
      return;
    const Decl *Outer = FD;
    if (const FunctionTemplateDecl *T = FD->getDescribedFunctionTemplate())
      Outer = T;
    bindExpectation(*FD, NameLoc,
                    {Outer->getBeginLoc(), FD->getOuterLocStart()});
    std::optional<DeclFacts> Facts = extractFacts(*FD);
    if (!Facts)
      return;
    const Stmt *Body = FD->getBody();
    placeFacts(*Facts, *File, declarations(*FD));
    Facts->MatchesMatcher = matcherTest(*FD);
    const Rule *R = selectRule(Rules, *Facts);
    if (!R)
      return;

    Site S = newSite(*File, NameLoc, *Facts, *R, qualifiedName(*FD));
    setSpan(S, Outer->getBeginLoc(), FD->getEndLoc());
    if (suppress(S, {Outer->getBeginLoc(), FD->getOuterLocStart()})) {
      record(std::move(S));
      return;
    }

    if (FD->isConstexpr()) {
      S.Status = SiteStatus::Skipped;
      S.SkipReason =
          std::string(FD->isConsteval() ? "consteval" : "constexpr") +
          " function: a static local is ill-formed there";
      record(std::move(S));
      return;
    }
    const CompoundStmt *Block = dyn_cast<CompoundStmt>(Body);
    if (const auto *Try = dyn_cast<CXXTryStmt>(Body))
      Block = Try->getTryBlock();
    else if (const auto *Coro = dyn_cast<CoroutineBodyStmt>(Body))
      Block = dyn_cast<CompoundStmt>(Coro->getBody());
    if (!Block) {
      S.Status = SiteStatus::Skipped;
      S.SkipReason = "unrecognised function body";
      record(std::move(S));
      return;
    }
    SourceLocation LBrace = Block->getLBracLoc();
    SourceLocation RBrace = Block->getRBracLoc();
    if (LBrace.isMacroID() || RBrace.isMacroID()) {
      SourceLocation MacroLoc = LBrace.isMacroID() ? LBrace : RBrace;
      S.Status = SiteStatus::Skipped;
      S.SkipReason =
          "body comes from macro '" +
          Lexer::getImmediateMacroName(MacroLoc, SM, Ctx.getLangOpts()).str() +
          "'";
      record(std::move(S));
      return;
    }
    if (SM.getFileID(LBrace) != CurrentFile) {
      S.Status = SiteStatus::Skipped;
      S.SkipReason = "body is written in another file than the name";
      record(std::move(S));
      return;
    }

    SourceRange Whole(Body->getBeginLoc(), Body->getEndLoc());
    std::vector<const MacroUse *> Found = usesWithin(Whole);
    for (const MacroUse *Use : Found)
      S.FoundEvents.push_back(Use->Event);
    llvm::StringRef Code = SM.getBufferData(SM.getFileID(LBrace));
    if (Found.empty()) {
      S.Status = SiteStatus::Missing;
      SourceLocation DeclStart = SM.getFileLoc(FD->getOuterLocStart());
      unsigned DeclOffset = SM.getFileID(DeclStart) == CurrentFile
                                ? SM.getFileOffset(DeclStart)
                                : SM.getFileOffset(LBrace);
      S.Edits = makeInsertion(*File, Code, DeclOffset, SM.getFileOffset(LBrace),
                              SM.getFileOffset(RBrace), Rules.Macro, S.Event);
      S.NeedsInclude = !Rules.Include.empty();
    } else if (Found.size() > 1) {
      S.Status = SiteStatus::Duplicate;
      reportAt(S, Found[1]->Offset);
    } else if (Found.front()->Event == S.Event) {
      S.Status = SiteStatus::Present;
    } else {
      S.Status = SiteStatus::Wrong;
      const MacroUse &Use = *Found.front();
      reportAt(S, Use.Offset);
      if (Use.ArgRange.isValid()) {
        unsigned Begin = SM.getFileOffset(Use.ArgRange.getBegin());
        unsigned End = SM.getFileOffset(Lexer::getLocForEndOfToken(
            Use.ArgRange.getEnd(), 0, SM, Ctx.getLangOpts()));
        S.Edits.push_back(
            TextEdit{*File, Begin, End - Begin, quoteEvent(S.Event)});
        S.ReportColumn = SM.getSpellingColumnNumber(Use.ArgRange.getBegin());
      }
    }
    record(std::move(S));
    return;
  }

private:
  /// The lines from \p Begin to \p End, where they are in the site's file.
  void setSpan(Site &S, SourceLocation Begin, SourceLocation End) {
    Begin = SM.getFileLoc(Begin);
    End = SM.getFileLoc(End);
    S.BeginLine = SM.getFileID(Begin) == CurrentFile
                      ? SM.getSpellingLineNumber(Begin)
                      : S.Line;
    S.EndLine = SM.getFileID(End) == CurrentFile ? SM.getSpellingLineNumber(End)
                                                 : S.Line;
  }

  Site newSite(const std::string &File, SourceLocation NameLoc,
               const DeclFacts &Facts, const Rule &R, std::string Qualified) {
    Site S;
    S.File = File;
    S.Offset = SM.getFileOffset(NameLoc);
    S.Line = SM.getSpellingLineNumber(NameLoc);
    S.Column = SM.getSpellingColumnNumber(NameLoc);
    S.ReportLine = S.Line;
    S.ReportColumn = S.Column;
    S.Kind = Facts.Kind;
    S.QualifiedName = std::move(Qualified);
    S.RuleId = R.Id;
    for (const Rule *Later = &R + 1;
         Later != Rules.Rules.data() + Rules.Rules.size(); ++Later)
      if (evaluateRule(*Later, Facts).Selected)
        S.AlsoSelectedBy.push_back(Later->Id);
    S.Event = R.Event.expand(Facts);
    return S;
  }

  using CommentIndex = std::map<std::pair<FileID, unsigned>, size_t>;

  /// The comment of \p Index on the first line of a definition or the line
  /// before it; \p Starts are where the definition may be said to begin (a
  /// template's header, or the declaration after it).
  std::optional<size_t>
  commentAtStart(const CommentIndex &Index,
                 std::initializer_list<SourceLocation> Starts) {
    for (SourceLocation Start : Starts) {
      Start = SM.getFileLoc(Start);
      if (SM.getFileID(Start) != CurrentFile)
        continue;
      unsigned Line = SM.getSpellingLineNumber(Start);
      for (unsigned Candidate : {Line, Line - 1}) {
        auto It = Index.find({CurrentFile, Candidate});
        if (It != Index.end())
          return It->second;
      }
    }
    return std::nullopt;
  }

  /// Binds the expectation comment at the start of a definition to it.
  void bindExpectation(const NamedDecl &D, SourceLocation NameLoc,
                       std::initializer_list<SourceLocation> Starts) {
    std::optional<size_t> Found = commentAtStart(ExpectationIndex, Starts);
    if (!Found)
      return;
    Expectation &E = Result.Expectations[*Found];
    if (E.DefinitionLine)
      return; // The first (outermost) definition keeps it.
    E.DefinitionLine = SM.getSpellingLineNumber(NameLoc);
    E.DefinitionColumn = SM.getSpellingColumnNumber(NameLoc);
    E.Definition = qualifiedName(D);
  }

  /// Applies the apistamp-ignore comment at the start of a definition.
  bool suppress(Site &S, std::initializer_list<SourceLocation> Starts) {
    std::optional<size_t> Found = commentAtStart(SuppressionIndex, Starts);
    if (!Found)
      return false;
    Suppression &Comment = Result.Suppressions[*Found];
    Comment.Used = true;
    S.Status = SiteStatus::Suppressed;
    S.SkipReason = Comment.Reason;
    return true;
  }

  bool record(Site S) {
    if (!Result.FileContents.count(S.File))
      Result.FileContents[S.File] = SM.getBufferData(CurrentFile).str();
    Result.Sites.push_back(std::move(S));
    return true;
  }

  void reportAt(Site &S, unsigned Offset) {
    SourceLocation Loc = SM.getComposedLoc(CurrentFile, Offset);
    S.ReportLine = SM.getSpellingLineNumber(Loc);
    S.ReportColumn = SM.getSpellingColumnNumber(Loc);
  }

  static std::vector<const Decl *> declarations(const FunctionDecl &FD) {
    std::vector<const Decl *> Decls(FD.redecls_begin(), FD.redecls_end());
    return Decls;
  }

  /// Tests a rule's matcher against \p FD.
  std::function<bool(const CompiledMatcher &)>
  matcherTest(const FunctionDecl &FD) {
    return [this, &FD](const CompiledMatcher &M) {
      return matchesFunction(M, FD, Ctx);
    };
  }

  /// Sets the paths in \p Facts: the definition's \p File and the files
  /// under the root that hold one of \p Declarations.
  void placeFacts(DeclFacts &Facts, const std::string &File,
                  llvm::ArrayRef<const Decl *> Declarations) {
    Facts.RelativePath = File.substr(Root.size() + 1);
    for (const Decl *D : Declarations) {
      SourceLocation Loc = SM.getFileLoc(D->getLocation());
      if (SM.isInSystemHeader(Loc))
        continue;
      if (const std::string *DeclFile = fileUnderRoot(SM.getFileID(Loc))) {
        std::string Relative = DeclFile->substr(Root.size() + 1);
        if (!llvm::is_contained(Facts.DeclaredIn, Relative))
          Facts.DeclaredIn.push_back(std::move(Relative));
      }
    }
  }

  /// The canonical path of \p FID if it is a file under the root.
  const std::string *fileUnderRoot(FileID FID) {
    auto It = CanonicalFiles.find(FID);
    if (It == CanonicalFiles.end()) {
      std::optional<std::string> Path;
      if (OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID)) {
        std::string Canonical = SM.getFileManager().getCanonicalName(*FE).str();
        if (llvm::StringRef(Canonical).starts_with(Root + "/"))
          Path = Canonical;
      }
      It = CanonicalFiles.try_emplace(FID, std::move(Path)).first;
    }
    return It->second ? &*It->second : nullptr;
  }

  std::vector<const MacroUse *> usesWithin(SourceRange Range) {
    std::vector<const MacroUse *> Found;
    FileID FID = SM.getFileID(Range.getBegin());
    if (FID != SM.getFileID(Range.getEnd()))
      return Found;
    auto It = Uses.find(FID);
    if (It == Uses.end())
      return Found;
    unsigned Begin = SM.getFileOffset(Range.getBegin());
    unsigned End = SM.getFileOffset(Range.getEnd());
    for (const MacroUse &Use : It->second)
      if (Use.Offset > Begin && Use.Offset < End)
        Found.push_back(&Use);
    return Found;
  }

  ASTContext &Ctx;
  const SourceManager &SM;
  const RuleSet &Rules;
  const llvm::DenseMap<FileID, std::vector<MacroUse>> &Uses;
  TUResult &Result;
  const ExplainTarget *Target;
  std::string Root;
  llvm::DenseMap<FileID, std::optional<std::string>> CanonicalFiles;
  CommentIndex SuppressionIndex;
  CommentIndex ExpectationIndex;
  FileID CurrentFile;
};

class AnalysisConsumer : public ASTConsumer {
public:
  AnalysisConsumer(const RuleSet &Rules, TUResult &Result,
                   llvm::DenseMap<FileID, std::vector<MacroUse>> &Uses,
                   std::vector<DirectiveComment> &Comments,
                   const ExplainTarget *Target)
      : Rules(Rules), Result(Result), Uses(Uses), Comments(Comments),
        Target(Target), Root(canonicalPath(Rules.Root)) {}

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
        It->second = llvm::StringRef(Path).starts_with(Root + "/") &&
                     fileCanBeSelected(Rules, Path.substr(Root.size() + 1));
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
    SiteCollector(Ctx, Rules, Uses, Comments, Result, Target).TraverseAST(Ctx);
  }

private:
  const RuleSet &Rules;
  TUResult &Result;
  llvm::DenseMap<FileID, std::vector<MacroUse>> &Uses;
  std::vector<DirectiveComment> &Comments;
  const ExplainTarget *Target;
  std::string Root;
  llvm::DenseMap<FileID, bool> Selectable;
};

class AnalysisAction : public ASTFrontendAction {
public:
  AnalysisAction(const RuleSet &Rules, TUResult &Result,
                 const ExplainTarget *Target, bool SkipBodies)
      : Rules(Rules), Result(Result), Target(Target), SkipBodies(SkipBodies) {}

  std::unique_ptr<ASTConsumer>
  CreateASTConsumer(CompilerInstance &CI, llvm::StringRef File) override {
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
                                              Target);
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
  llvm::DenseMap<FileID, std::vector<MacroUse>> Uses;
  std::vector<DirectiveComment> Comments;
  DirectiveCommentCollector CommentCollector{Comments};
};

class AnalysisActionFactory : public tooling::FrontendActionFactory {
public:
  AnalysisActionFactory(const RuleSet &Rules, TUResult &Result,
                        const ExplainTarget *Target, bool SkipBodies)
      : Rules(Rules), Result(Result), Target(Target), SkipBodies(SkipBodies) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<AnalysisAction>(Rules, Result, Target, SkipBodies);
  }

private:
  const RuleSet &Rules;
  TUResult &Result;
  const ExplainTarget *Target;
  bool SkipBodies;
};

} // namespace

std::unique_ptr<tooling::FrontendActionFactory>
makeAnalysisActionFactory(const RuleSet &Rules, TUResult &Result,
                          const ExplainTarget *Target, bool SkipBodies) {
  return std::make_unique<AnalysisActionFactory>(Rules, Result, Target,
                                                 SkipBodies);
}

} // namespace apistamp
