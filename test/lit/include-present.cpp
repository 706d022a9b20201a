// An include already present (in either spelling) is not added again; an
// angled include in the rules is inserted as #include <...>.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/quoted.yaml %t/has-angled.cpp -- %cxxflags
// RUN: grep -c '#include' %t/has-angled.cpp | FileCheck %s --check-prefix=ONE
// ONE: {{^}}1{{$}}
// RUN: %apistamp fix --rules %t/angled.yaml %t/none.cpp -- %cxxflags -DNO_HEADER_NEEDED
// RUN: FileCheck %s --check-prefix=ANGLED --input-file=%t/none.cpp
// ANGLED: {{^}}#include <c10/util/Logging.h>{{$}}

//--- quoted.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all

//--- angled.yaml
version: 1
include: <c10/util/Logging.h>
rules:
  - id: all

//--- has-angled.cpp
#include <c10/util/Logging.h>
void f() {}

//--- none.cpp
void g() {}
