// fix is idempotent: the second run changes nothing, byte for byte.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: cp %t/a.cpp %t/after-first.cpp
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags | FileCheck %s
// CHECK: apistamp: inserted 0, corrected 0 API usage events in 0 files
// RUN: diff %t/after-first.cpp %t/a.cpp
// RUN: %apistamp diff --rules %t/rules.yaml %t/a.cpp -- %cxxflags | count 0

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all

//--- a.cpp
namespace lib {
int f() { return 1; }
struct S { S() {} void m() {
  } };
}
