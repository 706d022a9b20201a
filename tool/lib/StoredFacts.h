//===- StoredFacts.h - A parse's facts, stored and read back ----*- C++ -*-===//
//
// What the result cache and `apistamp tu` result files keep of a parse: its
// TUFacts, as JSON, and the checks that let facts read back from such an
// untrusted file be decided on (sitesFromFacts) only if they describe the
// files as they are.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_LIB_STOREDFACTS_H
#define APISTAMP_LIB_STOREDFACTS_H

#include "BoundedJson.h"
#include "SitesFromFacts.h"
#include "apistamp/Site.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/JSON.h"
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace llvm::json {
/// Offsets, lines and counts are unsigned.
inline bool fromJSON(const Value &E, unsigned &Out, Path P) {
  std::optional<uint64_t> V = E.getAsUINT64();
  if (!V || *V > std::numeric_limits<unsigned>::max()) {
    P.report("expected an unsigned number");
    return false;
  }
  Out = unsigned(*V);
  return true;
}
} // namespace llvm::json

namespace apistamp {

/// Stored facts nest 5 deep; a file nested deeper than this is tampered
/// with (llvm::json's parser recurses once per level).
constexpr unsigned MaxStoredNesting = 16;

/// One candidate as JSON, a member per field (what addFacts writes of each).
llvm::json::Value toJSON(const Candidate &C);
bool fromJSON(const llvm::json::Value &E, Candidate &C, llvm::json::Path P);

/// Adds \p Facts to \p Object, a member per field.
void addFacts(llvm::json::Object &Object, const TUFacts &Facts);

/// Reads the members addFacts writes; false if one is missing or wrong.
bool mapFacts(llvm::json::ObjectMapper &Object, TUFacts &Facts);

/// The files whose bytes deciding \p Facts needs (each candidate's and
/// each includer's), or none if a candidate is not under \p Root where its
/// path says, or names a suppression that is not there.
std::optional<llvm::StringSet<>> filesFactsNeed(const TUFacts &Facts,
                                                llvm::StringRef Root);

/// What stored facts are good for.
enum class StoredFactsUse {
  Usable,
  /// \p Rules can select something where the parse skipped bodies.
  BodiesNeeded,
  /// They do not describe the files (tampered with, or stale).
  Untrusted,
};

struct LexedFile;

/// The files decideStoredFacts lexed, kept for a run (any thread): a header
/// that every TU reads is lexed once, not once a TU, while its bytes are the
/// same.
class LexedFiles {
public:
  /// \p Path's tokens in \p Bytes, with \p Macros recognised.
  std::shared_ptr<const LexedFile> get(const std::string &Path,
                                       const SharedBytes &Bytes,
                                       const std::vector<std::string> &Macros);

private:
  struct Lexed {
    SharedBytes Bytes;
    std::shared_ptr<const LexedFile> Tokens;
  };
  std::mutex Mutex;
  std::map<std::pair<std::string, std::vector<std::string>>, Lexed> Files;
};

/// Decides \p Facts with \p Rules (sitesFromFacts, into \p Result) if the
/// files whose bodies the parse skipped are under the root and were read
/// by it (\p WasRead), no rule can select anything there, and every site's
/// body is a function body at its offsets in \p Contents (which holds the
/// files filesFactsNeed names; lexed through \p Lexed if given).
StoredFactsUse
decideStoredFacts(const TUFacts &Facts, const RuleSet &Rules, bool Unselected,
                  const FileBytes &Contents,
                  llvm::function_ref<bool(llvm::StringRef)> WasRead,
                  TUResult &Result, LexedFiles *Lexed = nullptr);

} // namespace apistamp

#endif // APISTAMP_LIB_STOREDFACTS_H
