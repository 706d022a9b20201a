// Image operations: public entry points and their helpers.
#include "imagelib/ops.h"

namespace imagelib {

namespace {
int area(int Radius) { return (2 * Radius + 1) * (2 * Radius + 1); }
} // namespace

namespace detail {
int boxSum(const Image &In, int X, int Y, int Radius) {
  int Sum = 0;
  for (int DY = -Radius; DY <= Radius; ++DY)
    for (int DX = -Radius; DX <= Radius; ++DX) {
      int SX = X + DX < 0 ? 0 : (X + DX >= In.width() ? In.width() - 1 : X + DX);
      int SY = Y + DY < 0 ? 0 : (Y + DY >= In.height() ? In.height() - 1 : Y + DY);
      Sum += In.at(SX, SY);
    }
  return Sum;
}
} // namespace detail

static Image mapPixels(const Image &In, std::uint8_t (*F)(std::uint8_t, int),
                       int Arg) {
  Image Out(In.width(), In.height());
  for (int Y = 0; Y < In.height(); ++Y)
    for (int X = 0; X < In.width(); ++X)
      Out.set(X, Y, F(In.at(X, Y), Arg));
  return Out;
}

Image blur(const Image &In, int Radius) {
  Image Out(In.width(), In.height());
  for (int Y = 0; Y < In.height(); ++Y)
    for (int X = 0; X < In.width(); ++X)
      Out.set(X, Y, clampPixel(detail::boxSum(In, X, Y, Radius) / area(Radius)));
  return Out;
}

Image threshold(const Image &In, std::uint8_t Level) {
  return mapPixels(
      In,
      [](std::uint8_t P, int L) -> std::uint8_t { return P >= L ? 255 : 0; },
      Level);
}

Image invert(const Image &In)
{
  return mapPixels(
      In, [](std::uint8_t P, int) -> std::uint8_t { return 255 - P; }, 0);
}

/// Internal: not part of the API, excluded by the '_' rule.
Image _debugCheckerboard(int Size) {
  Image Out(Size, Size);
  for (int Y = 0; Y < Size; ++Y)
    for (int X = 0; X < Size; ++X)
      Out.set(X, Y, (X + Y) % 2 ? 255 : 0);
  return Out;
}

} // namespace imagelib
