//===- UsageReportTest.cpp - Tests for reading usage logs and the report --===//

#include "usage/UsageReport.h"
#include "Csv.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gmock/gmock.h"
#include <fcntl.h>
#include <sys/stat.h>

using namespace apistamp;

namespace {

/// A catalog row of a saved catalog that says no status, name or language.
CatalogEvent placed(std::string Event, std::string Rule, std::string File,
                    std::string Kind, unsigned Line) {
  CatalogEvent C;
  C.Event = std::move(Event);
  C.Rule = std::move(Rule);
  C.File = std::move(File);
  C.Kind = std::move(Kind);
  C.Line = Line;
  return C;
}

std::string line(llvm::StringRef Event, llvm::StringRef Time, int Pid,
                 llvm::StringRef Job) {
  return ("{\"event\":\"" + Event + "\",\"time\":\"" + Time +
          "\",\"pid\":" + llvm::Twine(Pid) +
          ",\"host\":\"h\",\"exe\":\"/bin/t\",\"rank\":null,\"job_id\":" +
          (Job.empty() ? std::string("null") : "\"" + Job.str() + "\"") + "}\n")
      .str();
}

TEST(UsageReportTest, LinesAcrossReadChunksAreWhole) {
  // 40,000 lines of about 110 bytes: many lines straddle the 64 KiB reads.
  llvm::SmallString<128> Path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("usage", "jsonl", Path));
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Path, EC);
    ASSERT_FALSE(EC);
    for (int I = 0; I < 40000; ++I)
      Out << line("lib.e" + std::to_string(I % 7), "2026-11-20T10:00:00Z", I,
                  "job" + std::to_string(I % 13));
  }
  UsageCounts Counts = readUsageLog(Path, LogWindow{});
  llvm::sys::fs::remove(Path);
  EXPECT_EQ(Counts.Lines, 40000u);
  EXPECT_EQ(Counts.EventLines, 40000u);
  EXPECT_EQ(Counts.Malformed, 0u);
  ASSERT_EQ(Counts.Events.size(), 7u);
  EXPECT_EQ(Counts.Events["lib.e0"].Jobs, 13u);
  EXPECT_EQ(Counts.Events["lib.e0"].Processes, 5715u); // ceil(40000 / 7).
}

TEST(UsageReportTest, AJobIsItsIdOrItsProcess) {
  std::string Text = line("e", "2026-11-20T10:00:00Z", 1, "j") +
                     line("e", "2026-11-20T10:00:00Z", 2, "j") +
                     line("e", "2026-11-20T10:00:00Z", 3, "") +
                     line("e", "2026-11-20T10:00:00Z", 3, "");
  UsageCounts Counts = readUsageText("t", Text, LogWindow{});
  EXPECT_EQ(Counts.Events["e"].Jobs, 2u);
  EXPECT_EQ(Counts.Events["e"].Processes, 3u);
  EXPECT_EQ(Counts.Events["e"].Hosts, 1u);
}

TEST(UsageReportTest, TrendIsWeeklyOverAQuarter) {
  std::string Text = line("e", "2026-01-05T10:00:00Z", 1, "a") + // Monday.
                     line("e", "2026-01-11T10:00:00Z", 2, "b") + // Sunday.
                     line("e", "2026-06-01T10:00:00Z", 3, "c");
  std::vector<CatalogEvent> Catalog = {
      placed("e", "r", "a.cpp", "function", 1)};
  UsageReport R = buildReport(Catalog, readUsageText("t", Text, LogWindow{}));
  EXPECT_EQ(R.TrendUnit, "week");
  EXPECT_THAT(R.Periods, ::testing::ElementsAre("2026-01-05", "2026-06-01"));
  ASSERT_EQ(R.Events.size(), 1u);
  EXPECT_THAT(R.Events[0].Trend.dense(R.Periods.size()),
              ::testing::ElementsAre(2u, 1u));

  UsageReport Daily = buildReport(
      Catalog, readUsageText("t", line("e", "2026-01-05T10:00:00Z", 1, "a"),
                             LogWindow{}));
  EXPECT_EQ(Daily.TrendUnit, "day");
}

TEST(UsageReportTest, WindowComparesTimeText) {
  std::string Text = line("e", "2026-10-31T23:59:59Z", 1, "a") +
                     line("e", "2026-11-01T00:00:00Z", 2, "b") +
                     line("e", "2026-11-30T23:59:59Z", 3, "c") +
                     line("e", "2026-12-01T00:00:00Z", 4, "d");
  UsageCounts Counts =
      readUsageText("t", Text, LogWindow{"2026-11", "2026-12"});
  EXPECT_EQ(Counts.EventLines, 2u);
  EXPECT_EQ(Counts.OutsideWindow, 2u);
  EXPECT_EQ(Counts.Events["e"].FirstSeen, "2026-11-01T00:00:00Z");
}

/// A temporary directory and the files made in it, removed with them.
struct TempDir {
  llvm::SmallString<128> Path;
  std::vector<std::string> Files;
  TempDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("usage", Path));
  }
  ~TempDir() {
    for (const std::string &F : Files)
      llvm::sys::fs::remove(F);
    llvm::sys::fs::remove(Path);
  }
  /// Writes \p Text to the file \p Name in it; its path.
  std::string file(llvm::StringRef Name, llvm::StringRef Text) {
    llvm::SmallString<128> File(Path);
    llvm::sys::path::append(File, Name);
    std::error_code EC;
    llvm::raw_fd_ostream Out(File, EC);
    EXPECT_FALSE(EC);
    Out << Text;
    Files.push_back(File.str().str());
    return Files.back();
  }
};

/// \p Name=\p Globs as --layer gives it.
EventLayer layer(llvm::StringRef Name, std::vector<std::string> Globs) {
  EventLayer L;
  L.Name = Name.str();
  for (const std::string &G : Globs)
    L.Globs.push_back(llvm::cantFail(EventGlob::create(G)));
  return L;
}

/// The names of \p Rows.
std::vector<std::string> names(llvm::ArrayRef<ReportEvent> Rows) {
  std::vector<std::string> Names;
  for (const ReportEvent &E : Rows)
    Names.push_back(E.Event);
  return Names;
}

// Issue 25, section 3: a logged event the catalog does not list is a
// layer's (the first whose globs match), else another library's when no
// catalog event has its first name component, else unknown. The catalog
// comes first: a layer never takes a placed event.
TEST(UnplacedEventsTest, CatalogThenLayersThenOtherLibrariesThenUnknown) {
  std::vector<CatalogEvent> Catalog = {
      placed("torchvision.csrc.ops.nms.nms", "ops", "nms.cpp", "function", 1),
      placed("torchvision.csrc.io.image.cpu.decode_png.decode_png", "io",
             "d.cpp", "function", 2)};
  std::string Text;
  for (const char *Event :
       {"torchvision.csrc.ops.nms.nms", "torchvision.models.resnet.ResNet",
        "torchvision.ops.boxes.nms", "torchvision.csrc.ops.removed",
        "tensor.create", "torch.python.import", "python.nn_module",
        "c10d.python.import", "yaml.Node.as", "yaml.Load", "snappy.Compress",
        "torchvision"})
    Text += line(Event, "2026-11-20T10:00:00Z", 1, "j");
  Text += line("yaml.Load", "2026-11-21T10:00:00Z", 2, "k");
  UnplacedEvents Unplaced;
  Unplaced.Layers = {
      // Matches a placed event too: the catalog's it stays.
      layer("torchvision-python", {"torchvision.{models,ops,io,transforms}.*",
                                   "torchvision.csrc.ops.nms.nms"}),
      layer("torch", {"torch.*", "tensor.*", "python.*", "c10d.*"}),
      // Matches what an earlier layer took: the earlier keeps it.
      layer("late", {"tensor.*"}), layer("unused", {"nothing.*"})};
  UsageReport R =
      buildReport(Catalog, readUsageText("t", Text, LogWindow{}), Unplaced);
  ASSERT_EQ(R.Events.size(), 2u);
  EXPECT_EQ(R.Events[0].Event, "torchvision.csrc.ops.nms.nms");
  EXPECT_EQ(R.Events[0].Status, EventStatus::Used);
  ASSERT_EQ(R.Layers.size(), 4u);
  EXPECT_EQ(R.Layers[0].Name, "torchvision-python");
  EXPECT_THAT(R.Layers[0].Globs,
              ::testing::ElementsAre("torchvision.{models,ops,io,transforms}.*",
                                     "torchvision.csrc.ops.nms.nms"));
  EXPECT_THAT(names(R.Layers[0].Events),
              ::testing::ElementsAre("torchvision.models.resnet.ResNet",
                                     "torchvision.ops.boxes.nms"));
  EXPECT_EQ(R.Layers[0].Events[0].Status, EventStatus::Layer);
  EXPECT_THAT(names(R.Layers[1].Events),
              ::testing::ElementsAre("c10d.python.import", "python.nn_module",
                                     "tensor.create", "torch.python.import"));
  EXPECT_TRUE(R.Layers[2].Events.empty());
  EXPECT_TRUE(R.Layers[3].Events.empty());
  ASSERT_EQ(R.OtherLibraries.size(), 2u);
  EXPECT_EQ(R.OtherLibraries[0].Name, "snappy");
  EXPECT_EQ(R.OtherLibraries[1].Name, "yaml");
  // Counts kept, rows by jobs then name.
  EXPECT_THAT(names(R.OtherLibraries[1].Events),
              ::testing::ElementsAre("yaml.Load", "yaml.Node.as"));
  EXPECT_EQ(R.OtherLibraries[1].Events[0].Counts.Jobs, 2u);
  EXPECT_EQ(R.OtherLibraries[1].Events[0].Status, EventStatus::OtherLibrary);
  ASSERT_EQ(R.OtherLibraries[1].Events[0].Trend.dense(R.Periods.size()),
            (std::vector<uint64_t>{1, 1}));
  // Unknown: what looks like this library's ("torchvision" alone has the
  // catalog's first component) and no layer declares.
  EXPECT_THAT(
      names(R.Unknown),
      ::testing::ElementsAre("torchvision", "torchvision.csrc.ops.removed"));
  EXPECT_EQ(eventsIn(R.Layers), 6u);
  EXPECT_EQ(eventsIn(R.OtherLibraries), 3u);

  // --unknown=all: other libraries' events are unknown; layers still apply.
  Unplaced.Unknown = UnknownScope::All;
  UsageReport All =
      buildReport(Catalog, readUsageText("t", Text, LogWindow{}), Unplaced);
  EXPECT_TRUE(All.OtherLibraries.empty());
  EXPECT_EQ(All.Unknown.size(), 5u);
  EXPECT_EQ(eventsIn(All.Layers), 6u);

  // No layers, the default scope: only other libraries are set apart.
  UsageReport Plain =
      buildReport(Catalog, readUsageText("t", Text, LogWindow{}));
  EXPECT_TRUE(Plain.Layers.empty());
  EXPECT_EQ(eventsIn(Plain.OtherLibraries), 7u);
  EXPECT_EQ(Plain.Unknown.size(), 4u);
}

// An empty catalog has no first name component of its own: every logged
// event is unknown, none another library's.
TEST(UnplacedEventsTest, AnEmptyCatalogNamesNoOtherLibrary) {
  UsageReport R = buildReport(
      {}, readUsageText("t",
                        line("yaml.Load", "2026-11-20T10:00:00Z", 1, "j") +
                            line("snappy.x", "2026-11-20T10:00:00Z", 1, "j"),
                        LogWindow{}));
  EXPECT_TRUE(R.OtherLibraries.empty());
  EXPECT_EQ(R.Unknown.size(), 2u);
}

// Every format shows the layers and other libraries, with their counts;
// names from the logs are escaped in text.
TEST(UnplacedEventsTest, EveryFormatShowsTheGroups) {
  std::vector<CatalogEvent> Catalog = {
      placed("lib.a", "r", "a.cpp", "function", 1)};
  std::string Text =
      line("lib.a", "2026-11-20T10:00:00Z", 1, "j") +
      line("py.x", "2026-11-20T10:00:00Z", 1, "j") +
      line("py.x", "2026-11-20T10:00:00Z", 2, "k") +
      line("yaml\\u001b[2J.Load", "2026-11-20T10:00:00Z", 1, "j") +
      line("lib.gone", "2026-11-20T10:00:00Z", 1, "j");
  UnplacedEvents Unplaced;
  Unplaced.Layers = {layer("python", {"py.*"})};
  UsageReport R =
      buildReport(Catalog, readUsageText("t", Text, LogWindow{}), Unplaced);
  auto Render = [&](ReportFormat F) {
    std::string Out;
    llvm::raw_string_ostream OS(Out);
    printReport(OS, R, F, ReportGrouping::Event, false);
    return Out;
  };
  std::string Text_ = Render(ReportFormat::Text);
  EXPECT_THAT(Text_, ::testing::HasSubstr(
                         "unknown: 1 events logged but placed by no rule\n"));
  EXPECT_THAT(Text_, ::testing::HasSubstr(
                         "\nlogged by other layers: python: 1 events\n"
                         "    jobs  processes  hosts  event  last seen\n"
                         "       2          2      1  py.x   "
                         "2026-11-20T10:00:00Z\n"));
  EXPECT_THAT(Text_, ::testing::HasSubstr(
                         "\nother libraries: yaml\\x1b[2J: 1 events\n"));
  EXPECT_THAT(Text_, ::testing::Not(::testing::HasSubstr("\x1b")));

  std::string Json = Render(ReportFormat::Json);
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Json);
  ASSERT_TRUE(bool(Parsed)) << llvm::toString(Parsed.takeError());
  const llvm::json::Object &O = *Parsed->getAsObject();
  const llvm::json::Array &Layers = *O.getArray("layers");
  ASSERT_EQ(Layers.size(), 1u);
  EXPECT_EQ(*Layers[0].getAsObject()->getString("layer"), "python");
  EXPECT_EQ((*Layers[0].getAsObject()->getArray("globs"))[0].getAsString(),
            "py.*");
  const llvm::json::Object &Py =
      *(*Layers[0].getAsObject()->getArray("events"))[0].getAsObject();
  EXPECT_EQ(*Py.getString("event"), "py.x");
  EXPECT_EQ(*Py.getInteger("jobs"), 2);
  EXPECT_EQ(*Py.getInteger("processes"), 2);
  EXPECT_TRUE(Py.getArray("trend"));
  const llvm::json::Array &Libraries = *O.getArray("other_libraries");
  ASSERT_EQ(Libraries.size(), 1u);
  EXPECT_EQ(*Libraries[0].getAsObject()->getString("library"), "yaml\x1b[2J");
  EXPECT_EQ(O.getArray("unknown")->size(), 1u);

  std::string Csv = Render(ReportFormat::Csv);
  EXPECT_THAT(Csv,
              ::testing::HasSubstr(
                  "event,status,rule,file,line,kind,jobs,processes,"
                  "hosts,first_seen,last_seen,logged_by,language,through\n"));
  EXPECT_THAT(Csv,
              ::testing::HasSubstr("py.x,layer,,,,,2,2,1,2026-11-20T10:00:00Z,"
                                   "2026-11-20T10:00:00Z,python,,\n"));
  EXPECT_THAT(Csv, ::testing::HasSubstr(",other-library,"));
  // Unknown last, as before.
  EXPECT_THAT(Csv, ::testing::EndsWith(
                       "lib.gone,unknown,,,,,1,1,1,2026-11-20T10:00:00Z,"
                       "2026-11-20T10:00:00Z,,,\n"));

  std::string Markdown = Render(ReportFormat::Markdown);
  EXPECT_THAT(Markdown,
              ::testing::HasSubstr("1 of 1 events used; 1 unknown events; 1 "
                                   "events of other layers; 1 events of 1 "
                                   "other libraries;"));
  EXPECT_THAT(Markdown, ::testing::HasSubstr(
                            "\n### Logged by other layers: python (1 "
                            "events)\n\n| event | jobs | processes | hosts | "
                            "last seen |\n|---|---:|---:|---:|---|\n| py.x | "
                            "2 | 2 | 1 | 2026-11-20T10:00:00Z |\n"));
  EXPECT_THAT(Markdown,
              ::testing::HasSubstr("### Other libraries: yaml\\\\x1b"));

  std::string Html = Render(ReportFormat::Html);
  EXPECT_THAT(Html, ::testing::HasSubstr(
                        "<h2>Logged by other layers: python: 1 events</h2>\n"
                        "<table class=\"sortable\" id=\"layer-python\">"));
  EXPECT_THAT(Html, ::testing::HasSubstr("<span class=\"status layer\">layer"
                                         "</span>"));
  EXPECT_THAT(Html, ::testing::HasSubstr("<h2>Other libraries: yaml"));
  EXPECT_THAT(Html, ::testing::HasSubstr("id=\"other-libraries-count\""));
}

/// A stderr log's line of \p Event, as c10 prints it.
std::string usage(llvm::StringRef Event) {
  return ("PYTORCH_API_USAGE " + Event + "\n").str();
}

// Issue 25, section 3: c10's stderr form (PYTORCH_API_USAGE_STDERR=1), one
// process per file, at the time given, in the job given; the rest of the
// process's stderr is ignored, not malformed.
TEST(StderrLogTest, OneProcessAtOneTimeInItsJob) {
  std::string Text = "Loading model...\n" + usage("torch.python.import") +
                     "{\"loss\": 0.5}\n" + usage("tensor.create") +
                     usage("tensor.create") + "Traceback (most recent):\n" +
                     usage("") + usage("a b") + usage("x\x01y") +
                     usage("bad\xff") + "\n" + "PYTORCH_API_USAGE_X y\n" +
                     usage("python.nn_module").substr(0, 20);
  StderrFileInfo Info{"2026-11-20T08:00:00.000000Z", std::string("81723")};
  UsageCounts C = readUsageText("slurm-81723.err", Text, LogWindow{}, Info);
  EXPECT_EQ(C.Files, 1u);
  EXPECT_EQ(C.Malformed, 0u);
  EXPECT_TRUE(C.Problems.empty());
  EXPECT_EQ(C.EventLines, 3u);
  EXPECT_EQ(C.Lines, 12u); // The blank line is not counted.
  ASSERT_EQ(C.StderrLogs.size(), 1u);
  const StderrLog &S = C.StderrLogs[0];
  EXPECT_EQ(S.File, "slurm-81723.err");
  EXPECT_EQ(S.Time, "2026-11-20T08:00:00.000000Z");
  EXPECT_EQ(S.Job, std::optional<std::string>("81723"));
  EXPECT_EQ(S.Events, 3u);
  EXPECT_EQ(S.Ignored, 4u);
  EXPECT_EQ(S.Malformed, 5u);
  ASSERT_EQ(S.First.size(), 5u);
  EXPECT_EQ(S.First[0], (std::pair<uint64_t, std::string>{
                            7, "no event after 'PYTORCH_API_USAGE '"}));
  EXPECT_THAT(S.First[1].second, ::testing::HasSubstr("a space"));
  EXPECT_THAT(S.First[2].second, ::testing::HasSubstr("control character"));
  EXPECT_THAT(S.First[3].second, ::testing::HasSubstr("not valid UTF-8"));
  EXPECT_EQ(S.First[4], (std::pair<uint64_t, std::string>{
                            13, "the last line, without its newline: cut "
                                "short?"}));
  ASSERT_EQ(C.Events.size(), 2u);
  const EventCounts &Tensor = C.Events["tensor.create"];
  EXPECT_EQ(Tensor.Jobs, 1u);
  EXPECT_EQ(Tensor.Processes, 1u);
  EXPECT_EQ(Tensor.Hosts, 0u); // A stderr log names no host.
  EXPECT_EQ(Tensor.FirstSeen, "2026-11-20T08:00:00.000000Z");
  EXPECT_EQ(Tensor.LastSeen, "2026-11-20T08:00:00.000000Z");
  EXPECT_EQ(Tensor.JobsByDay,
            (std::vector<std::pair<std::string, uint64_t>>{{"2026-11-20", 1}}));
  // Outside --since/--until, every event line of the file is.
  UsageCounts Late =
      readUsageText("e.err", Text, LogWindow{"2026-11-21", ""}, Info);
  EXPECT_TRUE(Late.Events.empty() ||
              Late.Events.begin()->second.Processes == 0);
  EXPECT_EQ(Late.OutsideWindow, 3u);
}

// A stderr log's lines are at its modification time, which a clock far off
// may put past year 9999 (tmpfs and XFS hold such times; ext4 stops at
// 2446): no line of it has a day then, and each says so, as a JSON line
// whose time is not a day does. Before, its events were counted on a day
// read from "14645-06-30", and a partial of them could not be merged.
TEST(StderrLogTest, ALogWhoseTimeIsNoDayCountsNoLine) {
  for (const char *Time : {"14645-06-30T15:06:40.000000Z", "-100-01-01",
                           "2026-13-01T00:00:00.000000Z", ""}) {
    SCOPED_TRACE(Time);
    StderrFileInfo Info{Time, std::nullopt};
    UsageCounts C = readUsageText(
        "far.err", "output\n" + usage("torch.nn.Conv2d") + usage("x.y"),
        LogWindow{}, Info);
    ASSERT_EQ(C.StderrLogs.size(), 1u);
    const StderrLog &S = C.StderrLogs[0];
    EXPECT_EQ(S.Events, 0u);
    EXPECT_EQ(S.Malformed, 2u);
    ASSERT_EQ(S.First.size(), 2u);
    EXPECT_EQ(S.First[0].first, 2u);
    EXPECT_THAT(S.First[0].second,
                ::testing::HasSubstr("not a day of the calendar"));
    EXPECT_EQ(C.EventLines, 0u);
    EXPECT_TRUE(C.Events.empty());
  }
}

// The first line of either form decides; the lines before it that are
// neither are malformed (JSON lines) or the process's output (stderr). A
// file that no line decides is JSON lines, its lines malformed.
TEST(StderrLogTest, TheFirstLineOfEitherFormDecides) {
  StderrFileInfo Info{"2026-11-20T08:00:00.000000Z", std::nullopt};
  std::string Json = line("lib.a", "2026-11-20T10:00:00Z", 1, "j");
  // JSON lines after junk and an object that is no log line: both are
  // malformed, with their line numbers.
  UsageCounts J =
      readUsageText("a.jsonl", "junk\n{\"loss\": 1}\n" + Json + usage("lib.b"),
                    LogWindow{}, Info);
  EXPECT_TRUE(J.StderrLogs.empty());
  EXPECT_EQ(J.Malformed, 3u);
  EXPECT_EQ(J.EventLines, 1u);
  ASSERT_EQ(J.Problems.size(), 1u);
  ASSERT_EQ(J.Problems[0].First.size(), 3u);
  EXPECT_EQ(J.Problems[0].First[0].first, 1u);
  EXPECT_EQ(J.Problems[0].First[1].first, 2u);
  EXPECT_EQ(J.Problems[0].First[2].first, 4u);
  // Stderr after junk and a stray object: a JSON log line later is the
  // process's output.
  UsageCounts S =
      readUsageText("a.err", "junk\n{\"loss\": 1}\n" + usage("lib.b") + Json,
                    LogWindow{}, Info);
  ASSERT_EQ(S.StderrLogs.size(), 1u);
  EXPECT_EQ(S.Malformed, 0u);
  EXPECT_EQ(S.StderrLogs[0].Ignored, 3u);
  EXPECT_EQ(S.StderrLogs[0].Events, 1u);
  EXPECT_EQ(S.Events.count("lib.a"), 0u);
  // No job: the process is its own job.
  EXPECT_EQ(S.Events["lib.b"].Jobs, 1u);
  // Neither: JSON lines, all malformed, as before the stderr form.
  UsageCounts N =
      readUsageText("n.log", "junk\nmore junk\n", LogWindow{}, Info);
  EXPECT_TRUE(N.StderrLogs.empty());
  EXPECT_EQ(N.Malformed, 2u);
}

// A stderr log is one process: two logs are two processes, in one job
// when their job ids agree, and that job is the JSON lines' job of that id.
TEST(StderrLogTest, ProcessesAndJobsAcrossFiles) {
  TempDir Dir;
  std::string A = Dir.file("slurm-77.err", usage("tensor.create"));
  std::string B = Dir.file("slurm-78.err", usage("tensor.create"));
  std::string C = Dir.file("other.err", usage("tensor.create"));
  std::string J = Dir.file(
      "log.jsonl", line("tensor.create", "2026-11-20T10:00:00Z", 5, "77"));
  UsageCounts NoJobs = readUsageLogs({A, B, C, J}, LogWindow{}, 2);
  EXPECT_EQ(NoJobs.StderrLogs.size(), 3u);
  EXPECT_EQ(NoJobs.Events["tensor.create"].Processes, 4u);
  EXPECT_EQ(NoJobs.Events["tensor.create"].Jobs, 4u);
  EXPECT_EQ(NoJobs.Events["tensor.create"].Hosts, 1u); // The JSON line's.

  UsageCounts From =
      readUsageLogs({A, B, C, J}, LogWindow{}, 2, DefaultLogPartBytes,
                    StderrJobs{"", "^slurm-([0-9]+)\\.err$"});
  EXPECT_EQ(From.Events["tensor.create"].Processes, 4u);
  // 77 (slurm-77.err and the JSON line), 78, and other.err's own.
  EXPECT_EQ(From.Events["tensor.create"].Jobs, 3u);
  ASSERT_EQ(From.StderrLogs.size(), 3u);
  EXPECT_EQ(From.StderrLogs[0].Job, std::optional<std::string>("77"));
  EXPECT_FALSE(From.StderrLogs[0].NameUnmatched);
  EXPECT_EQ(From.StderrLogs[2].File, C);
  EXPECT_EQ(From.StderrLogs[2].Job, std::nullopt);
  EXPECT_TRUE(From.StderrLogs[2].NameUnmatched);

  UsageCounts One = readUsageLogs({A, B, C, J}, LogWindow{}, 2,
                                  DefaultLogPartBytes, StderrJobs{"77", ""});
  EXPECT_EQ(One.Events["tensor.create"].Jobs, 1u);
  EXPECT_EQ(One.Events["tensor.create"].Processes, 4u);
}

// A stderr log large enough to be read in parts is read whole: parts are
// JSON lines only. Its time is its file's modification time.
TEST(StderrLogTest, ALargeStderrLogIsReadWhole) {
  TempDir Dir;
  std::string Text = "warming up\n";
  for (int I = 0; I < 2000; ++I)
    Text += "step " + std::to_string(I) + " loss 0.5\n" +
            usage("e" + std::to_string(I % 3));
  std::string Path = Dir.file("big.err", Text);
  struct timespec Times[2] = {{1795000000, 123456000}, {1795000000, 123456000}};
  ASSERT_EQ(utimensat(AT_FDCWD, Path.c_str(), Times, 0), 0);
  for (unsigned Threads : {1u, 3u}) {
    UsageCounts C = readUsageLogs({Path}, LogWindow{}, Threads, 4096);
    ASSERT_EQ(C.StderrLogs.size(), 1u);
    EXPECT_EQ(C.StderrLogs[0].Events, 2000u);
    EXPECT_EQ(C.StderrLogs[0].Ignored, 2001u);
    EXPECT_EQ(C.Malformed, 0u);
    EXPECT_EQ(C.Events["e0"].Processes, 1u);
    EXPECT_EQ(C.StderrLogs[0].Time, "2026-11-18T11:06:40.123456Z");
    EXPECT_EQ(C.Events["e0"].LastSeen, "2026-11-18T11:06:40.123456Z");
  }
}

} // namespace

// Issue 24, item 17: a cell a spreadsheet would run as a formula is
// neutralised, and a line break in a time cannot forge a row.
TEST(CsvFieldTest, FormulasAreNeutralisedAndBreaksQuoted) {
  EXPECT_EQ(apistamp::csvField("lib.open"), "lib.open");
  EXPECT_EQ(apistamp::csvField("=HYPERLINK(\"x\")"),
            "\"'=HYPERLINK(\"\"x\"\")\"");
  for (const char *Formula : {"+1", "-1", "@SUM(A1)", "\tx", "\rx"})
    EXPECT_EQ(apistamp::csvField(Formula), "\"'" + std::string(Formula) + "\"")
        << Formula;
  EXPECT_EQ(apistamp::csvField("2026-11-20\nlib.x,used"),
            "\"2026-11-20\nlib.x,used\"");
}
