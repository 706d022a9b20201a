//===- BridgeTorch.h - The c10 bridge helper's libtorch calls -------------===//

#ifndef APISTAMP_RUNTIME_TEST_BRIDGETORCH_H
#define APISTAMP_RUNTIME_TEST_BRIDGETORCH_H

namespace bridge_test {

/// Creates a tensor with at::empty; libc10 logs "tensor.create" once.
void makeTensor();

/// True (EarlyLib.cpp: a library whose static initialiser logs
/// "bridge.static_init" if APISTAMP_BRIDGE_TEST_STATIC_INIT is set).
bool earlyLibraryLoaded();

} // namespace bridge_test

#endif // APISTAMP_RUNTIME_TEST_BRIDGETORCH_H
