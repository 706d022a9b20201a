// declared_in: a definition is selected only if some declaration of it (the
// definition included) is in a matching file, i.e. the public API is what a
// header declares; helpers declared only in the .cpp are left alone.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/src/ops.cpp -- %cxxflags -I%t/include \
// RUN:   | FileCheck %s -implicit-check-not=warning:

//--- rules.yaml
version: 1
rules:
  - id: api
    files: "src/**"
    declared_in: "include/**/*.h"

//--- include/lib/ops.h
namespace lib {
void blur(int radius);
}

//--- src/ops.cpp
#include "lib/ops.h"
namespace lib {
bool is_little_endian() { return true; }

// CHECK: ops.cpp:[[@LINE+1]]:6: warning: missing API usage event 'lib.blur' [api]
void blur(int radius) {}
} // namespace lib
// CHECK: 1 TUs, 1 definitions selected
