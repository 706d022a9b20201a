//===- C10Mixed.cpp - c10's header first, then apistamp's, in one TU ------===//
//
// apistamp/api_usage.h must leave c10's C10_LOG_API_USAGE_ONCE alone (this
// TU is compiled with -Werror, so a redefinition fails the build).
//
//===----------------------------------------------------------------------===//

#include "C10Example.h"

#include <c10/util/Logging.h>

#include "apistamp/api_usage.h"

namespace example {

int mixed(int X) {
  C10_LOG_API_USAGE_ONCE("example.mixed.c10");
  APISTAMP_LOG_API_USAGE_ONCE("example.mixed.apistamp");
  return X;
}

} // namespace example
