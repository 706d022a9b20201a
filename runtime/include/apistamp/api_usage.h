//===- api_usage.h - API usage logging without libtorch ---------*- C++ -*-===//
//
// Provides C10_LOG_API_USAGE_ONCE and c10-style handler calls for code that
// does not link libtorch. Each call site logs its event on first execution;
// later executions cost one guard check of a function-local static.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_API_USAGE_H
#define APISTAMP_API_USAGE_H

#include <functional>
#include <string>

namespace apistamp {

/// Replaces the handler that receives API usage events. An empty function is
/// ignored. The default handler prints "PYTORCH_API_USAGE <event>" to stderr
/// when PYTORCH_API_USAGE_STDERR is set and non-empty, and does nothing
/// otherwise.
void SetAPIUsageLogger(std::function<void(const std::string &)> Logger);

/// Hands \p Event to the current handler, every time it is called.
void LogAPIUsage(const std::string &Event);

namespace detail {
/// Logs \p Event and returns true; initialises the static in the macro.
bool LogAPIUsageFakeReturn(const std::string &Event);
} // namespace detail

} // namespace apistamp

#define APISTAMP_CONCAT_IMPL(A, B) A##B
#define APISTAMP_CONCAT(A, B) APISTAMP_CONCAT_IMPL(A, B)

#ifndef C10_LOG_API_USAGE_ONCE
/// Logs the event the first time this call site runs.
#define C10_LOG_API_USAGE_ONCE(...)                                            \
  static const bool APISTAMP_CONCAT(apistampLogFlag, __LINE__) =               \
      ::apistamp::detail::LogAPIUsageFakeReturn(__VA_ARGS__);                  \
  (void)APISTAMP_CONCAT(apistampLogFlag, __LINE__)
#endif

#endif // APISTAMP_API_USAGE_H
