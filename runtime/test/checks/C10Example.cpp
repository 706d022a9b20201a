//===- C10Example.cpp - An instrumented example built against libtorch's c10 //
//
// What apistamp writes with `include: "c10/util/Logging.h"`: each entry point
// starts with C10_LOG_API_USAGE_ONCE.
//
//===----------------------------------------------------------------------===//

#include "C10Example.h"

#include <c10/util/Logging.h>

namespace example {

int resize(int X) {
  C10_LOG_API_USAGE_ONCE("example.resize");
  return X * 2;
}

int crop(int X) {
  C10_LOG_API_USAGE_ONCE("example.shared");
  return X - 1;
}

int pad(int X) {
  C10_LOG_API_USAGE_ONCE("example.shared");
  return X + 1;
}

Model::Model(int Size) : Size(Size) { C10_LOG_API_USAGE_ONCE("example.Model"); }

} // namespace example
