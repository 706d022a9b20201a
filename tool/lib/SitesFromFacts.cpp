//===- SitesFromFacts.cpp - What rules make of a parse's facts ------------===//

#include "SitesFromFacts.h"
#include "SiteDecision.h"
#include "apistamp/Selection.h"

namespace apistamp {

namespace {

/// Decides the candidates of one TU under one rules file.
class Decider {
public:
  Decider(const RuleSet &Rules, bool Unselected, const FileBytes &Contents,
          TUResult &Result)
      : Rules(Rules), Unselected(Unselected), Contents(Contents),
        Result(Result) {
    for (const Rule &R : Rules.Rules)
      if (R.Matcher)
        Matchers.push_back(R.Matcher.get());
  }

  /// The site \p C makes, if any; lists it as unselected if asked for.
  std::optional<Site> decide(const Candidate &C) {
    // The matchers' verdicts are what the parse found, by matcher number.
    DeclFacts WithMatches;
    const DeclFacts *Facts = &C.Facts;
    if (!Matchers.empty()) {
      WithMatches = C.Facts;
      WithMatches.MatchesMatcher = [this, &C](const CompiledMatcher &M) {
        auto It = llvm::find(Matchers, &M);
        return It != Matchers.end() &&
               llvm::is_contained(C.Matches, unsigned(It - Matchers.begin()));
      };
      Facts = &WithMatches;
    }
    const Rule *R = selectRule(Rules, *Facts);
    if (C.Shape == BodyShape::NoConstructorBody) {
      // A class: reported as skipped, if a constructor rule selects it. A
      // Python class is public API whether it has an __init__ or not.
      if (!R && Unselected && Facts->Lang == Language::Python)
        listUnselected(C, *Facts);
      if (!R || R->Where != DeclKind::Constructor)
        return std::nullopt;
      Site S = selected(C, *Facts, *R);
      S.Shape = BodyShape::NoConstructorBody;
      S.Python = C.Python;
      suppress(S, C);
      return S;
    }
    if (!R && Unselected)
      listUnselected(C, *Facts);
    Site S;
    if (R) {
      S = selected(C, *Facts, *R);
      suppress(S, C);
    } else {
      S.File = C.File;
      S.Kind = Facts->Kind;
      S.QualifiedName = C.QualifiedName;
      place(S, C);
    }
    S.Constexpr = C.Constexpr;
    S.Shape = C.Shape;
    S.BodyMacro = C.BodyMacro;
    S.OnlyFails = C.OnlyFails;
    S.Body = C.Body;
    S.Python = C.Python;
    // Calls of a function named like the macro count only in a selected
    // body (`macro:` may name a function).
    for (const MacroUse &Use : C.Calls)
      if (R || !Use.FunctionCall)
        S.Calls.push_back(Use);
    if (!R) {
      // A definition no rule selects is a site only if its first statement
      // logs an event: it may be stale.
      auto Code = Contents.find(C.File);
      if (Code == Contents.end() || !staleCall(S, Code->second, Rules))
        return std::nullopt;
      return S;
    }
    if (!S.Suppressed && S.Constexpr == ConstexprKind::None &&
        S.Shape == BodyShape::Block)
      S.IncludeFile = C.Includer;
    return S;
  }

  /// Adds \p S and the bytes of its files to the result; false if they are
  /// not known.
  bool record(Site S) {
    auto Code = Contents.find(S.File);
    if (Code == Contents.end())
      return false;
    if (!S.IncludeFile.empty()) {
      auto Includer = Contents.find(S.IncludeFile);
      if (Includer == Contents.end())
        return false;
      Result.FileContents.try_emplace(S.IncludeFile, Includer->second);
    }
    Result.FileContents.try_emplace(S.File, Code->second);
    Result.Sites.push_back(std::move(S));
    return true;
  }

private:
  /// Where \p C's name and lines are.
  static void place(Site &S, const Candidate &C) {
    S.Offset = C.Offset;
    S.Line = C.Line;
    S.Column = C.Column;
    S.BeginLine = C.BeginLine;
    S.EndLine = C.EndLine;
  }

  /// The site of \p C, which \p R selects first.
  Site selected(const Candidate &C, const DeclFacts &Facts, const Rule &R) {
    Site S;
    S.File = C.File;
    place(S, C);
    S.Kind = Facts.Kind;
    S.QualifiedName = C.QualifiedName;
    S.RuleId = R.Id;
    for (const Rule *Later = &R + 1;
         Later != Rules.Rules.data() + Rules.Rules.size(); ++Later)
      if (evaluateRule(*Later, Facts).Selected)
        S.AlsoSelectedBy.push_back(Later->Id);
    S.Event = R.Event.expand(Facts);
    return S;
  }

  /// Applies the apistamp-ignore comment at the start of \p C to \p S.
  void suppress(Site &S, const Candidate &C) {
    if (!C.Suppression || *C.Suppression >= Result.Suppressions.size())
      return;
    Suppression &Comment = Result.Suppressions[*C.Suppression];
    Comment.Used = true;
    S.Suppressed = true;
    S.SuppressionReason = Comment.Reason;
  }

  /// Lists \p C, which no rule selects, with each rule's reason, if users
  /// could call it: external linkage, public, in no file the rules exclude
  /// for every rule (top-level `exclude_files`).
  void listUnselected(const Candidate &C, const DeclFacts &Facts) {
    // A Python class's public methods are reached through it: its
    // constructor (or the class itself) stands for them.
    if (Facts.Lang == Language::Python && Facts.Kind == DeclKind::Method)
      return;
    if (!Facts.ExternalLinkage || !Facts.Public ||
        llvm::any_of(Rules.ExcludeFiles, [&](const PathGlob &G) {
          return G.matches(Facts.RelativePath);
        }))
      return;
    UnselectedDefinition U;
    U.File = C.File;
    U.Offset = C.Offset;
    U.Line = C.Line;
    U.Column = C.Column;
    U.BeginLine = C.BeginLine;
    U.EndLine = C.EndLine;
    U.Kind = Facts.Kind;
    U.QualifiedName = C.QualifiedName;
    U.Name = Facts.Name;
    U.Namespaces = Facts.Namespaces;
    U.Classes = Facts.Classes;
    U.DeclaredIn = Facts.DeclaredIn;
    U.Lang = Facts.Lang;
    U.Module = Facts.Module;
    // The words explain uses: evaluateRule's.
    for (const Rule &R : Rules.Rules)
      U.Rejections.push_back(evaluateRule(R, Facts).Rejection);
    Result.Unselected.push_back(std::move(U));
  }

  const RuleSet &Rules;
  bool Unselected;
  const FileBytes &Contents;
  TUResult &Result;
  std::vector<const CompiledMatcher *> Matchers;
};

} // namespace

std::vector<std::optional<size_t>>
sitesFromFacts(const TUFacts &Facts, const RuleSet &Rules, bool Unselected,
               const FileBytes &Contents, TUResult &Result) {
  Result.Suppressions = Facts.Suppressions;
  for (Suppression &S : Result.Suppressions)
    S.Used = false; // Until a selected site's start has it.
  Result.Expectations = Facts.Expectations;
  Decider Decide(Rules, Unselected, Contents, Result);
  std::vector<std::optional<size_t>> SiteOf(Facts.Candidates.size());
  for (size_t I = 0; I < Facts.Candidates.size(); ++I)
    if (std::optional<Site> S = Decide.decide(Facts.Candidates[I])) {
      size_t Index = Result.Sites.size();
      if (Decide.record(std::move(*S)))
        SiteOf[I] = Index;
    }
  return SiteOf;
}

} // namespace apistamp
