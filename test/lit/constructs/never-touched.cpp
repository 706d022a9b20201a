// Lambdas, local classes, deduction guides and CUDA device functions are
// never touched, whatever the rules say.
// RUN: rm -rf %t && %split-file %s %t
// RUN: cp %t/a.cpp %t/a.orig
// RUN: not %apistamp check --verbose --rules %t/rules.yaml %t/a.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning: -implicit-check-not=note:
// RUN: %apistamp check --rules %t/rules.yaml %t/kernel.cu -- -x cuda --cuda-host-only -nocudainc -nocudalib \
// RUN:   | FileCheck %s --check-prefix=CUDA -implicit-check-not=warning:
// CUDA: 1 TUs, 0 definitions selected

//--- rules.yaml
version: 1
rules:
  - id: all
    linkage: any
    access: any

//--- a.cpp
// CHECK: a.cpp:[[@LINE+1]]:36: warning: missing API usage event 'Holder' [all]
template <class T> struct Holder { Holder(T) {} };
Holder(const char *) -> Holder<int>;
// CHECK: a.cpp:[[@LINE+1]]:5: warning: missing API usage event 'outer' [all]
int outer() {
  auto lambda = [](int x) { return x + 1; };
  struct Local {
    int method() { return 2; }
  };
  return lambda(1) + Local().method();
}
// CHECK: 2 definitions selected: 0 instrumented, 2 missing

//--- kernel.cu
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
__device__ int square(int x) { return x * x; }
__global__ void kernel(int *out) { *out = square(3); }
