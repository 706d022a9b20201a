//===- c10_bridge.h - What the c10 bridge library says about itself -*- C -*-//
//
// libapistamp_c10bridge.so forwards c10's API usage events to apistamp's
// sinks (runtime/README.md, "c10 bridge"). It needs no call: loading it
// (LD_PRELOAD, or linking it) is enough. This header declares the one
// function it exports besides c10's logging functions, for diagnostics,
// tests, and for a link that must keep the library (--as-needed).
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_C10_BRIDGE_H
#define APISTAMP_C10_BRIDGE_H

#ifdef __cplusplus
extern "C" {
#endif

/// How the bridge receives c10's events in this process: "interposed" (the
/// dynamic linker resolves c10::LogAPIUsage, C10_LOG_API_USAGE_ONCE's helper
/// and c10::LogPyTorchDDPUsage to the bridge, which passes every call on to
/// c10), "installed" (c10 was found ahead of the bridge, which then called
/// c10::SetAPIUsageLogger and c10::SetPyTorchDDPUsageLogger at load) or
/// "inactive" (neither: no event reaches the bridge).
__attribute__((visibility("default"))) const char *
apistamp_c10_bridge_mode(void);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // APISTAMP_C10_BRIDGE_H
