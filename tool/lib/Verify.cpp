//===- Verify.cpp - Compare selections with expectation comments ----------===//

#include "apistamp/Verify.h"
#include "llvm/ADT/STLExtras.h"
#include <map>
#include <set>
#include <tuple>

using namespace llvm;

namespace apistamp {

static std::string singleQuoted(StringRef S) { return "'" + S.str() + "'"; }

static std::string selectedBy(const Site &S) {
  return "rule " + singleQuoted(S.RuleId) + " selects it with event " +
         singleQuoted(S.Event);
}

/// The mismatch of one bound expectation with its site (null: not
/// selected), or "".
static std::string compare(const Expectation &E, const Site *S) {
  const std::string Name = singleQuoted(E.Definition);
  bool Suppressed = S && S->Status == SiteStatus::Suppressed;
  switch (E.Kind) {
  case Expectation::Event:
    if (E.Value.empty())
      return "'expect-event' needs the event: '// expect-event: <event>'";
    if (!S)
      return "expected event " + singleQuoted(E.Value) +
             ", but no rule selects " + Name;
    if (Suppressed)
      return "expected event " + singleQuoted(E.Value) + ", but " + Name +
             " is suppressed by an apistamp-ignore comment";
    if (S->Event != E.Value)
      return "expected event " + singleQuoted(E.Value) + ", but " +
             selectedBy(*S);
    if (S->Status == SiteStatus::Skipped)
      return "expected event " + singleQuoted(E.Value) + ", but " + Name +
             " is skipped: " + S->SkipReason;
    return "";
  case Expectation::NoEvent:
    if (S && !Suppressed)
      return "expected no event for " + Name + ", but " + selectedBy(*S);
    return "";
  case Expectation::Skipped:
    if (!S || Suppressed)
      return "expected " + Name + " to be skipped (" + E.Value +
             "), but no rule selects it";
    if (S->Status != SiteStatus::Skipped)
      return "expected " + Name + " to be skipped (" + E.Value + "), but " +
             selectedBy(*S);
    if (!StringRef(S->SkipReason).contains(E.Value))
      return "expected " + Name + " to be skipped (" + E.Value +
             "), but it is skipped for another reason: " + S->SkipReason;
    return "";
  }
  return "";
}

static StringRef directiveName(Expectation::KindType Kind) {
  return directiveSpelling(directiveOf(Kind));
}

std::vector<VerifyMismatch>
verifyExpectations(ArrayRef<Site> Sites, ArrayRef<Expectation> Expectations) {
  // The same comment, seen by several TUs: bound if any TU bound it.
  std::map<std::pair<std::string, unsigned>, Expectation> Unique;
  for (const Expectation &E : Expectations) {
    auto [It, New] = Unique.try_emplace({E.File, E.Line}, E);
    if (!It->second.DefinitionLine && E.DefinitionLine)
      It->second = E;
  }
  using Position = std::tuple<std::string, unsigned, unsigned>;
  std::map<Position, const Site *> SiteAt;
  for (const Site &S : Sites)
    SiteAt[{S.File, S.Line, S.Column}] = &S;

  std::vector<VerifyMismatch> Mismatches;
  std::set<Position> Expected;
  for (const auto &[Key, E] : Unique) {
    if (!E.DefinitionLine) {
      Mismatches.push_back(
          {E.File, E.Line, E.Column,
           singleQuoted(directiveName(E.Kind)) +
               " is not followed by a definition; put it on the line "
               "before the function, constructor or class it is about"});
      continue;
    }
    Position At{E.File, E.DefinitionLine, E.DefinitionColumn};
    Expected.insert(At);
    auto It = SiteAt.find(At);
    std::string Message = compare(E, It == SiteAt.end() ? nullptr : It->second);
    if (!Message.empty())
      Mismatches.push_back({E.File, E.Line, E.Column, std::move(Message)});
  }
  for (const Site &S : Sites) {
    if (S.Status == SiteStatus::Suppressed ||
        Expected.count({S.File, S.Line, S.Column}))
      continue;
    std::string Expectation = S.Status == SiteStatus::Skipped
                                  ? "'// expect-skipped: " + S.SkipReason + "'"
                                  : "'// expect-event: " + S.Event + "'";
    Mismatches.push_back({S.File, S.Line, S.Column,
                          singleQuoted(S.QualifiedName) + " is selected (" +
                              selectedBy(S) + ") but has no expectation; add " +
                              Expectation +
                              " on the line before it, or narrow the rule"});
  }
  llvm::sort(Mismatches, [](const VerifyMismatch &L, const VerifyMismatch &R) {
    return std::tie(L.File, L.Line, L.Column, L.Message) <
           std::tie(R.File, R.Line, R.Column, R.Message);
  });
  return Mismatches;
}

} // namespace apistamp
