// A free function in a selected namespace gets the event as its first
// statement; check reports it before, fix inserts it, check is clean after.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %exit-code %apistamp check --rules %t/rules.yaml %t/src/ops.cpp -- %cxxflags \
// RUN:   | FileCheck %s --check-prefix=CHECK-MSG -implicit-check-not=warning:
// RUN: %apistamp fix --rules %t/rules.yaml %t/src/ops.cpp -- %cxxflags
// RUN: FileCheck %s --check-prefix=CHECK-FIX --input-file=%t/src/ops.cpp
// RUN: %apistamp check --rules %t/rules.yaml %t/src/ops.cpp -- %cxxflags

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: ops
    where: function
    namespace: "vision::ops"

//--- src/ops.cpp
#include "c10/util/Logging.h"
namespace vision {
namespace ops {
// CHECK-MSG: ops.cpp:[[@LINE+3]]:5: warning: missing API usage event 'vision.ops.nms' [ops]
// CHECK-FIX:      {{^}}int nms(int x) {{[{]$}}
// CHECK-FIX-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("vision.ops.nms");{{$}}
int nms(int x) {
  return x;
}
} // namespace ops
} // namespace vision
// CHECK-MSG: apistamp: 1 TUs, 1 definitions selected: 0 instrumented, 1 missing, 0 wrong, 0 duplicate, 0 skipped
// CHECK-MSG: exit code: 1
