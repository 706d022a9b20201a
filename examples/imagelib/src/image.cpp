// Image storage and accessors.
#include "imagelib/image.h"
#include <numeric>
#include <stdexcept>

namespace imagelib {

Image::Image(int Width, int Height, std::uint8_t Fill)
    : Width(Width), Height(Height),
      Pixels(static_cast<size_t>(Width) * Height, Fill) {
  if (Width <= 0 || Height <= 0)
    throw std::invalid_argument("image size must be positive");
}

int Image::width() const { return Width; }

int Image::height() const { return Height; }

std::uint8_t Image::at(int X, int Y) const { return Pixels[index(X, Y)]; }

void Image::set(int X, int Y, std::uint8_t Value) {
  Pixels[index(X, Y)] = Value;
}

double Image::mean() const {
  double Sum = std::accumulate(Pixels.begin(), Pixels.end(), 0.0);
  return Sum / Pixels.size();
}

int Image::index(int X, int Y) const {
  if (X < 0 || Y < 0 || X >= Width || Y >= Height)
    throw std::out_of_range("pixel outside the image");
  return Y * Width + X;
}

} // namespace imagelib
