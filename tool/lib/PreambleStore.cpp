//===- PreambleStore.cpp - Parsed include prefixes kept between runs ------===//

#include "PreambleStore.h"
#include "BoundedJson.h"
#include "ResultCache.h"
#include "SafeWrite.h"
#include "StoreEviction.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>

using namespace llvm;

namespace apistamp {

namespace {

/// Real entries nest 2 deep; deeper ones are tampered with.
constexpr unsigned MaxNesting = 8;

json::Value marksToJSON(const std::vector<RegionMark> &Marks) {
  json::Array A;
  for (const RegionMark &M : Marks)
    A.push_back(json::Array{M.Inclusion, M.Offset});
  return A;
}

bool marksFromJSON(const json::Value *V, size_t Inclusions,
                   std::vector<RegionMark> &Out) {
  const json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A)
    return false;
  for (const json::Value &E : *A) {
    const json::Array *Pair = E.getAsArray();
    if (!Pair || Pair->size() != 2)
      return false;
    std::optional<int64_t> Inclusion = (*Pair)[0].getAsInteger();
    std::optional<int64_t> Offset = (*Pair)[1].getAsInteger();
    if (!Inclusion || !Offset || *Inclusion < -1 ||
        *Inclusion >= int64_t(Inclusions) || *Offset < 0 ||
        *Offset > std::numeric_limits<unsigned>::max())
      return false;
    Out.push_back({int(*Inclusion), unsigned(*Offset)});
  }
  return true;
}

bool stringsFromJSON(const json::Value *V, std::vector<std::string> &Out) {
  const json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A)
    return false;
  for (const json::Value &E : *A) {
    std::optional<StringRef> S = E.getAsString();
    if (!S || !sys::path::is_absolute(*S))
      return false;
    Out.push_back(S->str());
  }
  return true;
}

bool unsignedsFromJSON(const json::Value *V, std::vector<unsigned> &Out) {
  const json::Array *A = V ? V->getAsArray() : nullptr;
  if (!A)
    return false;
  for (const json::Value &E : *A) {
    std::optional<int64_t> N = E.getAsInteger();
    if (!N || *N < 0 || *N > std::numeric_limits<unsigned>::max())
      return false;
    Out.push_back(unsigned(*N));
  }
  return true;
}

json::Value toJSON(const PreambleEntry &E) {
  json::Array Files;
  for (const auto &[Path, Hash] : E.Files)
    Files.push_back(json::Array{Path, utohexstr(Hash)});
  const RegionFacts &R = E.Region;
  return json::Object{
      {"bounds", E.Bounds},
      {"endsAtStartOfLine", E.EndsAtStartOfLine},
      {"files", std::move(Files)},
      {"absent", E.Absent},
      {"inclusions", R.Inclusions},
      {"inclusionStarts", R.InclusionStarts},
      {"macroUses", marksToJSON(R.MacroUses)},
      {"comments", marksToJSON(R.Comments)},
      {"skippedFiles", R.SkippedFiles},
      {"skippedBodies", R.SkippedBodies},
      {"pchHash", utohexstr(E.PchHash)},
      {"pchSize", int64_t(E.PchSize)},
  };
}

std::optional<uint64_t> hexNumber(const json::Object &O, StringRef Key) {
  std::optional<StringRef> S = O.getString(Key);
  uint64_t Value;
  if (!S || S->empty() || S->size() > 16 || S->getAsInteger(16, Value))
    return std::nullopt;
  return Value;
}

std::optional<PreambleEntry> entryFromJSON(const json::Value &V) {
  const json::Object *O = V.getAsObject();
  if (!O)
    return std::nullopt;
  PreambleEntry E;
  std::optional<int64_t> Bounds = O->getInteger("bounds");
  std::optional<bool> EndsAtStartOfLine = O->getBoolean("endsAtStartOfLine");
  std::optional<int64_t> Skipped = O->getInteger("skippedBodies");
  std::optional<int64_t> PchSize = O->getInteger("pchSize");
  std::optional<uint64_t> PchHash = hexNumber(*O, "pchHash");
  if (!Bounds || *Bounds <= 0 || *Bounds > std::numeric_limits<int>::max() ||
      !EndsAtStartOfLine || !Skipped || *Skipped < 0 ||
      *Skipped > std::numeric_limits<unsigned>::max() || !PchSize ||
      *PchSize <= 0 || !PchHash)
    return std::nullopt;
  E.Bounds = unsigned(*Bounds);
  E.EndsAtStartOfLine = *EndsAtStartOfLine;
  E.Region.SkippedBodies = unsigned(*Skipped);
  E.PchSize = uint64_t(*PchSize);
  E.PchHash = *PchHash;
  // Empty when the prefix reads no file (`#ifdef X` around its includes,
  // X undefined): the key, which holds the prefix, says all there is.
  const json::Array *Files = O->getArray("files");
  if (!Files)
    return std::nullopt;
  for (const json::Value &F : *Files) {
    const json::Array *Pair = F.getAsArray();
    if (!Pair || Pair->size() != 2)
      return std::nullopt;
    std::optional<StringRef> Path = (*Pair)[0].getAsString();
    std::optional<StringRef> Hash = (*Pair)[1].getAsString();
    uint64_t Value;
    if (!Path || !sys::path::is_absolute(*Path) || !Hash || Hash->empty() ||
        Hash->size() > 16 || Hash->getAsInteger(16, Value))
      return std::nullopt;
    E.Files.push_back({Path->str(), Value});
  }
  RegionFacts &R = E.Region;
  if (!stringsFromJSON(O->get("absent"), E.Absent) ||
      !stringsFromJSON(O->get("inclusions"), R.Inclusions) ||
      !stringsFromJSON(O->get("skippedFiles"), R.SkippedFiles) ||
      !unsignedsFromJSON(O->get("inclusionStarts"), R.InclusionStarts) ||
      R.InclusionStarts.size() != R.Inclusions.size() ||
      !marksFromJSON(O->get("macroUses"), R.Inclusions.size(), R.MacroUses) ||
      !marksFromJSON(O->get("comments"), R.Inclusions.size(), R.Comments))
    return std::nullopt;
  return E;
}

std::string pchName(StringRef Key, uint64_t Hash) {
  return (Key + "-" + utohexstr(Hash) + ".pch").str();
}

} // namespace

PreambleStore::PreambleStore(std::string Dir, uint64_t LimitBytes)
    : Directory(std::move(Dir)), LimitBytes(LimitBytes) {
  removeStaleTemporariesIn(Directory); // Of runs that were killed.
}

std::optional<uint64_t> PreambleStore::currentHash(const std::string &Path) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Hashes.find(Path);
    if (It != Hashes.end())
      return It->second;
  }
  std::optional<uint64_t> Hash;
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
          MemoryBuffer::getFile(Path, /*IsText=*/false,
                                /*RequiresNullTerminator=*/false))
    Hash = xxh3_64bits((*Buffer)->getBuffer());
  std::lock_guard<std::mutex> Lock(Mutex);
  Hashes[Path] = Hash;
  return Hash;
}

void PreambleStore::fileChanged(StringRef Path) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Hashes.erase(Path);
}

bool PreambleStore::stillAbsent(const std::string &Path) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Absent.find(Path);
    if (It != Absent.end())
      return It->second;
  }
  bool Missing = !sys::fs::exists(Path);
  std::lock_guard<std::mutex> Lock(Mutex);
  Absent[Path] = Missing;
  return Missing;
}

std::optional<LoadedPreamble> PreambleStore::lookup(StringRef Key) {
  auto Miss = [this]() -> std::optional<LoadedPreamble> {
    ++Misses;
    return std::nullopt;
  };
  SmallString<256> Path(Directory);
  sys::path::append(Path, Key + ".json");
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(Path);
  if (!Text)
    return Miss();
  Expected<json::Value> Parsed =
      parseBoundedJson((*Text)->getBuffer(), MaxNesting);
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return Miss();
  }
  std::optional<PreambleEntry> Entry = entryFromJSON(*Parsed);
  if (!Entry)
    return Miss();
  for (const auto &[File, Hash] : Entry->Files)
    if (currentHash(File) != Hash)
      return Miss();
  for (const std::string &File : Entry->Absent)
    if (!stillAbsent(File))
      return Miss();
  SmallString<256> PchPath(Directory);
  sys::path::append(PchPath, pchName(Key, Entry->PchHash));
  // Mapped: an eviction by another run after this cannot pull it away.
  ErrorOr<std::unique_ptr<MemoryBuffer>> Pch =
      MemoryBuffer::getFile(PchPath, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Pch || (*Pch)->getBufferSize() != Entry->PchSize ||
      xxh3_64bits((*Pch)->getBuffer()) != Entry->PchHash)
    return Miss();
  // Used: the least recently used entries are evicted first.
  touchStoredFile(Path);
  touchStoredFile(PchPath);
  ++Hits;
  return LoadedPreamble{std::move(*Entry), std::move(*Pch)};
}

void PreambleStore::store(StringRef Key, PreambleEntry &Entry, StringRef Pch) {
  Entry.PchHash = xxh3_64bits(Pch);
  Entry.PchSize = Pch.size();
  auto Failed = [this](const Twine &Why) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (WriteError.empty())
      WriteError = Why.str();
  };
  SmallString<256> PchPath(Directory), EntryPath(Directory);
  sys::path::append(PchPath, pchName(Key, Entry.PchHash));
  sys::path::append(EntryPath, Key + ".json");
  // The PCH first: an entry never names a PCH that is not all there.
  if (Error E = writeFileAtomically(PchPath, Pch))
    return Failed(PchPath + ": " + toString(std::move(E)));
  std::string Text;
  raw_string_ostream(Text) << toJSON(Entry);
  if (Error E = writeFileAtomically(EntryPath, Text))
    return Failed(EntryPath + ": " + toString(std::move(E)));
  ++Built;
  evictPastLimit();
}

void PreambleStore::forget(StringRef Key) {
  SmallString<256> Path(Directory);
  sys::path::append(Path, Key + ".json");
  sys::fs::remove(Path);
}

std::string PreambleStore::writeError() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return WriteError;
}

/// The files of a preamble store: entries and their PCHs.
static std::vector<StoredFile> preambleFiles(StringRef Directory) {
  return storedFiles(Directory, {".json", ".pch"});
}

uint64_t PreambleStore::sizeOf(StringRef Directory) {
  uint64_t Total = 0;
  for (const StoredFile &F : preambleFiles(Directory))
    Total += F.Size;
  return Total;
}

void PreambleStore::evictPastLimit() {
  // An entry before its PCH, so none names a PCH that is gone.
  for (const std::string &Path :
       apistamp::evictPastLimit(preambleFiles(Directory), LimitBytes,
                                [](const StoredFile &A, const StoredFile &B) {
                                  return StringRef(A.Path).ends_with(".json") &&
                                         !StringRef(B.Path).ends_with(".json");
                                }))
    Evicted += StringRef(Path).ends_with(".pch");
}

} // namespace apistamp
