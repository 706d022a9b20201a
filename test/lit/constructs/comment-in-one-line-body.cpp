// A comment in a body written on one line survives the split, in its place:
// "{ /* NOLINT */ }" and "{ /* intentionally empty */ }" are common.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: FileCheck %s --input-file=%t/a.cpp --strict-whitespace
// RUN: %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all
    event: "{name}"

//--- a.cpp
int g();
// CHECK:      {{^}}void b() { /* nothing */{{$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("b");{{$}}
// CHECK-NEXT: {{^}}}{{$}}
void b() { /* nothing */ }
// CHECK:      {{^}}int b2() { /* keep me */{{$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("b2");{{$}}
// CHECK-NEXT: {{^}}  return g();{{$}}
// CHECK-NEXT: {{^}}}{{$}}
int b2() { /* keep me */ return g(); }
struct S {
  // CHECK:      {{^}}  S() { /* intentionally empty */{{$}}
  // CHECK-NEXT: {{^}}    C10_LOG_API_USAGE_ONCE("S");{{$}}
  // CHECK-NEXT: {{^}}  }{{$}}
  S() { /* intentionally empty */ }
  // CHECK:      {{^}}  void m() {/* NOLINT */{{$}}
  // CHECK-NEXT: {{^}}    C10_LOG_API_USAGE_ONCE("m");{{$}}
  // CHECK-NEXT: {{^}}    g();{{$}}
  // CHECK-NEXT: {{^}}  }{{$}}
  void m() {/* NOLINT */g();}
  // A comment after the code keeps the line whole (comment-on-brace-line.cpp).
  // CHECK:      {{^}}  void n() {/* a */ C10_LOG_API_USAGE_ONCE("n"); g(); /* b */}{{$}}
  void n() {/* a */g(); /* b */}
};
