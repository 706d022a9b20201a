// files/exclude_files are globs relative to the root ('*' stays within a path
// component, '**' spans components), applied where the definition is written.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/ops/nms.cpp %t/ops/cpu/nms_kernel.cpp %t/io/read.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning:

//--- rules.yaml
version: 1
rules:
  - id: ops
    files: ["ops/**/*.cpp"]
    exclude_files: ["**/cpu/**"]

//--- ops/nms.cpp
// CHECK: nms.cpp:[[@LINE+1]]:6: warning: missing API usage event 'nms' [ops]
void nms() {}

//--- ops/cpu/nms_kernel.cpp
void nms_kernel() {}

//--- io/read.cpp
void read() {}
// CHECK: 1 TUs, 1 definitions selected: {{.*}}; 2 files no rule can select skipped
