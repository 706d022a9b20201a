// "// apistamp-ignore: <reason>" on the line before a definition, or on its
// first line, excludes it. Without a reason it is an error in check; one that
// excludes nothing is reported. fix leaves suppressed definitions alone.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %exit-code %apistamp check --verbose --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning: -implicit-check-not=error: -implicit-check-not=note:
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: FileCheck %s --check-prefix=FIX --input-file=%t/a.cpp

//--- rules.yaml
version: 1
include: c10/util/Logging.h
rules:
  - id: api

//--- a.cpp
#include "c10/util/Logging.h"
namespace api {
// CHECK: a.cpp:[[@LINE+2]]:6: note: suppressed api::hot: called millions of times per second, measured in PR 123 [api]
// apistamp-ignore: called millions of times per second, measured in PR 123
void hot() {}
// FIX: {{^}}void hot() {}{{$}}

// CHECK: a.cpp:[[@LINE+1]]:6: note: suppressed api::trailing: deprecated [api]
void trailing() { // apistamp-ignore: deprecated
}

// CHECK: a.cpp:[[@LINE+2]]:1: error: apistamp-ignore needs a reason
// CHECK: a.cpp:[[@LINE+2]]:6: note: suppressed api::lazy: (no reason given) [api]
// apistamp-ignore
void lazy() {}

// CHECK: a.cpp:[[@LINE+3]]:3: note: suppressed api::templated: templates are instrumented at their call sites [api]
template <class T>
// apistamp-ignore: templates are instrumented at their call sites
T templated(T t) { return t; }

// CHECK: a.cpp:[[@LINE+1]]:1: warning: apistamp-ignore suppresses nothing
// apistamp-ignore: stale, the function below was removed

// CHECK: a.cpp:[[@LINE+2]]:6: warning: missing API usage event 'api.visible' [api]
// FIX: {{^}}  C10_LOG_API_USAGE_ONCE("api.visible");{{$}}
void visible() {}
} // namespace api
// CHECK: apistamp: 1 TUs, 5 definitions selected: 0 instrumented, 1 missing, 0 wrong, 0 duplicate, 0 skipped, 4 suppressed
// CHECK: exit code: 1
