// rules/torchvision.yaml, rule 'io-video-main-class': the constructor of the
// main class, vision::video::Video, not its methods, not helper classes.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp verify --rules %rules/torchvision.yaml --root %t \
// RUN:   %t/torchvision/csrc/io/video/video.cpp -- -std=c++17 | %FileCheck %s
// CHECK: apistamp verify: 1 TUs, 4 expectations, 1 definitions selected, 0 mismatches

//--- torchvision/csrc/io/video/video.h
namespace vision {
namespace video {
struct Video {
  Video(const char* videoPath, const char* stream, long numThreads);
  bool setCurrentStream(const char* stream);
};
struct DecoderParameters {
  DecoderParameters();
};
} // namespace video
} // namespace vision

//--- torchvision/csrc/io/video/video.cpp
#include "video.h"
namespace vision {
namespace video {
// expect-event: torchvision.csrc.io.video.video.Video
Video::Video(const char* videoPath, const char* stream, long numThreads) {}

// expect-no-event
bool Video::setCurrentStream(const char* stream) { return true; }

// expect-no-event
DecoderParameters::DecoderParameters() {}

// expect-no-event
void log_helper() {}
} // namespace video
} // namespace vision
