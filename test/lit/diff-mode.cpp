// diff prints a unified diff on stdout and writes nothing.
// RUN: rm -rf %t && %split-file %s %t
// RUN: cp %t/a.cpp %t/original.cpp
// RUN: %apistamp diff --rules %t/rules.yaml %t/a.cpp -- %cxxflags 2>%t/stderr.txt | FileCheck %s
// RUN: diff %t/original.cpp %t/a.cpp
// RUN: FileCheck %s --check-prefix=SUMMARY --input-file=%t/stderr.txt
// SUMMARY: apistamp: 1 to insert, 0 to correct, in 1 files

//--- rules.yaml
version: 1
include: <c10/util/Logging.h>
rules:
  - id: all

//--- a.cpp
#include "other.h"
// CHECK:      {{^}}--- a/a.cpp{{$}}
// CHECK-NEXT: {{^}}+++ b/a.cpp{{$}}
// CHECK-NEXT: {{^}}@@ -[[#]],6 +[[#]],7 @@{{$}}
// CHECK:      {{^}} #include "other.h"{{$}}
// CHECK-NEXT: {{^}}+#include <c10/util/Logging.h>{{$}}
// CHECK:      {{^}}@@ -[[#]],5 +[[#]],6 @@{{$}}
// CHECK:      {{^}} int f() {{[{]$}}
// CHECK-NEXT: {{^}}+  C10_LOG_API_USAGE_ONCE("f");{{$}}
// CHECK-NEXT: {{^}}   return 0;{{$}}
int f() {
  return 0;
}
//--- other.h
