//===- C10.cpp - The benchmark's function, instrumented with the real c10 -===//

#include "Subjects.h"

#include <c10/util/Logging.h>

int c10Call(int X) {
  C10_LOG_API_USAGE_ONCE("bench.c10Call");
  return X + 1;
}
