// Reading and writing images as PGM text.
#pragma once
#include "imagelib/image.h"
#include <string>

namespace imagelib {
std::string encodePgm(const Image &Img);
Image decodePgm(const std::string &Text);
} // namespace imagelib
