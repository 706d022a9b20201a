//===- ApistampEntry.cpp - The benchmark's function, outermost-only -------===//

#include "Subjects.h"

#include "apistamp/api_usage.h"

int apistampEntryCall(int X) {
  APISTAMP_LOG_API_ENTRY("bench.apistampEntryCall");
  return X + 1;
}
