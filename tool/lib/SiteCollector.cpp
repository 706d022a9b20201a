//===- SiteCollector.cpp - Find the definitions rules select in an AST ----===//

#include "SiteCollector.h"
#include "DeclFactsFromAST.h"
#include "Matcher.h"
#include "SiteDecision.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
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
                const ExplainTarget *Target, bool Unselected)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Rules(Rules), Uses(Uses),
        Result(Result), Target(Target), Unselected(Unselected),
        Root(Rules.Root) {
    for (const DirectiveComment &C : Comments) {
      const std::string *File = fileUnderRoot(C.File);
      if (!File)
        continue;
      if (C.Directive == Directive::Ignore) {
        SuppressionIndex[{C.File, C.Line}] = Result.Suppressions.size();
        Result.Suppressions.push_back(
            Suppression{*File, C.Offset, C.Line, C.Column, C.Argument, false});
        continue;
      }
      Expectation E;
      E.Kind = C.Directive == Directive::ExpectEvent     ? Expectation::Event
               : C.Directive == Directive::ExpectNoEvent ? Expectation::NoEvent
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
    S.Shape = BodyShape::NoConstructorBody;
    suppress(S, {RD->getOuterLocStart()});
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
    placeFacts(*Facts, *File, declarations(*FD));
    Facts->MatchesMatcher = matcherTest(*FD);
    const Rule *R = selectRule(Rules, *Facts);
    if (!R && Unselected)
      recordUnselected(*FD, *Outer, NameLoc, *Facts, *File);
    Site S;
    if (R) {
      S = newSite(*File, NameLoc, *Facts, *R, qualifiedName(*FD));
    } else {
      S.File = *File;
      S.Kind = Facts->Kind;
      S.QualifiedName = qualifiedName(*FD);
      placeName(S, NameLoc);
    }
    setSpan(S, Outer->getBeginLoc(), FD->getEndLoc());
    if (R)
      suppress(S, {Outer->getBeginLoc(), FD->getOuterLocStart()});
    if (FD->isConstexpr())
      S.Constexpr = FD->isConsteval() ? ConstexprKind::Consteval
                                      : ConstexprKind::Constexpr;
    // Most definitions are not selected; only a macro use makes one a site.
    const Stmt *Body = FD->getBody();
    if (!R && (!Body ||
               usesWithin(SourceRange(Body->getBeginLoc(), Body->getEndLoc()))
                   .empty()))
      return;
    recordBody(*FD, S, /*WithFunctionCalls=*/R != nullptr);
    // A definition no rule selects is a site only if its first statement
    // logs an event: it may be stale.
    if (!R && !staleCall(S, SM.getBufferData(CurrentFile), Rules))
      return;
    if (R && !S.Suppressed && S.Constexpr == ConstexprKind::None &&
        S.Shape == BodyShape::Block)
      S.IncludeFile = fileScopeIncluder(*FD);
    record(std::move(S));
  }

  /// Records \p FD, which no rule selects, with each rule's reason, if users
  /// could call it: external linkage, public, in no file the rules exclude
  /// for every rule (top-level `exclude_files`).
  void recordUnselected(const FunctionDecl &FD, const Decl &Outer,
                        SourceLocation NameLoc, const DeclFacts &Facts,
                        const std::string &File) {
    if (!Facts.ExternalLinkage || !Facts.Public ||
        llvm::any_of(Rules.ExcludeFiles, [&](const PathGlob &G) {
          return G.matches(Facts.RelativePath);
        }))
      return;
    UnselectedDefinition U;
    U.File = File;
    U.Offset = SM.getFileOffset(NameLoc);
    U.Line = SM.getSpellingLineNumber(NameLoc);
    U.Column = SM.getSpellingColumnNumber(NameLoc);
    Site Span;
    Span.Line = U.Line;
    setSpan(Span, Outer.getBeginLoc(), FD.getEndLoc());
    U.BeginLine = Span.BeginLine;
    U.EndLine = Span.EndLine;
    U.Kind = Facts.Kind;
    U.QualifiedName = qualifiedName(FD);
    U.Name = Facts.Name;
    U.Namespaces = Facts.Namespaces;
    U.Classes = Facts.Classes;
    U.DeclaredIn = Facts.DeclaredIn;
    // The words explain uses: evaluateRule's.
    for (const Rule &R : Rules.Rules)
      U.Rejections.push_back(evaluateRule(R, Facts).Rejection);
    Result.Unselected.push_back(std::move(U));
  }

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

  /// Records what \p FD's body is: a block in the name's file (where it
  /// is, and the macro's uses in it; \p WithFunctionCalls, also the calls
  /// of a function named like it), or why it is not.
  void recordBody(const FunctionDecl &FD, Site &S, bool WithFunctionCalls) {
    const Stmt *Body = FD.getBody();
    const CompoundStmt *Block = dyn_cast_or_null<CompoundStmt>(Body);
    if (const auto *Try = dyn_cast_or_null<CXXTryStmt>(Body))
      Block = Try->getTryBlock();
    else if (const auto *Coro = dyn_cast_or_null<CoroutineBodyStmt>(Body))
      Block = dyn_cast<CompoundStmt>(Coro->getBody());
    if (!Block) {
      S.Shape = BodyShape::Unrecognised;
      return;
    }
    SourceLocation LBrace = Block->getLBracLoc();
    SourceLocation RBrace = Block->getRBracLoc();
    if (LBrace.isMacroID() || RBrace.isMacroID()) {
      S.Shape = BodyShape::FromMacro;
      S.BodyMacro =
          Lexer::getImmediateMacroName(LBrace.isMacroID() ? LBrace : RBrace, SM,
                                       Ctx.getLangOpts())
              .str();
      return;
    }
    if (SM.getFileID(LBrace) != CurrentFile) {
      S.Shape = BodyShape::InAnotherFile;
      return;
    }
    S.Shape = BodyShape::Block;
    SourceLocation DeclStart = SM.getFileLoc(FD.getOuterLocStart());
    BodyLocation Where;
    Where.DeclOffset = SM.getFileID(DeclStart) == CurrentFile
                           ? SM.getFileOffset(DeclStart)
                           : SM.getFileOffset(LBrace);
    Where.LBraceOffset = SM.getFileOffset(LBrace);
    Where.RBraceOffset = SM.getFileOffset(RBrace);
    S.Body = Where;
    for (const MacroUse *Use :
         usesWithin(SourceRange(Body->getBeginLoc(), Body->getEndLoc())))
      S.Calls.push_back(*Use);
    // `macro:` may name a function: its calls count as well, or fix would
    // insert another call on every run.
    if (WithFunctionCalls)
      appendFunctionCalls(Body, S.Calls);
    llvm::sort(S.Calls, [](const MacroUse &L, const MacroUse &R) {
      return L.Offset < R.Offset;
    });
  }

  void placeName(Site &S, SourceLocation NameLoc) {
    S.Offset = SM.getFileOffset(NameLoc);
    S.Line = SM.getSpellingLineNumber(NameLoc);
    S.Column = SM.getSpellingColumnNumber(NameLoc);
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
    S.Suppressed = true;
    S.SuppressionReason = Comment.Reason;
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
        Use.FunctionCall = true;
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
  bool Unselected;
  std::string Root;
  llvm::DenseMap<FileID, std::optional<std::string>> CanonicalFiles;
  CommentIndex SuppressionIndex;
  CommentIndex ExpectationIndex;
  FileID CurrentFile;
};

} // namespace

void collectSites(ASTContext &Ctx, const RuleSet &Rules, const MacroUses &Uses,
                  const std::vector<DirectiveComment> &Comments,
                  const ExplainTarget *Target, bool Unselected,
                  TUResult &Result) {
  SiteCollector(Ctx, Rules, Uses, Comments, Result, Target, Unselected)
      .TraverseAST(Ctx);
}

} // namespace apistamp
