// rules/torchvision.yaml, rule 'io-image': the image codecs and file I/O in
// io/image/{cpu,cuda}, not decode_image (it dispatches to codecs that log)
// and not decode_png.cpp's is_little_endian helper.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp verify --rules %rules/torchvision.yaml --root %t \
// RUN:   %t/torchvision/csrc/io/image/cpu/decode_png.cpp %t/torchvision/csrc/io/image/cpu/decode_image.cpp \
// RUN:   %t/torchvision/csrc/io/image/cuda/decode_jpeg_cuda.cpp -- -std=c++17 \
// RUN:   | %FileCheck %s
// CHECK: apistamp verify: 3 TUs, 5 expectations, 3 definitions selected, 0 mismatches

//--- torchvision/csrc/io/image/cpu/decode_png.cpp
namespace torch { struct Tensor {}; }
namespace vision {
namespace image {
// expect-no-event
bool is_little_endian() { return true; }

// expect-event: torchvision.csrc.io.image.cpu.decode_png.decode_png
torch::Tensor decode_png(const torch::Tensor& data, int mode, bool allow_16_bits) {
  return data;
}

// expect-event: torchvision.csrc.io.image.cpu.decode_png.encode_png
torch::Tensor encode_png(const torch::Tensor& data, long compression_level) {
  return data;
}
} // namespace image
} // namespace vision

//--- torchvision/csrc/io/image/cpu/decode_image.cpp
namespace torch { struct Tensor {}; }
namespace vision {
namespace image {
// expect-no-event
torch::Tensor decode_image(const torch::Tensor& data, int mode) { return data; }
} // namespace image
} // namespace vision

//--- torchvision/csrc/io/image/cuda/decode_jpeg_cuda.cpp
namespace torch { struct Tensor {}; }
namespace vision {
namespace image {
// expect-event: torchvision.csrc.io.image.cuda.decode_jpeg_cuda.decode_jpeg_cuda
torch::Tensor decode_jpeg_cuda(const torch::Tensor& data, int mode) { return data; }
} // namespace image
} // namespace vision
