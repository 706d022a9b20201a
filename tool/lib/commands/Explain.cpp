//===- Explain.cpp - apistamp explain: why a definition is instrumented ---===//

#include "Commands.h"
#include "Suggestions.h"
#include <cstring>

using namespace llvm;

namespace apistamp {

/// The last line of an explanation: what happens to the definition.
static std::string outcome(const Explanation &E) {
  switch (E.Outcome) {
  case Explanation::InSystemHeader:
    return "in a system header: never instrumented";
  case Explanation::OutsideRoot:
    return "outside the root '" + E.Root + "': never instrumented";
  case Explanation::NotUserDefinition:
    return "never instrumented: not a user-written definition, or a "
           "destructor, lambda, local class member, template "
           "instantiation, deduction guide or CUDA device function";
  case Explanation::Defaulted:
    return "defaulted or deleted ('= default', '= delete'): no body to "
           "instrument; a class whose constructors are all like this is "
           "reported as skipped when a rule selects its constructors; give "
           "one a body ('{}') to instrument it";
  case Explanation::NotSelected:
    return "not selected by any rule";
  case Explanation::Selected:
    break;
  }
  const Site &S = *E.SelectedSite;
  std::string Event = "event '" + S.Event + "' (rule '" + S.RuleId + "'): ";
  switch (S.Status) {
  case SiteStatus::Present:
    return Event + "present";
  case SiteStatus::Missing:
    return Event + "missing; " +
           (S.NotJudged ? S.SkipReason : "fix inserts it");
  case SiteStatus::Wrong:
    if (!S.FoundMacro.empty())
      return Event + "wrong: " + otherMacroProblem(S) + "; " +
             (S.NotJudged ? S.SkipReason
              : S.FoundEvents.size() > 1
                  ? "fix removes the call of '" + S.FoundMacro + "'"
                  : "fix renames it to '" + S.ExpectedMacro + "'");
    return Event + "wrong, '" + S.FoundEvents.front() + "' is there; " +
           (S.NotJudged ? S.SkipReason : "fix corrects it");
  case SiteStatus::Duplicate:
    return Event + "called more than once; remove the extra calls";
  case SiteStatus::Skipped:
    return Event + "skipped: " + S.SkipReason;
  case SiteStatus::Suppressed:
    return Event + "suppressed: " + S.SkipReason;
  case SiteStatus::Stale:
    if (S.NotJudged)
      return "not selected here (" + S.SkipReason +
             "), and its first "
             "statement logs '" +
             S.Event + "'";
    return "not instrumented (" + S.SkipReason +
           "), but its first statement logs '" + S.Event +
           (S.Edits.empty() ? "': a stale event that fix leaves; remove it "
                              "by hand, or keep it (keep_events)"
                            : "': a stale event; fix removes it");
  case SiteStatus::Conflict:
    return Event + "conflict: TUs reach this body with " + S.SkipReason +
           "; nothing is written here";
  }
  llvm_unreachable("unknown SiteStatus");
}

/// For a Python class (its __init__, or the class without one): the event
/// its instances log through a base's constructor, or why they log none.
static std::optional<std::string> throughBase(const AnalysisResult &Result,
                                              const Explanation &E,
                                              const PathDisplay &Display) {
  if (E.Kind != "constructor" || !StringRef(E.File).ends_with(".py"))
    return std::nullopt;
  std::string Class = E.QualifiedName;
  if (StringRef(Class).ends_with(".__init__"))
    Class.resize(Class.size() - strlen(".__init__"));
  for (const InheritedEvent &I : Result.Inherited)
    if (I.QualifiedName == Class)
      return "its instances log '" + I.Event +
             "' through the constructor of '" + I.ThroughName + "' (" +
             Display(I.ThroughFile) + ":" + std::to_string(I.ThroughLine) +
             ", rule '" + I.RuleId + "'), which logs `self`";
  auto Why = Result.NotInherited.find(Class);
  if (Why == Result.NotInherited.end())
    return std::nullopt;
  return Why->second;
}

void printRuleVerdicts(raw_ostream &Out,
                       ArrayRef<Explanation::RuleLine> Rules) {
  bool Won = false;
  for (const Explanation::RuleLine &R : Rules) {
    Out << "  rule '" << printableLine(R.Id) << "' (line " << R.Line << "): ";
    if (!R.Rejection.empty())
      Out << "rejects: " << printableLine(R.Rejection) << "\n";
    else
      Out << (Won ? "selects, but an earlier rule won" : "selects") << "\n";
    Won |= R.Rejection.empty();
  }
}

int runExplain(CommandContext &Ctx) {
  const ExplainTarget &Target = *Ctx.Target;
  std::vector<const Explanation *> Found;
  for (const Explanation &E : Ctx.Result.Explanations)
    Found.push_back(&E);
  // With a line, only the innermost definition spanning it.
  if (Target.QualifiedName.empty() && Found.size() > 1) {
    const Explanation *Innermost = *llvm::min_element(
        Found, [](const Explanation *L, const Explanation *R) {
          return L->SpanLines < R->SpanLines;
        });
    Found = {Innermost};
  }
  if (Found.empty()) {
    Ctx.Err << "apistamp: error: no definition "
            << printableLine(Target.QualifiedName.empty()
                                 ? "at " + Ctx.Display(Target.File) + ":" +
                                       std::to_string(Target.Line)
                                 : "named '" + Target.QualifiedName + "'")
            << "\n";
    return Ctx.exitCode(ExitBadUsage);
  }
  // Names, events and files come from the sources: escaped.
  raw_ostream &Out = Ctx.Out;
  for (const Explanation *E : Found) {
    Out << printableLine(Ctx.Display(E->File)) << ":" << E->Line << ":"
        << E->Column << ": "
        << printableLine(E->QualifiedName +
                         (E->Kind.empty() ? "" : " (" + E->Kind + ")"))
        << "\n";
    printRuleVerdicts(Out, E->Rules);
    Out << "  => " << printableLine(outcome(*E)) << "\n";
    if (std::optional<std::string> Through =
            throughBase(Ctx.Result, *E, Ctx.Display))
      Out << "  => " << printableLine(*Through) << "\n";
  }
  return Ctx.exitCode(ExitClean);
}

} // namespace apistamp
