// Templates get one insertion in the template's definition, however many
// instantiations there are; a full explicit specialization with its own body
// is its own definition.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning:
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: grep -o 'C10_LOG_API_USAGE_ONCE(' %t/a.cpp | grep -c . | FileCheck %s --check-prefix=COUNT
// COUNT: {{^}}5{{$}}
// RUN: %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: lib
    namespace: lib

//--- a.cpp
#include "c10/util/Logging.h"
namespace lib {
// CHECK: a.cpp:[[@LINE+2]]:3: warning: missing API usage event 'lib.identity' [lib]
template <class T>
T identity(T t) { return t; }
// CHECK: a.cpp:[[@LINE+2]]:5: warning: missing API usage event 'lib.identity' [lib]
template <>
int identity<int>(int t) { return t + 0; }

template <class T> class Box {
public:
  // CHECK: a.cpp:[[@LINE+1]]:3: warning: missing API usage event 'lib.Box' [lib]
  Box(T v) : value(v) {}
  T get() const;
  T value;
};
// CHECK: a.cpp:[[@LINE+1]]:30: warning: missing API usage event 'lib.Box.get' [lib]
template <class T> T Box<T>::get() const { return value; }

// CHECK: a.cpp:[[@LINE+1]]:5: warning: missing API usage event 'lib.use' [lib]
int use() {
  Box<int> A(1);
  Box<double> B(2.0);
  Box<char> C('c');
  return identity(1) + int(identity(2.0)) + A.get() + int(B.get()) + C.get();
}
} // namespace lib
// CHECK: 5 definitions selected
