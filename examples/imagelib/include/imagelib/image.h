// A grey-scale image and a few inline helpers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace imagelib {

class Image {
public:
  Image(int Width, int Height, std::uint8_t Fill = 0);
  int width() const;
  int height() const;
  std::uint8_t at(int X, int Y) const;
  void set(int X, int Y, std::uint8_t Value);
  double mean() const;

private:
  int index(int X, int Y) const;
  int Width, Height;
  std::vector<std::uint8_t> Pixels;
};

/// Clamps to the 0..255 range of a pixel. Inline, used by several files.
inline std::uint8_t clampPixel(int Value) {
  return static_cast<std::uint8_t>(Value < 0 ? 0 : (Value > 255 ? 255 : Value));
}

} // namespace imagelib
