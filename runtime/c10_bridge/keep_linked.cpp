//===- keep_linked.cpp - Keeps the c10 bridge in a program that links it --===//
//
// Compiled into every program that links apistamp::c10_bridge: one
// reference to the bridge, so that a linker with --as-needed keeps the
// library, which the program otherwise needs only if it comes before libc10.
//
//===----------------------------------------------------------------------===//

#include "apistamp/c10_bridge.h"

namespace {
__attribute__((used))
const char *(*const ApistampKeepC10Bridge)(void) = &apistamp_c10_bridge_mode;
} // namespace
