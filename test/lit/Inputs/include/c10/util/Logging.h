// Stand-in for c10/util/Logging.h in lit tests: same macro shape as c10.
#pragma once
namespace c10 { namespace detail { bool LogAPIUsageFakeReturn(const char *); } }
#define APISTAMP_TEST_CONCAT_(A, B) A##B
#define APISTAMP_TEST_CONCAT(A, B) APISTAMP_TEST_CONCAT_(A, B)
#define C10_LOG_API_USAGE_ONCE(...)                                            \
  static bool APISTAMP_TEST_CONCAT(apistamp_test_flag_, __LINE__) =            \
      ::c10::detail::LogAPIUsageFakeReturn(__VA_ARGS__);
