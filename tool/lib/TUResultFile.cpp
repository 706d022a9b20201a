//===- TUResultFile.cpp - One TU's result, as `tu` writes it --------------===//

#include "TUResultFile.h"
#include "Matcher.h"
#include "StoredFacts.h"
#include "apistamp/Analysis.h"
#include "apistamp/Paths.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <limits>
#include <map>
#include <set>
#include <simdjson.h>

using namespace llvm;

namespace apistamp {

namespace {

constexpr llvm::StringLiteral FormatName = "apistamp-tu-result";
/// What a parse's diagnostics say for the root, in a result file.
constexpr llvm::StringLiteral RootToken = "${root}";

/// What of \p Rules a parse depends on but its facts do not say: the
/// macro and the matchers' texts (the root is where the paths are from).
json::Object parseSettings(const RuleSet &Rules) {
  json::Array Matchers;
  for (const CompiledMatcher *M : matchersOf(Rules))
    Matchers.push_back(M->Text);
  return json::Object{{"macro", Rules.Macro},
                      {"matchers", std::move(Matchers)}};
}

std::string replaceAll(StringRef Text, StringRef From, StringRef To) {
  if (From.empty())
    return Text.str();
  std::string Out;
  while (true) {
    size_t At = Text.find(From);
    Out += Text.take_front(At).str();
    if (At == StringRef::npos)
      return Out;
    Out += To.str();
    Text = Text.drop_front(At + From.size());
  }
}

/// What of \p Job's compile command decides its parse (the arguments the
/// front end parses it with), with its directory and the root spelled as
/// tokens: the same in another checkout, another for other flags.
constexpr StringLiteral BuildToken = "${build}";

/// \p Text with \p Job's build directory and root written as ${build} and
/// ${root} (or back, with \p Expand): the same in another checkout.
std::string portable(StringRef Text, const TUJob &Job, bool Expand = false) {
  std::string Directory = Job.Command->Directory;
  std::string Root = Job.Rules->Root;
  // The longer first: a build directory inside the root.
  std::pair<StringRef, StringRef> Tokens[] = {{Directory, BuildToken},
                                              {Root, RootToken}};
  if (Directory.size() < Root.size())
    std::swap(Tokens[0], Tokens[1]);
  std::string Result = Text.str();
  for (auto [Path, Token] : Tokens)
    Result = Expand ? replaceAll(Result, Token, Path)
                    : replaceAll(Result, Path, Token);
  return Result;
}

std::string commandDigest(const TUJob &Job) {
  if (!Job.Command || !Job.Rules)
    return "";
  std::string Joined;
  for (const std::string &Arg : frontendArguments(*Job.Command))
    Joined += portable(Arg, Job) + '\0';
  return utohexstr(xxh3_64bits(Joined));
}

/// Rewrites every path of \p Facts with \p Map; false if one is refused.
bool mapPaths(TUFacts &Facts, function_ref<bool(std::string &)> Map) {
  for (Candidate &C : Facts.Candidates)
    if (!Map(C.File) || (!C.Includer.empty() && !Map(C.Includer)))
      return false;
  for (Suppression &S : Facts.Suppressions)
    if (!Map(S.File))
      return false;
  for (Expectation &E : Facts.Expectations)
    if (!Map(E.File))
      return false;
  for (std::string &File : Facts.BodiesSkippedIn)
    if (!Map(File))
      return false;
  return true;
}

/// The files whose bytes \p Facts (with absolute paths) describe.
std::set<std::string> describedFiles(const TUFacts &Facts) {
  std::set<std::string> Files;
  for (const Candidate &C : Facts.Candidates) {
    Files.insert(C.File);
    if (!C.Includer.empty())
      Files.insert(C.Includer);
  }
  for (const Suppression &S : Facts.Suppressions)
    Files.insert(S.File);
  for (const Expectation &E : Facts.Expectations)
    Files.insert(E.File);
  Files.insert(Facts.BodiesSkippedIn.begin(), Facts.BodiesSkippedIn.end());
  return Files;
}

/// A depfile's spelling of \p Path (as GNU make and Ninja read it).
std::string depfileEscaped(StringRef Path) {
  // As Ninja's and Make's depfile readers take it: "\ " and "\#" are a
  // space and a '#'; backslashes before one are doubled; any other
  // backslash is itself (doubled, it would be two); "$$" is '$'.
  std::string Out;
  for (size_t I = 0; I < Path.size(); ++I) {
    char C = Path[I];
    if (C == '\\') {
      size_t Run = Path.find_first_not_of('\\', I) - I;
      if (I + Run > Path.size())
        Run = Path.size() - I;
      bool BeforeEscape = I + Run < Path.size() &&
                          (Path[I + Run] == ' ' || Path[I + Run] == '#');
      Out.append(BeforeEscape ? 2 * Run : Run, '\\');
      I += Run - 1;
      continue;
    }
    if (C == ' ' || C == '#')
      Out += '\\';
    else if (C == '$')
      Out += '$';
    Out += C;
  }
  return Out;
}

} // namespace

std::vector<TUIdentity> identitiesOf(const Project &P) {
  std::vector<TUIdentity> Ids;
  std::map<std::string, unsigned> Seen;
  for (const TUJob &Job : P.TUs) {
    std::optional<StringRef> Relative =
        Job.Rules ? pathUnder(Job.Source, Job.Rules->Root) : std::nullopt;
    std::string Source = Relative ? Relative->str() : Job.Source;
    Ids.push_back({Source, Seen[Job.Source]++});
  }
  return Ids;
}

Expected<std::string> renderTUResultFile(const TUJob &Job, const TUIdentity &Id,
                                         const TUResult &Result) {
  const RuleSet &Rules = *Job.Rules;
  json::Object File{{"format", FormatName},
                    {"version", TUResultFileVersion},
                    {"apistamp", APISTAMP_VERSION},
                    {"source", Id.Source},
                    {"configuration", Id.Configuration},
                    {"parse", parseSettings(Rules)},
                    {"command", commandDigest(Job)},
                    {"parseFailed", Result.ParseFailed},
                    {"skippedBodies", Result.SkippedBodies}};
  std::string Root = Rules.Root;
  File["diagnostics"] =
      replaceAll(Result.Diagnostics, Root + "/", (RootToken + "/").str());
  TUFacts Facts = Result.Facts;
  // The hashes of the bytes the parse read (a file saved since is not what
  // the facts describe); read now only if the parse did not record one.
  std::map<std::string, uint64_t> Parsed;
  for (const auto &[Path, Hash] : Result.Dependencies)
    if (Hash)
      Parsed[Path] = *Hash;
  json::Object Hashes;
  for (const std::string &Path : describedFiles(Facts)) {
    std::optional<StringRef> Relative = pathUnder(Path, Root);
    std::optional<uint64_t> Hash;
    if (auto It = Parsed.find(Path); Relative && It != Parsed.end())
      Hash = It->second;
    else if (Relative)
      if (ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes =
              MemoryBuffer::getFile(Path, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false))
        Hash = xxh3_64bits((*Bytes)->getBuffer());
    if (!Hash)
      return createStringError(inconvertibleErrorCode(),
                               Path +
                                   ": error: cannot read a file the "
                                   "analysis of '" +
                                   Job.Source + "' describes");
    Hashes[Relative->str()] = utohexstr(*Hash);
  }
  mapPaths(Facts, [&](std::string &Path) {
    if (std::optional<StringRef> Relative = pathUnder(Path, Root))
      Path = Relative->str();
    return true;
  });
  llvm::sort(Facts.BodiesSkippedIn);
  Facts.BodiesSkippedIn.erase(
      std::unique(Facts.BodiesSkippedIn.begin(), Facts.BodiesSkippedIn.end()),
      Facts.BodiesSkippedIn.end());
  File["files"] = std::move(Hashes);
  // The paths the TU looked for in vain (a header that appears earlier on
  // the include path changes what it reads), in the build directory and the
  // root as ${build} and ${root}.
  std::vector<std::string> Absent;
  for (const std::string &Path : Result.Absent)
    Absent.push_back(Job.Command ? portable(Path, Job) : Path);
  llvm::sort(Absent);
  File["absent"] = json::Array(Absent);
  addFacts(File, Facts);
  std::string Text;
  raw_string_ostream(Text) << json::Value(std::move(File)) << "\n";
  return Text;
}

std::string renderDepfile(StringRef Target, const TUJob &Job,
                          const TUResult &Result) {
  std::set<std::string> Inputs;
  for (const auto &[Path, Hash] : Result.Dependencies)
    if (Hash)
      Inputs.insert(Path);
  if (Job.Rules && !Job.Rules->Path.empty())
    Inputs.insert(Job.Rules->Path);
  std::string Text = depfileEscaped(Target) + ":";
  for (const std::string &Input : Inputs)
    Text += " \\\n  " + depfileEscaped(Input);
  return Text + "\n";
}

namespace {

/// A result file as read, before its TU is known.
struct ReadFile {
  std::string Path;
  TUIdentity Id;
  std::string Command; ///< commandDigest of the TU's command.
  /// xxh3 of what it says, its configuration's number aside: a source in
  /// two Bazel targets is each's first.
  uint64_t Says = 0;
  /// Its contents (without "configuration"); null once only the header is
  /// kept (readResultsFor holds one file's at a time).
  json::Value Value = nullptr;
};

/// Whether two results say the same of one TU.
bool sameResult(const ReadFile &L, const ReadFile &R) {
  return L.Says == R.Says;
}

Error fileError(StringRef Path, const Twine &Message) {
  return createStringError(inconvertibleErrorCode(),
                           Path + ": error: " + Message);
}

/// What a result says, its configuration's number aside: the xxh3 of its
/// bytes before and after the top-level `"configuration":N` member (which
/// tu writes once; a key of no other object, and escaped in a string).
uint64_t saysDigest(StringRef Text) {
  constexpr StringLiteral Member = "\"configuration\":";
  size_t At = Text.find(Member);
  if (At == StringRef::npos)
    return xxh3_64bits(Text);
  size_t End = At + Member.size();
  while (End < Text.size() && isDigit(Text[End]))
    ++End;
  uint64_t Parts[] = {xxh3_64bits(Text.take_front(At)),
                      xxh3_64bits(Text.drop_front(End))};
  return xxh3_64bits(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Parts),
                                       sizeof(Parts)));
}

/// A member's JSON text, as simdjson's on-demand parser reads it.
simdjson::simdjson_result<std::string_view>
rawJSON(simdjson::ondemand::value Value) {
  simdjson::ondemand::json_type Type;
  if (auto Error = Value.type().get(Type))
    return Error;
  if (Type == simdjson::ondemand::json_type::array) {
    simdjson::ondemand::array Array;
    if (auto Error = Value.get_array().get(Array))
      return Error;
    return Array.raw_json();
  }
  if (Type == simdjson::ondemand::json_type::object) {
    simdjson::ondemand::object Object;
    if (auto Error = Value.get_object().get(Object))
      return Error;
    return Object.raw_json();
  }
  return Value.raw_json_token();
}

/// The members of \p Text's top-level object (the file \p Path), each
/// parsed by llvm::json, but the candidates: with \p EachCandidate, each
/// one's JSON text goes to it in order, unparsed; without, they are skipped
/// (an index reads only the header). simdjson finds the members without
/// building the whole document (protobuf under a wide policy: 346 MB of
/// results, each TU its headers' 4,000 inline definitions).
Expected<json::Object>
readMembers(StringRef Path, const simdjson::padded_string &Text,
            function_ref<Error(StringRef)> EachCandidate) {
  auto Damaged = [&](const Twine &Why) {
    return fileError(Path, "not an apistamp tu result: " + Why);
  };
  if (jsonNestingDepth(StringRef(Text.data(), Text.size())) > MaxStoredNesting)
    return fileError(Path, "not an apistamp tu result (nested too deeply)");
  simdjson::ondemand::parser Parser;
  simdjson::ondemand::document Document;
  simdjson::ondemand::object Top;
  if (auto Error = Parser.iterate(Text).get(Document))
    return Damaged(simdjson::error_message(Error));
  if (auto Error = Document.get_object().get(Top))
    return Damaged(simdjson::error_message(Error));
  json::Object Members;
  for (auto Field : Top) {
    std::string_view Key;
    simdjson::ondemand::value Value;
    if (auto Error = Field.unescaped_key().get(Key))
      return Damaged(simdjson::error_message(Error));
    if (auto Error = Field.value().get(Value))
      return Damaged(simdjson::error_message(Error));
    if (Key == "candidates") {
      Members["candidates"] = json::Array();
      if (!EachCandidate)
        continue;
      simdjson::ondemand::array Candidates;
      if (auto Error = Value.get_array().get(Candidates))
        return Damaged(simdjson::error_message(Error));
      for (auto Element : Candidates) {
        simdjson::ondemand::value Candidate;
        std::string_view Raw;
        if (auto Error = Element.get(Candidate))
          return Damaged(simdjson::error_message(Error));
        if (auto Error = rawJSON(Candidate).get(Raw))
          return Damaged(simdjson::error_message(Error));
        if (Error E = EachCandidate(StringRef(Raw.data(), Raw.size())))
          return std::move(E);
      }
      continue;
    }
    std::string_view Raw;
    if (auto Error = rawJSON(Value).get(Raw))
      return Damaged(simdjson::error_message(Error));
    Expected<json::Value> Parsed =
        json::parse(StringRef(Raw.data(), Raw.size()));
    if (!Parsed)
      return Damaged(toString(Parsed.takeError()));
    Members[std::string(Key)] = std::move(*Parsed);
  }
  // The on-demand parser validates what it reads: the rest must be nothing.
  const char *Rest = nullptr;
  if (!Document.current_location().get(Rest))
    return Damaged("trailing content");
  return std::move(Members);
}

/// Reads \p Path's header (its format, version, TU, and the members but
/// the candidates), or with \p EachCandidate all of it.
Expected<ReadFile>
readResultFile(const std::string &Path,
               function_ref<Error(StringRef)> EachCandidate = nullptr) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes = MemoryBuffer::getFile(Path);
  if (!Bytes)
    return fileError(Path, "cannot read it: " + Bytes.getError().message());
  StringRef Text = (*Bytes)->getBuffer();
  simdjson::padded_string Padded(Text.data(), Text.size());
  Expected<json::Object> Members = readMembers(Path, Padded, EachCandidate);
  if (!Members)
    return Members.takeError();
  json::Object *Object = &*Members;
  if (Object->getString("format") != FormatName)
    return fileError(Path, "not an apistamp tu result (no \"format\": \"" +
                               FormatName + "\")");
  std::optional<int64_t> Version = Object->getInteger("version");
  if (Version != int64_t(TUResultFileVersion))
    return fileError(Path, "a tu result of format version " +
                               (Version ? std::to_string(*Version) : "?") +
                               " (this is " + APISTAMP_VERSION +
                               ", which reads version " +
                               std::to_string(TUResultFileVersion) +
                               "): run `apistamp tu` again");
  std::optional<StringRef> Source = Object->getString("source");
  std::optional<int64_t> Configuration = Object->getInteger("configuration");
  std::optional<StringRef> Command = Object->getString("command");
  if (!Source || !Configuration || *Configuration < 0 ||
      *Configuration > std::numeric_limits<unsigned>::max() || !Command)
    return fileError(Path, "a tu result without its \"source\", "
                           "\"configuration\" and \"command\"");
  TUIdentity Id{Source->str(), unsigned(*Configuration)};
  std::string Digest = Command->str();
  Object->erase("configuration");
  return ReadFile{Path, std::move(Id), std::move(Digest), saysDigest(Text),
                  json::Value(std::move(*Members))};
}

/// An error if a path \p File's TU looked for in vain (its "absent") exists
/// now: a header earlier on the include path changes what it reads.
Error absentAppeared(const ReadFile &File, const TUJob &Job) {
  const json::Object *Object = File.Value.getAsObject();
  if (const json::Array *Absent = Object ? Object->getArray("absent") : nullptr)
    for (const json::Value &Entry : *Absent) {
      std::optional<StringRef> Recorded = Entry.getAsString();
      std::string Path =
          Recorded && Job.Command ? portable(*Recorded, Job, true) : "";
      if (!sys::path::is_absolute(Path) || StringRef(Path).contains("/../"))
        return fileError(File.Path, "a damaged tu result (its \"absent\")");
      if (sys::fs::exists(Path))
        return fileError(File.Path,
                         std::string(Path) +
                             " exists now, and this result's TU looked for "
                             "it and did not find it (a header earlier on "
                             "the include path changes what it reads): run "
                             "`apistamp tu` again");
    }
  return Error::success();
}

/// \p File's result for \p Job, decided by its rules.
Expected<TUResult> decideFile(const ReadFile &File, const TUJob &Job,
                              bool Unselected, LexedFiles *Lexed,
                              std::vector<Candidate> Candidates) {
  const RuleSet &Rules = *Job.Rules;
  TUFacts Facts;
  TUResult Result;
  json::Path::Root Root;
  json::ObjectMapper O(File.Value, Root);
  const json::Object *Object = File.Value.getAsObject();
  const json::Value *Settings = Object ? Object->get("parse") : nullptr;
  const json::Object *Hashes = Object ? Object->getObject("files") : nullptr;
  if (!O || !Settings || !Hashes || !O.map("parseFailed", Result.ParseFailed) ||
      !O.map("diagnostics", Result.Diagnostics) ||
      !O.map("skippedBodies", Result.SkippedBodies) || !mapFacts(O, Facts))
    return fileError(File.Path,
                     "a damaged tu result (" + toString(Root.getError()) + ")");
  if (*Settings != json::Value(parseSettings(Rules)))
    return fileError(File.Path, "made under rules with another macro or other "
                                "matchers than " +
                                    Rules.Path + ": run `apistamp tu` again");
  Facts.Candidates = std::move(Candidates);
  Result.Diagnostics =
      replaceAll(Result.Diagnostics, RootToken, StringRef(Rules.Root));
  if (Result.ParseFailed)
    return Result;
  std::string RootDir = Rules.Root;
  bool Escapes = !mapPaths(Facts, [&](std::string &Path) {
    SmallString<256> Absolute(RootDir);
    sys::path::append(Absolute, sys::path::Style::posix, Path);
    // A path that climbs out of the root is refused by pathUnder below.
    Path = std::string(Absolute);
    return !StringRef(Path).contains("/../") &&
           !StringRef(Path).ends_with("/..");
  });
  std::optional<StringSet<>> Needed = filesFactsNeed(Facts, RootDir);
  if (Escapes || !Needed)
    return fileError(File.Path,
                     "facts that do not describe the files under " + RootDir);
  FileBytes Contents;
  StringSet<> Hashed;
  for (const auto &[Relative, Hash] : *Hashes) {
    SmallString<256> Path(RootDir);
    sys::path::append(Path, sys::path::Style::posix, Relative.str());
    std::optional<StringRef> Recorded = Hash.getAsString();
    ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes =
        MemoryBuffer::getFile(Path, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!Recorded || StringRef(Relative).contains("..") ||
        !pathUnder(Path, RootDir))
      return fileError(File.Path, "a damaged tu result (its \"files\")");
    if (!Bytes || utohexstr(xxh3_64bits((*Bytes)->getBuffer())) != *Recorded)
      return fileError(File.Path, Relative.str() + " changed since this "
                                                   "result was made: run "
                                                   "`apistamp tu` again");
    Hashed.insert(Path);
    if (Needed->contains(Path))
      Contents[Path] = SharedBytes((*Bytes)->getBuffer());
  }
  if (Contents.size() != Needed->size())
    return fileError(File.Path, "facts in a file whose bytes it does not "
                                "record");
  if (Error Appeared = absentAppeared(File, Job))
    return Appeared;
  switch (decideStoredFacts(
      Facts, Rules, Unselected, Contents,
      [&](StringRef Path) { return Hashed.contains(Path); }, Result, Lexed)) {
  case StoredFactsUse::Usable:
    break;
  case StoredFactsUse::BodiesNeeded:
    return fileError(File.Path,
                     "made under rules that let its parse skip function "
                     "bodies that " +
                         Rules.Path +
                         " can select: run `apistamp tu` again with them");
  case StoredFactsUse::Untrusted:
    return fileError(File.Path,
                     "facts that do not describe the files under " + RootDir);
  }
  return Result;
}

/// Why results of \p Same, the TUs of \p Source (relative to their roots)
/// with one command, cannot be told apart, when two rules roots hold them;
/// else "".
std::string twoRootsHint(const Project &P, ArrayRef<size_t> Same,
                         StringRef Source) {
  for (size_t Other : Same.drop_front())
    if (P.TUs[Other].Rules && P.TUs[Same.front()].Rules &&
        P.TUs[Other].Rules->Root != P.TUs[Same.front()].Rules->Root)
      return " (the rules roots " + P.TUs[Same.front()].Rules->Root + " and " +
             P.TUs[Other].Rules->Root + " both hold " + Source.str() +
             " with this command: merge cannot tell whose result is whose; "
             "run `apistamp check -p`, or give each root its own "
             "compilation database)";
  return "";
}

/// The `.json` files of \p Paths (directories searched, sorted).
Expected<std::vector<std::string>> resultPaths(ArrayRef<std::string> Paths) {
  std::vector<std::string> Files;
  for (const std::string &Path : Paths) {
    if (!sys::fs::is_directory(Path)) {
      Files.push_back(Path);
      continue;
    }
    std::error_code EC;
    std::vector<std::string> Found;
    for (sys::fs::recursive_directory_iterator It(Path, EC), End;
         It != End && !EC; It.increment(EC))
      if (StringRef(It->path()).ends_with(".json") &&
          It->type() != sys::fs::file_type::directory_file)
        Found.push_back(It->path());
    if (EC)
      return fileError(Path, "cannot list it: " + EC.message());
    llvm::sort(Found);
    Files.insert(Files.end(), Found.begin(), Found.end());
  }
  return Files;
}

} // namespace

/// \p Header's file read again, as it was the first time, and decided; its
/// candidates parsed once for every result that has the same (\p Parsed).
static Expected<TUResult> readAndDecide(const ReadFile &Header,
                                        const TUJob &Job, bool Unselected,
                                        LexedFiles *Lexed,
                                        ParsedCandidates &Parsed) {
  std::vector<Candidate> Candidates;
  Expected<ReadFile> Read =
      readResultFile(Header.Path, [&](StringRef Raw) -> Error {
        Expected<const Candidate *> C = Parsed.of(Raw);
        if (!C)
          return fileError(Header.Path, "a damaged tu result (" +
                                            toString(C.takeError()) + ")");
        Candidates.push_back(**C);
        return Error::success();
      });
  if (!Read)
    return Read.takeError();
  if (Read->Says != Header.Says)
    return fileError(Header.Path, "changed while merge read it: run it again");
  return decideFile(*Read, Job, Unselected, Lexed, std::move(Candidates));
}

Expected<const Candidate *> ParsedCandidates::of(StringRef Raw) {
  XXH128_hash_t Hash = xxh3_128bits(arrayRefFromStringRef(Raw));
  std::pair<uint64_t, uint64_t> Key{Hash.high64, Hash.low64};
  auto Found = Known.find(Key);
  if (Found != Known.end() && Found->second.first == Raw)
    return &Found->second.second;
  Expected<json::Value> Value = json::parse(Raw);
  if (!Value)
    return Value.takeError();
  Candidate C;
  json::Path::Root Root;
  if (!fromJSON(*Value, C, Root))
    return createStringError(inconvertibleErrorCode(),
                             toString(Root.getError()));
  auto &Entry = Known[Key];
  Entry = {Raw.str(), std::move(C)};
  return &Entry.second;
}

namespace {

/// The xxh3 of each file of a root as read now ("" if unreadable), each
/// read once however many results name it.
class DiskHashes {
public:
  StringRef of(const std::string &Path) {
    auto [It, New] = Hashes.try_emplace(Path);
    if (New)
      if (ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes =
              MemoryBuffer::getFile(Path, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false))
        It->second = utohexstr(xxh3_64bits((*Bytes)->getBuffer()));
    return It->second;
  }

private:
  StringMap<std::string> Hashes;
};

/// Why \p File (its contents read) cannot be \p Job's result however it is
/// decided, found without deciding it: other rules' parse settings, or a
/// file of the root changed since; else success. decideFile checks both
/// again, on the bytes it decides from.
Error refusedBeforeDeciding(const ReadFile &File, const TUJob &Job,
                            DiskHashes &Disk) {
  const json::Object *Object = File.Value.getAsObject();
  const json::Value *Settings = Object ? Object->get("parse") : nullptr;
  const json::Object *Hashes = Object ? Object->getObject("files") : nullptr;
  if (!Settings || !Hashes)
    return fileError(File.Path, "a damaged tu result (no \"parse\" or "
                                "\"files\")");
  if (*Settings != json::Value(parseSettings(*Job.Rules)))
    return fileError(File.Path, "made under rules with another macro or other "
                                "matchers than " +
                                    Job.Rules->Path +
                                    ": run `apistamp tu` again");
  for (const auto &[Relative, Hash] : *Hashes) {
    SmallString<256> Path(StringRef(Job.Rules->Root));
    sys::path::append(Path, sys::path::Style::posix, Relative.str());
    std::optional<StringRef> Recorded = Hash.getAsString();
    if (!Recorded || StringRef(Relative).contains("..") ||
        !pathUnder(Path, Job.Rules->Root))
      return fileError(File.Path, "a damaged tu result (its \"files\")");
    if (Disk.of(std::string(Path)) != *Recorded)
      return fileError(File.Path, Relative.str() + " changed since this "
                                                   "result was made: run "
                                                   "`apistamp tu` again");
  }
  return absentAppeared(File, Job);
}

} // namespace

Expected<TUResultFiles> TUResultFiles::index(const Project &P,
                                             ArrayRef<std::string> Paths,
                                             bool Unselected) {
  Expected<std::vector<std::string>> Files = resultPaths(Paths);
  if (!Files)
    return Files.takeError();
  // A result is its TU's by source and compile command (the configuration's
  // number is tu's way to pick a command, not part of the TU).
  std::vector<TUIdentity> Ids = identitiesOf(P);
  // Several TUs when two rules roots hold the same relative path with the
  // same relative command: a result names neither root, so each of them
  // takes the one result whose files (hashed) are its root's.
  using Key = std::pair<std::string, std::string>;
  std::map<Key, std::vector<size_t>> JobsOf;
  std::vector<Key> KeyOf;
  std::set<std::string> Sources;
  for (size_t I = 0; I < Ids.size(); ++I) {
    KeyOf.push_back({Ids[I].Source, commandDigest(P.TUs[I])});
    JobsOf[KeyOf.back()].push_back(I);
    Sources.insert(Ids[I].Source);
  }
  // Each identity's results, those that say the same kept once.
  std::map<Key, std::vector<ReadFile>> Said;
  std::vector<std::string> Problems;
  std::set<Key> RefusedKeys; // Said already: not "no result" too.
  DiskHashes Disk;
  for (const std::string &Path : *Files) {
    Expected<ReadFile> File = readResultFile(Path);
    if (!File) {
      Problems.push_back(toString(File.takeError()));
      continue;
    }
    auto Jobs = JobsOf.find({File->Id.Source, File->Command});
    if (Jobs == JobsOf.end()) {
      Problems.push_back(
          Path + ": error: " +
          (Sources.count(File->Id.Source)
               ? "made with another compile command of " + File->Id.Source +
                     " than any the database has: run `apistamp tu` again"
               : "the result of " + File->Id.Source +
                     ", which is no TU of the compilation database"));
      continue;
    }
    std::vector<ReadFile> &Known = Said[Jobs->first];
    if (llvm::any_of(Known, [&](const ReadFile &Earlier) {
          return sameResult(Earlier, *File);
        }))
      continue; // The same TU analysed twice (a source in two targets).
    if (!Known.empty() && twoRootsHint(P, Jobs->second, "").empty()) {
      Problems.push_back(Path + ": error: a result of " + File->Id.Source +
                         " for the same compile command as " +
                         Known.front().Path + ", saying something else");
      continue;
    }
    // A stale result is refused now, before any is decided (with two roots
    // for it, deciding tells which root's it is).
    if (Jobs->second.size() == 1)
      if (Error Refused =
              refusedBeforeDeciding(*File, P.TUs[Jobs->second.front()], Disk)) {
        Problems.push_back(toString(std::move(Refused)));
        RefusedKeys.insert(Jobs->first);
        continue;
      }
    File->Value = nullptr; // Read again when its TU's turn comes.
    Known.push_back(std::move(*File));
  }
  TUResultFiles Index;
  Index.Plan = &P;
  Index.Unselected = Unselected;
  Index.Of.resize(P.TUs.size());
  for (size_t I = 0; I < P.TUs.size(); ++I) {
    std::vector<ReadFile> &Known = Said[KeyOf[I]];
    if (Known.empty()) {
      if (!RefusedKeys.count(KeyOf[I]))
        Problems.push_back("error: no result for " + P.TUs[I].Source +
                           " (configuration " +
                           std::to_string(Ids[I].Configuration) +
                           "): run `apistamp tu` for it");
      continue;
    }
    TUFiles &Of = Index.Of[I];
    Of.Source = KeyOf[I].first;
    Of.SameKey = JobsOf[KeyOf[I]];
    for (const ReadFile &Header : Known)
      Of.Candidates.push_back({Header.Path, Header.Says});
  }
  // A whole directory of another database's results says the same for
  // every file: the first few say what is wrong.
  constexpr size_t Shown = 10;
  if (Problems.size() > Shown) {
    size_t More = Problems.size() - Shown;
    Problems.resize(Shown);
    Problems.push_back("apistamp: and " + std::to_string(More) +
                       " more problems with the results");
  }
  if (!Problems.empty())
    return createStringError(inconvertibleErrorCode(), join(Problems, "\n"));
  return std::move(Index);
}

Expected<TUResult> TUResultFiles::take(size_t I) const {
  const TUFiles &Of = this->Of[I];
  const TUJob &Job = Plan->TUs[I];
  std::vector<TUResult> Decided;
  std::string Refused;
  for (const auto &[Path, Says] : Of.Candidates) {
    ReadFile Header;
    Header.Path = Path;
    Header.Says = Says;
    // One file's contents at a time, read again: memory is one result's
    // parse and what the merge keeps of it.
    Expected<TUResult> Result =
        readAndDecide(Header, Job, Unselected, Lexed.get(), *Candidates);
    if (Result)
      Decided.push_back(std::move(*Result));
    else if (Refused.empty())
      Refused = toString(Result.takeError());
    else
      consumeError(Result.takeError());
  }
  if (Decided.size() == 1)
    return std::move(Decided.front());
  if (Decided.empty())
    return createStringError(
        inconvertibleErrorCode(),
        Of.Candidates.size() == 1
            ? Refused
            : "error: no result of " + Job.Source +
                  " whose files are its rules root's (" +
                  std::to_string(Of.Candidates.size()) +
                  " of its path and command; the first refused: " + Refused +
                  ")");
  return createStringError(inconvertibleErrorCode(),
                           Of.Candidates[1].first + ": error: a result of " +
                               Of.Source + " for the same compile command as " +
                               Of.Candidates[0].first +
                               ", saying something else" +
                               twoRootsHint(*Plan, Of.SameKey, Of.Source));
}

Expected<std::vector<TUResult>>
readResultsFor(const Project &P, ArrayRef<std::string> Paths, bool Unselected) {
  Expected<TUResultFiles> Index = TUResultFiles::index(P, Paths, Unselected);
  if (!Index)
    return Index.takeError();
  std::vector<TUResult> Results;
  std::vector<std::string> Problems;
  for (size_t I = 0; I < P.TUs.size(); ++I) {
    Expected<TUResult> Result = Index->take(I);
    if (Result)
      Results.push_back(std::move(*Result));
    else
      Problems.push_back(toString(Result.takeError()));
  }
  if (!Problems.empty())
    return createStringError(inconvertibleErrorCode(), join(Problems, "\n"));
  return Results;
}

} // namespace apistamp
