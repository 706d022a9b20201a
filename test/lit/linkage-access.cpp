// By default static functions, anonymous namespaces and non-public members are
// not selected; "linkage: any" and "access: any" lift that.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/default.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s --check-prefix=DEFAULT -implicit-check-not=warning:
// RUN: not %apistamp check --rules %t/any.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s --check-prefix=ANY -implicit-check-not=warning:

//--- default.yaml
version: 1
rules:
  - id: default

//--- any.yaml
version: 1
rules:
  - id: any
    linkage: any
    access: any

//--- a.cpp
// ANY: a.cpp:[[@LINE+1]]:13: warning: missing API usage event 'helper' [any]
static void helper() {}
namespace {
// ANY: a.cpp:[[@LINE+1]]:6: warning: missing API usage event '(anonymous namespace).hidden' [any]
void hidden() {}
}
class C {
  // ANY: a.cpp:[[@LINE+1]]:8: warning: missing API usage event 'C.secret' [any]
  void secret() {}
  class Inner {
  public:
    // Public in a private nested class: not reachable, not public.
    // ANY: a.cpp:[[@LINE+1]]:10: warning: missing API usage event 'C.Inner.f' [any]
    void f() {}
  };
public:
  // DEFAULT: a.cpp:[[@LINE+2]]:8: warning: missing API usage event 'C.open' [default]
  // ANY: a.cpp:[[@LINE+1]]:8: warning: missing API usage event 'C.open' [any]
  void open() {}
};
// DEFAULT: 1 definitions selected
// ANY: 5 definitions selected
