// Reading and writing imagelib images as plain-text PGM ("P2").
#ifndef IMAGELIB_IO_H
#define IMAGELIB_IO_H

#include "imagelib/image.h"
#include <string>

namespace imagelib {

/// Encodes \p Img as a plain PGM file with maximum value 255.
std::string encodePgm(const Image &Img);
/// Decodes a plain PGM file, scaling its values to 0..255.
Image decodePgm(const std::string &Text);

} // namespace imagelib

#endif // IMAGELIB_IO_H
