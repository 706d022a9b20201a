// matcher: replaces the selection keys with a clang-query expression that
// must match function declarations; files, exclude_files and event still
// apply, and what is never instrumented (lambdas, ...) still is not.
// RUN: rm -rf %t && %split-file %s %t
// RUN: not %apistamp check --rules %t/rules.yaml %t/src/video.cpp %t/test/video_test.cpp -- %cxxflags \
// RUN:   | FileCheck %s -implicit-check-not=warning:

//--- rules.yaml
version: 1
rules:
  # Functions returning a Tensor, whatever their namespace.
  - id: tensor-returning
    matcher: functionDecl(returns(asString("Tensor")))
    files: "src/**"
    event: "{path}.{name}"
  # Constructors of classes that own a Decoder member.
  - id: decoder-owners
    matcher: |
      cxxConstructorDecl(
        ofClass(has(fieldDecl(hasType(asString("Decoder"))))))
    files: "src/**"

//--- src/video.cpp
struct Tensor {};
struct Decoder {};

// CHECK: video.cpp:[[@LINE+1]]:8: warning: missing API usage event 'src.video.read_frames' [tensor-returning]
Tensor read_frames() {
  auto Lambda = []() { return Tensor(); };
  return Lambda();
}
int frame_count() { return 0; }

struct Video {
  // CHECK: video.cpp:[[@LINE+1]]:3: warning: missing API usage event 'Video' [decoder-owners]
  Video() {}
  Decoder D;
};
struct Helper {
  Helper() {}
};

//--- test/video_test.cpp
struct Tensor {};
Tensor fake_frames() { return Tensor(); }
// CHECK: 1 TUs, 2 definitions selected: {{.*}}; 1 file no rule can select skipped
