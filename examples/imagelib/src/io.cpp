// imagelib's plain-text PGM ("P2") encoder and decoder.
#include "imagelib/io.h"

#include <istream>
#include <sstream>
#include <stdexcept>

namespace imagelib {

/// Skips whitespace and '#' comments before the next PGM token.
static std::istream &skipComments(std::istream &IS) {
  while (IS >> std::ws && IS.peek() == '#')
    IS.ignore(1 << 20, '\n');
  return IS;
}

std::string encodePgm(const Image &Img) {
  std::ostringstream OS;
  OS << "P2\n" << Img.width() << ' ' << Img.height() << "\n255\n";
  for (int Y = 0; Y < Img.height(); ++Y) {
    for (int X = 0; X < Img.width(); ++X)
      OS << (X ? " " : "") << static_cast<int>(Img.at(X, Y));
    OS << '\n';
  }
  return OS.str();
}

Image decodePgm(const std::string &Text) {
  std::istringstream IS(Text);
  std::string Magic;
  int Width = 0, Height = 0, Max = 0;
  if (!(skipComments(IS) >> Magic) || Magic != "P2" ||
      !(skipComments(IS) >> Width) || !(skipComments(IS) >> Height) ||
      !(skipComments(IS) >> Max) || Max <= 0)
    throw std::runtime_error("not a plain PGM image");
  Image Img(Width, Height);
  for (int Y = 0; Y < Height; ++Y)
    for (int X = 0; X < Width; ++X) {
      int Value = 0;
      if (!(skipComments(IS) >> Value))
        throw std::runtime_error("truncated PGM image");
      Img.set(X, Y, detail::clampPixel(Value * 255 / Max));
    }
  return Img;
}

} // namespace imagelib
