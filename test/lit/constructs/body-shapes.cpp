// Every body shape gets valid, well-placed code: noexcept, variadic, with
// attributes, K&R brace on its own line, one-line and empty bodies, a
// delegating constructor, a signature built from macros.
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
#include "c10/util/Logging.h"
#define VISION_API __attribute__((visibility("default")))
#define C10_EXPORT VISION_API
// CHECK:      {{^}}int no_throw() noexcept { C10_LOG_API_USAGE_ONCE("no_throw"); return 1; }{{$}}
int no_throw() noexcept { return 1; }
// CHECK:      {{^}}int variadic(int n, ...) {{[{]$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("variadic");{{$}}
int variadic(int n, ...) {
  return n;
}
// CHECK:      {{^}}{{\[\[}}nodiscard{{\]\]}} int attributed() {{[{]$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("attributed");{{$}}
[[nodiscard]] int attributed() {
  return 2;
}
// CHECK:      {{^}}int knr(){{$}}
// CHECK-NEXT: {{^}}{{[{]$}}
// CHECK-NEXT: {{^}}    C10_LOG_API_USAGE_ONCE("knr");{{$}}
// CHECK-NEXT: {{^}}    return 3;{{$}}
int knr()
{
    return 3;
}
// CHECK:      {{^}}int one_line() { C10_LOG_API_USAGE_ONCE("one_line"); return 4; }{{$}}
int one_line() { return 4; }
// CHECK:      {{^}}void empty() {{[{]$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("empty");{{$}}
// CHECK-NEXT: {{^}}}{{$}}
void empty() {}
// CHECK:      {{^}}C10_EXPORT int exported(int x) {{[{]$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("exported");{{$}}
C10_EXPORT int exported(int x) {
  return x;
}
struct Delegating {
  // CHECK:      {{^}}  Delegating() : Delegating(0) {{[{]$}}
  // CHECK-NEXT: {{^}}    C10_LOG_API_USAGE_ONCE("Delegating");{{$}}
  // CHECK-NEXT: {{^}}  }{{$}}
  Delegating() : Delegating(0) {}
  // CHECK:      {{^}}  explicit Delegating(int v) : value(v) {{[{]$}}
  explicit Delegating(int v) : value(v) {}
  int value;
};
