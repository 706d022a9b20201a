//===- VerifyCommand.cpp - apistamp verify: rules against expectations ---===//

#include "Commands.h"
#include "Suggestions.h"
#include "apistamp/Verify.h"
#include <set>

namespace apistamp {

int runVerify(CommandContext &Ctx) {
  if (!narrowToChangedLines(Ctx))
    return ExitBadUsage;
  const std::vector<Expectation> &Expectations = Ctx.Result.Expectations;
  std::vector<Site> Selected = selectedSites(Ctx.Result.Sites);
  std::vector<VerifyMismatch> Mismatches =
      verifyExpectations(Selected, Expectations);
  for (const VerifyMismatch &M : Mismatches)
    Ctx.Out << printableLine(Ctx.Display(M.File)) << ":" << M.Line << ":"
            << M.Column << ": error: " << printableLine(M.Message) << "\n";
  std::set<std::pair<std::string, unsigned>> Comments;
  for (const Expectation &E : Expectations)
    Comments.insert({E.File, E.Line});
  Ctx.summary(Ctx.Out) << "apistamp verify: " << Ctx.Result.TUs << " TUs, "
                       << Comments.size() << " expectations, "
                       << countSites(Ctx.Result.Sites).Selected
                       << " definitions selected, " << Mismatches.size()
                       << " mismatches" << Ctx.Notes << "\n";
  return Ctx.exitCode(Mismatches.empty() ? ExitClean : ExitFindings);
}

} // namespace apistamp
