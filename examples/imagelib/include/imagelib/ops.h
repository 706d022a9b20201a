// imagelib's image operations.
#ifndef IMAGELIB_OPS_H
#define IMAGELIB_OPS_H

#include "imagelib/image.h"

namespace imagelib {

/// Box blur: each pixel becomes the mean of its (2*Radius+1)^2 neighbourhood.
Image blur(const Image &In, int Radius);
/// Pixels at or above \p Level become 255, the others 0.
Image threshold(const Image &In, std::uint8_t Level);
/// Photographic negative.
Image invert(const Image &In);

/// Thresholds at the image's mean value.
inline Image binarize(const Image &In) {
  return threshold(In, detail::clampPixel(static_cast<int>(In.mean())));
}

namespace detail {
/// Sum of the pixels around (X, Y), repeating the border pixels outside.
int boxSum(const Image &In, int X, int Y, int Radius);
} // namespace detail

} // namespace imagelib

#endif // IMAGELIB_OPS_H
