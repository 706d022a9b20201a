//===- AllocationCounter.cpp - Replaces global new/delete to count calls --===//

#include "AllocationCounter.h"

#include <cstdlib>
#include <new>

namespace {
thread_local long Allocations = 0;
thread_local void (*NextAllocationHook)() = nullptr;

void *allocate(std::size_t Size) {
  ++Allocations;
  if (void (*Hook)() = NextAllocationHook) {
    NextAllocationHook = nullptr;
    Hook();
  }
  if (void *P = std::malloc(Size ? Size : 1))
    return P;
  throw std::bad_alloc();
}
} // namespace

long apistamp::test::allocationsOnThisThread() { return Allocations; }
void apistamp::test::callOnNextAllocation(void (*Hook)()) {
  NextAllocationHook = Hook;
}

void *operator new(std::size_t Size) { return allocate(Size); }
void *operator new[](std::size_t Size) { return allocate(Size); }
void *operator new(std::size_t Size, const std::nothrow_t &) noexcept {
  ++Allocations;
  return std::malloc(Size ? Size : 1);
}
void *operator new[](std::size_t Size, const std::nothrow_t &) noexcept {
  ++Allocations;
  return std::malloc(Size ? Size : 1);
}
void operator delete(void *P) noexcept { std::free(P); }
void operator delete[](void *P) noexcept { std::free(P); }
void operator delete(void *P, std::size_t) noexcept { std::free(P); }
void operator delete[](void *P, std::size_t) noexcept { std::free(P); }
void operator delete(void *P, const std::nothrow_t &) noexcept { std::free(P); }
void operator delete[](void *P, const std::nothrow_t &) noexcept {
  std::free(P);
}
