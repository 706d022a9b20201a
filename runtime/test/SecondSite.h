//===- SecondSite.h - Call sites shared by two TUs for the runtime's tests ===//

#ifndef APISTAMP_RUNTIME_TEST_SECONDSITE_H
#define APISTAMP_RUNTIME_TEST_SECONDSITE_H

#include "apistamp/api_usage.h"

namespace apistamp {
namespace test {

/// Logs "rt.two-sites.shared" from a call site in SecondSite.cpp.
int secondSiteSameName(int X);

/// An inline function with a site, compiled into both TUs.
inline int inlineSite(int X) {
  C10_LOG_API_USAGE_ONCE("rt.two-sites.inline");
  return X * 2;
}

/// Calls inlineSite from SecondSite.cpp.
int secondSiteInline(int X);

/// An outermost-only entry ("rt.entry.tu.second") in SecondSite.cpp that
/// calls \p Inner (an entry of the calling TU) and returns its result + 1.
int secondTUEntry(int (*Inner)(int), int X);

} // namespace test
} // namespace apistamp

#endif // APISTAMP_RUNTIME_TEST_SECONDSITE_H
