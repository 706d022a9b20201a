// `macro:` naming a function, not a macro: its calls count as events, so a
// second fix inserts nothing, and a wrong literal is corrected.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags -I%t | FileCheck %s --check-prefix=FIRST
// FIRST: apistamp: inserted 1, corrected 1 API usage events in 1 files
// RUN: cp %t/a.cpp %t/after-first.cpp
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags -I%t | FileCheck %s
// CHECK: apistamp: inserted 0, corrected 0 API usage events in 0 files
// RUN: diff %t/after-first.cpp %t/a.cpp
// RUN: FileCheck %s --check-prefix=FILE < %t/a.cpp
// FILE: logEvent("lib.f");
// FILE: logEvent("lib.g");
// FILE-NOT: logEvent

//--- rules.yaml
version: 1
macro: logEvent
include: log.h
rules:
  - id: all
    namespace: lib

//--- log.h
void logEvent(const char *);

//--- a.cpp
#include "log.h"
namespace lib {
int f() { return 1; }
int g() {
  logEvent("old");
  return 2;
}
}
