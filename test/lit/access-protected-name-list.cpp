// `access: protected` selects public and protected members (hooks a derived
// class calls), never private ones nor members of a private nested class;
// `name` takes a list; `explain --name` finds a definition by the trailing
// part of its qualified name.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags | FileCheck %s -implicit-check-not=warning:
// RUN: %apistamp explain --rules %t/rules.yaml --name Base::hook %t/a.cpp -- %cxxflags | FileCheck %s --check-prefix=EXPLAIN
// EXPLAIN: a.cpp:26:8: lib::Base::hook (method)
// RUN: not %apistamp explain --rules %t/rules.yaml --name ase::hook %t/a.cpp -- %cxxflags 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: error: no definition named 'ase::hook'

//--- rules.yaml
version: 1
rules:
  - id: hooks
    access: protected
    name: [run, "hook", "read_.*"]
//--- a.cpp
namespace lib {
class Base {
public:
  // CHECK: a.cpp:[[@LINE+1]]:8: warning: missing API usage event 'lib.Base.run' [hooks]
  void run() {}
protected:
  // CHECK: a.cpp:[[@LINE+1]]:8: warning: missing API usage event 'lib.Base.hook' [hooks]
  void hook() {}
  // CHECK: a.cpp:[[@LINE+1]]:8: warning: missing API usage event 'lib.Base.read_all' [hooks]
  void read_all() {}
  void other() {}
private:
  void read_secret() {}
  class Inner {
  public:
    void run() {}
  };
};
}
// CHECK: 1 TUs, 3 definitions selected
