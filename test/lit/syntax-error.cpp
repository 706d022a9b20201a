// A source that fails to parse: exit 3, the compiler's diagnostic is shown,
// and that file is left untouched by fix, while other sources are processed.
// RUN: rm -rf %t && %split-file %s %t
// RUN: cp %t/broken.cpp %t/broken.orig
// RUN: %exit-code %apistamp fix --rules %t/rules.yaml %t/broken.cpp %t/good.cpp -- %cxxflags 2>&1 | FileCheck %s
// CHECK-DAG: broken.cpp:[[@LINE+14]]:11: error: expected ';' after return statement
// CHECK-DAG: apistamp: error: '{{.*}}broken.cpp' failed to parse; nothing in it was checked or changed
// CHECK-DAG: exit code: 3
// RUN: diff %t/broken.cpp %t/broken.orig
// RUN: grep -c C10_LOG_API_USAGE_ONCE %t/good.cpp | FileCheck %s --check-prefix=GOOD
// GOOD: {{^}}1{{$}}

//--- rules.yaml
version: 1
rules:
  - id: all

//--- broken.cpp
int f() {
  return 1
}

//--- good.cpp
void g() {}
