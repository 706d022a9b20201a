//===- SiteCollector.cpp - Find the definitions rules select in an AST ----===//

#include "SiteCollector.h"
#include "DeclFacts.h"
#include "Matcher.h"
#include "SiteDecision.h"
#include "apistamp/Paths.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include <map>

using namespace clang;

namespace apistamp {

namespace {

/// Walks the AST and turns every selected definition into a Site.
class SiteCollector : public RecursiveASTVisitor<SiteCollector> {
public:
  SiteCollector(ASTContext &Ctx, const RuleSet &Rules, const MacroUses &Uses,
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
      // "Value::asInt" names Json::Value::asInt: a trailing part of the
      // qualified name, cut at a "::".
      StringRef Wanted = StringRef(Target->QualifiedName).ltrim(':');
      auto Names = [&Wanted](const std::string &Qualified) {
        StringRef Name(Qualified);
        return Name == Wanted ||
               (Name.ends_with(Wanted) &&
                Name.drop_back(Wanted.size()).ends_with("::"));
      };
      const auto *Ctor = dyn_cast<CXXConstructorDecl>(&FD);
      return Names(qualifiedName(FD)) ||
             (Ctor && Names(qualifiedName(*Ctor->getParent())));
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
    if (SM.isInSystemHeader(NameLoc)) {
      E.Outcome = Explanation::InSystemHeader;
    } else if (!File) {
      E.Outcome = Explanation::OutsideRoot;
      E.Root = Root;
    } else if (!Facts) {
      E.Outcome = FD.isDefaulted() || FD.isDeleted()
                      ? Explanation::Defaulted
                      : Explanation::NotUserDefinition;
    } else {
      placeFacts(*Facts, *File, declarations(FD));
      Facts->MatchesMatcher = matcherTest(FD);
      E.Kind = kindName(Facts->Kind).str();
      for (const Rule &R : Rules.Rules)
        E.Rules.push_back({R.Id, R.Line, evaluateRule(R, *Facts).Rejection});
      if (S) {
        E.Outcome = Explanation::Selected;
        E.SelectedSite = *S;
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
    if (!R) {
      Site S;
      S.File = *File;
      S.Kind = Facts->Kind;
      S.QualifiedName = qualifiedName(*FD);
      placeName(S, NameLoc);
      setSpan(S, Outer->getBeginLoc(), FD->getEndLoc());
      recordIfStale(*FD, std::move(S),
                    "no rule selects '" + qualifiedName(*FD) + "'");
      return;
    }

    Site S = newSite(*File, NameLoc, *Facts, *R, qualifiedName(*FD));
    setSpan(S, Outer->getBeginLoc(), FD->getEndLoc());
    if (suppress(S, {Outer->getBeginLoc(), FD->getOuterLocStart()})) {
      std::string Reason = "suppressed";
      if (!S.SkipReason.empty())
        Reason += " (" + S.SkipReason + ")";
      if (!recordIfStale(*FD, S, Reason))
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
    SourceLocation DeclStart = SM.getFileLoc(FD->getOuterLocStart());
    BodyLocation Where;
    Where.DeclOffset = SM.getFileID(DeclStart) == CurrentFile
                           ? SM.getFileOffset(DeclStart)
                           : SM.getFileOffset(LBrace);
    Where.LBraceOffset = SM.getFileOffset(LBrace);
    Where.RBraceOffset = SM.getFileOffset(RBrace);
    S.Body = Where;
    for (const MacroUse *Use : usesWithin(Whole))
      S.Calls.push_back(*Use);
    // `macro:` may name a function: its calls count as well, or fix would
    // insert another call on every run.
    appendFunctionCalls(Body, S.Calls);
    llvm::sort(S.Calls, [](const MacroUse &L, const MacroUse &R) {
      return L.Offset < R.Offset;
    });
    S.IncludeFile = fileScopeIncluder(*FD);
    decideSite(S, SM.getBufferData(CurrentFile), Rules);
    record(std::move(S));
  }

private:
  /// For a definition in a fragment included inside a namespace or class
  /// (a .inl), the file under the root where that namespace is written at
  /// file scope: an #include belongs there, not inside the namespace. ""
  /// for a definition at its own file's file scope.
  std::string fileScopeIncluder(const Decl &D) {
    const Decl *Outermost = nullptr;
    for (const DeclContext *DC = D.getLexicalDeclContext();
         DC && !DC->isTranslationUnit(); DC = DC->getLexicalParent())
      Outermost = cast<Decl>(DC);
    if (!Outermost)
      return "";
    FileID Outer = SM.getFileID(SM.getFileLoc(Outermost->getBeginLoc()));
    if (Outer == CurrentFile)
      return "";
    const std::string *Includer = fileUnderRoot(Outer);
    if (!Includer)
      return "";
    Result.FileContents.try_emplace(*Includer, SM.getBufferData(Outer).str());
    return *Includer;
  }

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

  /// The body block of \p FD, if it has one written in the name's file.
  const CompoundStmt *bodyBlock(const FunctionDecl &FD) {
    const Stmt *Body = FD.getBody();
    if (!Body)
      return nullptr;
    const CompoundStmt *Block = dyn_cast<CompoundStmt>(Body);
    if (const auto *Try = dyn_cast<CXXTryStmt>(Body))
      Block = Try->getTryBlock();
    else if (const auto *Coro = dyn_cast<CoroutineBodyStmt>(Body))
      Block = dyn_cast<CompoundStmt>(Coro->getBody());
    if (!Block || Block->getLBracLoc().isMacroID() ||
        Block->getRBracLoc().isMacroID() ||
        SM.getFileID(Block->getLBracLoc()) != CurrentFile)
      return nullptr;
    return Block;
  }

  /// Records \p S as a stale event if \p FD's first statement is a call of
  /// the rules' macro: the definition is not selected (\p Reason says why),
  /// yet the event keeps firing. Calls elsewhere in a body were placed by
  /// hand and are left alone.
  bool recordIfStale(const FunctionDecl &FD, Site S, std::string Reason) {
    const CompoundStmt *Block = bodyBlock(FD);
    if (!Block)
      return false;
    std::vector<const MacroUse *> Found =
        usesWithin(SourceRange(Block->getLBracLoc(), Block->getRBracLoc()));
    llvm::StringRef Code = SM.getBufferData(CurrentFile);
    unsigned LBrace = SM.getFileOffset(Block->getLBracLoc());
    if (Found.empty() || !isFirstStatement(Code, LBrace, *Found.front()) ||
        Found.front()->Event.empty() || Rules.keeps(Found.front()->Event))
      return false;
    S.Status = SiteStatus::Stale;
    S.Event = Found.front()->Event;
    S.RuleId.clear();
    S.AlsoSelectedBy.clear();
    S.SkipReason = std::move(Reason);
    SourceLocation DeclStart = SM.getFileLoc(FD.getOuterLocStart());
    S.Body = BodyLocation{SM.getFileID(DeclStart) == CurrentFile
                              ? SM.getFileOffset(DeclStart)
                              : LBrace,
                          LBrace, SM.getFileOffset(Block->getRBracLoc())};
    S.Calls = {*Found.front()};
    decideSite(S, Code, Rules);
    record(std::move(S));
    return true;
  }

  void placeName(Site &S, SourceLocation NameLoc) {
    S.Offset = SM.getFileOffset(NameLoc);
    S.Line = SM.getSpellingLineNumber(NameLoc);
    S.Column = SM.getSpellingColumnNumber(NameLoc);
    S.ReportLine = S.Line;
    S.ReportColumn = S.Column;
  }

  Site newSite(const std::string &File, SourceLocation NameLoc,
               const DeclFacts &Facts, const Rule &R, std::string Qualified) {
    Site S;
    S.File = File;
    placeName(S, NameLoc);
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
    Facts.RelativePath = pathUnder(File, Root)->str();
    for (const Decl *D : Declarations) {
      SourceLocation Loc = SM.getFileLoc(D->getLocation());
      if (SM.isInSystemHeader(Loc))
        continue;
      if (const std::string *DeclFile = fileUnderRoot(SM.getFileID(Loc))) {
        std::string Relative = pathUnder(*DeclFile, Root)->str();
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
        if (pathUnder(Canonical, Root))
          Path = Canonical;
      }
      It = CanonicalFiles.try_emplace(FID, std::move(Path)).first;
    }
    return It->second ? &*It->second : nullptr;
  }

  /// Calls, written in the body's file, of a function named like the rules'
  /// macro, as MacroUses.
  void appendFunctionCalls(const Stmt *Body, std::vector<MacroUse> &Calls) {
    struct Finder : RecursiveASTVisitor<Finder> {
      SiteCollector &Self;
      std::vector<MacroUse> &Calls;
      Finder(SiteCollector &Self, std::vector<MacroUse> &Calls)
          : Self(Self), Calls(Calls) {}
      bool VisitCallExpr(CallExpr *Call) {
        const FunctionDecl *Callee = Call->getDirectCallee();
        if (!Callee || !Callee->getIdentifier() ||
            Callee->getName() != Self.Rules.Macro)
          return true;
        SourceLocation Loc = Call->getBeginLoc();
        if (!Loc.isFileID() || Self.SM.getFileID(Loc) != Self.CurrentFile)
          return true;
        MacroUse Use;
        Use.Offset = Self.SM.getFileOffset(Loc);
        if (Call->getNumArgs() > 0) {
          const Expr *Arg = Call->getArg(0)->IgnoreParenImpCasts();
          if (const auto *Literal = dyn_cast<StringLiteral>(Arg))
            if (Literal->getBeginLoc().isFileID() &&
                Literal->getEndLoc().isFileID()) {
              Use.Event = Literal->getString().str();
              Use.HasArgRange = true;
              Use.ArgBegin = Self.SM.getFileOffset(Literal->getBeginLoc());
              Use.ArgEnd = Self.SM.getFileOffset(Lexer::getLocForEndOfToken(
                  Literal->getEndLoc(), 0, Self.SM, Self.Ctx.getLangOpts()));
            }
        }
        Calls.push_back(std::move(Use));
        return true;
      }
    };
    Finder(*this, Calls).TraverseStmt(const_cast<Stmt *>(Body));
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
  const MacroUses &Uses;
  TUResult &Result;
  const ExplainTarget *Target;
  std::string Root;
  llvm::DenseMap<FileID, std::optional<std::string>> CanonicalFiles;
  CommentIndex SuppressionIndex;
  CommentIndex ExpectationIndex;
  FileID CurrentFile;
};

} // namespace

void collectSites(ASTContext &Ctx, const RuleSet &Rules, const MacroUses &Uses,
                  const std::vector<DirectiveComment> &Comments,
                  const ExplainTarget *Target, TUResult &Result) {
  SiteCollector(Ctx, Rules, Uses, Comments, Result, Target).TraverseAST(Ctx);
}

} // namespace apistamp
