//===- RulesLoader.cpp - Read and parse a rules file ----------------------===//
//
// parseRules and loadRules: the file's bytes checked, its one YAML document
// loaded and handed to the key tables (RulesKeys.h). yaml-cpp reports
// problems with exceptions; they are caught here and nowhere else, and
// turned into "file:line:col: error: ..." diagnostics.
//
//===----------------------------------------------------------------------===//

#include "RulesKeys.h"
#include "Suggestions.h"
#include "apistamp/Paths.h"
#include "apistamp/Rules.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include <yaml-cpp/depthguard.h>

using namespace llvm;

namespace apistamp {

namespace {

/// Largest rules file read, in bytes; rules files are written by hand.
constexpr size_t MaxRulesFileSize = 1 << 20;

/// Bytes read from a rules file at a time.
constexpr size_t ReadChunkSize = 1 << 16;

/// Byte order marks of UTF-16, big- and little-endian.
constexpr StringRef UTF16BigEndianMark = "\xFE\xFF";
constexpr StringRef UTF16LittleEndianMark = "\xFF\xFE";
/// How big-endian UTF-32 starts: with its byte order mark or ASCII text.
constexpr StringRef UTF32BigEndianStart("\0\0", 2);

} // namespace

namespace rulesfile {

bool FileParser::checkText() {
  if (Text.size() > MaxRulesFileSize) {
    Diags.errorAt(0, 1,
                  "the rules file is " + Twine(Text.size()) +
                      " bytes; apistamp reads at most " +
                      Twine(MaxRulesFileSize));
    return false;
  }
  // yaml-cpp would read UTF-16 and UTF-32 (with a byte order mark, or ASCII
  // text with zero bytes between); everything else here counts UTF-8 bytes.
  if (Text.starts_with(UTF16BigEndianMark) ||
      Text.starts_with(UTF16LittleEndianMark) ||
      (Text.size() >= 2 && (Text[0] == 0) != (Text[1] == 0)) ||
      Text.starts_with(UTF32BigEndianStart)) {
    Diags.errorAt(0, 1,
                  "the rules file is not UTF-8 (it looks like UTF-16 or "
                  "UTF-32); save it as UTF-8");
    return false;
  }
  StringRef Body = Text;
  Body.consume_front(ByteOrderMark);
  size_t Bad = findUnprintable(Body, /*AllowWhitespace=*/true);
  if (Bad == StringRef::npos)
    return true;
  size_t LineStart = Body.rfind('\n', Bad) + 1; // npos + 1 == 0
  DecodedChar C = decodeUTF8(Body.substr(Bad));
  Diags.errorAt(Body.take_front(Bad).count('\n'), Bad - LineStart + 1,
                C.Valid ? "the rules file may not contain control characters "
                          "other than tab and line breaks (found '" +
                              printable(Body.substr(Bad, C.Length)) + "')"
                        : "the rules file is not valid UTF-8 (found byte '" +
                              printable(Body.substr(Bad, 1)) + "')");
  return false;
}

YAML::Mark FileParser::documentStart(const YAML::Node &Second) const {
  YAML::Mark Start = Second.Mark();
  if (Start.is_null())
    return YAML::Mark();
  // The nearest document marker at or above the node: its '---', unless the
  // previous document ended with '...' and this one has none.
  for (int Line = Start.line; Line >= 0; --Line) {
    StringRef Text = Diags.line(Line).rtrim("\r");
    auto IsMarker = [&](StringRef Marker) {
      return Text.starts_with(Marker) &&
             (Text.size() == Marker.size() || Text[Marker.size()] == ' ' ||
              Text[Marker.size()] == '\t');
    };
    if (IsMarker("..."))
      break;
    if (IsMarker("---")) {
      YAML::Mark Marker;
      Marker.line = Line;
      return Marker;
    }
  }
  return Start;
}

bool FileParser::load(YAML::Node &Doc) {
  std::vector<YAML::Node> Docs;
  try {
    Docs = YAML::LoadAll(Text.str());
  } catch (const YAML::DeepRecursion &E) {
    // Its message is "bad file".
    Diags.error(E.mark, "the YAML nests too deeply: yaml-cpp stops at " +
                            Twine(E.depth()) + " levels");
    return false;
  } catch (const YAML::Exception &E) {
    Diags.error(E.mark, E.msg);
    return false;
  }
  if (Docs.size() > 1)
    Diags.error(documentStart(Docs[1]),
                "a rules file is one YAML document; a second one starts here");
  if (!Docs.empty())
    Doc = Docs.front();
  return true;
}

void FileParser::parseKeys(const YAML::Node &Doc, RuleSet &Rules) {
  try {
    P.checkKeys(Doc, keyNames(), "the rules file");
    for (const Key &K : keys()) {
      if (YAML::Node Value = Doc[K.Name.str()])
        (this->*K.Parse)(Value, Rules);
      else if (K.Missing)
        Diags.error(Doc, K.Missing);
    }
    // An internal entry point hides nested calls only from the
    // outermost-only macro.
    if (YAML::Node List = Doc["rules"]; List && List.IsSequence())
      for (const YAML::Node &Item : List)
        if (YAML::Node Internal =
                Item.IsMap() ? Item["internal"] : YAML::Node();
            Internal && Internal.IsScalar() && Internal.Scalar() == "true" &&
            Rules.Macro != "APISTAMP_LOG_API_ENTRY")
          Diags.error(Internal,
                      "'internal: true' needs 'macro: APISTAMP_LOG_API_ENTRY': "
                      "an internal entry point makes the library's calls under "
                      "it nested, which only the outermost-only macro does not "
                      "log",
                      Diags.valueOffset(Internal));
  } catch (const YAML::Exception &E) {
    Diags.error(E.mark, E.msg);
  }
}

Expected<RuleSet> FileParser::parse() {
  RuleSet Rules;
  Rules.Path = Path.str();
  Rules.TextHash = xxh3_64bits(Text);
  YAML::Node Doc;
  if (!checkText() || !load(Doc))
    return Diags.first();
  if (!Doc.IsMap()) {
    Diags.error(Doc.Mark().is_null() ? YAML::Mark() : Doc.Mark(),
                "a rules file is a mapping with 'version: 1' and 'rules:'");
    return Diags.all();
  }
  parseKeys(Doc, Rules);
  if (!Diags.empty())
    return Diags.all();
  for (Rule &R : Rules.Rules)
    llvm::append_range(R.ExcludeFiles, Rules.ExcludeFiles);
  return Rules;
}

} // namespace rulesfile

Expected<RuleSet> parseRules(StringRef Text, StringRef Path) {
  return rulesfile::FileParser(Path, Text).parse();
}

/// The first \p Limit + 1 bytes of the file at \p Path at most: enough to
/// tell that it is too long without reading all of /dev/zero.
static Expected<std::string> readAtMost(StringRef Path, size_t Limit) {
  Expected<sys::fs::file_t> File = sys::fs::openNativeFileForRead(Path);
  if (!File)
    return File.takeError();
  std::string Bytes;
  char Chunk[ReadChunkSize];
  Error Err = Error::success();
  while (Bytes.size() <= Limit) {
    Expected<size_t> Read = sys::fs::readNativeFile(*File, Chunk);
    if (!Read) {
      Err = Read.takeError();
      break;
    }
    if (*Read == 0)
      break;
    Bytes.append(Chunk, *Read);
  }
  sys::fs::closeFile(*File);
  if (Err)
    return Err;
  return Bytes;
}

Expected<RuleSet> loadRules(StringRef Path) {
  Expected<std::string> Text = readAtMost(Path, MaxRulesFileSize);
  if (!Text) {
    std::error_code EC = errorToErrorCode(Text.takeError());
    return createStringError(EC, "error: cannot read rules file '" +
                                     printable(Path, std::string::npos) +
                                     "': " + EC.message());
  }
  if (Text->size() > MaxRulesFileSize)
    return createStringError(inconvertibleErrorCode(),
                             printable(Path, std::string::npos) +
                                 ":1:1: error: the rules file is larger than " +
                                 Twine(MaxRulesFileSize) +
                                 " bytes, the most apistamp reads");
  Expected<RuleSet> Rules = parseRules(*Text, Path);
  if (!Rules)
    return Rules.takeError();
  Rules->Path = canonicalPath(Path);
  Rules->Root = sys::path::parent_path(Rules->Path).str();
  if (!Rules->CompileCommandsDir.empty() &&
      !sys::path::is_absolute(Rules->CompileCommandsDir)) {
    SmallString<256> Dir(Rules->Root);
    sys::path::append(Dir, Rules->CompileCommandsDir);
    Rules->CompileCommandsDir = std::string(Dir);
  }
  return Rules;
}

} // namespace apistamp
