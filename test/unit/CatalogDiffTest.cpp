//===- CatalogDiffTest.cpp - Tests of catalog --diff's classification -----===//

#include "CatalogDiff.h"
#include "Findings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"

using namespace apistamp;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

CatalogEvent row(std::string Event, std::string File, unsigned Line,
                 std::string Name = "", std::string Rule = "r",
                 std::string Kind = "function") {
  CatalogEvent E;
  E.Event = std::move(Event);
  E.Rule = std::move(Rule);
  E.File = std::move(File);
  E.Kind = std::move(Kind);
  E.Line = Line;
  E.Status = "present";
  E.Name = std::move(Name);
  return E;
}

/// "change old->new how" per event, in the diff's order.
std::vector<std::string> summary(const CatalogDiff &Diff) {
  std::vector<std::string> Lines;
  for (const EventDiff &E : Diff.Events) {
    std::string Line = eventChangeName(E.Change).str() + " ";
    if (E.Change == EventChange::Renamed)
      Line +=
          E.OldEvent + "->" + E.NewEvent + " " + renameMatchName(E.Match).str();
    else
      Line += E.Change == EventChange::Removed ? E.OldEvent : E.NewEvent;
    Lines.push_back(Line);
  }
  return Lines;
}

TEST(CatalogDiffTest, EachClass) {
  std::vector<CatalogEvent> Old = {row("lib.a.f", "a.cpp", 3, "lib::f"),
                                   row("lib.a.gone", "a.cpp", 9, "lib::gone"),
                                   row("lib.a.same", "a.cpp", 20, "lib::same")};
  std::vector<CatalogEvent> New = {
      row("lib.b.f", "b.cpp", 1, "lib::f"),
      row("lib.a.same", "a.cpp", 12, "lib::same"),
      row("lib.c.fresh", "c.cpp", 2, "lib::fresh")};
  CatalogDiff Diff = diffCatalogs(Old, New);
  EXPECT_THAT(summary(Diff),
              ElementsAre("renamed lib.a.f->lib.b.f same-name",
                          "removed lib.a.gone", "added lib.c.fresh",
                          "unchanged lib.a.same"));
  EXPECT_EQ(Diff.Events[0].How,
            "same rule, same name 'lib::f', moved from a.cpp:3");
  EXPECT_EQ(Diff.count(EventChange::Unchanged), 1u);
  ASSERT_EQ(Diff.suggestedAliases().size(), 1u);
  EXPECT_EQ(Diff.suggestedAliases()[0]->OldEvent, "lib.a.f");
  EXPECT_TRUE(Diff.Notes.empty());
}

TEST(CatalogDiffTest, CriteriaInOrder) {
  // No names (an old catalog without them): place, file, last component.
  std::vector<CatalogEvent> Old = {row("lib.old_line", "a.cpp", 3),
                                   row("lib.decode_v1", "b.cpp", 5),
                                   row("lib.x.decode", "c.cpp", 7)};
  std::vector<CatalogEvent> New = {row("lib.new_line", "a.cpp", 3),
                                   row("lib.decode_v2", "b.cpp", 9),
                                   row("lib.y.decode", "d.cpp", 1)};
  CatalogDiff Diff = diffCatalogs(Old, New);
  EXPECT_THAT(summary(Diff),
              ElementsAre("renamed lib.decode_v1->lib.decode_v2 only-in-file",
                          "renamed lib.old_line->lib.new_line same-line",
                          "renamed lib.x.decode->lib.y.decode same-last-name"));
  EXPECT_EQ(Diff.Events[1].How, "same rule, same file and line");
  EXPECT_EQ(Diff.Events[0].How, "same rule, same file, the only pair there, "
                                "similar names (was line 5)");
  EXPECT_EQ(Diff.Events[2].How, "same rule, same last name component "
                                "'decode', moved from c.cpp:7");
}

TEST(CatalogDiffTest, TheOnlyPairInAFileNeedsSimilarNames) {
  // A deletion and an addition in one file are not a rename.
  CatalogDiff Diff =
      diffCatalogs({row("lib.legacy", "a.cpp", 4, "lib::legacy")},
                   {row("lib.sharpen", "a.cpp", 3, "lib::sharpen")});
  EXPECT_THAT(summary(Diff),
              ElementsAre("removed lib.legacy", "added lib.sharpen"));
}

TEST(CatalogDiffTest, RenamesStayWithinARuleAndKind) {
  CatalogDiff Diff =
      diffCatalogs({row("lib.f", "a.cpp", 3, "lib::f", "r1")},
                   {row("lib.g", "a.cpp", 3, "lib::f", "r2"),
                    row("lib.h", "a.cpp", 3, "lib::f", "r1", "method")});
  EXPECT_THAT(summary(Diff),
              ElementsAre("removed lib.f", "added lib.g", "added lib.h"));
}

TEST(CatalogDiffTest, AmbiguousCandidatesAreNotRenames) {
  // Two removed and two added in one file, no name, no line in common.
  std::vector<CatalogEvent> Old = {row("lib.a1", "a.cpp", 1),
                                   row("lib.a2", "a.cpp", 2)};
  std::vector<CatalogEvent> New = {row("lib.b1", "a.cpp", 5),
                                   row("lib.b2", "a.cpp", 6)};
  CatalogDiff Diff = diffCatalogs(Old, New);
  EXPECT_THAT(summary(Diff), ElementsAre("removed lib.a1", "removed lib.a2",
                                         "added lib.b1", "added lib.b2"));
  EXPECT_THAT(Diff.Notes,
              ElementsAre("not matched as renames, ambiguous (rule 'r', "
                          "function in a.cpp): removed 'lib.a1', 'lib.a2', "
                          "added 'lib.b1', 'lib.b2'"));
  EXPECT_TRUE(Diff.suggestedAliases().empty());
}

TEST(CatalogDiffTest, OneToOneAcrossCriteria) {
  // Two new definitions named f: not by name; the one on the old line is.
  std::vector<CatalogEvent> Old = {row("lib.a.f", "a.cpp", 4, "lib::f")};
  std::vector<CatalogEvent> New = {row("lib.b.f", "b.cpp", 4, "lib::f"),
                                   row("lib.a.f2", "a.cpp", 4, "lib::f")};
  CatalogDiff Diff = diffCatalogs(Old, New);
  EXPECT_THAT(summary(Diff), ElementsAre("renamed lib.a.f->lib.a.f2 same-line",
                                         "added lib.b.f"));
  // The same inputs in another order give the same diff.
  CatalogDiff Again = diffCatalogs(Old, {New[1], New[0]});
  EXPECT_EQ(summary(Again), summary(Diff));
}

TEST(CatalogDiffTest, OverloadsAreOneEvent) {
  // Two rows of lib.f (overloads); one of them moved: still unchanged.
  std::vector<CatalogEvent> Old = {
      row("lib.f", "a.cpp", 3, "lib::f"), row("lib.f", "a.cpp", 8, "lib::f"),
      row("lib.g", "a.cpp", 12, "lib::g"), row("lib.g", "a.cpp", 14, "lib::g")};
  std::vector<CatalogEvent> New = {row("lib.f", "b.cpp", 1, "lib::f"),
                                   row("lib.f", "a.cpp", 3, "lib::f"),
                                   row("lib.g2", "a.cpp", 14, "lib::g"),
                                   row("lib.g2", "a.cpp", 12, "lib::g")};
  CatalogDiff Diff = diffCatalogs(Old, New);
  EXPECT_THAT(summary(Diff), ElementsAre("renamed lib.g->lib.g2 same-name",
                                         "unchanged lib.f"));
  // The first row by file and line stands for the event.
  EXPECT_EQ(Diff.Events[0].Old.Line, 12u);
  EXPECT_EQ(Diff.Events[0].New.Line, 12u);
  EXPECT_EQ(Diff.Events[1].New.File, "a.cpp");
}

TEST(CatalogDiffTest, DeclaredAliasesComeFirst) {
  std::vector<CatalogEvent> Old = {
      row("lib.decode_jpeg_cuda", "a.cpp", 3, "lib::decode_jpeg_cuda"),
      row("lib.old_merged", "a.cpp", 9, "lib::old_merged"),
      row("lib.dangling", "a.cpp", 20, "lib::dangling"),
      row("lib.kept", "a.cpp", 30, "lib::kept")};
  std::vector<CatalogEvent> New = {
      row("lib.decode_jpegs_cuda", "a.cpp", 3, "lib::decode_jpegs_cuda"),
      row("lib.kept", "a.cpp", 30, "lib::kept")};
  AliasLookup Aliases = [](llvm::StringRef Old) -> std::optional<std::string> {
    if (Old == "lib.decode_jpeg_cuda")
      return std::string("lib.decode_jpegs_cuda");
    if (Old == "lib.old_merged")
      return std::string("lib.kept"); // Many to one, onto an unchanged one.
    if (Old == "lib.dangling")
      return std::string("lib.nowhere");
    return std::nullopt;
  };
  CatalogDiff Diff = diffCatalogs(Old, New, Aliases);
  EXPECT_THAT(summary(Diff),
              ElementsAre("renamed lib.decode_jpeg_cuda->lib.decode_jpegs_cuda "
                          "alias",
                          "renamed lib.old_merged->lib.kept alias",
                          "removed lib.dangling", "unchanged lib.kept"));
  EXPECT_EQ(Diff.Events[0].How, "alias declared");
  EXPECT_TRUE(Diff.suggestedAliases().empty());
  EXPECT_THAT(Diff.Notes,
              ElementsAre("the aliases map 'lib.dangling' to 'lib.nowhere', "
                          "which the current catalog does not place"));
  // Without the lookup the same-line rename is inferred instead.
  EXPECT_THAT(summary(diffCatalogs(Old, New)),
              ElementsAre("renamed lib.decode_jpeg_cuda->lib.decode_jpegs_cuda "
                          "same-line",
                          "removed lib.dangling", "removed lib.old_merged",
                          "unchanged lib.kept"));
}

TEST(CatalogDiffTest, RendersTextWithSuggestedAliases) {
  CatalogDiff Diff =
      diffCatalogs({row("lib.old", "a.cpp", 3), row("lib.gone", "z.cpp", 1),
                    row("lib.same", "a.cpp", 9)},
                   {row("lib.new", "a.cpp", 3), row("lib.same", "a.cpp", 9)});
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printCatalogDiff(OS, Diff, OutputFormat::Text, /*ListUnchanged=*/false);
  EXPECT_EQ(Text,
            "renamed    lib.old -> lib.new  a.cpp:3  [r]  same rule, same file "
            "and line\n"
            "removed    lib.gone            z.cpp:1  [r]\n"
            "catalog diff: 1 renamed (0 by a declared alias), 1 removed, 0 "
            "added, 1 unchanged\n"
            "\n"
            "# Suggested aliases for the rules file (old event: current "
            "event);\n"
            "# check each match above before pasting.\n"
            "aliases:\n"
            "  lib.old: lib.new\n");
}

TEST(CatalogDiffTest, RendersJson) {
  CatalogDiff Diff =
      diffCatalogs({row("lib.old", "a.cpp", 3)}, {row("lib.new", "a.cpp", 3)});
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  printCatalogDiff(OS, Diff, OutputFormat::Json, false);
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Text);
  ASSERT_TRUE(bool(Parsed)) << llvm::toString(Parsed.takeError());
  const llvm::json::Object *Top = Parsed->getAsObject();
  ASSERT_TRUE(Top);
  EXPECT_EQ(Top->getObject("suggested_aliases")->getString("lib.old"),
            "lib.new");
  const llvm::json::Object *Row = (*Top->getArray("events"))[0].getAsObject();
  EXPECT_EQ(Row->getString("change"), "renamed");
  EXPECT_EQ(Row->getString("matched_by"), "same-line");
  EXPECT_EQ(Row->getString("old_event"), "lib.old");
  EXPECT_EQ(Top->getObject("counts")->getInteger("renamed"), 1);
}

TEST(CatalogDiffTest, YamlScalarsReadBack) {
  EXPECT_EQ(yamlScalar("lib.a_b-c/d", false), "lib.a_b-c/d");
  EXPECT_EQ(yamlScalar("true", false), "\"true\"");
  EXPECT_EQ(yamlScalar("1.5", false), "\"1.5\"");
  EXPECT_EQ(yamlScalar("a: b", false), "\"a: b\"");
  EXPECT_EQ(yamlScalar("say \"hi\"\n", false), "\"say \\\"hi\\\"\\x0a\"");
  EXPECT_EQ(yamlScalar("lib.*", true), "\"lib.\\\\*\"");
  EXPECT_EQ(yamlScalar("a\\b", true), "\"a\\\\\\\\b\"");
  EXPECT_EQ(yamlScalar("caf\xc3\xa9", false), "\"caf\\u00e9\"");
  EXPECT_EQ(yamlScalar("\xff", false), std::nullopt);
}

} // namespace
