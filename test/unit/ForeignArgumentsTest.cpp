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
