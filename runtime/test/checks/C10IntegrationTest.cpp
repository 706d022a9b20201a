//===- C10IntegrationTest.cpp - The instrumented example on the real c10 --===//
//
// Events of code instrumented against Debian's libtorch-dev arrive through
// c10::SetAPIUsageLogger, with c10's semantics (once per call site).
//
//===----------------------------------------------------------------------===//

#include "C10Example.h"

#include "apistamp/api_usage.h"

#include <c10/util/Logging.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

std::vector<std::string> C10Events, ApistampEvents;

bool isExampleEvent(const std::string &Event) {
  return Event.compare(0, 8, "example.") == 0;
}

TEST(RealC10, EventsOfTheInstrumentedExampleArriveThroughSetAPIUsageLogger) {
  c10::SetAPIUsageLogger([](const std::string &Event) {
    if (isExampleEvent(Event))
      C10Events.push_back(Event);
  });
  int Sum = 0;
  for (int I = 0; I < 3; ++I) {
    Sum += example::resize(I) + example::crop(I) + example::pad(I);
    example::Model M(I);
    Sum += M.size();
  }
  c10::LogAPIUsage("example.direct");
  EXPECT_EQ(Sum, 6 + 3 + 3 + 3);
  // c10 logs once per call site: the two sites of "example.shared" both log
  // (the apistamp runtime logs a name once; see OncePerName tests).
  EXPECT_EQ(C10Events, (std::vector<std::string>{
                           "example.resize", "example.shared", "example.shared",
                           "example.Model", "example.direct"}));
}

TEST(RealC10, BothRuntimesCanServeOneProcess) {
  C10Events.clear();
  c10::SetAPIUsageLogger([](const std::string &Event) {
    if (isExampleEvent(Event))
      C10Events.push_back(Event);
  });
  apistamp::SetAPIUsageLogger([](const std::string &Event) {
    if (isExampleEvent(Event))
      ApistampEvents.push_back(Event);
  });
  EXPECT_EQ(example::mixed(1) + example::mixed(2), 3);
  EXPECT_EQ(C10Events, std::vector<std::string>{"example.mixed.c10"});
  EXPECT_EQ(ApistampEvents, std::vector<std::string>{"example.mixed.apistamp"});
}

} // namespace
