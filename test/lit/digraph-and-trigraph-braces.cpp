// A body whose braces are the digraphs <% %> or, with -trigraphs, the
// trigraphs ??< ??>: the call goes after the whole brace token, and the file
// still parses (check exits 0: every event there).
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags -trigraphs -Wno-trigraphs
// RUN: FileCheck %s --input-file=%t/a.cpp
// RUN: %apistamp check --rules %t/rules.yaml %t/a.cpp -- %cxxflags -trigraphs -Wno-trigraphs

//--- rules.yaml
version: 1
include: log.h
rules:
  - id: all

//--- log.h
#define C10_LOG_API_USAGE_ONCE(e) ((void)(e))

//--- a.cpp
#include "log.h"
// CHECK:      {{^}}int add(int a, int b) <%{{$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("add");{{$}}
// CHECK-NEXT: {{^}}  return a + b;{{$}}
// CHECK-NEXT: {{^}}%>{{$}}
int add(int a, int b) <%
  return a + b;
%>
// CHECK:      {{^}}int mul(int a, int b) <% C10_LOG_API_USAGE_ONCE("mul"); return a * b; %>{{$}}
int mul(int a, int b) <% return a * b; %>
// CHECK:      {{^}}int tri(int a) ??< C10_LOG_API_USAGE_ONCE("tri"); return a; ??>{{$}}
int tri(int a) ??< return a; ??>
// CHECK:      {{^}}void none() <%{{$}}
// CHECK-NEXT: {{^}}  C10_LOG_API_USAGE_ONCE("none");{{$}}
// CHECK-NEXT: {{^}}%>{{$}}
void none() <%%>
