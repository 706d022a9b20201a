//===- api_usage.cpp - c10-style API usage logging without libtorch -------===//

#include "apistamp/api_usage.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace apistamp {

namespace {

using Handler = std::function<void(const std::string &)>;

void defaultLogger(const std::string &Event) {
  const char *Enabled = std::getenv("PYTORCH_API_USAGE_STDERR");
  if (Enabled && *Enabled)
    std::fprintf(stderr, "PYTORCH_API_USAGE %s\n", Event.c_str());
}

struct LoggerState {
  std::mutex Mutex;
  Handler Logger = defaultLogger;
};

LoggerState &state() {
  // Never destroyed: static destructors and other threads may still log.
  static LoggerState *State = new LoggerState();
  return *State;
}

} // namespace

void SetAPIUsageLogger(Handler Logger) {
  if (!Logger)
    return;
  LoggerState &S = state();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  S.Logger = std::move(Logger);
}

void LogAPIUsage(const std::string &Event) {
  Handler Logger;
  {
    LoggerState &S = state();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    Logger = S.Logger;
  }
  Logger(Event); // Outside the lock: the handler may log or replace itself.
}

namespace detail {
bool LogAPIUsageFakeReturn(const std::string &Event) {
  LogAPIUsage(Event);
  return true;
}
} // namespace detail

} // namespace apistamp
