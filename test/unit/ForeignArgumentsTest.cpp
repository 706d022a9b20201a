//===- ForeignArgumentsTest.cpp - GCC's options clang rejects are dropped -===//

#include "ForeignArguments.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Options.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "gtest/gtest.h"
#include <set>

using namespace apistamp;
using Args = clang::tooling::CommandLineArguments;

namespace {

Args withoutForeignOptions(Args In) {
  return dropOptionsClangDoesNotKnow()(In, "a.cpp");
}

TEST(ForeignArgumentsTest, OptionsOnlyGccKnowsAreDropped) {
  EXPECT_EQ(
      withoutForeignOptions({"/usr/bin/g++", "-fno-canonical-system-headers",
                             "-std=c++17", "-fconcepts-diagnostics-depth=2",
                             "-Iinclude", "-fno-var-tracking-assignments",
                             "-flto-partition=none", "-c", "a.cpp"}),
      (Args{"/usr/bin/g++", "-std=c++17", "-Iinclude", "-c", "a.cpp"}));
}

TEST(ForeignArgumentsTest, GccOptionsTakeTheirSeparateValueWithThem) {
  // clang's driver rejects -imultiarch, -aux-info, -wrapper, the long
  // forms and D's and Fortran's options, and reads -dumpbase and
  // -dumpbase-ext as flags: each value was left behind as an input file.
  EXPECT_EQ(withoutForeignOptions({"gcc",
                                   "-imultiarch",
                                   "x86_64-linux-gnu",
                                   "-aux-info",
                                   "protos.h",
                                   "-dumpbase-ext",
                                   ".c",
                                   "-wrapper",
                                   "valgrind,-q",
                                   "-auxbase",
                                   "a",
                                   "-auxbase-strip",
                                   "a.o",
                                   "-dumpbase",
                                   "a.cpp",
                                   "--dumpbase",
                                   "a.cpp",
                                   "--dumpbase-ext",
                                   ".cpp",
                                   "--dumpdir",
                                   "out/",
                                   "--dump",
                                   "a",
                                   "-Hd",
                                   "di/",
                                   "-Hf",
                                   "a.di",
                                   "-Xf",
                                   "a.json",
                                   "-J",
                                   "mod/",
                                   "-fintrinsic-modules-path",
                                   "mod/",
                                   "-c",
                                   "a.cpp"}),
            (Args{"gcc", "-c", "a.cpp"}));
  // -dumpdir clang reads with its value: both stay.
  Args DumpDir = {"gcc", "-dumpdir", "out/", "-c", "a.cpp"};
  EXPECT_EQ(withoutForeignOptions(DumpDir), DumpDir);
  // The joined form is one unknown argument; its neighbour stays.
  EXPECT_EQ(withoutForeignOptions({"gcc", "-aux-info=protos.h", "-c", "a.cpp"}),
            (Args{"gcc", "-c", "a.cpp"}));
}

TEST(ForeignArgumentsTest, ASpellingThatIsAnotherOptionsValueStays) {
  // "-wrapper" as the output file's name, and the source as the last
  // argument after such an option with no value: only options are dropped.
  Args Output = {"gcc", "-c", "a.cpp", "-o", "-wrapper"};
  EXPECT_EQ(withoutForeignOptions(Output), Output);
  EXPECT_EQ(withoutForeignOptions({"gcc", "-c", "a.cpp", "-imultiarch"}),
            (Args{"gcc", "-c", "a.cpp"}));
}

TEST(ForeignArgumentsTest, OptionsClangKnowsOrIgnoresAreKept) {
  // -fpermissive and -fno-semantic-interposition clang accepts; unknown
  // warnings are warnings; -Wl, and -Xclang are its own.
  Args In = {"g++",
             "-fpermissive",
             "-fno-semantic-interposition",
             "-Wno-maybe-uninitialized",
             "-mtune=generic",
             "-Wl,--as-needed",
             "-Xclang",
             "-fno-pch-timestamp",
             "-include",
             "config.h",
             "-DX=\"a b\"",
             "-o",
             "a.o",
             "-c",
             "a.cpp"};
  EXPECT_EQ(withoutForeignOptions(In), In);
}

TEST(ForeignArgumentsTest, ClangClCommandsAreLeftAlone) {
  Args In = {"clang-cl",   "/nologo",
             "/std:c++17", "-fno-canonical-system-headers",
             "/c",         "a.cpp"};
  EXPECT_EQ(withoutForeignOptions(In), In);
  Args Mode = {"clang", "--driver-mode=cl", "/nologo", "/c", "a.cpp"};
  EXPECT_EQ(withoutForeignOptions(Mode), Mode);
}

/// The arguments of \p Command that clang's driver reads as input files.
std::set<std::string> inputsOf(const Args &Command) {
  std::vector<const char *> Argv;
  for (const std::string &Arg : Command)
    Argv.push_back(Arg.c_str());
  unsigned MissingIndex, MissingCount;
  llvm::opt::InputArgList Parsed = clang::driver::getDriverOptTable().ParseArgs(
      llvm::ArrayRef(Argv).drop_front(), MissingIndex, MissingCount,
      llvm::opt::Visibility(clang::driver::options::ClangOption));
  std::set<std::string> Inputs;
  for (const llvm::opt::Arg *A : Parsed)
    if (A->getOption().matches(clang::driver::options::OPT_INPUT))
      Inputs.insert(A->getValue());
  return Inputs;
}

/// The options the installed GCC's driver lists as taking a separate
/// value (`gcc --help=separate`), by their spelling; empty without gcc.
std::vector<std::string> gccSeparateOptions() {
  llvm::ErrorOr<std::string> Gcc = llvm::sys::findProgramByName("gcc");
  if (!Gcc)
    return {};
  llvm::SmallString<128> Out;
  if (llvm::sys::fs::createTemporaryFile("gcc-help", "txt", Out))
    return {};
  llvm::FileRemover RemoveOut(Out);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, Out.str(),
                                                std::nullopt};
  if (llvm::sys::ExecuteAndWait(*Gcc, {*Gcc, "--help=separate"}, std::nullopt,
                                Redirects) != 0)
    return {};
  auto Help = llvm::MemoryBuffer::getFile(Out);
  if (!Help)
    return {};
  std::vector<std::string> Options;
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Help)->getBuffer().split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    // "  -I <dir>   Add ...", "  --output   Same as -o.", "  -A<q>=<a> ...".
    if (!Line.starts_with("  -"))
      continue;
    llvm::StringRef Spelling = Line.ltrim().take_until(
        [](char C) { return C == ' ' || C == '<' || C == '='; });
    // "--output-pch=": only the joined form, one argument.
    if (!Line.ltrim().drop_front(Spelling.size()).starts_with("="))
      Options.push_back(Spelling.str());
  }
  return Options;
}

TEST(ForeignArgumentsTest, NoValueOfAnOptionGccListsIsLeftAsAnInput) {
  // What the previous list missed was found by hand, from GCC 12's list;
  // this runs the installed GCC's, so that an option a later GCC adds is
  // caught here, not by a TU that fails to parse.
  std::vector<std::string> Options = gccSeparateOptions();
  if (Options.empty())
    GTEST_SKIP() << "no gcc, or no --help=separate: nothing to check";
  // GCC's driver takes no value for these in a C++ command (checked with
  // gcc -fsyntax-only a.cpp OPTION VALUE): the list is its cc1's view
  // (-MD FILE there), and the next argument is a file for the linker;
  // -gnatO it reads as -g with a level, and fails.
  const std::set<std::string> DriverTakesNone = {
      "-MD", "-MMD", "--write-dependencies", "--write-user-dependencies",
      "-gnatO"};
  size_t Checked = 0;
  for (const std::string &Option : Options) {
    if (DriverTakesNone.count(Option))
      continue;
    Args Command =
        withoutForeignOptions({"gcc", "-c", "a.cpp", Option, "gcc-value"});
    EXPECT_EQ(inputsOf(Command), std::set<std::string>{"a.cpp"})
        << Option << " VALUE: its value was left as an input file";
    ++Checked;
  }
  EXPECT_GT(Checked, 30u) << "gcc --help=separate was not read";
}

TEST(ForeignArgumentsTest, EmptyCommandStaysEmpty) {
  EXPECT_EQ(withoutForeignOptions({}), Args{});
}

} // namespace
