// imagelib's image operations: public entry points and their helpers.
#include "imagelib/ops.h"

namespace imagelib {

namespace {
int clampCoord(int V, int Size) {
  return V < 0 ? 0 : (V >= Size ? Size - 1 : V);
}
} // namespace

namespace detail {
int boxSum(const Image &In, int X, int Y, int Radius) {
  int Sum = 0;
  for (int DY = -Radius; DY <= Radius; ++DY)
    for (int DX = -Radius; DX <= Radius; ++DX)
      Sum += In.at(clampCoord(X + DX, In.width()),
                   clampCoord(Y + DY, In.height()));
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
  int Area = (2 * Radius + 1) * (2 * Radius + 1);
  Image Out(In.width(), In.height());
  for (int Y = 0; Y < In.height(); ++Y)
    for (int X = 0; X < In.width(); ++X)
      Out.set(X, Y,
              detail::clampPixel(detail::boxSum(In, X, Y, Radius) / Area));
  return Out;
}

Image threshold(const Image &In, std::uint8_t Level) {
  return mapPixels(
      In,
      [](std::uint8_t P, int L) -> std::uint8_t { return P >= L ? 255 : 0; },
      Level);
}

Image invert(const Image &In) {
  return mapPixels(
      In, [](std::uint8_t P, int) -> std::uint8_t { return 255 - P; }, 0);
}

/// Test pattern for debugging; internal despite its external linkage.
Image _checkerboard(int Size) {
  Image Out(Size, Size);
  for (int Y = 0; Y < Size; ++Y)
    for (int X = 0; X < Size; ++X)
      Out.set(X, Y, (X + Y) % 2 ? 255 : 0);
  return Out;
}

} // namespace imagelib
