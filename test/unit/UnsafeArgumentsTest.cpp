//===- UnsafeArgumentsTest.cpp - Options that write or load are dropped ---===//

#include "UnsafeArguments.h"
#include "gtest/gtest.h"

using namespace apistamp;
using Args = clang::tooling::CommandLineArguments;

namespace {

Args withoutWritingArguments(Args In) {
  return dropWritingAndLoadingArguments()(In, "a.cpp");
}

TEST(UnsafeArgumentsTest, DriverOptionsThatWriteOrLoadAreDropped) {
  Args Kept = {"clang++",  "-std=c++17", "-Iinclude", "-DX=1",
               "-include", "config.h",   "-c",        "a.cpp"};
  for (Args Unsafe : {
           Args{"--serialize-diagnostics", "/tmp/x"},
           Args{"-MD", "-MF", "dep.d", "-MT", "t", "-MQ", "q"},
           Args{"-MFdep.d", "-MJ", "cdb.json", "-MMD", "-M", "-MM"},
           Args{"-ftime-trace", "-ftime-trace=/tmp/t.json"},
           Args{"-save-temps=obj", "-save-stats=cwd", "-save-temps"},
           Args{"-fcrash-diagnostics-dir=/tmp/c", "-gen-reproducer"},
           Args{"-fplugin=/tmp/evil.so", "-fpass-plugin=/tmp/evil.so",
                "-fplugin-arg-evil-x=1"},
           Args{"-fmodules-cache-path=/tmp/mc", "-dependency-dot", "d.dot"},
           Args{"-frandom-seed=bazel-out/k8-fastbuild/bin/_objs/lib/a.o"},
       }) {
    Args In = {"clang++", "-std=c++17", "-Iinclude"};
    In.insert(In.end(), Unsafe.begin(), Unsafe.end());
    In.insert(In.end(), {"-DX=1", "-include", "config.h", "-c", "a.cpp"});
    EXPECT_EQ(withoutWritingArguments(In), Kept) << Unsafe.front();
  }
}

TEST(UnsafeArgumentsTest, FrontendOptionsBehindXclangAreDroppedWithValues) {
  Args In = {"clang++",
             "-Xclang",
             "-stats-file=/tmp/s",
             "-Xclang",
             "-dependency-file",
             "-Xclang",
             "/tmp/d",
             "-Xclang",
             "-header-include-file",
             "-Xclang",
             "/tmp/h",
             "-Xclang",
             "-load",
             "-Xclang",
             "/tmp/evil.so",
             "-Xclang",
             "-add-plugin",
             "-Xclang",
             "evil",
             "-Xclang",
             "-plugin-arg-evil",
             "-Xclang",
             "x",
             "-Xclang",
             "-fno-color-diagnostics",
             "a.cpp"};
  EXPECT_EQ(withoutWritingArguments(In),
            (Args{"clang++", "-Xclang", "-fno-color-diagnostics", "a.cpp"}));
}

TEST(UnsafeArgumentsTest, AliasesAndPassThroughFormsAreDropped) {
  // As clang's driver reads them: --write-dependencies is -MD, -Wp, and
  // -Xpreprocessor hand options to the preprocessor (13a2ccd kept these:
  // -Wp,-MD,F and --write-dependencies wrote dependency files), and a
  // front-end action behind -Xclang would replace -fsyntax-only.
  Args Kept = {"clang++", "-Wp,-DX=1", "a.cpp"};
  for (Args Unsafe : {
           Args{"-Wp,-MD,/tmp/wp.d"},
           Args{"-Wp,-MF,/tmp/f.d,-MD"},
           Args{"--write-dependencies"},
           Args{"--write-user-dependencies", "--user-dependencies"},
           Args{"--dependencies"},
           Args{"-Xpreprocessor", "-MF", "-Xpreprocessor", "/tmp/x.d"},
           Args{"-Xclang", "-emit-pch"},
           Args{"-Xclang", "-o", "-Xclang", "/tmp/out"},
       }) {
    Args In = {"clang++"};
    In.insert(In.end(), Unsafe.begin(), Unsafe.end());
    In.insert(In.end(), {"-Wp,-DX=1", "a.cpp"});
    EXPECT_EQ(withoutWritingArguments(In), Kept) << Unsafe.front();
  }
}

TEST(UnsafeArgumentsTest, LookAlikesAreKept) {
  Args In = {"clang++",   "-ftime-trace-granularity=0",
             "-fplugins", "-Mfoo",
             "-MG",       "-o",
             "a.o",       "a.cpp"};
  // -o is the output adjuster's business; -MG only changes how missing
  // headers are treated.
  EXPECT_EQ(withoutWritingArguments(In), In);
}

} // namespace
