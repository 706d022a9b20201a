//===- C10Example.h - A small API instrumented against the real c10 -------===//

#ifndef APISTAMP_RUNTIME_TEST_C10EXAMPLE_H
#define APISTAMP_RUNTIME_TEST_C10EXAMPLE_H

namespace example {

/// Logs "example.resize" (real c10 macro).
int resize(int X);
/// Logs "example.shared" from one site...
int crop(int X);
/// ...and from a second site with the same name.
int pad(int X);

/// The main class: its constructor logs "example.Model".
class Model {
public:
  /// Logs "example.Model".
  explicit Model(int Size);
  /// The size given to the constructor.
  int size() const { return Size; }

private:
  int Size;
};

/// In a TU that includes c10/util/Logging.h and then apistamp/api_usage.h:
/// logs "example.mixed.c10" through C10_LOG_API_USAGE_ONCE (c10's) and
/// "example.mixed.apistamp" through APISTAMP_LOG_API_USAGE_ONCE.
int mixed(int X);

} // namespace example

#endif // APISTAMP_RUNTIME_TEST_C10EXAMPLE_H
