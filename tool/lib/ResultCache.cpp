//===- ResultCache.cpp - Reuse the analysis of unchanged TUs --------------===//

#include "ResultCache.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace apistamp {

namespace {

json::Value editToJSON(const TextEdit &E) {
  return json::Array{E.File, E.Offset, E.Length, E.Text, int(E.Kind), E.Angled};
}

bool editFromJSON(const json::Value &V, TextEdit &E) {
  const json::Array *A = V.getAsArray();
  if (!A || A->size() != 6)
    return false;
  auto File = (*A)[0].getAsString();
  auto Offset = (*A)[1].getAsUINT64();
  auto Length = (*A)[2].getAsUINT64();
  auto Text = (*A)[3].getAsString();
  auto Kind = (*A)[4].getAsUINT64();
  auto Angled = (*A)[5].getAsBoolean();
  if (!File || !Offset || !Length || !Text || !Kind || *Kind > 1 || !Angled)
    return false;
  E = TextEdit{File->str(),   unsigned(*Offset),         unsigned(*Length),
               Text->str(),   TextEdit::KindType(*Kind), *Angled};
  return true;
}

json::Array stringsToJSON(const std::vector<std::string> &Strings) {
  json::Array A;
  for (const std::string &S : Strings)
    A.push_back(S);
  return A;
}

bool stringsFromJSON(const json::Value *V, std::vector<std::string> &Out) {
  const json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A)
    return false;
  for (const json::Value &Item : *A) {
    auto S = Item.getAsString();
    if (!S)
      return false;
    Out.push_back(S->str());
  }
  return true;
}

json::Value siteToJSON(const Site &S) {
  json::Array Edits;
  for (const TextEdit &E : S.Edits)
    Edits.push_back(editToJSON(E));
  return json::Object{{"file", S.File},
                      {"offset", S.Offset},
                      {"line", S.Line},
                      {"column", S.Column},
                      {"begin", S.BeginLine},
                      {"end", S.EndLine},
                      {"kind", int(S.Kind)},
                      {"name", S.QualifiedName},
                      {"rule", S.RuleId},
                      {"also", stringsToJSON(S.AlsoSelectedBy)},
                      {"event", S.Event},
                      {"status", int(S.Status)},
                      {"found", stringsToJSON(S.FoundEvents)},
                      {"reportLine", S.ReportLine},
                      {"reportColumn", S.ReportColumn},
                      {"edits", std::move(Edits)},
                      {"skip", S.SkipReason}};
}

/// Reads the fields of \p O into \p Out with getters; false if any is
/// missing or has the wrong type.
struct Reader {
  const json::Object &O;
  bool OK = true;
  template <typename T> void number(StringRef Key, T &Out) {
    if (auto V = O.getInteger(Key))
      Out = T(*V);
    else
      OK = false;
  }
  void string(StringRef Key, std::string &Out) {
    if (auto V = O.getString(Key))
      Out = V->str();
    else
      OK = false;
  }
  void boolean(StringRef Key, bool &Out) {
    if (auto V = O.getBoolean(Key))
      Out = *V;
    else
      OK = false;
  }
  void strings(StringRef Key, std::vector<std::string> &Out) {
    OK &= stringsFromJSON(O.get(Key), Out);
  }
};

bool siteFromJSON(const json::Value &V, Site &S) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return false;
  Reader R{*O};
  int Kind = 0, Status = 0;
  R.string("file", S.File);
  R.number("offset", S.Offset);
  R.number("line", S.Line);
  R.number("column", S.Column);
  R.number("begin", S.BeginLine);
  R.number("end", S.EndLine);
  R.number("kind", Kind);
  R.string("name", S.QualifiedName);
  R.string("rule", S.RuleId);
  R.strings("also", S.AlsoSelectedBy);
  R.string("event", S.Event);
  R.number("status", Status);
  R.strings("found", S.FoundEvents);
  R.number("reportLine", S.ReportLine);
  R.number("reportColumn", S.ReportColumn);
  R.string("skip", S.SkipReason);
  S.Kind = DeclKind(Kind);
  S.Status = SiteStatus(Status);
  const json::Array *Edits = O->getArray("edits");
  if (!Edits)
    return false;
  for (const json::Value &E : *Edits) {
    S.Edits.emplace_back();
    if (!editFromJSON(E, S.Edits.back()))
      return false;
  }
  return R.OK;
}

json::Value suppressionToJSON(const Suppression &S) {
  return json::Object{{"file", S.File},     {"offset", S.Offset},
                      {"line", S.Line},     {"column", S.Column},
                      {"reason", S.Reason}, {"used", S.Used}};
}

bool suppressionFromJSON(const json::Value &V, Suppression &S) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return false;
  Reader R{*O};
  R.string("file", S.File);
  R.number("offset", S.Offset);
  R.number("line", S.Line);
  R.number("column", S.Column);
  R.string("reason", S.Reason);
  R.boolean("used", S.Used);
  return R.OK;
}

json::Value expectationToJSON(const Expectation &E) {
  return json::Object{{"kind", int(E.Kind)},
                      {"file", E.File},
                      {"line", E.Line},
                      {"column", E.Column},
                      {"value", E.Value},
                      {"defLine", E.DefinitionLine},
                      {"defColumn", E.DefinitionColumn},
                      {"definition", E.Definition}};
}

bool expectationFromJSON(const json::Value &V, Expectation &E) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return false;
  Reader R{*O};
  int Kind = 0;
  R.number("kind", Kind);
  R.string("file", E.File);
  R.number("line", E.Line);
  R.number("column", E.Column);
  R.string("value", E.Value);
  R.number("defLine", E.DefinitionLine);
  R.number("defColumn", E.DefinitionColumn);
  R.string("definition", E.Definition);
  E.Kind = Expectation::KindType(Kind);
  return R.OK;
}

template <typename T, typename Read>
bool readArray(const json::Object &O, StringRef Key, std::vector<T> &Out,
               Read ReadOne) {
  const json::Array *A = O.getArray(Key);
  if (!A)
    return false;
  for (const json::Value &V : *A) {
    Out.emplace_back();
    if (!ReadOne(V, Out.back()))
      return false;
  }
  return true;
}

/// xxh3 of \p Path's bytes: fast enough for apistamp's own 50 MB binary
/// on every run, and any rebuild changes it.
std::string hashOfFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return "";
  return utohexstr(xxh3_64bits((*Buffer)->getBuffer()));
}

} // namespace

ResultCache::ResultCache(std::string Dir) : Directory(std::move(Dir)) {
  // Any rebuild of apistamp (or of the libraries it is linked into the same
  // binary with) gives another identity, and so a cold cache.
  std::string Exe = sys::fs::getMainExecutable(nullptr, nullptr);
  Identity = std::string(APISTAMP_VERSION) + ":" + hashOfFile(Exe);
}

std::string ResultCache::keyFor(const RuleSet &Rules,
                                const clang::tooling::CompileCommand &Command,
                                bool SkipBodies) {
  SHA256 Key;
  auto Add = [&Key](StringRef Part) {
    Key.update(Part);
    Key.update(StringRef("\0", 1));
  };
  Add(Identity);
  Add(Rules.Path);
  Add(utohexstr(Rules.TextHash)); // The rules as parsed, not as on disk now.
  Add(Rules.Root);
  Add(SkipBodies ? "skip-bodies" : "every-body");
  Add(Command.Directory);
  Add(Command.Filename);
  for (const std::string &Arg : Command.CommandLine)
    Add(Arg);
  return toHex(Key.final(), /*LowerCase=*/true);
}

std::optional<uint64_t> ResultCache::currentHash(const std::string &Path,
                                                 std::string *Contents) {
  if (!Contents) {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Hashes.find(Path);
    if (It != Hashes.end())
      return It->second;
  }
  std::optional<uint64_t> Hash;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (Buffer) {
    Hash = xxh3_64bits((*Buffer)->getBuffer());
    if (Contents)
      *Contents = (*Buffer)->getBuffer().str();
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  Hashes[Path] = Hash;
  return Hash;
}

std::optional<TUResult> ResultCache::lookup(StringRef Key) {
  SmallString<256> Path(Directory);
  sys::path::append(Path, Key + ".json");
  auto Miss = [this]() -> std::optional<TUResult> {
    ++Misses;
    return std::nullopt;
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return Miss();
  Expected<json::Value> Entry = json::parse((*Buffer)->getBuffer());
  if (!Entry) {
    consumeError(Entry.takeError());
    return Miss();
  }
  const json::Object *O = Entry->getAsObject();
  const json::Array *Deps = O ? O->getArray("deps") : nullptr;
  if (!Deps)
    return Miss();
  std::vector<std::string> WithSitesList;
  if (!stringsFromJSON(O->get("filesWithSites"), WithSitesList))
    return Miss();
  StringSet<> WithSites;
  for (const std::string &File : WithSitesList)
    WithSites.insert(File);
  TUResult Result;
  for (const json::Value &Dep : *Deps) {
    const json::Array *Pair = Dep.getAsArray();
    if (!Pair || Pair->size() != 2)
      return Miss();
    auto File = (*Pair)[0].getAsString();
    if (!File)
      return Miss();
    std::string Name = File->str();
    bool NeedsContents = WithSites.contains(Name);
    std::string Contents;
    std::optional<uint64_t> Now =
        currentHash(Name, NeedsContents ? &Contents : nullptr);
    if (!Now)
      return Miss(); // Deleted.
    if ((*Pair)[1].kind() != json::Value::Null) {
      auto Stored = (*Pair)[1].getAsString();
      if (!Stored || *Stored != utohexstr(*Now))
        return Miss();
    }
    if (NeedsContents)
      Result.FileContents[Name] = std::move(Contents);
  }
  std::optional<int64_t> Skipped = O->getInteger("skippedBodies");
  if (!Skipped || !readArray(*O, "sites", Result.Sites, siteFromJSON) ||
      !readArray(*O, "suppressions", Result.Suppressions,
                 suppressionFromJSON) ||
      !readArray(*O, "expectations", Result.Expectations,
                 expectationFromJSON) ||
      Result.FileContents.size() != WithSites.size())
    return Miss();
  Result.SkippedBodies = unsigned(*Skipped);
  ++Hits;
  return Result;
}

void ResultCache::store(StringRef Key, const TUResult &Result) {
  if (Result.ParseFailed)
    return;
  json::Array Deps, Sites, Suppressions, Expectations, WithSites;
  for (const auto &[File, Hash] : Result.Dependencies)
    Deps.push_back(json::Array{File, Hash ? json::Value(utohexstr(*Hash))
                                          : json::Value(nullptr)});
  for (const auto &Entry : Result.FileContents)
    WithSites.push_back(Entry.first);
  for (const Site &S : Result.Sites)
    Sites.push_back(siteToJSON(S));
  for (const Suppression &S : Result.Suppressions)
    Suppressions.push_back(suppressionToJSON(S));
  for (const Expectation &E : Result.Expectations)
    Expectations.push_back(expectationToJSON(E));
  json::Value Entry = json::Object{{"deps", std::move(Deps)},
                                   {"filesWithSites", std::move(WithSites)},
                                   {"sites", std::move(Sites)},
                                   {"suppressions", std::move(Suppressions)},
                                   {"expectations", std::move(Expectations)},
                                   {"skippedBodies", Result.SkippedBodies}};
  if (sys::fs::create_directories(Directory))
    return;
  SmallString<256> Path(Directory);
  sys::path::append(Path, Key + ".json");
  consumeError(writeToOutput(Path, [&Entry](raw_ostream &OS) {
    OS << Entry;
    return Error::success();
  }));
}

} // namespace apistamp
