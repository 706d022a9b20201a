// imagelib's grey-scale image type and its pixel helpers.
#ifndef IMAGELIB_IMAGE_H
#define IMAGELIB_IMAGE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace imagelib {

/// An 8-bit grey-scale image stored row by row.
class Image {
public:
  /// Creates a \p Width x \p Height image filled with \p Fill.
  Image(int Width, int Height, std::uint8_t Fill = 0);

  int width() const { return Width; }
  int height() const { return Height; }
  std::uint8_t at(int X, int Y) const { return Pixels[index(X, Y)]; }
  void set(int X, int Y, std::uint8_t Value) { Pixels[index(X, Y)] = Value; }

  /// Returns the mean pixel value.
  double mean() const;
  /// Returns the number of pixels of each value 0..255.
  std::vector<int> histogram() const;
  /// Returns the \p W x \p H rectangle whose top-left corner is (X, Y).
  Image crop(int X, int Y, int W, int H) const;

private:
  /// Bounds-checked position of pixel (X, Y) in Pixels.
  std::size_t index(int X, int Y) const;

  int Width;
  int Height;
  std::vector<std::uint8_t> Pixels;
};

namespace detail {
/// Clamps \p Value to the 0..255 range of a pixel.
inline std::uint8_t clampPixel(int Value) {
  return static_cast<std::uint8_t>(Value < 0 ? 0 : (Value > 255 ? 255 : Value));
}
} // namespace detail

} // namespace imagelib

#endif // IMAGELIB_IMAGE_H
