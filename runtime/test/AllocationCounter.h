//===- AllocationCounter.h - Counts operator new calls per thread (tests) -===//

#ifndef APISTAMP_RUNTIME_TEST_ALLOCATIONCOUNTER_H
#define APISTAMP_RUNTIME_TEST_ALLOCATIONCOUNTER_H

namespace apistamp {
namespace test {

/// How many times the replaced global operator new ran on this thread.
long allocationsOnThisThread();

/// Makes the next operator new on this thread call \p Hook first (once).
void callOnNextAllocation(void (*Hook)());

} // namespace test
} // namespace apistamp

#endif // APISTAMP_RUNTIME_TEST_ALLOCATIONCOUNTER_H
