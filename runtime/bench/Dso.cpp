//===- Dso.cpp - The benchmark's functions in a shared library ------------===//

#include "Subjects.h"

#include "apistamp/api_usage.h"

int plainCallDso(int X) { return X + 1; }

int apistampCallDso(int X) {
  C10_LOG_API_USAGE_ONCE("bench.apistampCallDso");
  return X + 1;
}

int apistampEntryCallDso(int X) {
  APISTAMP_LOG_API_ENTRY("bench.apistampEntryCallDso");
  return X + 1;
}
