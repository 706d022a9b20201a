// check --verbose lists instrumented and skipped definitions with the reason;
// two calls in one body are a duplicate finding that fix does not touch.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --verbose --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning: -implicit-check-not=note:
// RUN: cp %t/a.cpp %t/a.orig
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags 2>&1 | FileCheck %s --check-prefix=FIX
// FIX: warning: duplicate API usage events
// FIX: 1 duplicates need a manual fix
// RUN: diff %t/a.cpp %t/a.orig

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all

//--- a.cpp
#include "c10/util/Logging.h"
#define DEFINE_GETTER(name) int name() { return 0; }
// CHECK: a.cpp:[[@LINE+1]]:15: note: skipped square: constexpr function: a static local is ill-formed there [all]
constexpr int square(int x) { return x * x; }
// CHECK: a.cpp:[[@LINE+1]]:15: note: skipped getter: body comes from macro 'DEFINE_GETTER' [all]
DEFINE_GETTER(getter)
// CHECK: a.cpp:[[@LINE+1]]:6: note: instrumented 'done' [all]
void done() {
  C10_LOG_API_USAGE_ONCE("done");
}
void twice() {
  C10_LOG_API_USAGE_ONCE("twice");
  // CHECK: a.cpp:[[@LINE+1]]:3: warning: duplicate API usage events 'twice', 'twice' in one body, expected one 'twice' [all]
  C10_LOG_API_USAGE_ONCE("twice");
}
// CHECK: 4 definitions selected: 1 instrumented, 0 missing, 0 wrong, 1 duplicate, 2 skipped
