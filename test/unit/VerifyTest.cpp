//===- VerifyTest.cpp - Tests for expectation matching --------------------===//

#include "apistamp/Verify.h"
#include "gmock/gmock.h"

using namespace apistamp;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

namespace {

Site site(unsigned Line, std::string Event,
          SiteStatus Status = SiteStatus::Missing) {
  Site S;
  S.File = "/src/a.cpp";
  S.Line = Line;
  S.Column = 6;
  S.QualifiedName = "ns::f" + std::to_string(Line);
  S.RuleId = "r";
  S.Event = std::move(Event);
  S.Status = Status;
  if (Status == SiteStatus::Skipped)
    S.SkipReason = "constexpr function: a static local is ill-formed there";
  return S;
}

/// An expectation on the line before a definition at \p DefinitionLine.
Expectation expect(Expectation::KindType Kind, unsigned DefinitionLine,
                   std::string Value = "") {
  Expectation E;
  E.Kind = Kind;
  E.File = "/src/a.cpp";
  E.Line = DefinitionLine - 1;
  E.Column = 1;
  E.Value = std::move(Value);
  E.DefinitionLine = DefinitionLine;
  E.DefinitionColumn = 6;
  E.Definition = "ns::f" + std::to_string(DefinitionLine);
  return E;
}

auto messages(const std::vector<VerifyMismatch> &Mismatches) {
  std::vector<std::string> Messages;
  for (const VerifyMismatch &M : Mismatches)
    Messages.push_back(std::to_string(M.Line) + ": " + M.Message);
  return Messages;
}

TEST(VerifyTest, MetExpectationsGiveNoMismatch) {
  std::vector<Site> Sites = {site(10, "e.f10"),
                             site(20, "e.f20", SiteStatus::Skipped)};
  std::vector<Expectation> Expectations = {
      expect(Expectation::Event, 10, "e.f10"),
      expect(Expectation::Skipped, 20, "constexpr"),
      expect(Expectation::NoEvent, 30)};
  EXPECT_THAT(verifyExpectations(Sites, Expectations), IsEmpty());
}

TEST(VerifyTest, EachKindOfMismatchIsReportedAtTheComment) {
  std::vector<Site> Sites = {site(10, "e.actual"), site(20, "e.f20"),
                             site(30, "e.f30", SiteStatus::Skipped),
                             site(50, "e.f50")};
  std::vector<Expectation> Expectations = {
      expect(Expectation::Event, 10, "e.expected"),
      expect(Expectation::NoEvent, 20), expect(Expectation::Event, 30, "e.f30"),
      expect(Expectation::Skipped, 40, "constexpr")};
  EXPECT_THAT(
      messages(verifyExpectations(Sites, Expectations)),
      ElementsAre(
          "9: expected event 'e.expected', but rule 'r' selects it with event "
          "'e.actual'",
          "19: expected no event for 'ns::f20', but rule 'r' selects it with "
          "event 'e.f20'",
          "29: expected event 'e.f30', but 'ns::f30' is skipped: constexpr "
          "function: a static local is ill-formed there",
          "39: expected 'ns::f40' to be skipped (constexpr), but no rule "
          "selects it",
          HasSubstr("50: 'ns::f50' is selected (rule 'r' selects it with event "
                    "'e.f50') but has no expectation")));
}

TEST(VerifyTest, SuppressedCountsAsNoEvent) {
  std::vector<Site> Sites = {site(10, "e.f10", SiteStatus::Suppressed)};
  EXPECT_THAT(verifyExpectations(Sites, {expect(Expectation::NoEvent, 10)}),
              IsEmpty());
  EXPECT_THAT(verifyExpectations(Sites, {}), IsEmpty());
  EXPECT_THAT(messages(verifyExpectations(
                  Sites, {expect(Expectation::Event, 10, "e.f10")})),
              ElementsAre(HasSubstr("is suppressed")));
}

TEST(VerifyTest, ACommentSeenByTwoTUsCountsOnceAndBindsIfEitherBound) {
  Expectation Unbound = expect(Expectation::Event, 10, "e.f10");
  Unbound.DefinitionLine = 0;
  std::vector<Site> Sites = {site(10, "e.f10")};
  EXPECT_THAT(verifyExpectations(
                  Sites, {Unbound, expect(Expectation::Event, 10, "e.f10")}),
              IsEmpty());
  EXPECT_THAT(messages(verifyExpectations({}, {Unbound, Unbound})),
              ElementsAre(HasSubstr("is not followed by a definition")));
}

TEST(VerifyTest, EventExpectationWithoutAnEventIsAnError) {
  std::vector<Site> Sites = {site(10, "e.f10")};
  EXPECT_THAT(verifyExpectations(Sites, {expect(Expectation::Event, 10)}),
              ElementsAre(Field(&VerifyMismatch::Message,
                                HasSubstr("needs the event"))));
}

} // namespace
