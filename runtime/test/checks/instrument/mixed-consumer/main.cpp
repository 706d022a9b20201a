// Calls the instrumented mixlib twice; its events go to the sinks that the
// environment selects (APISTAMP_API_USAGE_LOG).
#include <mylib.h>

int main() { return mylib_f(1) + mylib_f(1) == 4 ? 0 : 1; }
