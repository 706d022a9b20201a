// A one-line body: the call and the closing brace get lines of their own,
// the body's statements stay together on theirs (as README says); with a
// comment at the end of the brace's line, nothing moves.
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
void g();
void f() { g(); g(); }
// CHECK:void f() {
// CHECK-NEXT:  C10_LOG_API_USAGE_ONCE("lib.f");
// CHECK-NEXT:  g(); g();
// CHECK-NEXT:}
int k() { return 1; } // NOLINT
// CHECK:int k() { C10_LOG_API_USAGE_ONCE("lib.k"); return 1; } // NOLINT
}
