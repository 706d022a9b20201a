//===- EarlyLib.cpp - A library that logs a c10 event while it is loaded --===//
//
// Linked into the c10 bridge helpers: if APISTAMP_BRIDGE_TEST_STATIC_INIT is
// set, its static initialiser logs "bridge.static_init" through c10 (as
// C10_LOG_API_USAGE_ONCE at namespace scope does) before main, at a time the
// dynamic linker chooses relative to the bridge's own initialiser.
//
//===----------------------------------------------------------------------===//

#include "BridgeTorch.h"

#include <c10/util/Logging.h>

#include <cstdlib>

namespace {
const bool StaticInitLogged =
    std::getenv("APISTAMP_BRIDGE_TEST_STATIC_INIT") &&
    c10::detail::LogAPIUsageFakeReturn("bridge.static_init");
} // namespace

namespace bridge_test {

bool earlyLibraryLoaded() { return StaticInitLogged || true; }

} // namespace bridge_test
