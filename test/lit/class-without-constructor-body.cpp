// A class a constructor rule selects that has no constructor body (implicit,
// defaulted, deleted or inherited constructors only) gets nothing invented;
// check --verbose lists it as skipped. A class whose constructor is written
// in another file is not reported.
// RUN: rm -rf %t && %split-file %s %t
// RUN: cp %t/a.cpp %t/a.orig
// RUN: %apistamp check --verbose --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning: -implicit-check-not=note:
// RUN: %apistamp fix --rules %t/rules.yaml %t/a.cpp -- %cxxflags
// RUN: diff %t/a.cpp %t/a.orig
// explain says why the out-of-line "= default" is not instrumented.
// RUN: %apistamp explain --rules %t/rules.yaml --name models::OutOfLine::OutOfLine %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s --check-prefix=EXPLAIN
// EXPLAIN: OutOfLine::OutOfLine
// EXPLAIN-NEXT: => defaulted or deleted ('= default', '= delete'): no body to instrument

//--- rules.yaml
version: 1
rules:
  - id: models
    where: constructor
    namespace: models

//--- a.cpp
namespace models {
// CHECK: a.cpp:[[@LINE+1]]:8: note: skipped models::Implicit: no constructor body to instrument (implicit, defaulted, deleted or inherited constructors only) [models]
struct Implicit { int x = 0; };
// CHECK: a.cpp:[[@LINE+1]]:8: note: skipped models::Defaulted: no constructor body
struct Defaulted { Defaulted() = default; Defaulted(int) = delete; };
// CHECK: a.cpp:[[@LINE+1]]:8: note: skipped models::Inheriting: no constructor body
struct Inheriting : Defaulted { using Defaulted::Defaulted; };
struct DefinedElsewhere { DefinedElsewhere(); };
// Its only constructor is defaulted out of line: no body either.
// CHECK: a.cpp:[[@LINE+1]]:8: note: skipped models::OutOfLine: no constructor body
struct OutOfLine { OutOfLine(); int x = 0; };
OutOfLine::OutOfLine() = default;
} // namespace models
// CHECK: 4 definitions selected: 0 instrumented, 0 missing, 0 wrong, 0 duplicate, 4 skipped, 0 suppressed
