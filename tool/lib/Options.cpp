//===- Options.cpp - Check a run's options against the command table ------===//

#include "apistamp/Options.h"
#include "apistamp/CommandTable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Threading.h"

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

StringRef formatName(OutputFormat Format) {
  switch (Format) {
  case OutputFormat::Text:
    return "text";
  case OutputFormat::Csv:
    return "csv";
  case OutputFormat::Json:
    return "json";
  case OutputFormat::Sarif:
    return "sarif";
  }
  llvm_unreachable("unknown OutputFormat");
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

/// report reads logs or aggregates, never both.
static Error checkReportInputs(const Options &Opts) {
  if (Opts.Sources.empty() != Opts.Report.AggregatesFile.empty())
    return Error::success();
  return usageError(Opts.Report.AggregatesFile.empty()
                        ? "no logs given; pass log files, directories or "
                          "'-', or --aggregates FILE.csv"
                        : "pass logs or --aggregates, not both");
}

Error validateOptions(Options &Opts) {
  const CommandInfo &Command = commandInfo(Opts.RunMode);
  if (!Command.Formats.empty() && !is_contained(Command.Formats, Opts.Format))
    return usageError("--format=" + formatName(Opts.Format) +
                      " is not a format of this command; " +
                      formatsOfEveryCommand());
  if (Opts.RunMode == Mode::Explain && Opts.ExplainName.empty())
    if (Error E = resolveExplainLine(Opts))
      return E;
  if (Opts.RunMode == Mode::Report)
    if (Error E = checkReportInputs(Opts))
      return E;
  if (Opts.Jobs == 0)
    Opts.Jobs = hardware_concurrency().compute_thread_count();
  return Error::success();
}

} // namespace apistamp
