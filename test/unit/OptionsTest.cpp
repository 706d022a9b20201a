//===- OptionsTest.cpp - validateOptions and the command table ------------===//

#include "apistamp/Options.h"
#include "apistamp/CommandLine.h"
#include "apistamp/CommandTable.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include <map>
#include <set>

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
  for (Mode M :
       {Mode::Check, Mode::Fix, Mode::Diff, Mode::Explain, Mode::Catalog,
        Mode::Verify, Mode::Report, Mode::Tu, Mode::Merge, Mode::Ninja}) {
    const CommandInfo &C = commandInfo(M);
    EXPECT_EQ(C.RunMode, M);
    EXPECT_EQ(int(C.Run != nullptr) + int(C.RunAlone != nullptr) +
                  int(C.RunOnPlan != nullptr),
              1)
        << C.Name.str();
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

/// validateOptions with \p Variables as the whole environment.
llvm::Error validateWith(Options &Opts,
                         std::map<std::string, std::string> Variables) {
  return validateOptions(
      Opts, [&](llvm::StringRef Name) -> std::optional<std::string> {
        auto Found = Variables.find(Name.str());
        if (Found == Variables.end())
          return std::nullopt;
        return Found->second;
      });
}

TEST(ValidateOptionsTest, TheEnvironmentDecidesWhatNoOptionSays) {
  Options Plain = optionsFor(Mode::Check);
  ASSERT_EQ(messageOf(validateWith(Plain, {})), "");
  EXPECT_EQ(Plain.Preambles, PreambleBuilds::Auto);
  EXPECT_TRUE(Plain.SkipBodies);
  EXPECT_EQ(Plain.PreambleStoreDir, "");

  Options All = optionsFor(Mode::Check);
  ASSERT_EQ(messageOf(validateWith(All, {{"APISTAMP_PREAMBLE", "all"},
                                         {"APISTAMP_NO_SKIP_BODIES", "1"}})),
            "");
  EXPECT_EQ(All.Preambles, PreambleBuilds::All);
  EXPECT_FALSE(All.SkipBodies);
  Options Other = optionsFor(Mode::Check);
  ASSERT_EQ(messageOf(validateWith(Other, {{"APISTAMP_PREAMBLE", "yes"},
                                           {"APISTAMP_NO_SKIP_BODIES", "0"}})),
            "");
  EXPECT_EQ(Other.Preambles, PreambleBuilds::Auto);
  EXPECT_TRUE(Other.SkipBodies);

  // An option given beats the variable.
  Options Given = optionsFor(Mode::Check);
  Given.Preambles = PreambleBuilds::Never;
  Given.Given.Preamble = true;
  ASSERT_EQ(messageOf(validateWith(Given, {{"APISTAMP_PREAMBLE", "all"}})), "");
  EXPECT_EQ(Given.Preambles, PreambleBuilds::Never);
  Options NoSkip = optionsFor(Mode::Check);
  NoSkip.Given.NoSkipBodies = true;
  ASSERT_EQ(messageOf(validateWith(NoSkip, {})), "");
  EXPECT_FALSE(NoSkip.SkipBodies);

  // A store: a preamble for every TU, unless the store is turned off.
  Options Store = optionsFor(Mode::Check);
  ASSERT_EQ(messageOf(validateWith(Store, {{"APISTAMP_PREAMBLE_STORE", "/s"}})),
            "");
  EXPECT_EQ(Store.PreambleStoreDir, "/s");
  EXPECT_EQ(Store.Preambles, PreambleBuilds::All);
  Options Off = optionsFor(Mode::Check);
  Off.Given.NoPreamble = true;
  ASSERT_EQ(messageOf(validateWith(Off, {{"APISTAMP_PREAMBLE_STORE", "/s"},
                                         {"APISTAMP_PREAMBLE", "all"}})),
            "");
  EXPECT_EQ(Off.PreambleStoreDir, "");
  EXPECT_EQ(Off.Preambles, PreambleBuilds::Never);
}

TEST(ValidateOptionsTest, OptionsThatDecideOneFieldTogether) {
  Options Merge = optionsFor(Mode::Merge, {"results"});
  Merge.Given.MergeDiff = true;
  ASSERT_EQ(messageOf(validateWith(Merge, {})), "");
  EXPECT_EQ(Merge.OutputMode, Mode::Diff);
  EXPECT_EQ(Merge.ResultFiles, std::vector<std::string>{"results"});
  EXPECT_TRUE(Merge.Sources.empty());
  Merge = optionsFor(Mode::Merge, {"results"});
  Merge.Given.MergeDiff = Merge.Given.MergeFix = true;
  EXPECT_EQ(messageOf(validateWith(Merge, {})),
            "apistamp: error: --diff and --fix: one or the other");

  for (bool List : {false, true}) {
    Options Catalog = optionsFor(Mode::Catalog);
    Catalog.Given.ListUnselected = List;
    ASSERT_EQ(messageOf(validateWith(Catalog, {})), "");
    EXPECT_EQ(Catalog.Unselected, List);
  }
  Options Check = optionsFor(Mode::Check);
  Check.Given.FailOnUnselected = true;
  ASSERT_EQ(messageOf(validateWith(Check, {})), "");
  EXPECT_TRUE(Check.Unselected);

  Options Sharded = optionsFor(Mode::Check);
  Sharded.Given.Shard = "2/3";
  ASSERT_EQ(messageOf(validateWith(Sharded, {})), "");
  EXPECT_EQ(Sharded.Part.Index, 2u);
  EXPECT_EQ(Sharded.Part.Count, 3u);
  Sharded.Given.Shard = "3/2";
  EXPECT_THAT(messageOf(validateWith(Sharded, {})),
              ::testing::HasSubstr("--shard wants I/N"));
}

TEST(CommandTableTest, UsageHasEveryCommandAndItsArguments) {
  std::string Usage = usageText();
  for (const CommandInfo &C : commandTable()) {
    EXPECT_THAT(Usage, ::testing::ContainsRegex("apistamp ([a-z]+\\|)*" +
                                                C.Name.str() +
                                                "(\\|[a-z]+)* \\[options\\]"))
        << C.Name.str();
    EXPECT_THAT(Usage, ::testing::HasSubstr(C.Arguments.str()));
  }
  EXPECT_THAT(Usage, ::testing::HasSubstr(
                         "apistamp tu [options] <source> [-- <compiler "
                         "args>]\n"));
  EXPECT_THAT(Usage, ::testing::HasSubstr("apistamp ninja [options]\n"));
  EXPECT_EQ(commandNames(), "check, fix, diff, explain, catalog, verify, "
                            "report, tu, merge or ninja");
}

TEST(FormatNamesTest, EachFormatHasOneName) {
  // Every enumerator has a row, under a name no other row has.
  std::set<OutputFormat> Formats;
  std::set<std::string> Names;
  for (const auto &F : outputFormats()) {
    Formats.insert(F.Value);
    Names.insert(F.Name.str());
  }
  EXPECT_EQ(Formats,
            (std::set<OutputFormat>{OutputFormat::Text, OutputFormat::Csv,
                                    OutputFormat::Json, OutputFormat::Sarif}));
  EXPECT_EQ(Names, (std::set<std::string>{"text", "csv", "json", "sarif"}));
  std::set<ReportFormat> Reports;
  for (const auto &F : reportFormats())
    Reports.insert(F.Value);
  EXPECT_EQ(Reports.size(), reportFormats().size());
  EXPECT_EQ(Reports.size(), 5u);
}

/// parseCommandLine on \p Args after the program name.
llvm::Expected<Options> parse(std::vector<const char *> Args) {
  Args.insert(Args.begin(), "apistamp");
  std::string Warnings;
  llvm::raw_string_ostream Stream(Warnings);
  llvm::Expected<Options> Opts = parseCommandLine(Args, Stream);
  EXPECT_EQ(Warnings, "");
  return Opts;
}

TEST(CommandLineTest, OptionsLandInTheirFields) {
  llvm::Expected<Options> Report =
      parse({"report", "--format=markdown", "-o", "out.md", "--since",
             "2026-01", "--layer", "py=torchvision.*", "log.jsonl"});
  ASSERT_TRUE(bool(Report)) << llvm::toString(Report.takeError());
  EXPECT_EQ(Report->RunMode, Mode::Report);
  EXPECT_EQ(Report->Report.Format, ReportFormat::Markdown);
  EXPECT_EQ(Report->Report.Output, "out.md");
  EXPECT_EQ(Report->Report.Since, "2026-01");
  EXPECT_EQ(Report->Report.LayerArgs,
            std::vector<std::string>{"py=torchvision.*"});
  EXPECT_EQ(Report->Sources, std::vector<std::string>{"log.jsonl"});

  llvm::Expected<Options> Check =
      parse({"check", "--format=sarif", "-j3", "--min-jobs", "2", "--usage",
             "u.json", "--", "-DX"});
  ASSERT_TRUE(bool(Check)) << llvm::toString(Check.takeError());
  EXPECT_EQ(Check->Format, OutputFormat::Sarif);
  EXPECT_EQ(Check->Jobs, 3u);
  EXPECT_EQ(Check->MinJobs, 2u);
  EXPECT_TRUE(Check->MinJobsGiven);
  EXPECT_EQ(Check->CompilerArgs, std::vector<std::string>{"-DX"});

  llvm::Expected<Options> Merge = parse({"merge", "--fix", "r.json"});
  ASSERT_TRUE(bool(Merge)) << llvm::toString(Merge.takeError());
  EXPECT_EQ(Merge->OutputMode, Mode::Fix);
  llvm::Expected<Options> Diff = parse({"diff", "a.cpp"});
  ASSERT_TRUE(bool(Diff)) << llvm::toString(Diff.takeError());
  EXPECT_EQ(Diff->OutputMode, Mode::Diff);
  EXPECT_EQ(Merge->ResultFiles, std::vector<std::string>{"r.json"});
}

TEST(CommandLineTest, EachParseStartsFromTheDefaults) {
  ASSERT_TRUE(bool(parse(
      {"check", "--format=json", "--min-jobs", "2", "--usage", "u.json"})));
  llvm::Expected<Options> Again = parse({"check", "a.cpp"});
  ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
  EXPECT_EQ(Again->Format, OutputFormat::Text);
  EXPECT_EQ(Again->MinJobs, 1u);
  EXPECT_FALSE(Again->MinJobsGiven);
  EXPECT_FALSE(Again->CompilerArgs.has_value());
  EXPECT_EQ(Again->Sources, std::vector<std::string>{"a.cpp"});
}

TEST(CommandLineTest, BadUsageSaysWhatAndHints) {
  llvm::Expected<Options> Diff = parse({"diff", "--format=json", "a.cpp"});
  ASSERT_FALSE(bool(Diff));
  EXPECT_THAT(messageOf(Diff.takeError()),
              ::testing::HasSubstr("'--format' is not an option of 'diff'; "
                                   "it is one of check, catalog, report and "
                                   "merge"));
  llvm::Expected<Options> Both = parse({"merge", "--diff", "--fix", "r"});
  ASSERT_FALSE(bool(Both));
  EXPECT_EQ(messageOf(Both.takeError()),
            "apistamp: error: --diff and --fix: one or the other");
  // A value an option does not take: llvm::cl says so itself.
  llvm::Expected<Options> BadValue = parse({"report", "--format=xml", "l"});
  ASSERT_FALSE(bool(BadValue));
  EXPECT_EQ(messageOf(BadValue.takeError()), "");
  llvm::Expected<Options> None = parse({});
  ASSERT_FALSE(bool(None));
  EXPECT_THAT(messageOf(None.takeError()),
              ::testing::HasSubstr("expected a command: check, fix"));
}

} // namespace
