//===- Options.cpp - Check a run's options against the command table ------===//

#include "apistamp/Options.h"
#include "Suggestions.h"
#include "apistamp/CommandTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Threading.h"
#include <utility>

using namespace llvm;

namespace apistamp {

static Error usageError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(),
                           "apistamp: error: " + Message);
}

Expected<Shard> parseShard(StringRef Text) {
  auto [Index, Count] = Text.split('/');
  Shard S;
  if (Index.getAsInteger(10, S.Index) || Count.getAsInteger(10, S.Count) ||
      S.Count == 0 || S.Index == 0 || S.Index > S.Count)
    return usageError("--shard wants I/N with 1 <= I <= N, e.g. --shard 2/4, "
                      "not '" +
                      Text + "'");
  return S;
}

/// "--name" for a long option, "-n" for a one-letter one, as llvm::cl
/// prints them.
static std::string dashed(StringRef Name) {
  return (Name.size() == 1 ? "-" : "--") + Name.str();
}

std::string unknownOptionHint(StringRef Arg, StringRef Command,
                              ArrayRef<CommandOptions> Commands) {
  if (!Arg.starts_with("-"))
    return "";
  auto [Name, Value] = Arg.ltrim('-').split('=');
  if (Name.empty())
    return "";
  std::vector<StringRef> Takers;
  const CommandOptions *Own = nullptr;
  for (const CommandOptions &C : Commands) {
    if (C.Command == Command)
      Own = &C;
    else if (is_contained(C.Options, Name))
      Takers.push_back(C.Command);
  }
  if (!Takers.empty()) {
    std::string Hint = "'" + dashed(Name) + "' is not an option of '" +
                       Command.str() + "'; it is one of ";
    for (size_t I = 0; I < Takers.size(); ++I)
      Hint += (I == 0                   ? ""
               : I + 1 == Takers.size() ? " and "
                                        : ", ") +
              Takers[I].str();
    return Hint;
  }
  if (!Own)
    return "";
  std::string Closest = closestOption(Name, Own->Options);
  if (Closest.empty())
    return "";
  return "did you mean '" + dashed(Closest) +
         (Arg.contains('=') ? "=" + Value.str() : "") + "'?";
}

Expected<EventLayer> parseLayerOption(StringRef Text) {
  size_t Equals = Text.find('=');
  StringRef Name = Text.take_front(Equals);
  if (Equals == StringRef::npos || !isLayerName(Name))
    return usageError("--layer wants NAME=GLOB[,GLOB...], a NAME of ASCII "
                      "letters, digits, '.', '_' and '-' (a letter or a "
                      "digit first), not '" +
                      printableLine(Text) + "'");
  EventLayer Layer;
  Layer.Name = Name.str();
  // Split at the commas outside braces that no backslash escapes.
  StringRef Rest = Text.drop_front(Equals + 1);
  std::vector<StringRef> Globs;
  unsigned Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I <= Rest.size(); ++I) {
    if (I < Rest.size() && Rest[I] == '\\') {
      ++I;
      continue;
    }
    if (I < Rest.size() && Rest[I] == '{')
      ++Depth;
    else if (I < Rest.size() && Rest[I] == '}' && Depth)
      --Depth;
    else if (I == Rest.size() || (Rest[I] == ',' && Depth == 0)) {
      Globs.push_back(Rest.slice(Start, I));
      Start = I + 1;
    }
  }
  for (StringRef Glob : Globs) {
    if (Glob.empty())
      return usageError("--layer " + Name +
                        ": an empty glob matches no event, in '" +
                        printableLine(Text) + "'");
    Expected<EventGlob> Made = EventGlob::create(Glob);
    if (!Made)
      return usageError("--layer " + Name + ": bad glob '" +
                        printableLine(Glob) +
                        "': " + printableLine(toString(Made.takeError())));
    Layer.Globs.push_back(std::move(*Made));
  }
  return Layer;
}

ArrayRef<NamedValue<OutputFormat>> outputFormats() {
  static constexpr NamedValue<OutputFormat> Formats[] = {
      {OutputFormat::Text, "text",
       "clang-style diagnostics, or aligned columns (default)"},
      {OutputFormat::Csv, "csv",
       "catalog: comma-separated, with a header line"},
      {OutputFormat::Json, "json",
       "findings with fixes and a summary (check), or an array of events "
       "(catalog)"},
      {OutputFormat::Sarif, "sarif",
       "check: a SARIF 2.1.0 log with rules, locations and fixes"},
  };
  return Formats;
}

ArrayRef<NamedValue<ReportFormat>> reportFormats() {
  static constexpr NamedValue<ReportFormat> Formats[] = {
      {ReportFormat::Text, "text", "aligned (default)"},
      {ReportFormat::Csv, "csv", "comma-separated"},
      {ReportFormat::Json, "json", "the versioned JSON report"},
      {ReportFormat::Markdown, "markdown",
       "tables for a pull request or a wiki"},
      {ReportFormat::Html, "html", "a self-contained page"},
  };
  return Formats;
}

StringRef formatName(OutputFormat Format) {
  for (const NamedValue<OutputFormat> &F : outputFormats())
    if (F.Value == Format)
      return F.Name;
  llvm_unreachable("an OutputFormat without a name");
}

/// Options::Given and the environment, into the fields they decide.
static Error resolveGivenOptions(Options &Opts, EnvironmentLookup Environment) {
  const Options::GivenOptions &Given = Opts.Given;
  if (Given.MergeDiff && Given.MergeFix)
    return usageError("--diff and --fix: one or the other");
  Opts.OutputMode = Opts.RunMode != Mode::Merge ? Opts.RunMode
                    : Given.MergeDiff           ? Mode::Diff
                    : Given.MergeFix            ? Mode::Fix
                                                : Mode::Check;
  if (Opts.RunMode == Mode::Merge && Opts.ResultFiles.empty())
    Opts.ResultFiles = std::exchange(Opts.Sources, {});
  Opts.Unselected = Given.ListUnselected || Given.FailOnUnselected;
  Opts.SkipBodies = !Given.NoSkipBodies &&
                    Environment("APISTAMP_NO_SKIP_BODIES").value_or("") != "1";
  if (Given.NoPreamble)
    Opts.Preambles = PreambleBuilds::Never;
  else if (!Given.Preamble &&
           Environment("APISTAMP_PREAMBLE").value_or("") == "all")
    Opts.Preambles = PreambleBuilds::All;
  std::string Store = Environment("APISTAMP_PREAMBLE_STORE").value_or("");
  if (!Store.empty() && Opts.Preambles != PreambleBuilds::Never) {
    Opts.PreambleStoreDir = Store;
    Opts.Preambles = PreambleBuilds::All;
  }
  if (Given.Shard.empty())
    return Error::success();
  Expected<Shard> Part = parseShard(Given.Shard);
  if (!Part)
    return Part.takeError();
  Opts.Part = *Part;
  return Error::success();
}

/// "check takes text, json or sarif, catalog text, csv or json".
static std::string formatsOfEveryCommand() {
  std::string Text;
  for (const CommandInfo &C : commandTable()) {
    if (C.Formats.empty())
      continue;
    Text +=
        (Text.empty() ? C.Name.str() + " takes " : ", " + C.Name.str() + " ");
    for (size_t I = 0; I < C.Formats.size(); ++I)
      Text += (I == 0                      ? ""
               : I + 1 == C.Formats.size() ? " or "
                                           : ", ") +
              formatName(C.Formats[I]).str();
  }
  return Text;
}

/// explain "<source>:<line>": the definition spanning that line.
static Error resolveExplainLine(Options &Opts) {
  StringRef Source, Line;
  if (Opts.Sources.size() == 1)
    std::tie(Source, Line) = StringRef(Opts.Sources.front()).rsplit(':');
  if (Line.empty() || Line.getAsInteger(10, Opts.ExplainLine) ||
      Opts.ExplainLine == 0)
    return usageError(
        "explain needs one <source>:<line>, or --name <qualified name>");
  Opts.Sources = {Source.str()};
  return Error::success();
}

/// Whether \p Time is what --since and --until compare log times with: an
/// ISO 8601 UTC time or a prefix of one that ends at a field (YYYY,
/// YYYY-MM, YYYY-MM-DD, then Thh, Thh:mm, Thh:mm:ss, fractions, Z), with a
/// month and day that exist. Compared as text, "2026-11-1" or "2026/11/01"
/// would select nothing the user meant.
bool isTimePrefix(StringRef Time) {
  static const Regex Shape(
      "^[0-9]{4}(-(0[1-9]|1[0-2])(-([0-2][0-9]|3[01])(T([01][0-9]|2[0-3])"
      "(:[0-5][0-9](:[0-5][0-9](\\.[0-9]+)?)?)?Z?)?)?)?$");
  if (!Shape.match(Time))
    return false;
  if (Time.size() < 10)
    return true;
  unsigned Year = 0, Month = 0, Day = 0;
  Time.substr(0, 4).getAsInteger(10, Year);
  Time.substr(5, 2).getAsInteger(10, Month);
  Time.substr(8, 2).getAsInteger(10, Day);
  bool Leap = (Year % 4 == 0 && Year % 100 != 0) || Year % 400 == 0;
  const unsigned DaysIn[] = {
      31, Leap ? 29u : 28u, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return Day >= 1 && Day <= DaysIn[Month - 1];
}

/// report's --layer options parsed into Layers, one per name (the globs
/// of a name given twice are added to the first's), and the stderr job
/// options checked.
static Error resolveReportOptions(Options::ReportOptions &R) {
  R.Layers.clear();
  for (const std::string &Arg : R.LayerArgs) {
    Expected<EventLayer> Layer = parseLayerOption(Arg);
    if (!Layer)
      return Layer.takeError();
    auto Same = llvm::find_if(
        R.Layers, [&](const EventLayer &L) { return L.Name == Layer->Name; });
    if (Same == R.Layers.end())
      R.Layers.push_back(std::move(*Layer));
    else
      llvm::append_range(Same->Globs, Layer->Globs);
  }
  if (!R.StderrJobId.empty() && !R.StderrJobFrom.empty())
    return usageError("--stderr-job-id and --stderr-job-from both say where "
                      "a stderr log's job is; pass one");
  if (R.StderrJobFrom.empty())
    return Error::success();
  Regex JobFrom(R.StderrJobFrom);
  std::string Why;
  if (!JobFrom.isValid(Why))
    return usageError("--stderr-job-from: bad regular expression '" +
                      printableLine(R.StderrJobFrom) + "': " + Why);
  if (JobFrom.getNumMatches() != 1)
    return usageError("--stderr-job-from wants a regular expression with "
                      "one group, the job id (e.g. 'slurm-([0-9]+)'), not " +
                      Twine(JobFrom.getNumMatches()) + " in '" +
                      printableLine(R.StderrJobFrom) + "'");
  return Error::success();
}

/// report reads logs, partials (--merge) or aggregates; a partial is
/// counted with the window and jobs it was emitted with.
static Error checkReportInputs(const Options &Opts) {
  const Options::ReportOptions &R = Opts.Report;
  if (!R.EmitPartial.empty() && !R.AggregatesFile.empty())
    return usageError("--emit-partial keeps the distinct keys of logs or "
                      "partials; aggregates have none");
  if (!R.EmitPartial.empty() && !R.Output.empty())
    return usageError("--emit-partial writes a partial, not a report: no -o");
  if (R.Merge) {
    if (!R.AggregatesFile.empty())
      return usageError("pass partials to --merge, or --aggregates, not both");
    if (Opts.Sources.empty())
      return usageError("--merge wants partial files (from --emit-partial)");
    for (auto [Name, Value] :
         {std::pair<StringRef, StringRef>{"--since", R.Since},
          {"--until", R.Until},
          {"--stderr-job-id", R.StderrJobId},
          {"--stderr-job-from", R.StderrJobFrom}})
      if (!Value.empty())
        return usageError(Name +
                          " is not for --merge: a partial is counted with "
                          "it when it is emitted, and keeps it");
    return Error::success();
  }
  if (Opts.Sources.empty() != Opts.Report.AggregatesFile.empty())
    return Error::success();
  return usageError(Opts.Report.AggregatesFile.empty()
                        ? "no logs given; pass log files, directories or "
                          "'-', or --aggregates FILE.csv"
                        : "pass logs or --aggregates, not both");
}

/// catalog --diff compares whole catalogs, as text or JSON.
static Error checkCatalogDiff(const Options &Opts) {
  if (Opts.Format == OutputFormat::Csv)
    return usageError("catalog --diff writes text or json, not csv");
  if (!Opts.ChangedSince.empty() || Opts.Part.Count > 1)
    return usageError(
        Twine("catalog --diff compares whole catalogs; ") +
        (Opts.ChangedSince.empty() ? "--shard" : "--changed-since") +
        " would show every event outside it as removed");
  return Error::success();
}

Error validateOptions(Options &Opts, EnvironmentLookup Environment) {
  if (Error E = resolveGivenOptions(Opts, Environment))
    return E;
  const CommandInfo &Command = commandInfo(Opts.RunMode);
  if (!Command.Formats.empty() && !is_contained(Command.Formats, Opts.Format))
    return usageError("--format=" + formatName(Opts.Format) +
                      " is not a format of this command; " +
                      formatsOfEveryCommand());
  if (Opts.RunMode == Mode::Catalog && !Opts.CatalogDiffFile.empty())
    if (Error E = checkCatalogDiff(Opts))
      return E;
  if (Opts.RunMode == Mode::Explain && Opts.ExplainName.empty())
    if (Error E = resolveExplainLine(Opts))
      return E;
  if (Opts.RunMode == Mode::Report) {
    if (Error E = checkReportInputs(Opts))
      return E;
    if (Error E = resolveReportOptions(Opts.Report))
      return E;
    for (auto [Name, Time] :
         {std::pair<StringRef, StringRef>{"--since", Opts.Report.Since},
          {"--until", Opts.Report.Until}})
      if (!Time.empty() && !isTimePrefix(Time))
        return usageError(Name +
                          " wants an ISO 8601 UTC date or time, or the "
                          "start of one (2026-11, 2026-11-16, "
                          "2026-11-16T12:00), not '" +
                          Time + "'");
  }
  if (Opts.RunMode == Mode::Check) {
    if (Opts.UsageFile.empty() && !Opts.Report.Since.empty())
      return usageError("--since is for --usage: the jobs that used an event "
                        "since then");
    if (Opts.UsageFile.empty() && Opts.MinJobsGiven)
      return usageError("--min-jobs is for --usage: the jobs below which a "
                        "removed event is a note");
    if (Opts.MinJobs == 0)
      return usageError("--min-jobs must be at least 1: with 0, an event no "
                        "job used would stop its own removal");
    if (!Opts.UsageFile.empty() &&
        (!Opts.Sources.empty() || Opts.Part.Count > 1))
      return usageError("--usage judges the events of the whole tree; drop the "
                        "file names and --shard (--changed-since REV keeps "
                        "the other findings to one change)");
    if (!Opts.Report.Since.empty() && !isTimePrefix(Opts.Report.Since))
      return usageError("--since wants an ISO 8601 UTC date or time, or the "
                        "start of one (2026-11, 2026-11-16, "
                        "2026-11-16T12:00), not '" +
                        Opts.Report.Since + "'");
  }
  if (Opts.RunMode == Mode::Tu) {
    if (Opts.Sources.size() != 1)
      return usageError("tu analyses one source: name it (and -o FILE for "
                        "its result)");
    if (Opts.TUOutput.empty())
      return usageError("tu needs -o FILE: where its result goes");
  }
  if (Opts.RunMode == Mode::Ninja && Opts.TUOutput.empty())
    return usageError("ninja needs -o FILE: the Ninja file to write");
  if (Opts.RunMode == Mode::Merge && Opts.ResultFiles.empty())
    return usageError("merge needs the result files tu wrote (or the "
                      "directories that hold them)");
  if (Opts.Jobs == 0)
    Opts.Jobs = hardware_concurrency().compute_thread_count();
  return Error::success();
}

} // namespace apistamp
