// PGM (plain text "P2") encoding and decoding.
#include "imagelib/io.h"
#include <sstream>
#include <stdexcept>

namespace imagelib {

std::string encodePgm(const Image &Img) {
  std::ostringstream OS;
  OS << "P2\n" << Img.width() << ' ' << Img.height() << "\n255\n";
  for (int Y = 0; Y < Img.height(); ++Y) {
    for (int X = 0; X < Img.width(); ++X)
      OS << int(Img.at(X, Y)) << (X + 1 < Img.width() ? " " : "");
    OS << '\n';
  }
  return OS.str();
}

Image decodePgm(const std::string &Text) {
  std::istringstream IS(Text);
  std::string Magic;
  int Width = 0, Height = 0, Max = 0;
  if (!(IS >> Magic >> Width >> Height >> Max) || Magic != "P2")
    throw std::runtime_error("not a plain PGM image");
  Image Img(Width, Height);
  for (int Y = 0; Y < Height; ++Y)
    for (int X = 0; X < Width; ++X) {
      int Value = 0;
      IS >> Value;
      Img.set(X, Y, clampPixel(Value * 255 / Max));
    }
  return Img;
}

} // namespace imagelib
