//===- api_usage.cpp - API usage logging without libtorch -----------------===//

#include "apistamp/api_usage.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

namespace apistamp {

namespace {

void defaultLogger(const std::string &Event) {
  const char *Enabled = std::getenv("PYTORCH_API_USAGE_STDERR");
  if (Enabled && *Enabled)
    std::fprintf(stderr, "PYTORCH_API_USAGE %s\n", Event.c_str());
}

struct LoggerState {
  std::mutex Mutex;
  std::function<void(const std::string &)> Logger = defaultLogger;
};

LoggerState &state() {
  static LoggerState *State = new LoggerState(); // Never destroyed.
  return *State;
}

} // namespace

void SetAPIUsageLogger(std::function<void(const std::string &)> Logger) {
  if (!Logger)
    return;
  LoggerState &S = state();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  S.Logger = std::move(Logger);
}

void LogAPIUsage(const std::string &Event) {
  std::function<void(const std::string &)> Logger;
  {
    LoggerState &S = state();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    Logger = S.Logger;
  }
  Logger(Event); // Outside the lock: a logger may log again.
}

namespace detail {
bool LogAPIUsageFakeReturn(const std::string &Event) {
  LogAPIUsage(Event);
  return true;
}
} // namespace detail

} // namespace apistamp
