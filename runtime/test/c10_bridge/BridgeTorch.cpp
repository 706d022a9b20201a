//===- BridgeTorch.cpp - The c10 bridge helper's one call into ATen -------===//

#include "BridgeTorch.h"

#include <ATen/Functions.h>

namespace bridge_test {

void makeTensor() {
  at::Tensor T = at::empty({2});
  (void)T;
}

} // namespace bridge_test
