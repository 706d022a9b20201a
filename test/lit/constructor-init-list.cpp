// Every user-written constructor of the selected "main" class gets the class's
// event, after the member-initializer list; a nested helper class and
// defaulted constructors are left alone.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %exit-code %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s --check-prefix=CHECK-MSG -implicit-check-not=warning:
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: FileCheck %s --check-prefix=CHECK-FIX --input-file=%t/a.cpp
// RUN: %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: main-class
    where: constructor
    class: "models::RegNet"
    event: "{path}.{name}"

//--- a.cpp
#include "c10/util/Logging.h"
namespace models {
class RegNet {
public:
  struct Block {
    Block(int w) : width(w) {}
    int width;
  };
  // CHECK-MSG: a.cpp:[[@LINE+4]]:3: warning: missing API usage event 'a.RegNet' [main-class]
  // CHECK-FIX:      {{^}}  RegNet(int depth){{$}}
  // CHECK-FIX-NEXT: {{^}}      : depth_(depth), stem_(depth * 2) {{[{]$}}
  // CHECK-FIX-NEXT: {{^}}    C10_LOG_API_USAGE_ONCE("a.RegNet");{{$}}
  RegNet(int depth)
      : depth_(depth), stem_(depth * 2) {
    build();
  }
  RegNet(const RegNet &) = default;
  RegNet(double scale);
  void build() {}

private:
  int depth_;
  Block stem_;
};
// CHECK-MSG: a.cpp:[[@LINE+3]]:9: warning: missing API usage event 'a.RegNet' [main-class]
// CHECK-FIX:      {{^}}RegNet::RegNet(double scale) : RegNet(int(scale)) {{[{]$}}
// CHECK-FIX-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("a.RegNet");{{$}}
RegNet::RegNet(double scale) : RegNet(int(scale)) {
}
} // namespace models
// CHECK-MSG: exit code: 1
