// imagelib::Image: construction, statistics and cropping.
#include "imagelib/image.h"

#include <numeric>
#include <stdexcept>

namespace imagelib {

Image::Image(int Width, int Height, std::uint8_t Fill)
    : Width(Width), Height(Height),
      Pixels(static_cast<std::size_t>(Width > 0 ? Width : 0) *
                 static_cast<std::size_t>(Height > 0 ? Height : 0),
             Fill) {
  if (Width <= 0 || Height <= 0)
    throw std::invalid_argument("image size must be positive");
}

double Image::mean() const {
  double Sum = std::accumulate(Pixels.begin(), Pixels.end(), 0.0);
  return Sum / static_cast<double>(Pixels.size());
}

std::vector<int> Image::histogram() const {
  std::vector<int> Counts(256, 0);
  for (std::uint8_t P : Pixels)
    ++Counts[P];
  return Counts;
}

Image Image::crop(int X, int Y, int W, int H) const {
  Image Out(W, H);
  for (int DY = 0; DY < H; ++DY)
    for (int DX = 0; DX < W; ++DX)
      Out.set(DX, DY, at(X + DX, Y + DY));
  return Out;
}

std::size_t Image::index(int X, int Y) const {
  if (X < 0 || Y < 0 || X >= Width || Y >= Height)
    throw std::out_of_range("pixel outside the image");
  return static_cast<std::size_t>(Y) * static_cast<std::size_t>(Width) +
         static_cast<std::size_t>(X);
}

} // namespace imagelib
