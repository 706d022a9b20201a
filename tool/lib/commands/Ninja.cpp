//===- Ninja.cpp - apistamp ninja: a Ninja file of tu actions and a merge -===//
//
// Writes a Ninja file (-o) with one `apistamp tu` edge per compile command
// of the project, each with the depfile tu writes (so Ninja reruns exactly
// the TUs whose files changed) and restat (a result whose bytes did not
// change does not rerun the merge), and one merge edge: the JSON report of
// `apistamp merge`, which equals `check -p`'s (docs/ci.md, "At scale").
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "PlanAndAnalyse.h"
#include "SafeWrite.h"
#include "Suggestions.h"
#include "TUResultFile.h"
#include "apistamp/Paths.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include <set>

using namespace llvm;

namespace apistamp {

namespace {

/// \p Text as a path in a Ninja build line.
std::string ninjaPath(StringRef Text) {
  std::string Out;
  for (char C : Text) {
    if (C == '$' || C == ' ' || C == ':')
      Out += '$';
    Out += C;
  }
  return Out;
}

/// \p Text as one word of a command for /bin/sh, in a Ninja variable.
std::string shellWord(StringRef Text) {
  std::string Out = "'";
  for (char C : Text) {
    if (C == '\'')
      Out += "'\\''";
    else if (C == '$')
      Out += "$$";
    else
      Out += C;
  }
  return Out + "'";
}

/// A file name for \p Id's result: its source's path, '/' kept; the
/// \p Another'th TU of that identity (under another rules root) has "-N".
std::string resultName(const TUIdentity &Id, unsigned Another = 1) {
  std::string Name;
  for (char C : StringRef(Id.Source).ltrim('/'))
    Name += (C == '.' && Name.empty()) ? '_' : C;
  Name += "." + std::to_string(Id.Configuration);
  if (Another > 1) // The same identity under another rules root.
    Name += "-" + std::to_string(Another);
  return Name + ".json";
}

} // namespace

int runNinja(const Options &Opts, const Project &P, raw_ostream &Err) {
  if (P.BuildDir.empty() || !P.OthersUnplanned.empty()) {
    Err << "apistamp: error: ninja writes the actions of a compilation "
           "database's TUs: pass -p BUILD_DIR\n";
    return ExitBadUsage;
  }
  // Ninja has no escape for '|' in a path, and a line break ends a line
  // whatever precedes it: such a name is refused, not written into a file
  // Ninja cannot read (or reads as another path).
  for (const TUJob &Job : P.TUs)
    if (StringRef(Job.Source).find_first_of("|\n\r") != StringRef::npos) {
      Err << "apistamp: error: '" << printableLine(Job.Source)
          << "' cannot be named in a Ninja file ('|' or a line break in its "
             "name): rename it, or check the database with `apistamp check "
             "-p`\n";
      return ExitBadUsage;
    }
  SmallString<256> NinjaFile(Opts.TUOutput);
  sys::fs::make_absolute(NinjaFile);
  SmallString<256> ResultsDir = sys::path::parent_path(NinjaFile);
  sys::path::append(ResultsDir, "apistamp-results");
  std::string BuildDir = canonicalPath(P.BuildDir);
  std::string Flags = "-p " + shellWord(BuildDir);
  if (!Opts.RulesFile.empty())
    Flags += " --rules " + shellWord(canonicalPath(Opts.RulesFile));
  if (!Opts.Root.empty())
    Flags += " --root " + shellWord(canonicalPath(Opts.Root));
  if (!Opts.SkipBodies)
    Flags += " --no-skip-bodies";
  std::string Database = BuildDir + "/compile_commands.json";
  // The binary is an input of every action: an upgrade reruns them.
  std::string Binary = ninjaPath(sys::fs::getMainExecutable(nullptr, nullptr));
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "# Written by `apistamp ninja`: one `apistamp tu` action per compile "
        "command,\n# one `apistamp merge` (docs/ci.md, \"At scale\"). Run "
        "`apistamp ninja` again\n# when the compilation database lists "
        "other sources.\nninja_required_version = 1.3\n"
     << "apistamp = " << shellWord(sys::fs::getMainExecutable(nullptr, nullptr))
     << "\nflags = " << Flags << "\n\n"
     << "rule apistamp_tu\n"
        "  command = $apistamp tu $flags --quiet "
        "--configuration=$configuration "
        "-o $out --depfile $out.d $in\n"
        "  depfile = $out.d\n  deps = gcc\n  restat = 1\n"
        "  description = apistamp tu $in\n\n"
        "rule apistamp_merge\n"
        "  command = $apistamp merge $flags --quiet --format=json @$out.rsp "
        "> $out.tmp; status=$$?; if [ $$status -le 1 ]; then mv $out.tmp "
        "$out; else exit $$status; fi\n"
        "  rspfile = $out.rsp\n  rspfile_content = $in\n"
        "  description = apistamp merge\n\n";
  std::vector<TUIdentity> Ids = identitiesOf(P);
  std::vector<std::string> Results;
  // Two rules roots may hold the same relative path: each TU its own file.
  std::set<std::string> Names;
  for (size_t I = 0; I < P.TUs.size(); ++I) {
    const TUJob &Job = P.TUs[I];
    if (!Job.Command || !Job.ReportOnly.empty())
      continue;
    std::string Name = resultName(Ids[I]);
    for (unsigned N = 2; !Names.insert(Name).second; ++N)
      Name = resultName(Ids[I], N);
    SmallString<256> Result(ResultsDir);
    sys::path::append(Result, Name);
    Results.push_back(std::string(Result));
    OS << "build " << ninjaPath(Result) << ": apistamp_tu "
       << ninjaPath(Job.Source) << " | " << ninjaPath(Database);
    if (Job.Rules && !Job.Rules->Path.empty())
      OS << " " << ninjaPath(Job.Rules->Path);
    OS << " " << Binary << "\n  configuration = " << Ids[I].Configuration
       << "\n";
  }
  SmallString<256> Report = sys::path::parent_path(NinjaFile);
  sys::path::append(Report, "apistamp-check.json");
  OS << "\nbuild " << ninjaPath(Report) << ": apistamp_merge";
  for (const std::string &Result : Results)
    OS << " $\n    " << ninjaPath(Result);
  OS << " | " << Binary << "\n\ndefault " << ninjaPath(Report) << "\n";
  OS.flush();
  if (Error E = writeOutputFile(NinjaFile, Text)) {
    Err << NinjaFile << ": error: " << toString(std::move(E)) << "\n";
    return ExitBadUsage;
  }
  if (!Opts.Quiet)
    Err << "apistamp: " << Results.size() << " tu actions and a merge in "
        << NinjaFile << "\n";
  return ExitClean;
}

} // namespace apistamp
