// In a function-try-block the call goes first inside the try block.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags -fexceptions -fcxx-exceptions
// RUN: FileCheck %s --input-file=%t/a.cpp
// RUN: %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags -fexceptions -fcxx-exceptions

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all

//--- a.cpp
#include "c10/util/Logging.h"
struct Widget {
  // CHECK:      {{^}}  Widget() try : value(0) {{[{]$}}
  // CHECK-NEXT: {{^}}    C10_LOG_API_USAGE_ONCE("Widget");{{$}}
  // CHECK-NEXT: {{^}}    value = 1;{{$}}
  // CHECK-NEXT: {{^}}  } catch (...) {{[{]$}}
  Widget() try : value(0) {
    value = 1;
  } catch (...) {
  }
  int value;
};
