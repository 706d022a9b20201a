// A comment at the end of the line of '{' stays on that line, so a
// "// NOLINT" there still applies to the definition: with code on that line
// the call goes before the code, on the same line; a comment right after '{'
// keeps the call on a line of its own.
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
int g();
// CHECK:      {{^}}int one_line() { C10_LOG_API_USAGE_ONCE("one_line"); return g(); } // NOLINT{{$}}
int one_line() { return g(); } // NOLINT
// CHECK:      {{^}}void empty() { C10_LOG_API_USAGE_ONCE("empty"); } // NOLINT{{$}}
void empty() {} // NOLINT
// CHECK:      {{^}}void code_then_comment() { C10_LOG_API_USAGE_ONCE("code_then_comment"); g(); // NOLINT{{$}}
// CHECK-NEXT: {{^}}}{{$}}
void code_then_comment() { g(); // NOLINT
}
// CHECK:      {{^}}int block() { C10_LOG_API_USAGE_ONCE("block"); return g(); } /* NOLINT */{{$}}
int block() { return g(); } /* NOLINT */
// CHECK:      {{^}}void comment_only() { // NOLINT{{$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("comment_only");{{$}}
// CHECK-NEXT: {{^}}  g();{{$}}
void comment_only() { // NOLINT
  g();
}
