//===- Glob.cpp - Path globs with "**" ------------------------------------===//

#include "apistamp/Glob.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace apistamp {

static SmallVector<StringRef, 8> splitPath(StringRef Path) {
  SmallVector<StringRef, 8> Parts;
  Path.split(Parts, '/', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  // "./a" and "a" are the same path.
  llvm::erase(Parts, StringRef("."));
  return Parts;
}

Expected<PathGlob> PathGlob::create(StringRef Pattern) {
  if (Pattern.empty())
    return createStringError(inconvertibleErrorCode(), "empty file glob");
  if (Pattern.starts_with("/"))
    return createStringError(inconvertibleErrorCode(),
                             "file glob '" + Pattern +
                                 "' is absolute; globs are relative to the "
                                 "root");
  PathGlob Result;
  Result.Pattern = Pattern.str();
  for (StringRef Part : splitPath(Pattern)) {
    Component C;
    if (Part == "..")
      return createStringError(
          inconvertibleErrorCode(),
          "file glob '" + Pattern +
              "' leaves the root with '..' and would never match: paths are "
              "relative to the root (the rules file's directory); put the "
              "rules file in a directory above both, or pass --root DIR");
    if (Part == "**") {
      C.AnyDepth = true;
    } else {
      if (Part.contains("**"))
        return createStringError(inconvertibleErrorCode(),
                                 "'**' must be a whole path component in '" +
                                     Pattern + "'");
      C.Text = std::make_shared<const std::string>(Part.str());
      Expected<GlobPattern> Glob =
          GlobPattern::create(*C.Text, MaxGlobSubPatterns);
      if (!Glob)
        return createStringError(inconvertibleErrorCode(),
                                 "bad file glob '" + Pattern +
                                     "': " + toString(Glob.takeError()));
      C.Glob = std::move(*Glob);
    }
    Result.Components.push_back(std::move(C));
  }
  return Result;
}

bool PathGlob::matchFrom(size_t PatternIndex, ArrayRef<StringRef> Path) const {
  if (PatternIndex == Components.size())
    return Path.empty();
  const Component &C = Components[PatternIndex];
  if (C.AnyDepth) {
    for (size_t Skip = 0; Skip <= Path.size(); ++Skip)
      if (matchFrom(PatternIndex + 1, Path.drop_front(Skip)))
        return true;
    return false;
  }
  return !Path.empty() && C.Glob.match(Path.front()) &&
         matchFrom(PatternIndex + 1, Path.drop_front());
}

bool PathGlob::matches(StringRef RelativePath) const {
  SmallVector<StringRef, 8> Parts = splitPath(RelativePath);
  return matchFrom(0, Parts);
}

Expected<EventGlob> EventGlob::create(StringRef Pattern) {
  auto Text = std::make_shared<const std::string>(Pattern.str());
  Expected<GlobPattern> Glob = GlobPattern::create(*Text, MaxGlobSubPatterns);
  if (!Glob)
    return Glob.takeError();
  return EventGlob(std::move(Text), std::move(*Glob));
}

bool EventLayer::matches(StringRef Event) const {
  return llvm::any_of(Globs,
                      [Event](const EventGlob &G) { return G.matches(Event); });
}

bool isLayerName(StringRef Name) {
  return !Name.empty() && isAlnum(Name.front()) &&
         llvm::all_of(Name, [](char C) {
           return isAlnum(C) || C == '.' || C == '_' || C == '-';
         });
}

} // namespace apistamp
