// Public methods of a selected class, in-class and out-of-line; private and
// protected methods and destructors are not selected (access: public).
// RUN: rm -rf %t && %split-file %s %t
// RUN: %exit-code %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s --check-prefix=CHECK-MSG -implicit-check-not=warning:
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: FileCheck %s --check-prefix=CHECK-FIX --input-file=%t/a.cpp

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: methods
    where: method
    class: "io::Reader"

//--- a.cpp
#include "c10/util/Logging.h"
namespace io {
class Reader {
public:
  // CHECK-MSG: a.cpp:[[@LINE+3]]:7: warning: missing API usage event 'io.Reader.size' [methods]
  // CHECK-FIX:      {{^}}  int size() const {{[{]$}}
  // CHECK-FIX-NEXT: {{^}}    C10_LOG_API_USAGE_ONCE("io.Reader.size");{{$}}
  int size() const {
    return 0;
  }
  void read();
  ~Reader() {}
protected:
  void refill() {}
private:
  void parse() {}
};

// CHECK-MSG: a.cpp:[[@LINE+3]]:14: warning: missing API usage event 'io.Reader.read' [methods]
// CHECK-FIX:      {{^}}void Reader::read() {{[{]$}}
// CHECK-FIX-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("io.Reader.read");{{$}}
void Reader::read() {
  parse();
}
} // namespace io
// CHECK-MSG: 2 definitions selected: 0 instrumented, 2 missing
// CHECK-MSG: exit code: 1
