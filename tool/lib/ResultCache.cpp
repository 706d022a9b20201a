//===- ResultCache.cpp - Reuse the analysis of unchanged TUs --------------===//

#include "ResultCache.h"
#include "Matcher.h"
#include "SafeWrite.h"
#include "StoreEviction.h"
#include "StoredFacts.h"
#include "apistamp/Paths.h"
#include "apistamp/Selection.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace llvm;

namespace apistamp {

/// A file a TU read and the xxh3 of its bytes, in hex.
struct Dependency {
  std::string File, Hash;
};
static bool fromJSON(const json::Value &V, Dependency &D, json::Path P) {
  const json::Array *A = V.getAsArray();
  if (!A || A->size() != 2 || !(*A)[0].getAsString() ||
      !(*A)[1].getAsString()) {
    P.report("expected [file, hash]");
    return false;
  }
  D = {(*A)[0].getAsString()->str(), (*A)[1].getAsString()->str()};
  return true;
}

/// A cache entry: what a TU read (with hashes), what its parse found, and
/// under which rules (the xxh3 of their text, in hex).
struct Entry {
  std::vector<Dependency> Dependencies;
  std::string RulesHash;
  TUFacts Facts;
  unsigned SkippedBodies = 0;
  std::vector<std::string> Absent;
};

static json::Value toJSON(const Entry &E) {
  json::Array Deps;
  for (const Dependency &D : E.Dependencies)
    Deps.push_back(json::Array{D.File, D.Hash});
  json::Object Object{{"deps", std::move(Deps)},
                      {"rules", E.RulesHash},
                      {"skippedBodies", E.SkippedBodies},
                      {"absent", E.Absent}};
  addFacts(Object, E.Facts);
  return Object;
}
static bool fromJSON(const json::Value &V, Entry &E, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("deps", E.Dependencies) && O.map("rules", E.RulesHash) &&
         mapFacts(O, E.Facts) && O.map("skippedBodies", E.SkippedBodies) &&
         O.map("absent", E.Absent);
}

namespace {

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

/// A run of one file's candidates at least this long (as JSON) is stored
/// once, in facts/<xxh3-128>.json, for every entry that has it: a header's
/// inline definitions are the same facts in every TU that reads it
/// (protobuf's 168 entries: 352 MB, each its headers' 4,000 definitions).
constexpr size_t SharedRunBytes = 4096;

/// The name of a shared run: its bytes' xxh3-128, 32 hex digits.
std::string sharedRunName(StringRef Bytes) {
  XXH128_hash_t Hash = xxh3_128bits(arrayRefFromStringRef(Bytes));
  return utohexstr(Hash.high64, /*LowerCase=*/true, 16) +
         utohexstr(Hash.low64, /*LowerCase=*/true, 16);
}

bool isSharedRunName(StringRef Name) {
  return Name.size() == 32 && llvm::all_of(Name, [](char C) {
           return isDigit(C) || (C >= 'a' && C <= 'f');
         });
}

} // namespace

std::shared_ptr<const ResultCache::SharedRun>
ResultCache::sharedRun(StringRef Name) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = SharedRuns.find(Name);
    if (It != SharedRuns.end())
      return It->second;
  }
  std::shared_ptr<SharedRun> Run;
  SmallString<256> Path(Directory);
  sys::path::append(Path, "facts", Name + ".json");
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      isSharedRunName(Name) ? MemoryBuffer::getFile(Path)
                            : std::make_error_code(std::errc::invalid_argument);
  // Untrusted like an entry: its name is its bytes' hash, its candidates
  // are all the file's it names, and they are checked as an entry's are.
  if (Buffer && sharedRunName((*Buffer)->getBuffer()) == Name) {
    Expected<json::Value> Parsed =
        parseBoundedJson((*Buffer)->getBuffer(), MaxStoredNesting);
    const json::Object *Object = Parsed ? Parsed->getAsObject() : nullptr;
    std::optional<StringRef> File =
        Object ? Object->getString("file") : std::nullopt;
    const json::Array *Listed =
        Object ? Object->getArray("candidates") : nullptr;
    if (File && Listed) {
      Run = std::make_shared<SharedRun>();
      for (const json::Value &V : *Listed) {
        Candidate C;
        json::Path::Root Root;
        if (!fromJSON(V, C, Root) || C.File != *File) {
          Run.reset();
          break;
        }
        Run->push_back(std::move(C));
      }
    }
    if (!Parsed)
      consumeError(Parsed.takeError());
  }
  if (Run)
    touchStoredFile(Path);
  std::lock_guard<std::mutex> Lock(Mutex);
  return SharedRuns.try_emplace(Name, std::move(Run)).first->second;
}

json::Array ResultCache::compactCandidates(ArrayRef<Candidate> Candidates) {
  json::Array Compact;
  for (size_t Begin = 0; Begin < Candidates.size();) {
    size_t End = Begin + 1;
    while (End < Candidates.size() &&
           Candidates[End].File == Candidates[Begin].File)
      ++End;
    json::Array Run;
    for (const Candidate &C : Candidates.slice(Begin, End - Begin))
      Run.push_back(toJSON(C));
    json::Object Shared{{"file", Candidates[Begin].File},
                        {"candidates", std::move(Run)}};
    std::string Text;
    raw_string_ostream(Text) << json::Value(std::move(Shared));
    std::string Name = sharedRunName(Text);
    bool Stored = false;
    if (Text.size() >= SharedRunBytes) {
      std::lock_guard<std::mutex> Lock(Mutex);
      Stored = SharedWritten.contains(Name);
    }
    if (!Stored && Text.size() >= SharedRunBytes) {
      SmallString<256> Path(Directory);
      sys::path::append(Path, "facts");
      if (!sys::fs::create_directories(Path)) {
        sys::path::append(Path, Name + ".json");
        Stored = sys::fs::exists(Path) ||
                 !errorToBool(writeFileAtomically(Path, Text));
      }
      if (Stored) {
        std::lock_guard<std::mutex> Lock(Mutex);
        SharedWritten.insert(Name);
      }
    }
    if (Stored)
      Compact.push_back(json::Object{{"shared", Name}});
    else
      for (const Candidate &C : Candidates.slice(Begin, End - Begin))
        Compact.push_back(toJSON(C));
    Begin = End;
  }
  return Compact;
}

bool ResultCache::expandCandidates(json::Value &Listed,
                                   std::vector<Candidate> &Candidates,
                                   bool &Missing) {
  json::Array *Array = Listed.getAsArray();
  if (!Array)
    return false;
  for (const json::Value &V : *Array) {
    const json::Object *Object = V.getAsObject();
    if (Object && Object->size() == 1)
      if (std::optional<StringRef> Name = Object->getString("shared")) {
        std::shared_ptr<const SharedRun> Run = sharedRun(*Name);
        if (!Run) {
          Missing = true;
          return false;
        }
        Candidates.insert(Candidates.end(), Run->begin(), Run->end());
        continue;
      }
    Candidate C;
    json::Path::Root Root;
    if (!fromJSON(V, C, Root))
      return false;
    Candidates.push_back(std::move(C));
  }
  Listed = json::Array();
  return true;
}

const std::string &apistampIdentity() {
  // Any rebuild of apistamp (or of the libraries it is linked into the same
  // binary with) gives another identity, and so a cold cache.
  static const std::string Identity =
      std::string(APISTAMP_VERSION) + ":" +
      hashOfFile(sys::fs::getMainExecutable(nullptr, nullptr));
  return Identity;
}

ResultCache::ResultCache(std::string Dir, uint64_t LimitBytes)
    : Directory(std::move(Dir)), LimitBytes(LimitBytes) {
  Identity = apistampIdentity();
  removeStaleTemporariesIn(Directory); // Of runs that were killed.
}

ResultCache::~ResultCache() {
  if (Stored)
    evictPastLimit();
}

void ResultCache::evictPastLimit() {
  // Entries, then the shared runs they name (another build's entries and
  // runs no entry names any more go first: nothing uses them). A removed
  // run only makes the entries that name it misses.
  SmallString<256> Runs(Directory);
  sys::path::append(Runs, "facts");
  std::vector<StoredFile> Files = storedFiles(Directory, {".json"});
  llvm::append_range(Files, storedFiles(Runs, {".json"}));
  auto IsEntry = [&](const StoredFile &F) {
    return sys::path::parent_path(F.Path) == StringRef(Directory);
  };
  Evicted +=
      apistamp::evictPastLimit(std::move(Files), LimitBytes,
                               [&](const StoredFile &A, const StoredFile &B) {
                                 return IsEntry(A) && !IsEntry(B);
                               })
          .size();
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
  // What of the rules the parse depends on. The rest (selectors, events,
  // which files' bodies the parse needs) is decided on the stored facts.
  Add(Rules.Root);
  for (const std::string &Macro : Rules.recognisedMacros())
    Add(Macro);
  std::vector<const CompiledMatcher *> Matchers = matchersOf(Rules);
  Add(std::to_string(Matchers.size()) + " matchers");
  for (const CompiledMatcher *M : Matchers)
    Add(M->Text);
  Add(SkipBodies ? "skip-bodies" : "every-body");
  Add(Command.Directory);
  Add(Command.Filename);
  for (const std::string &Arg : Command.CommandLine)
    Add(Arg);
  // What else decides which headers the TU finds: the environment clang's
  // driver reads, and the toolchain it resolves (its resource directory and
  // the compiler named by the command, which locates the GCC installation).
  for (const char *Variable :
       {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH",
        "OBJCPLUS_INCLUDE_PATH", "CCC_OVERRIDE_OPTIONS", "COMPILER_PATH",
        "SDKROOT", "SOURCE_DATE_EPOCH"}) {
    const char *Value = std::getenv(Variable);
    Add(Variable);
    Add(Value ? "=" + std::string(Value) : "unset");
  }
  Add(APISTAMP_CLANG_RESOURCE_DIR);
  if (!Command.CommandLine.empty()) {
    ErrorOr<std::string> Compiler =
        sys::findProgramByName(Command.CommandLine.front());
    Add(Compiler ? canonicalPath(*Compiler) : "not found");
  }
  return toHex(Key.final(), /*LowerCase=*/true);
}

std::string ResultCache::keyForPython(const RuleSet &Rules, StringRef Source,
                                      ArrayRef<std::string> CallShapes) {
  SHA256 Key;
  auto Add = [&Key](StringRef Part) {
    Key.update(Part);
    Key.update(StringRef("\0", 1));
  };
  Add(Identity);
  Add("python");
  Add(Rules.Root);
  Add(std::to_string(Rules.PythonPath.size()) + " path entries");
  for (const std::string &Entry : Rules.PythonPath)
    Add(Entry);
  Add(std::to_string(CallShapes.size()) + " call shapes");
  for (const std::string &Shape : CallShapes)
    Add(Shape);
  Add(Source);
  return toHex(Key.final(), /*LowerCase=*/true);
}

bool ResultCache::stillAbsent(const std::string &Path) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Absent.find(Path);
    if (It != Absent.end())
      return It->second;
  }
  bool Missing = !sys::path::is_absolute(Path) ? false : !sys::fs::exists(Path);
  std::lock_guard<std::mutex> Lock(Mutex);
  Absent[Path] = Missing;
  return Missing;
}

std::optional<uint64_t>
ResultCache::currentHash(const std::string &Path,
                         std::shared_ptr<const std::string> *Bytes) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Files.find(Path);
    if (It != Files.end() && (!Bytes || It->second.Bytes)) {
      if (Bytes)
        *Bytes = It->second.Bytes;
      return It->second.Hash;
    }
  }
  FileState State;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (Buffer) {
    State.Hash = xxh3_64bits((*Buffer)->getBuffer());
    if (Bytes)
      State.Bytes =
          std::make_shared<const std::string>((*Buffer)->getBuffer().str());
  }
  if (Bytes)
    *Bytes = State.Bytes;
  std::lock_guard<std::mutex> Lock(Mutex);
  Files[Path] = State;
  return State.Hash;
}

std::optional<TUResult> ResultCache::lookup(StringRef Key, const RuleSet &Rules,
                                            bool Unselected,
                                            StringRef MustHaveRead) {
  SmallString<256> Path(Directory);
  sys::path::append(Path, Key + ".json");
  auto Miss = [](std::atomic<unsigned> &Cause) -> std::optional<TUResult> {
    ++Cause;
    return std::nullopt;
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return Miss(NoEntry);
  // llvm::json's parser recurses once per nesting level: a tampered entry
  // of nested brackets would overflow the stack. Real entries nest 5 deep.
  Expected<json::Value> Parsed =
      parseBoundedJson((*Buffer)->getBuffer(), MaxStoredNesting);
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return Miss(Untrusted);
  }
  // The entry is untrusted input (a CI cache can be tampered with): it is
  // used only if everything it says checks out against the files now.
  Entry E;
  json::Path::Root Root;
  std::vector<Candidate> Candidates;
  bool SharedMissing = false;
  json::Object *Object = Parsed->getAsObject();
  json::Value *Listed = Object ? Object->get("candidates") : nullptr;
  if (!Listed || !expandCandidates(*Listed, Candidates, SharedMissing))
    return Miss(SharedMissing ? NoEntry : Untrusted);
  if (!fromJSON(*Parsed, E, Root) || E.Dependencies.empty())
    return Miss(Untrusted);
  E.Facts.Candidates = std::move(Candidates);
  const std::string &RootDir = Rules.Root;
  // The files whose bytes the rules may need: each candidate's and each
  // includer's, under the root.
  std::optional<StringSet<>> Needed = filesFactsNeed(E.Facts, RootDir);
  if (!Needed)
    return Miss(Untrusted);
  StringSet<> Deps;
  FileBytes Contents;
  for (const Dependency &D : E.Dependencies) {
    std::shared_ptr<const std::string> Bytes;
    std::optional<uint64_t> Now =
        currentHash(D.File, Needed->contains(D.File) ? &Bytes : nullptr);
    if (!Now || D.Hash != utohexstr(*Now))
      return Miss(Changed); // Changed or deleted.
    Deps.insert(D.File);
    if (Bytes)
      Contents[D.File] = SharedBytes(std::move(Bytes));
  }
  // The entry of another file under this one's key says nothing of it.
  if (!MustHaveRead.empty() && !Deps.contains(MustHaveRead))
    return Miss(Untrusted);
  for (const std::string &Path : E.Absent)
    if (!stillAbsent(Path))
      return Miss(Changed); // A header earlier on the include path, say.
  if (Contents.size() != Needed->size())
    return Miss(Untrusted); // A candidate in a file that the TU did not read.
  TUResult Result;
  switch (decideStoredFacts(
      E.Facts, Rules, Unselected, Contents,
      [&Deps](StringRef File) { return Deps.contains(File); }, Result,
      &Lexed)) {
  case StoredFactsUse::Usable:
    break;
  case StoredFactsUse::BodiesNeeded:
    return Miss(BodiesNeeded);
  case StoredFactsUse::Untrusted:
    return Miss(Untrusted);
  }
  Result.Facts = std::move(E.Facts);
  Result.SkippedBodies = E.SkippedBodies;
  ++Hits;
  touchStoredFile(Path);
  if (E.RulesHash != utohexstr(Rules.TextHash)) {
    ++Redecided;
    std::lock_guard<std::mutex> Lock(Mutex);
    RedecidedKeys.insert(Key);
  }
  return Result;
}

CacheCounts ResultCache::counts() const {
  CacheCounts C;
  C.Hits = Hits;
  C.Redecided = Redecided;
  C.NoEntry = NoEntry;
  C.Changed = Changed;
  C.BodiesNeeded = BodiesNeeded;
  C.Untrusted = Untrusted;
  C.EditNeeded = EditNeeded;
  return C;
}

void ResultCache::store(StringRef Key, const TUResult &Result,
                        const RuleSet &Rules) {
  if (Result.ParseFailed)
    return;
  Entry E;
  for (const auto &[File, Hash] : Result.Dependencies) {
    // A file the TU only looked up is hashed now: every dependency of an
    // entry is checked when it is used.
    std::optional<uint64_t> Known = Hash ? Hash : currentHash(File);
    if (!Known)
      return;
    E.Dependencies.push_back({File, utohexstr(*Known)});
  }
  E.RulesHash = utohexstr(Rules.TextHash);
  // The candidates go in compacted (compactCandidates), not converted twice.
  E.Facts.BodiesSkippedIn = Result.Facts.BodiesSkippedIn;
  E.Facts.Suppressions = Result.Facts.Suppressions;
  E.Facts.Expectations = Result.Facts.Expectations;
  std::vector<std::string> &Skipped = E.Facts.BodiesSkippedIn;
  llvm::sort(Skipped);
  Skipped.erase(std::unique(Skipped.begin(), Skipped.end()), Skipped.end());
  E.SkippedBodies = Result.SkippedBodies;
  E.Absent = Result.Absent;
  if (std::error_code EC = sys::fs::create_directories(Directory)) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (WriteError.empty())
      WriteError = Directory + ": " + EC.message();
    return;
  }
  json::Value Value = toJSON(E);
  (*Value.getAsObject())["candidates"] =
      compactCandidates(Result.Facts.Candidates);
  SmallString<256> Path(Directory);
  sys::path::append(Path, Key + ".json");
  std::string Text;
  raw_string_ostream(Text) << Value;
  if (Error E = writeFileAtomically(Path, Text)) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (WriteError.empty())
      WriteError = Path.str().str() + ": " + toString(std::move(E));
    return;
  }
  ++Stored;
}

} // namespace apistamp
