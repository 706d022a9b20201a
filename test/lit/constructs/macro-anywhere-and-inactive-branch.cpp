// A body that calls the macro anywhere (not only first) counts as
// instrumented; only the active preprocessor branch is seen, so a definition
// under a false #if is neither reported nor changed; no line gets trailing
// whitespace.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning:
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t/a.cpp
// RUN: not grep -nE '[[:space:]]$' %t/a.cpp

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all

//--- a.cpp
#include "c10/util/Logging.h"
int later(int x) {
  if (x < 0)
    return 0;
  C10_LOG_API_USAGE_ONCE("later");
  return x;
}
#if 0
void inactive() {}
// FIX: {{^}}void inactive() {}{{$}}
#endif
// CHECK: a.cpp:[[@LINE+1]]:6: warning: missing API usage event 'active' [all]
void active() {

}
// CHECK: 2 definitions selected: 1 instrumented, 1 missing
