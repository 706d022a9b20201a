//===- ChangedLines.cpp - Lines changed since a git revision --------------===//

#include "apistamp/ChangedLines.h"
#include "apistamp/Paths.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include <limits>

using namespace llvm;

namespace apistamp {

ChangedLines ChangedLines::fromUnifiedDiff(StringRef Diff, StringRef Toplevel) {
  ChangedLines Result;
  std::string File;
  SmallVector<StringRef, 0> Lines;
  Diff.split(Lines, '\n');
  for (StringRef Line : Lines) {
    if (Line.consume_front("+++ ")) {
      File.clear();
      if (Line.consume_front("b/")) {
        SmallString<256> Path(Toplevel);
        sys::path::append(Path, Line.rtrim("\r"));
        File = canonicalPath(Path);
      }
      continue;
    }
    if (File.empty() || !Line.consume_front("@@ "))
      continue;
    // "@@ -a[,b] +c[,d] @@": lines c .. c+d-1 of the new file; d = 0 is a
    // deletion after line c.
    StringRef NewSide = Line.split(' ').second.split(' ').first;
    if (!NewSide.consume_front("+"))
      continue;
    auto [StartText, CountText] = NewSide.split(',');
    unsigned Start = 0, Count = 1;
    if (StartText.getAsInteger(10, Start) ||
        (!CountText.empty() && CountText.getAsInteger(10, Count)))
      continue;
    if (Count == 0)
      Result.Ranges[File].push_back({std::max(1u, Start), Start + 1});
    else
      Result.Ranges[File].push_back({Start, Start + Count - 1});
  }
  return Result;
}

void ChangedLines::addWholeFile(StringRef File) {
  Ranges[File].push_back({1, std::numeric_limits<unsigned>::max()});
}

bool ChangedLines::intersects(StringRef File, unsigned Begin,
                              unsigned End) const {
  auto It = Ranges.find(File);
  if (It == Ranges.end())
    return false;
  for (const auto &[First, Last] : It->second)
    if (First <= End && Begin <= Last)
      return true;
  return false;
}

/// Runs git with \p Args in \p Directory; its stdout, or an error with its
/// stderr.
static Expected<std::string> runGit(ArrayRef<StringRef> Args,
                                    StringRef Directory) {
  ErrorOr<std::string> Git = sys::findProgramByName("git");
  if (!Git)
    return createStringError(Git.getError(), "git not found on PATH");
  SmallString<128> Out, ErrFile;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("apistamp-git", "out", Out))
    return errorCodeToError(EC);
  if (std::error_code EC =
          sys::fs::createTemporaryFile("apistamp-git", "err", ErrFile))
    return errorCodeToError(EC);
  std::vector<StringRef> Argv = {*Git, "-C", Directory};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Out),
                                          StringRef(ErrFile)};
  int Status = sys::ExecuteAndWait(*Git, Argv, std::nullopt, Redirects);
  auto Read = [](StringRef Path) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
    std::string Text = B ? (*B)->getBuffer().str() : "";
    sys::fs::remove(Path);
    return Text;
  };
  std::string Stdout = Read(Out), Stderr = Read(ErrFile);
  if (Status != 0)
    return createStringError(inconvertibleErrorCode(),
                             "git " + join(Args, " ") +
                                 " failed: " + StringRef(Stderr).trim());
  return Stdout;
}

Expected<ChangedLines> changedLinesSince(StringRef Ref, StringRef Directory) {
  Expected<std::string> Toplevel =
      runGit({"rev-parse", "--show-toplevel"}, Directory);
  if (!Toplevel)
    return Toplevel.takeError();
  std::string Top = StringRef(*Toplevel).trim().str();
  // "<ref>^{commit}" rejects a path or a typo before diff reads it as one.
  std::string Commit = (Ref + "^{commit}").str();
  if (Expected<std::string> Verified =
          runGit({"rev-parse", "--verify", "--quiet", Commit}, Top);
      !Verified) {
    consumeError(Verified.takeError());
    return createStringError(inconvertibleErrorCode(),
                             "--changed-since: '" + Ref +
                                 "' is not a commit in " + Top);
  }
  Expected<std::string> Diff = runGit(
      {"diff", "--no-color", "--no-ext-diff", "--no-renames", "-U0", Ref, "--"},
      Top);
  if (!Diff)
    return Diff.takeError();
  ChangedLines Result = ChangedLines::fromUnifiedDiff(*Diff, Top);
  Expected<std::string> Untracked =
      runGit({"ls-files", "--others", "--exclude-standard"}, Top);
  if (!Untracked)
    return Untracked.takeError();
  SmallVector<StringRef, 16> Files;
  StringRef(*Untracked).split(Files, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef File : Files) {
    SmallString<256> Path(Top);
    sys::path::append(Path, File);
    Result.addWholeFile(canonicalPath(Path));
  }
  return Result;
}

} // namespace apistamp
