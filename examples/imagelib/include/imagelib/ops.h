// Image operations.
#pragma once
#include "imagelib/image.h"

namespace imagelib {
Image blur(const Image &In, int Radius);
Image threshold(const Image &In, std::uint8_t Level);
Image invert(const Image &In);
namespace detail {
int boxSum(const Image &In, int X, int Y, int Radius);
} // namespace detail
} // namespace imagelib
