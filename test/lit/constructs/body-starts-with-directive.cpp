// A body whose first line is a preprocessor directive or a comment at
// column 0: the call is indented like the body's statements, never from
// that line.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: FileCheck %s --match-full-lines --strict-whitespace < %t/a.cpp

//--- rules.yaml
version: 1
rules:
  - id: all
    namespace: lib

//--- a.cpp
namespace lib {
int f(int x) {
// CHECK:int f(int x) {
// CHECK-NEXT:    C10_LOG_API_USAGE_ONCE("lib.f");
#if defined(FAST)
    return x;
#endif
    return x + 1;
}
int g(int x) {
// CHECK:int g(int x) {
// CHECK-NEXT:  C10_LOG_API_USAGE_ONCE("lib.g");
// a comment at column 0
  return x;
}
void h() {
// CHECK:void h() {
// CHECK-NEXT:  C10_LOG_API_USAGE_ONCE("lib.h");
#pragma once_only
}
}
