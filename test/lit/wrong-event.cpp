// A call with another event is reported at the string and corrected by fix;
// a call with the right event is left alone.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %exit-code %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s --check-prefix=CHECK-MSG -implicit-check-not=warning:
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: FileCheck %s --check-prefix=CHECK-FIX --input-file=%t/a.cpp
// RUN: %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags | FileCheck %s --check-prefix=CLEAN
// CLEAN: 2 definitions selected: 2 instrumented, 0 missing, 0 wrong

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: ops
    event: "torchvision.csrc.{name}"

//--- a.cpp
#include "c10/util/Logging.h"
void nms() {
  // CHECK-MSG: a.cpp:[[@LINE+2]]:26: warning: wrong API usage event 'torchvision.csrc.ops.nms', expected 'torchvision.csrc.nms' [ops]
  // CHECK-FIX: {{^}}  C10_LOG_API_USAGE_ONCE("torchvision.csrc.nms");{{$}}
  C10_LOG_API_USAGE_ONCE("torchvision.csrc.ops.nms");
}
void roi() {
  // CHECK-FIX: {{^}}  C10_LOG_API_USAGE_ONCE("torchvision.csrc.roi");{{$}}
  C10_LOG_API_USAGE_ONCE("torchvision.csrc.roi");
}
// CHECK-MSG: 2 definitions selected: 1 instrumented, 0 missing, 1 wrong
// CHECK-MSG: exit code: 1
