// rules/torchvision.yaml, rule 'io-video-reader': the public functions of
// io/video_reader, not the helpers in its anonymous namespace.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp verify --rules %rules/torchvision.yaml --root %t \
// RUN:   %t/torchvision/csrc/io/video_reader/video_reader.cpp -- -std=c++17 | %FileCheck %s
// CHECK: apistamp verify: 1 TUs, 3 expectations, 2 definitions selected, 0 mismatches

//--- torchvision/csrc/io/video_reader/video_reader.cpp

namespace torch { struct Tensor {}; }
namespace vision {
namespace video_reader {
namespace {
// expect-no-event
torch::Tensor readVideo(bool isReadFile, const torch::Tensor& input) { return input; }
} // namespace

// expect-event: torchvision.csrc.io.video_reader.video_reader.read_video_from_file
torch::Tensor read_video_from_file(const char* videoPath) { return torch::Tensor(); }

// expect-event: torchvision.csrc.io.video_reader.video_reader.probe_video_from_memory
torch::Tensor probe_video_from_memory(torch::Tensor input_video) { return input_video; }
} // namespace video_reader
} // namespace vision
