// `macro: APISTAMP_LOG_API_ENTRY` (the runtime's outermost-only macro, which
// expands to declarations and an `if`, not one statement) with the real
// runtime header: fix inserts it and the include, check then finds every
// event present, a wrong one is corrected, and a second fix changes nothing.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %exit-code %apistamp check --rules %t/rules.yaml %t/a.cpp %t/b.cpp -- -std=c++17 -I%source_dir/runtime/include 2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE-DAG: a.cpp:{{[0-9]+}}:{{[0-9]+}}: warning: missing API usage event 'lib.f' [lib]
// BEFORE-DAG: a.cpp:{{[0-9]+}}:{{[0-9]+}}: warning: missing API usage event 'lib.Widget' [lib]
// BEFORE-DAG: b.cpp:{{[0-9]+}}:{{[0-9]+}}: warning: wrong API usage event 'lib.old', expected 'lib.g' [lib]
// BEFORE: exit code: 1
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp %t/b.cpp -- -std=c++17 -I%source_dir/runtime/include | FileCheck %s --check-prefix=FIX
// FIX: apistamp: inserted 2, corrected 1 API usage events in 2 files
// RUN: FileCheck %s --check-prefix=AFILE --input-file=%t/a.cpp
// AFILE: #include <apistamp/api_usage.h>
// AFILE: int f(int x) {
// AFILE-NEXT: APISTAMP_LOG_API_ENTRY("lib.f");
// AFILE: Widget(int x) : value(x) {
// AFILE-NEXT: APISTAMP_LOG_API_ENTRY("lib.Widget");
// RUN: FileCheck %s --check-prefix=BFILE --input-file=%t/b.cpp
// BFILE: int g(int x) {
// BFILE-NEXT: APISTAMP_LOG_API_ENTRY("lib.g");
// BFILE-NEXT: return x + 1;
// RUN: %exit-code %apistamp check --rules %t/rules.yaml %t/a.cpp %t/b.cpp -- -std=c++17 -I%source_dir/runtime/include 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER: apistamp: 2 TUs, 3 definitions selected: 3 instrumented, 0 missing, 0 wrong, 0 duplicate
// AFTER: exit code: 0
// RUN: cat %t/a.cpp %t/b.cpp > %t/after-first.txt
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp %t/b.cpp -- -std=c++17 -I%source_dir/runtime/include | FileCheck %s --check-prefix=AGAIN
// AGAIN: apistamp: inserted 0, corrected 0 API usage events in 0 files
// RUN: cat %t/a.cpp %t/b.cpp | diff %t/after-first.txt -

//--- rules.yaml
version: 1
macro: APISTAMP_LOG_API_ENTRY
include: <apistamp/api_usage.h>
rules:
  - id: lib
    namespace: lib
    event: "lib.{name}"

//--- a.cpp
namespace lib {
int f(int x) {
  return x + 1;
}
class Widget {
public:
  Widget(int x) : value(x) {
  }
  int value;
};
}

//--- b.cpp
#include <apistamp/api_usage.h>
namespace lib {
int g(int x) {
  APISTAMP_LOG_API_ENTRY("lib.old");
  return x + 1;
}
}
