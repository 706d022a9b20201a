// A one-line body without spaces inside its braces keeps every character:
// the ';' before '}' is not taken with the space that is not there.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: FileCheck %s --input-file=%t/a.cpp --strict-whitespace
// RUN: %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: all
    event: "{name}"

//--- a.cpp
// CHECK:      {{^}}int tight() {{[{]$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("tight");{{$}}
// CHECK-NEXT: {{^}}  return 1;{{$}}
// CHECK-NEXT: {{^}}}{{$}}
int tight() {return 1;}
