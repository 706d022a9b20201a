// The instrumented test library: built twice, as MYLIB_NAME mylib and
// mylib_exported; both log mylib.common, each also its own event.
#include "mylib.h"

#include <apistamp/api_usage.h>

#define MYLIB_CAT2(A, B) A##B
#define MYLIB_CAT(A, B) MYLIB_CAT2(A, B)
#define MYLIB_STR2(A) #A
#define MYLIB_STR(A) MYLIB_STR2(A)

int MYLIB_CAT(MYLIB_NAME, _f)(int X) {
  C10_LOG_API_USAGE_ONCE("mylib.common");
  C10_LOG_API_USAGE_ONCE(MYLIB_STR(MYLIB_NAME) ".f");
  return X + 1;
}
