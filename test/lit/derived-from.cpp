// derived_from selects classes that derive from the named class directly or
// through other bases, including a CRTP base template.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning:

//--- rules.yaml
version: 1
rules:
  - id: modules
    where: constructor
    derived_from: "torch::nn::Module"

//--- a.cpp
namespace torch { namespace nn {
struct Module { Module() {} };
template <class Derived> struct Cloneable : Module {};
} }
namespace net {
struct Direct : torch::nn::Module {
  // CHECK: a.cpp:[[@LINE+1]]:3: warning: missing API usage event 'net.Direct' [modules]
  Direct() {}
};
struct ViaTemplate : torch::nn::Cloneable<ViaTemplate> {
  // CHECK: a.cpp:[[@LINE+1]]:3: warning: missing API usage event 'net.ViaTemplate' [modules]
  ViaTemplate() {}
};
struct Unrelated { Unrelated() {} };
}
// The CRTP base itself derives from Module but has no constructor body.
// CHECK: 3 definitions selected: 0 instrumented, 2 missing, 0 wrong, 0 duplicate, 1 skipped
