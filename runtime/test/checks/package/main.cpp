// Uses the installed runtime: prints each event its logger receives.
#include <apistamp/api_usage.h>

#include <iostream>

static int api(int X) {
  C10_LOG_API_USAGE_ONCE("package.api");
  return X + 1;
}

int main() {
  apistamp::SetAPIUsageLogger(
      [](const std::string &Event) { std::cout << "event " << Event << "\n"; });
  int Sum = api(1) + api(2);
  apistamp::LogAPIUsage("package.direct");
  return Sum == 5 ? 0 : 1;
}
