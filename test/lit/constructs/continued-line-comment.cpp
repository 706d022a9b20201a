// A '//' comment after '{' that a backslash continues onto later lines: the
// call goes after its last line, not into it.
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
// CHECK:      {{^}}int f(int x) { // note \{{$}}
// CHECK-NEXT: {{^}}continued{{$}}
// CHECK-NEXT: {{^}}C10_LOG_API_USAGE_ONCE("f");{{$}}
// CHECK-NEXT: {{^}}return x; }{{$}}
int f(int x) { // note \
continued
return x; }
// CHECK:      {{^}}int g(int x) { // a \{{$}}
// CHECK-NEXT: {{^}}    b \{{$}}
// CHECK-NEXT: {{^}}    c{{$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("g");{{$}}
// CHECK-NEXT: {{^}}  return x;{{$}}
int g(int x) { // a \
    b \
    c
  return x;
}
