//===- api_usage.h - c10-style API usage logging without libtorch -*- C++ -*-//
//
// Provides C10_LOG_API_USAGE_ONCE and the c10 handler functions for code that
// does not link libtorch. Each call site of the macro logs its event the first
// time it runs; later runs cost one guard check of a function-local static.
// Everything here is thread-safe and needs C++11 or later.
//
//===----------------------------------------------------------------------===//

#ifndef APISTAMP_API_USAGE_H
#define APISTAMP_API_USAGE_H

#include <functional>
#include <string>

namespace apistamp {

/// Replaces the handler that receives API usage events; an empty function is
/// ignored. The default handler prints "PYTORCH_API_USAGE <event>" to stderr
/// when the environment variable PYTORCH_API_USAGE_STDERR is set and
/// non-empty, and does nothing otherwise. Events logged before a handler is
/// installed go to the default handler.
void SetAPIUsageLogger(std::function<void(const std::string &)> Logger);

/// Hands \p Event to the current handler, every time it is called. The
/// handler runs outside the internal lock, so it may log or replace itself.
void LogAPIUsage(const std::string &Event);

namespace detail {
/// Logs \p Event and returns true; initialises the flag of
/// C10_LOG_API_USAGE_ONCE.
bool LogAPIUsageFakeReturn(const std::string &Event);
} // namespace detail

} // namespace apistamp

#define APISTAMP_CONCAT_IMPL(A, B) A##B
/// Pastes \p A and \p B after expanding them (for unique variable names).
#define APISTAMP_CONCAT(A, B) APISTAMP_CONCAT_IMPL(A, B)

#ifndef C10_LOG_API_USAGE_ONCE
/// Logs the event the first time this call site runs, like c10's macro. Use
/// it as a statement: `C10_LOG_API_USAGE_ONCE("mylib.api");`. Not usable in
/// constexpr functions before C++23, nor twice on one source line.
#define C10_LOG_API_USAGE_ONCE(...)                                            \
  static const bool APISTAMP_CONCAT(apistampLogFlag, __LINE__) =               \
      ::apistamp::detail::LogAPIUsageFakeReturn(__VA_ARGS__);                  \
  (void)APISTAMP_CONCAT(apistampLogFlag, __LINE__)
#endif

#endif // APISTAMP_API_USAGE_H
