//===- SiteDecision.cpp - How a selected definition stands, and its fix ---===//

#include "SiteDecision.h"
#include "Insertion.h"

using namespace llvm;

namespace apistamp {

std::pair<unsigned, unsigned> lineAndColumn(StringRef Code, unsigned Offset) {
  unsigned Line = 1, LineStart = 0;
  for (unsigned I = 0; I < Offset && I < Code.size(); ++I) {
    if (Code[I] == '\n' ||
        (Code[I] == '\r' && (I + 1 >= Code.size() || Code[I + 1] != '\n'))) {
      ++Line;
      LineStart = I + 1;
    }
  }
  return {Line, Offset - LineStart + 1};
}

static void reportAt(Site &S, StringRef Code, unsigned Offset) {
  std::tie(S.ReportLine, S.ReportColumn) = lineAndColumn(Code, Offset);
}

/// A fix of the call also makes the file include what provides it.
static void addInclude(Site &S, const RuleSet &Rules) {
  if (!Rules.Include.empty())
    S.Edits.push_back(
        TextEdit::addInclude(S.File, Rules.Include, Rules.IncludeAngled));
}

void decideSite(Site &S, StringRef Code, const RuleSet &Rules) {
  const std::vector<MacroUse> &Calls = S.Calls;
  const BodyLocation &Body = *S.Body;
  S.FoundEvents.clear();
  S.Edits.clear();
  S.ReportLine = S.Line;
  S.ReportColumn = S.Column;
  for (const MacroUse &Call : Calls)
    S.FoundEvents.push_back(Call.Event);
  if (Calls.empty()) {
    S.Status = SiteStatus::Missing;
    S.Edits = makeInsertion(S.File, Code, Body.DeclOffset, Body.LBraceOffset,
                            Body.RBraceOffset, Rules.Macro, S.Event);
    addInclude(S, Rules);
    return;
  }
  if (Calls.size() > 1) {
    S.Status = SiteStatus::Duplicate;
    reportAt(S, Code, Calls[1].Offset);
    return;
  }
  const MacroUse &Call = Calls.front();
  if (Call.Event == S.Event) {
    S.Status = SiteStatus::Present;
    return;
  }
  S.Status = SiteStatus::Wrong;
  reportAt(S, Code, Call.Offset);
  if (Call.HasArgRange) {
    S.Edits.push_back(TextEdit{S.File, Call.ArgBegin,
                               Call.ArgEnd - Call.ArgBegin,
                               quoteEvent(S.Event)});
    S.ReportColumn = lineAndColumn(Code, Call.ArgBegin).second;
    addInclude(S, Rules);
  }
}

} // namespace apistamp
