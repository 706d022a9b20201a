// "a::**" selects the namespace and every namespace nested in it, but not a
// namespace that merely starts with the same letters or the global namespace.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning:

//--- rules.yaml
version: 1
rules:
  - id: vision
    namespace: "vision::**"

//--- a.cpp
namespace vision {
// CHECK: a.cpp:[[@LINE+1]]:6: warning: missing API usage event 'vision.top' [vision]
void top() {}
namespace ops { namespace detail {
// CHECK: a.cpp:[[@LINE+1]]:6: warning: missing API usage event 'vision.ops.detail.deep' [vision]
void deep() {}
} }
inline namespace v1 {
// Inline namespaces are transparent.
// CHECK: a.cpp:[[@LINE+1]]:6: warning: missing API usage event 'vision.versioned' [vision]
void versioned() {}
}
}
namespace visionary { void other() {} }
void global() {}
// CHECK: 3 definitions selected
