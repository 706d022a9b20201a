// A one-line body: the call goes on its line, before its statements, so
// that removing the call (a narrower policy) gives the line back byte for
// byte; with a comment at the end of the brace's line too. Before, the body
// was split over three lines, and stayed so after the removal.
// RUN: rm -rf %t && %split-file %s %t
// RUN: cp %t/a.cpp %t/a.orig
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: FileCheck %s --match-full-lines --strict-whitespace < %t/a.cpp
// RUN: %apistamp fix --rules %t/none.yaml %t/a.cpp -- %cxxflags | FileCheck %s --check-prefix=REMOVED
// REMOVED: apistamp: inserted 0, corrected 0, removed 2 stale API usage events in 1 files
// RUN: diff %t/a.orig %t/a.cpp

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all
    namespace: lib
//--- none.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all
    namespace: none

//--- a.cpp
namespace lib {
void g();
void f() { g(); g(); }
// CHECK:void f() { C10_LOG_API_USAGE_ONCE("lib.f"); g(); g(); }
int k() { return 1; } // NOLINT
// CHECK:int k() { C10_LOG_API_USAGE_ONCE("lib.k"); return 1; } // NOLINT
}
