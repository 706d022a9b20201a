//===- Hygiene.cpp - Findings about the policy: dead, overlapping rules ---===//

#include "Commands.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace apistamp {

std::vector<Finding> unusedRuleWarnings(const CommandContext &Ctx) {
  std::vector<Finding> Warnings;
  for (const RuleSet *Rules : Ctx.Plan.sortedRuleSets()) {
    auto Usage = Ctx.Result.Usage.find(Rules);
    // A rule of a language the run reads no source of is not judged: a
    // C++ run of a policy for both languages says nothing of its Python
    // rules.
    auto ReadsSourcesIn = [&](Language L) {
      return any_of(Ctx.Plan.TUs, [&](const TUJob &Job) {
        return Job.Rules == Rules && Job.Python == (L == Language::Python);
      });
    };
    bool Reads[] = {ReadsSourcesIn(Language::Cxx),
                    ReadsSourcesIn(Language::Python)};
    for (const Rule &R : Rules->Rules) {
      if (!Reads[R.Lang == Language::Python])
        continue;
      if (Usage != Ctx.Result.Usage.end() && Usage->second.Used.count(R.Id))
        continue;
      std::string Warning =
          "rule '" + R.Id + "' selected nothing in this project";
      if (Usage != Ctx.Result.Usage.end()) {
        auto Winners = Usage->second.ShadowedBy.find(R.Id);
        if (Winners != Usage->second.ShadowedBy.end()) {
          std::vector<std::string> Quoted;
          for (const std::string &Id : Winners->second)
            Quoted.push_back("'" + Id + "'");
          Warning += ": everything it matches is taken by the earlier rule" +
                     std::string(Quoted.size() > 1 ? "s " : " ") +
                     join(Quoted, ", ");
        }
      }
      Warnings.push_back({Rules->Path, R.Line, 5, Severity::Warning,
                          std::move(Warning), R.Id, nullptr, nullptr});
    }
  }
  return Warnings;
}

std::vector<Finding> overlapNotes(ArrayRef<Site> Sites) {
  std::vector<Finding> Notes;
  for (const Site &S : Sites) {
    if (S.AlsoSelectedBy.empty())
      continue;
    std::vector<std::string> Others;
    for (const std::string &Id : S.AlsoSelectedBy)
      Others.push_back("'" + Id + "'");
    Notes.push_back({S.File, S.Line, S.Column, Severity::Note,
                     "'" + S.QualifiedName + "' is selected by rule '" +
                         S.RuleId + "', which wins, and also by " +
                         join(Others, ", "),
                     S.RuleId, &S, nullptr});
  }
  return Notes;
}

} // namespace apistamp
