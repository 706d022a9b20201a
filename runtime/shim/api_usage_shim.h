// api_usage_shim.h - apistamp's macros for a library's own build only.
//
// Copy this file into your library's public headers (for example as
// include/<lib>/apistamp.h, installed with them) and name it as the rules'
// `include:`. The library's own build, marked by apistamp_instrument()
// (which defines APISTAMP_INSTRUMENTED for that target), gets the runtime's
// macros; every other includer (a header-only user, a user of the installed
// headers without apistamp) gets macros that compile to nothing, and needs
// no apistamp at all. Works in C++11 and later, with or without exceptions
// and RTTI; no includes in the no-op branch.
#ifndef APISTAMP_API_USAGE_SHIM_H
#define APISTAMP_API_USAGE_SHIM_H

#if defined(APISTAMP_INSTRUMENTED)
#include <apistamp/api_usage.h>
#else
#ifndef APISTAMP_LOG_API_ENTRY
#define APISTAMP_LOG_API_ENTRY(...) static_cast<void>(0)
#endif
#ifndef APISTAMP_LOG_API_USAGE_ONCE
#define APISTAMP_LOG_API_USAGE_ONCE(...) static_cast<void>(0)
#endif
#ifndef APISTAMP_LIBRARY_INTERNAL
#define APISTAMP_LIBRARY_INTERNAL(...) static_cast<void>(0)
#endif
#ifndef C10_LOG_API_USAGE_ONCE
#define C10_LOG_API_USAGE_ONCE(...) static_cast<void>(0)
#endif
#endif

#endif // APISTAMP_API_USAGE_SHIM_H
