// A file that does not include the rules' header gets it once, in its include
// block (clang's HeaderIncludes), however many definitions are instrumented.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags -I%t
// RUN: FileCheck %s --input-file=%t/a.cpp
// RUN: grep -c '^#include "c10/util/Logging.h"' %t/a.cpp | FileCheck %s --check-prefix=COUNT
// COUNT: {{^}}1{{$}}
// The instrumented file still compiles.
// RUN: %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags -I%t

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all

//--- local.h
#pragma once

//--- a.cpp
// CHECK:      {{^}}#include "c10/util/Logging.h"{{$}}
// CHECK-NEXT: {{^}}#include "local.h"{{$}}
#include "local.h"

void first() {}
void second() {}
