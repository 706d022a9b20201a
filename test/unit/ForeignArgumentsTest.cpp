//===- ForeignArgumentsTest.cpp - GCC's options clang rejects are dropped -===//

#include "ForeignArguments.h"
#include "gtest/gtest.h"

using namespace apistamp;
using Args = clang::tooling::CommandLineArguments;

namespace {

Args adjusted(Args In) { return dropOptionsClangDoesNotKnow()(In, "a.cpp"); }

TEST(ForeignArgumentsTest, OptionsOnlyGccKnowsAreDropped) {
  EXPECT_EQ(adjusted({"/usr/bin/g++", "-fno-canonical-system-headers",
                      "-std=c++17", "-fconcepts-diagnostics-depth=2",
                      "-Iinclude", "-fno-var-tracking-assignments",
                      "-flto-partition=none", "-c", "a.cpp"}),
            (Args{"/usr/bin/g++", "-std=c++17", "-Iinclude", "-c", "a.cpp"}));
}

TEST(ForeignArgumentsTest, GccOptionsTakeTheirSeparateValueWithThem) {
  // clang's driver rejects -imultiarch, -aux-info, -wrapper and the long
  // forms, and reads -dumpbase and -dumpbase-ext as flags: each value was
  // left behind as an input file.
  EXPECT_EQ(adjusted({"gcc", "-imultiarch", "x86_64-linux-gnu", "-aux-info",
                      "protos.h", "-dumpbase-ext", ".c", "-wrapper",
                      "valgrind,-q", "-auxbase", "a", "-auxbase-strip", "a.o",
                      "-dumpbase", "a.cpp", "--dumpbase", "a.cpp",
                      "--dumpbase-ext", ".cpp", "--dumpdir", "out/", "--dump",
                      "a", "-c", "a.cpp"}),
            (Args{"gcc", "-c", "a.cpp"}));
  // -dumpdir clang reads with its value: both stay.
  Args DumpDir = {"gcc", "-dumpdir", "out/", "-c", "a.cpp"};
  EXPECT_EQ(adjusted(DumpDir), DumpDir);
  // The joined form is one unknown argument; its neighbour stays.
  EXPECT_EQ(adjusted({"gcc", "-aux-info=protos.h", "-c", "a.cpp"}),
            (Args{"gcc", "-c", "a.cpp"}));
}

TEST(ForeignArgumentsTest, ASpellingThatIsAnotherOptionsValueStays) {
  // "-wrapper" as the output file's name, and the source as the last
  // argument after such an option with no value: only options are dropped.
  Args Output = {"gcc", "-c", "a.cpp", "-o", "-wrapper"};
  EXPECT_EQ(adjusted(Output), Output);
  EXPECT_EQ(adjusted({"gcc", "-c", "a.cpp", "-imultiarch"}),
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
  EXPECT_EQ(adjusted(In), In);
}

TEST(ForeignArgumentsTest, ClangClCommandsAreLeftAlone) {
  Args In = {"clang-cl", "/nologo", "/std:c++17", "-fno-canonical-system-headers",
             "/c", "a.cpp"};
  EXPECT_EQ(adjusted(In), In);
  Args Mode = {"clang", "--driver-mode=cl", "/nologo", "/c", "a.cpp"};
  EXPECT_EQ(adjusted(Mode), Mode);
}

TEST(ForeignArgumentsTest, EmptyCommandStaysEmpty) {
  EXPECT_EQ(adjusted({}), Args{});
}

} // namespace
