//===- c10_compat.h - c10's spelling on the apistamp runtime ----*- C++ -*-===//
//
// Lets code written against c10's spelling (c10::SetAPIUsageLogger,
// c10::LogAPIUsage, c10::SetAPIUsageMetadataLogger, c10::LogAPIUsageMetadata,
// c10::DDPLoggingData, c10::SetPyTorchDDPUsageLogger,
// c10::LogPyTorchDDPUsage, c10::SetGlobalRank, c10::initLogging,
// C10_LOG_API_USAGE_ONCE) compile and link against this runtime alone. Not
// for translation units that also include c10/util/Logging.h: code that
// links libtorch should use c10 itself. The surface, entity by entity, and
// how it differs from c10: runtime/README.md.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_C10_COMPAT_H
#define APISTAMP_C10_COMPAT_H

#ifdef C10_UTIL_LOGGING_H_
#error "include apistamp/c10_compat.h or c10/util/Logging.h, not both"
#endif

#include "apistamp/api_usage.h"

namespace c10 {
using ::apistamp::DDPLoggingData;
using ::apistamp::LogAPIUsage;
using ::apistamp::LogAPIUsageMetadata;
using ::apistamp::LogPyTorchDDPUsage;
using ::apistamp::SetAPIUsageLogger;
using ::apistamp::SetAPIUsageMetadataLogger;
using ::apistamp::SetGlobalRank;
using ::apistamp::SetPyTorchDDPUsageLogger;

/// c10's `initLogging`, which applies TORCH_CPP_LOG_LEVEL to c10's own log
/// messages. The runtime has no such messages and reads its environment at
/// its first event: this does nothing. Internal linkage: no `c10::` symbol
/// that could take the place of libc10's in a process that also loads it.
static inline void initLogging() {}

namespace detail {
using ::apistamp::detail::LogAPIUsageFakeReturn;
} // namespace detail
} // namespace c10

#endif // APISTAMP_C10_COMPAT_H
