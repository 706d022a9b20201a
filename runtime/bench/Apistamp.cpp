//===- Apistamp.cpp - The benchmark's function, apistamp-instrumented -----===//

#include "Subjects.h"

#include "apistamp/api_usage.h"

int apistampCall(int X) {
  C10_LOG_API_USAGE_ONCE("bench.apistampCall");
  return X + 1;
}
