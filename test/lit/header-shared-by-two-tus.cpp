// An inline function in a header reached from two TUs is edited once, with one
// include, and the output is the same with -j1 and -j2 (a whole-project run:
// named, a.cpp and b.cpp would be skipped, as no rule can select them).
// RUN: rm -rf %t && %split-file %s %t
// RUN: sed -e "s|@DIR@|%/t|g" -e "s|@FLAGS@|%cxxflags|" %t/cdb.json.in > %t/compile_commands.json
// RUN: not %apistamp check -j1 --no-cache --rules %t/rules.yaml -p %t > %t/j1.txt
// RUN: not %apistamp check -j2 --no-cache --rules %t/rules.yaml -p %t > %t/j2.txt
// RUN: diff %t/j1.txt %t/j2.txt
// RUN: FileCheck %s --check-prefix=CHECK-MSG --input-file=%t/j1.txt -implicit-check-not=warning:
// RUN: %apistamp fix -j2 --no-cache --rules %t/rules.yaml -p %t
// RUN: FileCheck %s --check-prefix=CHECK-FIX --input-file=%t/shared.h
// RUN: grep -c '^  C10_LOG_API_USAGE_ONCE' %t/shared.h | FileCheck %s --check-prefix=ONCE
// ONCE: {{^}}1{{$}}
// RUN: %apistamp check --no-cache --rules %t/rules.yaml -p %t

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: inline
    files: ["*.h"]

//--- shared.h
#pragma once
// CHECK-FIX: {{^}}#include "c10/util/Logging.h"{{$}}
// CHECK-MSG: shared.h:[[@LINE+4]]:12: warning: missing API usage event 'util.twice' [inline]
// CHECK-FIX:      {{^}}inline int twice(int x) {{[{]$}}
// CHECK-FIX-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("util.twice");{{$}}
namespace util {
inline int twice(int x) {
  return 2 * x;
}
}

//--- a.cpp
#include "shared.h"
int a() { return util::twice(1); }

//--- b.cpp
#include "shared.h"
int b() { return util::twice(2); }
// CHECK-MSG: 2 TUs, 1 definitions selected

//--- cdb.json.in
[{"directory": "@DIR@", "file": "a.cpp", "command": "clang++ @FLAGS@ -c a.cpp"},
 {"directory": "@DIR@", "file": "b.cpp", "command": "clang++ @FLAGS@ -c b.cpp"}]
