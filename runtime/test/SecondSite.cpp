//===- SecondSite.cpp - Call sites in another TU for the once-per-name tests //

#include "SecondSite.h"

#include "apistamp/api_usage.h"

namespace apistamp {
namespace test {

int secondSiteSameName(int X) {
  C10_LOG_API_USAGE_ONCE("rt.two-sites.shared");
  return X + 2;
}

int secondSiteInline(int X) { return inlineSite(X) + 1; }

int secondTUEntry(int (*Inner)(int), int X) {
  APISTAMP_LOG_API_ENTRY("rt.entry.tu.second");
  return Inner(X) + 1;
}

} // namespace test
} // namespace apistamp
