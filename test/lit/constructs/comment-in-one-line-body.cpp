// A comment in a body written on one line stays in its place, and the call
// goes on the line after it: "{ /* NOLINT */ }" and
// "{ /* intentionally empty */ }" are common.
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
// CHECK:      {{^}}void b() { /* nothing */ C10_LOG_API_USAGE_ONCE("b"); }{{$}}
void b() { /* nothing */ }
// CHECK:      {{^}}int b2() { /* keep me */ C10_LOG_API_USAGE_ONCE("b2"); return g(); }{{$}}
int b2() { /* keep me */ return g(); }
struct S {
  // CHECK:      {{^}}  S() { /* intentionally empty */ C10_LOG_API_USAGE_ONCE("S"); }{{$}}
  S() { /* intentionally empty */ }
  // CHECK:      {{^}}  void m() {/* NOLINT */ C10_LOG_API_USAGE_ONCE("m"); g();}{{$}}
  void m() {/* NOLINT */g();}
  // CHECK:      {{^}}  void n() {/* a */ C10_LOG_API_USAGE_ONCE("n"); g(); /* b */}{{$}}
  void n() {/* a */g(); /* b */}
};
