//===- Glob.h - Path globs with "**" ----------------------------*- C++ -*-===//
//
// Globs over '/'-separated relative paths: '*', '?', '[..]' and '{a,b}' match
// within one path component (llvm::GlobPattern), '**' matches any number of
// whole components.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_GLOB_H
#define APISTAMP_GLOB_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include <memory>
#include <string>
#include <vector>

namespace apistamp {

/// How many patterns one glob's '{a,b}' groups may expand to: without a
/// limit llvm::GlobPattern does not expand braces at all.
constexpr size_t MaxGlobSubPatterns = 1024;

/// A compiled glob over event names ('*', '?', '[..]', '{a,b}'), as
/// keep_events takes them; compiled once, when the rules are loaded.
class EventGlob {
public:
  static llvm::Expected<EventGlob> create(llvm::StringRef Pattern);
  bool matches(llvm::StringRef Event) const { return Glob.match(Event); }
  const std::string &pattern() const { return *Text; }

private:
  EventGlob(std::shared_ptr<const std::string> Text, llvm::GlobPattern Glob)
      : Text(std::move(Text)), Glob(std::move(Glob)) {}
  /// GlobPattern refers into its pattern text: keep it alive and in place.
  std::shared_ptr<const std::string> Text;
  llvm::GlobPattern Glob;
};

/// A layer of the software that logs events the rules do not place
/// (torchvision's Python side, torch core): a name and the globs of the
/// events it logs, as a rules file's `layers:` and report's --layer declare
/// it.
struct EventLayer {
  std::string Name;
  std::vector<EventGlob> Globs;
  /// Whether one of Globs matches \p Event.
  bool matches(llvm::StringRef Event) const;
};

/// Whether \p Name can name a layer: ASCII letters, digits, '.', '_' and
/// '-', a letter or a digit first (it names a section of the report, and is
/// what --layer NAME=... is split at).
bool isLayerName(llvm::StringRef Name);

/// A compiled path glob.
class PathGlob {
public:
  static llvm::Expected<PathGlob> create(llvm::StringRef Pattern);
  /// \p RelativePath uses '/' separators.
  bool matches(llvm::StringRef RelativePath) const;
  const std::string &pattern() const { return Pattern; }

private:
  struct Component {
    bool AnyDepth = false; ///< "**"
    /// GlobPattern refers into its pattern text: keep it alive and in place.
    std::shared_ptr<const std::string> Text;
    llvm::GlobPattern Glob;
  };
  bool matchFrom(size_t PatternIndex,
                 llvm::ArrayRef<llvm::StringRef> Path) const;

  std::string Pattern;
  std::vector<Component> Components;
};

} // namespace apistamp

#endif // APISTAMP_GLOB_H
