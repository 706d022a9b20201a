//===- OptionsTest.cpp - validateOptions and the command table ------------===//

#include "apistamp/Options.h"
#include "apistamp/CommandTable.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace apistamp;

namespace {

/// The message of \p E ("" for success), consumed.
std::string messageOf(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : "";
}

Options optionsFor(Mode M, std::vector<std::string> Sources = {"a.cpp"}) {
  Options Opts;
  Opts.RunMode = M;
  Opts.Sources = std::move(Sources);
  return Opts;
}

TEST(CommandTableTest, EveryModeHasOneRowThatRuns) {
  for (Mode M : {Mode::Check, Mode::Fix, Mode::Diff, Mode::Explain,
                 Mode::Catalog, Mode::Verify, Mode::Report, Mode::Tu,
                 Mode::Merge, Mode::Ninja}) {
    const CommandInfo &C = commandInfo(M);
    EXPECT_EQ(C.RunMode, M);
    EXPECT_NE(C.Run == nullptr, C.RunAlone == nullptr) << C.Name.str();
    EXPECT_EQ(
        llvm::count_if(commandTable(),
                       [&](const CommandInfo &R) { return R.Name == C.Name; }),
        1);
  }
  EXPECT_EQ(commandTable().size(), 10u);
}

TEST(ParseShardTest, AcceptsOnlyIndexWithinCount) {
  llvm::Expected<Shard> S = parseShard("2/4");
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(S->Index, 2u);
  EXPECT_EQ(S->Count, 4u);
  for (const char *Bad :
       {"0/3", "4/3", "1/0", "x/2", "2", "", "1/2/3", "-1/2"}) {
    llvm::Expected<Shard> Rejected = parseShard(Bad);
    ASSERT_FALSE(bool(Rejected)) << Bad;
    EXPECT_EQ(messageOf(Rejected.takeError()),
              std::string("apistamp: error: --shard wants I/N with 1 <= I <= "
                          "N, e.g. --shard 2/4, not '") +
                  Bad + "'");
  }
}

TEST(ValidateOptionsTest, FormatsComeFromTheCommandTable) {
  Options Check = optionsFor(Mode::Check);
  Check.Format = OutputFormat::Sarif;
  EXPECT_EQ(messageOf(validateOptions(Check)), "");
  Check.Format = OutputFormat::Csv;
  EXPECT_EQ(messageOf(validateOptions(Check)),
            "apistamp: error: --format=csv is not a format of this command; "
            "check takes text, json or sarif, catalog text, csv or json, "
            "merge text, json or sarif");
  Options Catalog = optionsFor(Mode::Catalog);
  Catalog.Format = OutputFormat::Csv;
  EXPECT_EQ(messageOf(validateOptions(Catalog)), "");
  Catalog.Format = OutputFormat::Sarif;
  EXPECT_NE(messageOf(validateOptions(Catalog)), "");
}

TEST(ValidateOptionsTest, CatalogDiffIsWholeTextOrJson) {
  Options Diff = optionsFor(Mode::Catalog);
  Diff.CatalogDiffFile = "old.json";
  EXPECT_EQ(messageOf(validateOptions(Diff)), "");
  Diff.Format = OutputFormat::Json;
  EXPECT_EQ(messageOf(validateOptions(Diff)), "");
  Diff.Format = OutputFormat::Csv;
  EXPECT_EQ(messageOf(validateOptions(Diff)),
            "apistamp: error: catalog --diff writes text or json, not csv");
  Diff.Format = OutputFormat::Text;
  Diff.ChangedSince = "HEAD~1";
  EXPECT_EQ(messageOf(validateOptions(Diff)),
            "apistamp: error: catalog --diff compares whole catalogs; "
            "--changed-since would show every event outside it as removed");
  Diff.ChangedSince.clear();
  Diff.Part = Shard{1, 2};
  EXPECT_THAT(messageOf(validateOptions(Diff)),
              ::testing::HasSubstr("--shard would show"));
}

TEST(ValidateOptionsTest, UsageGateOptions) {
  Options Gate = optionsFor(Mode::Check);
  Gate.Sources.clear();
  Gate.UsageFile = "usage.json";
  Gate.Report.Since = "2026-08";
  Gate.MinJobs = 5;
  Gate.MinJobsGiven = true;
  EXPECT_EQ(messageOf(validateOptions(Gate)), "");
  Gate.MinJobs = 0;
  EXPECT_NE(
      messageOf(validateOptions(Gate)).find("--min-jobs must be at least 1"),
      std::string::npos);
  Gate.MinJobs = 5;
  Gate.Report.Since = "last week";
  EXPECT_NE(messageOf(validateOptions(Gate)).find("--since wants an ISO 8601"),
            std::string::npos);
  Gate.Report.Since = "";
  Gate.Sources = {"a.cpp"};
  EXPECT_NE(messageOf(validateOptions(Gate)).find("the whole tree"),
            std::string::npos);
  Gate.Sources.clear();
  Gate.Part = Shard{1, 2};
  EXPECT_NE(messageOf(validateOptions(Gate)).find("the whole tree"),
            std::string::npos);
  Options Alone = optionsFor(Mode::Check);
  Alone.Sources.clear();
  Alone.MinJobsGiven = true;
  EXPECT_NE(messageOf(validateOptions(Alone)).find("--min-jobs is for --usage"),
            std::string::npos);
  Alone.MinJobsGiven = false;
  Alone.Report.Since = "2026-08";
  EXPECT_NE(messageOf(validateOptions(Alone)).find("--since is for --usage"),
            std::string::npos);
}

TEST(ValidateOptionsTest, ExplainTakesSourceColonLine) {
  Options Explain = optionsFor(Mode::Explain, {"src/a.cpp:12"});
  ASSERT_EQ(messageOf(validateOptions(Explain)), "");
  EXPECT_EQ(Explain.Sources, std::vector<std::string>{"src/a.cpp"});
  EXPECT_EQ(Explain.ExplainLine, 12u);
  for (std::vector<std::string> Bad : {std::vector<std::string>{"src/a.cpp"},
                                       {"a.cpp:0"},
                                       {"a.cpp:x"},
                                       {"a.cpp:1", "b.cpp:2"},
                                       {}}) {
    Options Wrong = optionsFor(Mode::Explain, Bad);
    EXPECT_EQ(messageOf(validateOptions(Wrong)),
              "apistamp: error: explain needs one <source>:<line>, or --name "
              "<qualified name>");
  }
  Options ByName = optionsFor(Mode::Explain, {"a.cpp", "b.cpp"});
  ByName.ExplainName = "ns::f";
  EXPECT_EQ(messageOf(validateOptions(ByName)), "");
  EXPECT_EQ(ByName.Sources.size(), 2u);
}

TEST(ValidateOptionsTest, ReportReadsLogsOrAggregates) {
  Options None = optionsFor(Mode::Report, {});
  EXPECT_EQ(messageOf(validateOptions(None)),
            "apistamp: error: no logs given; pass log files, directories or "
            "'-', or --aggregates FILE.csv");
  Options Both = optionsFor(Mode::Report, {"log.jsonl"});
  Both.Report.AggregatesFile = "a.csv";
  EXPECT_EQ(messageOf(validateOptions(Both)),
            "apistamp: error: pass logs or --aggregates, not both");
  Options Logs = optionsFor(Mode::Report, {"log.jsonl"});
  EXPECT_EQ(messageOf(validateOptions(Logs)), "");
}

TEST(ValidateOptionsTest, ResolvesTheNumberOfJobsOnce) {
  Options Default = optionsFor(Mode::Check);
  ASSERT_EQ(messageOf(validateOptions(Default)), "");
  EXPECT_GE(Default.Jobs, 1u);
  Options Three = optionsFor(Mode::Report, {"log"});
  Three.Jobs = 3;
  ASSERT_EQ(messageOf(validateOptions(Three)), "");
  EXPECT_EQ(Three.Jobs, 3u);
}

/// The options apistamp's commands take, as far as these tests need them.
std::vector<CommandOptions> someCommands() {
  std::vector<llvm::StringRef> Shared = {"rules",   "p",     "root", "j",
                                         "verbose", "quiet", "q",    "help"};
  auto With = [&](std::vector<llvm::StringRef> More) {
    More.insert(More.end(), Shared.begin(), Shared.end());
    return More;
  };
  return {{"check", With({"format", "export-fixes"})},
          {"diff", With({"export-fixes"})},
          {"catalog", With({"format"})},
          {"report", With({"format", "o", "since"})}};
}

TEST(UnknownOptionHintTest, AnOptionOfOtherCommandsSaysWhichTakeIt) {
  // llvm::cl said "did you mean '--root=json'?".
  EXPECT_EQ(unknownOptionHint("--format=json", "diff", someCommands()),
            "'--format' is not an option of 'diff'; it is one of check, "
            "catalog and report");
  EXPECT_EQ(unknownOptionHint("-o", "check", someCommands()),
            "'-o' is not an option of 'check'; it is one of report");
}

TEST(UnknownOptionHintTest, OnlyLikelyTyposAreSuggested) {
  // llvm::cl suggested '-p' for '-Q': any option one edit away.
  EXPECT_EQ(unknownOptionHint("-Q", "check", someCommands()),
            "did you mean '-q'?");
  EXPECT_EQ(unknownOptionHint("-x", "check", someCommands()), "");
  EXPECT_EQ(unknownOptionHint("--pp", "check", someCommands()), "");
  EXPECT_EQ(unknownOptionHint("--xyz", "check", someCommands()), "");
  EXPECT_EQ(unknownOptionHint("--fromat=json", "check", someCommands()),
            "did you mean '--format=json'?");
  EXPECT_EQ(unknownOptionHint("--verbos", "diff", someCommands()),
            "did you mean '--verbose'?");
  EXPECT_EQ(unknownOptionHint("--ROOT=x", "diff", someCommands()),
            "did you mean '--root=x'?");
  EXPECT_EQ(unknownOptionHint("--nothing-like-it", "diff", someCommands()), "");
  EXPECT_EQ(unknownOptionHint("stray.cpp", "diff", someCommands()), "");
}

} // namespace

namespace {

// --since=2026-11-1 silently dropped events and --since=2026/11/01 all of
// them: the window is compared as text.
TEST(ValidateOptionsTest, ReportWindowMustBeAnIsoTimePrefix) {
  for (const char *Good :
       {"2026", "2026-11", "2026-11-16", "2026-11-16T12", "2026-11-16T12:00",
        "2026-11-16T12:00:59", "2026-11-16T12:00:59.123Z", "2024-02-29"}) {
    EXPECT_TRUE(isTimePrefix(Good)) << Good;
    Options Opts = optionsFor(Mode::Report, {"log"});
    Opts.Report.Since = Good;
    Opts.Report.Until = Good;
    EXPECT_EQ(messageOf(validateOptions(Opts)), "") << Good;
  }
  for (const char *Bad :
       {"2026-11-1", "2026/11/01", "2026-13", "2026-11-31", "2025-02-29",
        "0000-00-00", "2026-11-16 12:00", "2026-11-16T24:00", "26-11-16",
        "2026-11-16T12:0", "yesterday"}) {
    EXPECT_FALSE(isTimePrefix(Bad)) << Bad;
    Options Opts = optionsFor(Mode::Report, {"log"});
    Opts.Report.Until = Bad;
    EXPECT_EQ(messageOf(validateOptions(Opts)),
              std::string("apistamp: error: --until wants an ISO 8601 UTC "
                          "date or time, or the start of one (2026-11, "
                          "2026-11-16, 2026-11-16T12:00), not '") +
                  Bad + "'");
  }
}

// --layer NAME=GLOB[,GLOB...]: the globs split at the commas outside
// braces that no backslash escapes.
TEST(ParseLayerOptionTest, GlobsSplitAtCommasOutsideBraces) {
  llvm::Expected<EventLayer> L =
      parseLayerOption("tv=torchvision.{models,ops}.*,x.a\\,b,y.*");
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->Name, "tv");
  ASSERT_EQ(L->Globs.size(), 3u);
  EXPECT_EQ(L->Globs[0].pattern(), "torchvision.{models,ops}.*");
  EXPECT_EQ(L->Globs[1].pattern(), "x.a\\,b");
  EXPECT_TRUE(L->matches("torchvision.ops.boxes.nms"));
  EXPECT_TRUE(L->matches("x.a,b"));
  EXPECT_TRUE(L->matches("y.z"));
  EXPECT_FALSE(L->matches("torchvision.csrc.ops.nms.nms"));
  EXPECT_EQ(messageOf(parseLayerOption("torch").takeError()),
            "apistamp: error: --layer wants NAME=GLOB[,GLOB...], a NAME of "
            "ASCII letters, digits, '.', '_' and '-' (a letter or a digit "
            "first), not 'torch'");
  EXPECT_THAT(messageOf(parseLayerOption("a b=x.*").takeError()),
              ::testing::HasSubstr("--layer wants NAME=GLOB"));
  EXPECT_EQ(messageOf(parseLayerOption("t=a.*,,b.*").takeError()),
            "apistamp: error: --layer t: an empty glob matches no event, in "
            "'t=a.*,,b.*'");
  EXPECT_EQ(messageOf(parseLayerOption("t=").takeError()),
            "apistamp: error: --layer t: an empty glob matches no event, in "
            "'t='");
  EXPECT_THAT(messageOf(parseLayerOption("t=a.[").takeError()),
              ::testing::HasSubstr("apistamp: error: --layer t: bad glob "
                                   "'a.['"));
}

TEST(ValidateOptionsTest, LayersOfOneNameAreOne) {
  Options Opts = optionsFor(Mode::Report, {"log"});
  Opts.Report.LayerArgs = {"torch=tensor.*", "tv=torchvision.ops.*",
                           "torch=python.*"};
  EXPECT_EQ(messageOf(validateOptions(Opts)), "");
  ASSERT_EQ(Opts.Report.Layers.size(), 2u);
  EXPECT_EQ(Opts.Report.Layers[0].Name, "torch");
  EXPECT_TRUE(Opts.Report.Layers[0].matches("python.nn_module"));
  EXPECT_EQ(Opts.Report.Layers[1].Name, "tv");
  Opts.Report.LayerArgs.push_back("bad");
  EXPECT_THAT(messageOf(validateOptions(Opts)),
              ::testing::HasSubstr("--layer wants NAME=GLOB"));
}

TEST(ValidateOptionsTest, StderrJobFromHasOneGroup) {
  Options Opts = optionsFor(Mode::Report, {"log"});
  Opts.Report.StderrJobFrom = "slurm-([0-9]+)";
  EXPECT_EQ(messageOf(validateOptions(Opts)), "");
  Opts.Report.StderrJobFrom = "slurm-[0-9]+";
  EXPECT_EQ(messageOf(validateOptions(Opts)),
            "apistamp: error: --stderr-job-from wants a regular expression "
            "with one group, the job id (e.g. 'slurm-([0-9]+)'), not 0 in "
            "'slurm-[0-9]+'");
  Opts.Report.StderrJobFrom = "(a)(b)";
  EXPECT_THAT(messageOf(validateOptions(Opts)),
              ::testing::HasSubstr("not 2 in '(a)(b)'"));
  Opts.Report.StderrJobFrom = "(a";
  EXPECT_THAT(messageOf(validateOptions(Opts)),
              ::testing::HasSubstr("apistamp: error: --stderr-job-from: bad "
                                   "regular expression '(a': "));
  Opts.Report.StderrJobFrom = "(a)";
  Opts.Report.StderrJobId = "77";
  EXPECT_EQ(messageOf(validateOptions(Opts)),
            "apistamp: error: --stderr-job-id and --stderr-job-from both say "
            "where a stderr log's job is; pass one");
}

} // namespace
