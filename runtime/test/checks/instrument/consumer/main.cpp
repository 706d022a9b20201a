// Calls both instrumented libraries twice; the events go to the sinks that
// the environment selects (APISTAMP_API_USAGE_LOG).
#include <mylib.h>

int main() {
  int Sum = mylib_f(1) + mylib_f(1) + mylib_exported_f(1) + mylib_exported_f(1);
  return Sum == 8 ? 0 : 1;
}
