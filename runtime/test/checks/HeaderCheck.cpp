//===- HeaderCheck.cpp - The public headers in every standard and mode ----===//
//
// Compiled by header-check.sh with -std=c++11..c++20, -Wall -Wextra
// -Wpedantic -Werror, with and without -fno-exceptions -fno-rtti, by g++ and
// clang++; then linked against the runtime and run. Exits 0 if the events
// arrived as documented. With -DCHECK_PREDEFINED, C10_LOG_API_USAGE_ONCE is
// defined before the header, which must leave it alone. APISTAMP_LOG_API_ENTRY
// logs outermost calls only, also in a constructor, with several uses in one
// function (two on one line) and a UserCodeScope.
//
//===----------------------------------------------------------------------===//

#ifdef CHECK_PREDEFINED
static int CustomCalls = 0;
#define C10_LOG_API_USAGE_ONCE(...) (void)++CustomCalls
#endif

#include "apistamp/api_usage.h"
#include "apistamp/c10_compat.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

std::vector<std::string> &events() {
  static std::vector<std::string> Events;
  return Events;
}

int freeFunction(int X) {
  C10_LOG_API_USAGE_ONCE("check.free");
  return X + 1;
}

int sameNameAgain(int X) {
  C10_LOG_API_USAGE_ONCE("check.free");
  return X + 2;
}

template <typename T> T templated(T X) {
  C10_LOG_API_USAGE_ONCE("check.template");
  return X;
}

class Widget {
public:
  explicit Widget(int Size) : Size(Size) {
    C10_LOG_API_USAGE_ONCE("check.Widget");
  }
  int size() const {
    APISTAMP_LOG_API_USAGE_ONCE(std::string("check.Widget.size"));
    return Size;
  }

private:
  int Size;
};

int entryInner(int X) {
  APISTAMP_LOG_API_ENTRY("check.entry.inner");
  return X + 1;
}

int entryCallback(int X) {
  APISTAMP_LOG_API_ENTRY("check.entry.callback");
  return X;
}

class EntryWidget {
public:
  explicit EntryWidget(int X) : Value(0) {
    APISTAMP_LOG_API_ENTRY("check.entry.EntryWidget");
    Value = entryInner(X);
  }
  int Value;
};

int entryOuter(int X) {
  APISTAMP_LOG_API_ENTRY("check.entry.outer");
  {
    // Two more scopes on one line (unique names), never outermost here.
    // clang-format off
    APISTAMP_LOG_API_ENTRY(std::string("check.entry.block")); APISTAMP_LOG_API_ENTRY("check.entry.block2");
    // clang-format on
    X += EntryWidget(X).Value - X;
  }
  apistamp::UserCodeScope User;
  return entryCallback(X) + 1;
}

bool expectEvents(const std::vector<std::string> &Expected) {
  if (events() == Expected)
    return true;
  std::fprintf(stderr, "unexpected events:");
  for (const std::string &E : events())
    std::fprintf(stderr, " %s", E.c_str());
  std::fprintf(stderr, "\n");
  return false;
}

} // namespace

int main() {
  c10::initLogging();
  c10::SetAPIUsageLogger(
      [](const std::string &Event) { events().push_back(Event); });
  apistamp::SetAPIUsageMetadataLogger(
      [](const std::string &Context,
         const std::map<std::string, std::string> &) {
        events().push_back("metadata " + Context);
      });
  c10::SetPyTorchDDPUsageLogger([](const c10::DDPLoggingData &Data) {
    events().push_back("ddp " + Data.strs_map.at("backend_name") + " " +
                       std::to_string(Data.ints_map.at("world_size")));
  });
  int Sum = 0;
  for (int I = 0; I < 3; ++I) {
    Sum += freeFunction(I) + sameNameAgain(I) + templated<int>(I) +
           static_cast<int>(templated<long>(I));
    Widget W(I);
    Sum += W.size();
    auto Lambda = [](int X) {
      C10_LOG_API_USAGE_ONCE("check.lambda");
      return X;
    };
    Sum += Lambda(I);
    Sum += entryOuter(I);
  }
  Sum += entryInner(0);
  c10::LogAPIUsage("check.direct");
  apistamp::LogAPIUsageMetadata("check.metadata", {{"k", "v"}});
  c10::DDPLoggingData Ddp;
  Ddp.strs_map["backend_name"] = "nccl";
  Ddp.ints_map["world_size"] = 8;
  c10::LogPyTorchDDPUsage(Ddp);
  c10::SetGlobalRank(3);
  if (Sum != 37 || apistamp::detail::EntryDepth != 0)
    return 1;
#ifdef CHECK_PREDEFINED
  // The custom macro ran at every pass of its 6 sites; APISTAMP_'s did not.
  return CustomCalls == 18 &&
                 expectEvents({"check.Widget.size", "check.entry.outer",
                               "check.entry.callback", "check.entry.inner",
                               "check.direct", "metadata check.metadata",
                               "ddp nccl 8"})
             ? 0
             : 1;
#else
  return expectEvents({"check.free", "check.template", "check.Widget",
                       "check.Widget.size", "check.lambda", "check.entry.outer",
                       "check.entry.callback", "check.entry.inner",
                       "check.direct", "metadata check.metadata", "ddp nccl 8"})
             ? 0
             : 1;
#endif
}
