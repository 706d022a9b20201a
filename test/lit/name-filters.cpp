// name and exclude_names are whole-match regular expressions on the
// unqualified name.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning:

//--- rules.yaml
version: 1
rules:
  - id: lower
    name: "[a-z].*"
    exclude_names: ["_.*", ".*_impl"]

//--- a.cpp
// CHECK: a.cpp:[[@LINE+1]]:6: warning: missing API usage event 'roi_align' [lower]
void roi_align() {}
void RoiAlign() {}
void _private_helper() {}
void roi_align_impl() {}
// CHECK: 1 definitions selected
