// A one-line body without spaces inside its braces keeps every character:
// the call goes after the '{' with a space before and after it. (Removing
// it leaves "{ return 1;}": the one shape whose round trip adds a byte.)
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
// CHECK:      {{^}}int tight() { C10_LOG_API_USAGE_ONCE("tight"); return 1;}{{$}}
int tight() {return 1;}
