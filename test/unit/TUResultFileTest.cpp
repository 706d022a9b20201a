//===- TUResultFileTest.cpp - Tests for tu's result files and depfiles ----===//

#include "TUResultFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace apistamp;

namespace {

class TUResultFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("apistamp-tu", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::string write(llvm::StringRef Name, llvm::StringRef Text) {
    std::string Path = (Dir + "/" + Name).str();
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    EXPECT_FALSE(EC);
    OS << Text;
    return Path;
  }

  /// The error readResultsFor gives for \p Paths on a project with no TU.
  std::string errorFor(std::vector<std::string> Paths) {
    Project Empty;
    llvm::Expected<std::vector<TUResult>> Read =
        readResultsFor(Empty, Paths, false);
    if (Read)
      return "";
    return llvm::toString(Read.takeError());
  }

  llvm::SmallString<128> Dir;
};

TEST_F(TUResultFileTest, DepfileEscapesWhatMakeAndNinjaRead) {
  TUJob Job;
  TUResult Result;
  Result.Dependencies = {{"/src/a b.h", 1},
                         {"/src/c#d.h", 2},
                         {"/src/cost$.h", 3},
                         {"/src/looked-up-only.h", std::nullopt}};
  EXPECT_EQ(renderDepfile("out dir/r.json", Job, Result),
            "out\\ dir/r.json: \\\n  /src/a\\ b.h \\\n  /src/c\\#d.h \\\n"
            "  /src/cost$$.h\n");
}

TEST_F(TUResultFileTest, EveryHostileFileIsAnErrorNamingIt) {
  std::string Deep = write("deep.json", std::string(100000, '[') + "1" +
                                            std::string(100000, ']'));
  std::string Garbage = write("garbage.json", "\x01\x02 not json");
  std::string Other = write("other.json", "{\"format\": \"something\"}");
  std::string Version = write(
      "version.json", "{\"format\": \"apistamp-tu-result\", \"version\": 99}");
  std::string Nameless = write(
      "nameless.json", "{\"format\": \"apistamp-tu-result\", \"version\": 1}");
  std::string Negative =
      write("negative.json", "{\"format\": \"apistamp-tu-result\", "
                             "\"version\": 1, \"source\": \"a.cpp\", "
                             "\"configuration\": -1}");
  std::string Stranger =
      write("stranger.json", "{\"format\": \"apistamp-tu-result\", "
                             "\"version\": 1, \"source\": \"a.cpp\", "
                             "\"configuration\": 0, \"command\": \"0\"}");
  // Read member by member (simdjson on demand): what follows the object,
  // a member that is no JSON.
  std::string Trailing =
      write("trailing.json", "{\"format\": \"apistamp-tu-result\"} x");
  std::string BadMember =
      write("badmember.json", "{\"format\": \"apistamp-tu-result\", "
                              "\"version\": 1, \"source\": [1,}");
  std::string Error =
      errorFor({Deep, Garbage, Other, Version, Nameless, Negative, Stranger,
                (Dir + "/missing.json").str(), Trailing, BadMember});
  for (const std::string &Expected :
       {Deep + ": error: not an apistamp tu result (nested too deeply)",
        Garbage + ": error: not an apistamp tu result: ",
        Other + ": error: not an apistamp tu result (no \"format\"",
        Version + ": error: a tu result of format version 99",
        Nameless + ": error: a tu result without its \"source\"",
        Negative + ": error: a tu result without its \"source\"",
        Stranger + ": error: the result of a.cpp, which is no TU of the "
                   "compilation database",
        Dir.str().str() + "/missing.json: error: cannot read it",
        Trailing + ": error: not an apistamp tu result: ",
        BadMember + ": error: not an apistamp tu result: "})
    EXPECT_NE(Error.find(Expected), std::string::npos) << Expected << "\nin:\n"
                                                       << Error;
}

TEST_F(TUResultFileTest, ADirectoryIsItsJsonFiles) {
  llvm::sys::fs::create_directories(Dir + "/results/sub");
  write("results/sub/a.json", "{}");
  write("results/notes.txt", "not a result");
  std::string Error = errorFor({(Dir + "/results").str()});
  EXPECT_NE(Error.find("sub/a.json: error: not an apistamp tu result"),
            std::string::npos)
      << Error;
  EXPECT_EQ(Error.find("notes.txt"), std::string::npos) << Error;
}

} // namespace
