//===- SiteCollector.cpp - Find the definitions rules select in an AST ----===//

#include "SiteCollector.h"
#include "DeclFactsFromAST.h"
#include "Matcher.h"
#include "SitesFromFacts.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Lex/Lexer.h"
#include <map>

using namespace clang;

namespace apistamp {

namespace {

/// Walks the AST and records every definition some rules could select as a
/// Candidate.
class SiteCollector : public RecursiveASTVisitor<SiteCollector> {
public:
  SiteCollector(ASTContext &Ctx, const RuleSet &Rules, const MacroUses &Uses,
                const std::vector<DirectiveComment> &Comments, TUFacts &Facts,
                const ExplainTarget *Target)
      : Ctx(Ctx), SM(Ctx.getSourceManager()), Rules(Rules), Uses(Uses),
        Facts(Facts), Target(Target), Root(Rules.Root),
        Matchers(matchersOf(Rules)) {
    for (const DirectiveComment &C : Comments) {
      const std::string *File = fileUnderRoot(C.File);
      if (!File)
        continue;
      if (C.Directive == Directive::Ignore) {
        SuppressionIndex[{C.File, C.Line}] = Facts.Suppressions.size();
        Facts.Suppressions.push_back(
            Suppression{*File, C.Offset, C.Line, C.Column, C.Argument, false});
        continue;
      }
      Expectation E;
      E.Kind = expectationOf(C.Directive);
      E.File = *File;
      E.Line = C.Line;
      E.Column = C.Column;
      E.Value = C.Argument;
      ExpectationIndex[{C.File, C.Line}] = Facts.Expectations.size();
      Facts.Expectations.push_back(std::move(E));
    }
  }

  /// The bytes of every candidate's file and includer.
  const FileBytes &contents() const { return Contents; }

  /// Explanations of the target's definitions, and the candidate each is,
  /// if it is one: it is Selected if the rules make a site of it.
  std::vector<std::pair<Explanation, std::optional<size_t>>> Explanations;

  /// A class that a constructor rule may select but that has no
  /// constructor body: reported as skipped, nothing is invented.
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
    std::optional<DeclFacts> ClassFacts = classWithoutConstructorBody(*RD);
    if (!ClassFacts)
      return true;
    placeFacts(*ClassFacts, *File, {RD});
    Candidate C;
    C.File = *File;
    placeName(C, NameLoc);
    C.QualifiedName = qualifiedName(*RD);
    C.Facts = std::move(*ClassFacts);
    setSpan(C, RD->getOuterLocStart(), RD->getEndLoc());
    C.Shape = BodyShape::NoConstructorBody;
    C.Suppression = commentAtStart(SuppressionIndex, {RD->getOuterLocStart()});
    add(std::move(C));
    return true;
  }

  bool VisitFunctionDecl(FunctionDecl *FD) {
    size_t CandidatesBefore = Facts.Candidates.size();
    visitFunction(FD);
    if (Target && isTarget(*FD))
      explain(*FD, Facts.Candidates.size() > CandidatesBefore
                       ? std::optional<size_t>(CandidatesBefore)
                       : std::nullopt);
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

  void explain(const FunctionDecl &FD, std::optional<size_t> AsCandidate) {
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
    std::optional<DeclFacts> Found = extractFacts(FD);
    const std::string *File = SM.isInSystemHeader(NameLoc)
                                  ? nullptr
                                  : fileUnderRoot(SM.getFileID(NameLoc));
    if (SM.isInSystemHeader(NameLoc)) {
      E.Outcome = Explanation::InSystemHeader;
    } else if (!File) {
      E.Outcome = Explanation::OutsideRoot;
      E.Root = Root;
    } else if (!Found) {
      E.Outcome = FD.isDefaulted() || FD.isDeleted()
                      ? Explanation::Defaulted
                      : Explanation::NotUserDefinition;
    } else {
      placeFacts(*Found, *File, declarations(FD));
      Found->MatchesMatcher = [this, &FD](const CompiledMatcher &M) {
        return matchesFunction(M, FD, Ctx);
      };
      E.Kind = kindName(Found->Kind).str();
      for (const Rule &R : Rules.Rules)
        if (R.Lang == Language::Cxx) // Python rules say nothing of C++.
          E.Rules.push_back({R.Id, R.Line, evaluateRule(R, *Found).Rejection});
    }
    Explanations.push_back({std::move(E), AsCandidate});
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
    std::optional<DeclFacts> Found = extractFacts(*FD);
    if (!Found)
      return;
    placeFacts(*Found, *File, declarations(*FD));
    Candidate C;
    C.File = *File;
    placeName(C, NameLoc);
    C.QualifiedName = qualifiedName(*FD);
    C.Facts = std::move(*Found);
    for (unsigned I = 0; I < Matchers.size(); ++I)
      if (matchesFunction(*Matchers[I], *FD, Ctx))
        C.Matches.push_back(I);
    setSpan(C, Outer->getBeginLoc(), FD->getEndLoc());
    C.Suppression = commentAtStart(
        SuppressionIndex, {Outer->getBeginLoc(), FD->getOuterLocStart()});
    if (FD->isConstexpr())
      C.Constexpr = FD->isConsteval() ? ConstexprKind::Consteval
                                      : ConstexprKind::Constexpr;
    recordBody(*FD, C);
    if (C.Shape == BodyShape::Block)
      C.Includer = fileScopeIncluder(*FD);
    add(std::move(C));
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
    if (auto [It, New] = Contents.try_emplace(*Includer); New)
      It->second = SharedBytes(SM.getBufferData(Outer));
    return *Includer;
  }

  /// The lines from \p Begin to \p End, where they are in the candidate's
  /// file.
  void setSpan(Candidate &S, SourceLocation Begin, SourceLocation End) {
    Begin = SM.getFileLoc(Begin);
    End = SM.getFileLoc(End);
    S.BeginLine = SM.getFileID(Begin) == CurrentFile
                      ? SM.getSpellingLineNumber(Begin)
                      : S.Line;
    S.EndLine = SM.getFileID(End) == CurrentFile ? SM.getSpellingLineNumber(End)
                                                 : S.Line;
  }

  /// Whether \p S only fails: a throw, a call of a [[noreturn]] function,
  /// or a block, `if` with a constantly true condition (TORCH_CHECK(false,
  /// ...) expands to one) or `do ... while (false)` holding one alone.
  bool onlyFails(const Stmt *S) const {
    if (!S)
      return false;
    if (const auto *E = dyn_cast<Expr>(S)) {
      E = E->IgnoreImplicit()->IgnoreParenCasts();
      if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
        E = Cleanups->getSubExpr()->IgnoreParenCasts();
      if (isa<CXXThrowExpr>(E))
        return true;
      if (const auto *Call = dyn_cast<CallExpr>(E))
        if (const FunctionDecl *Callee = Call->getDirectCallee())
          return Callee->isNoReturn();
      return false;
    }
    if (const auto *Block = dyn_cast<CompoundStmt>(S)) {
      const Stmt *Only = nullptr;
      for (const Stmt *Child : Block->body()) {
        // The rules' own call (an earlier fix's) is not the stub's.
        SourceLocation Begin = Child->getBeginLoc();
        if (isa<NullStmt>(Child) ||
            (Begin.isMacroID() &&
             Rules.recognisesMacro(
                 Lexer::getImmediateMacroName(Begin, SM, Ctx.getLangOpts()))))
          continue;
        if (Only)
          return false;
        Only = Child;
      }
      return onlyFails(Only);
    }
    if (const auto *If = dyn_cast<IfStmt>(S)) {
      bool Value = false;
      const Expr *Condition = If->getCond();
      return !If->getElse() && !If->getInit() && !If->getConditionVariable() &&
             Condition && !Condition->isValueDependent() &&
             Condition->EvaluateAsBooleanCondition(Value, Ctx) && Value &&
             onlyFails(If->getThen());
    }
    if (const auto *Do = dyn_cast<DoStmt>(S)) {
      bool Value = true;
      const Expr *Condition = Do->getCond();
      return Condition && !Condition->isValueDependent() &&
             Condition->EvaluateAsBooleanCondition(Value, Ctx) && !Value &&
             onlyFails(Do->getBody());
    }
    return false;
  }

  /// Records what \p FD's body is: a block in the name's file (where it
  /// is, the macro's uses in it and the calls of a function named like it),
  /// or why it is not.
  void recordBody(const FunctionDecl &FD, Candidate &S) {
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
    S.OnlyFails = onlyFails(Block);
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
    // `macro:` may name a function: its calls count as well in a selected
    // body, or fix would insert another call on every run.
    appendFunctionCalls(Body, S.Calls);
    llvm::sort(S.Calls, [](const MacroUse &L, const MacroUse &R) {
      return L.Offset < R.Offset;
    });
  }

  void placeName(Candidate &C, SourceLocation NameLoc) {
    C.Offset = SM.getFileOffset(NameLoc);
    C.Line = SM.getSpellingLineNumber(NameLoc);
    C.Column = SM.getSpellingColumnNumber(NameLoc);
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
    Expectation &E = Facts.Expectations[*Found];
    if (E.DefinitionLine)
      return; // The first (outermost) definition keeps it.
    E.DefinitionLine = SM.getSpellingLineNumber(NameLoc);
    E.DefinitionColumn = SM.getSpellingColumnNumber(NameLoc);
    E.Definition = qualifiedName(D);
  }

  /// Adds \p C, and the bytes of its file.
  void add(Candidate C) {
    if (auto [It, New] = Contents.try_emplace(C.File); New)
      It->second = SharedBytes(SM.getBufferData(CurrentFile));
    Facts.Candidates.push_back(std::move(C));
  }

  static std::vector<const Decl *> declarations(const FunctionDecl &FD) {
    std::vector<const Decl *> Decls(FD.redecls_begin(), FD.redecls_end());
    return Decls;
  }

  /// Sets the paths in \p Found: the definition's \p File and the files
  /// under the root that hold one of \p Declarations.
  void placeFacts(DeclFacts &Found, const std::string &File,
                  llvm::ArrayRef<const Decl *> Declarations) {
    Found.RelativePath = pathUnder(File, Root)->str();
    for (const Decl *D : Declarations) {
      SourceLocation Loc = SM.getFileLoc(D->getLocation());
      if (SM.isInSystemHeader(Loc))
        continue;
      if (const std::string *DeclFile = fileUnderRoot(SM.getFileID(Loc))) {
        std::string Relative = pathUnder(*DeclFile, Root)->str();
        if (!llvm::is_contained(Found.DeclaredIn, Relative))
          Found.DeclaredIn.push_back(std::move(Relative));
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
  TUFacts &Facts;
  const ExplainTarget *Target;
  std::string Root;
  std::vector<const CompiledMatcher *> Matchers;
  FileBytes Contents;
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
  SiteCollector Collector(Ctx, Rules, Uses, Comments, Result.Facts, Target);
  Collector.TraverseAST(Ctx);
  // The rules decide on the facts as they do on a cached parse's.
  std::vector<std::optional<size_t>> SiteOf = sitesFromFacts(
      Result.Facts, Rules, Unselected, Collector.contents(), Result);
  for (auto &[E, AsCandidate] : Collector.Explanations) {
    if (AsCandidate && SiteOf[*AsCandidate]) {
      E.Outcome = Explanation::Selected;
      E.SelectedSite = Result.Sites[*SiteOf[*AsCandidate]];
    }
    Result.Explanations.push_back(std::move(E));
  }
}

} // namespace apistamp
