//===- CommandTable.cpp - One row per apistamp command --------------------===//

#include "apistamp/CommandTable.h"
#include "Commands.h"
#include <iterator>
#include <string>
#include <vector>

namespace apistamp {

// The commands, each in its own file of this directory.
int runCheck(CommandContext &Ctx);
int runFix(CommandContext &Ctx);
int runDiff(CommandContext &Ctx);
int runExplain(CommandContext &Ctx);
int runCatalog(CommandContext &Ctx);
int runVerify(CommandContext &Ctx);
int runMerge(CommandContext &Ctx);
/// tu analyses one TU of the plan itself, and writes its result file.
int runTu(const Options &Opts, const Project &P, llvm::raw_ostream &Err);
/// ninja writes the plan's actions.
int runNinja(const Options &Opts, const Project &P, llvm::raw_ostream &Err);
/// report works on logs and a catalog, not on a planned project.
int runReport(const Options &Opts, llvm::raw_ostream &Out,
              llvm::raw_ostream &Err);

namespace {

constexpr OutputFormat CheckFormats[] = {OutputFormat::Text, OutputFormat::Json,
                                         OutputFormat::Sarif};
constexpr OutputFormat CatalogFormats[] = {
    OutputFormat::Text, OutputFormat::Csv, OutputFormat::Json};

// Columns: name, description, positional arguments, formats, project options
// (--changed-since, --shard), cache, proposes edits, reads every named file,
// prints data, run, run alone, run on the plan.
constexpr CommandInfo Commands[] = {
    {Mode::Check, "check",
     "Report missing or wrong API usage events; exit 1 if there are any",
     "[<source>...]", CheckFormats, true, true, true, false, false, runCheck,
     nullptr, nullptr},
    {Mode::Fix,
     "fix",
     "Insert or correct API usage events in place",
     "[<source>...]",
     {},
     true,
     true,
     true,
     false,
     false,
     runFix,
     nullptr,
     nullptr},
    {Mode::Diff,
     "diff",
     "Print the changes fix would make as a unified diff; write nothing",
     "[<source>...]",
     {},
     true,
     true,
     true,
     false,
     true,
     runDiff,
     nullptr,
     nullptr},
    {Mode::Explain,
     "explain",
     "Explain rule by rule why the definition at <source>:<line> (or "
     "--name) is or is not instrumented",
     "<source>:<line> | --name <name> <source>...",
     {},
     false,
     false,
     false,
     true,
     false,
     runExplain,
     nullptr,
     nullptr},
    {Mode::Catalog, "catalog",
     "List every event the rules select, one per definition, with its "
     "rule, file, line, kind and status",
     "[<source>...]", CatalogFormats, true, true, false, false, true,
     runCatalog, nullptr, nullptr},
    {Mode::Verify,
     "verify",
     "Test rules: compare what they select with the '// expect-event: "
     "<event>', '// expect-no-event' and '// expect-skipped: <reason>' "
     "comments in the sources ('#' in Python); exit 1 on any mismatch",
     "<source>...",
     {},
     false,
     true,
     false,
     true,
     false,
     runVerify,
     nullptr,
     nullptr},
    {Mode::Report,
     "report",
     "Compare the events the rules place with API usage logs (files, "
     "directories, - for stdin): which are "
     "used, by how many jobs, which are never used, and which logged events "
     "no rule places",
     "<log>... | --aggregates <file.csv> | --merge <partial>...",
     {},
     false,
     true,
     false,
     false,
     true,
     nullptr,
     runReport,
     nullptr},
    {Mode::Tu,
     "tu",
     "Analyse one compile command of <source> and write its result file "
     "(-o) for merge, and with --depfile the files it read: one cacheable "
     "action per TU for build systems",
     "<source>",
     {},
     false,
     false,
     false,
     true,
     false,
     nullptr,
     nullptr,
     runTu},
    {Mode::Merge, "merge",
     "Decide the result files tu wrote for every TU of the database as "
     "check -p decides its TUs, and report them as check does, or print "
     "the diff (--diff) or apply it (--fix)",
     "<result-file-or-dir>...", CheckFormats, false, false, true, false, false,
     runMerge, nullptr, nullptr},
    {Mode::Ninja,
     "ninja",
     "Write a Ninja file (-o) with one tu action per compile command of "
     "the database (with its depfile) and one merge into "
     "apistamp-check.json beside it",
     "",
     {},
     false,
     false,
     false,
     false,
     false,
     nullptr,
     nullptr,
     runNinja},
};

} // namespace

llvm::ArrayRef<CommandInfo> commandTable() { return Commands; }

const CommandInfo &commandInfo(Mode M) {
  for (const CommandInfo &C : Commands)
    if (C.RunMode == M)
      return C;
  llvm_unreachable("a Mode without a row in the command table");
}

bool readsSources(const CommandInfo &C) {
  return C.TakesProjectOptions || C.ReadsEveryNamedFile;
}

std::string commandNames() {
  std::string Names;
  for (size_t I = 0; I < std::size(Commands); ++I)
    Names += (I == 0                         ? ""
              : I + 1 == std::size(Commands) ? " or "
                                             : ", ") +
             Commands[I].Name.str();
  return Names;
}

std::string usageText() {
  std::string Text = "apistamp: insert API usage events where policy rules "
                     "say they belong\n\n";
  std::vector<bool> Listed(std::size(Commands));
  for (size_t I = 0; I < std::size(Commands); ++I) {
    if (Listed[I])
      continue;
    const CommandInfo &C = Commands[I];
    std::string Names;
    for (size_t J = I; J < std::size(Commands); ++J)
      if (Commands[J].Arguments == C.Arguments &&
          readsSources(Commands[J]) == readsSources(C)) {
        Names += (Names.empty() ? "" : "|") + Commands[J].Name.str();
        Listed[J] = true;
      }
    Text += "  apistamp " + Names + " [options]";
    if (!C.Arguments.empty())
      Text += " " + C.Arguments.str();
    Text += readsSources(C) ? " [-- <compiler args>]\n" : "\n";
  }
  return Text +
         "\nA <source> is a C++ file of the compilation database, or a Python "
         "file or a directory of them (read by the rules with 'language: "
         "python'; the tu command takes C++ only).\n"
         "\nExit codes: 0 clean or done, 1 check found something, "
         "verify a mismatch, fix or tu could not write a file, fix "
         "(with --fail-on-change) changed one, 2 bad usage or bad "
         "rules file, 3 a source failed to parse.\n";
}

} // namespace apistamp
