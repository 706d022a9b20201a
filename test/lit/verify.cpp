// verify compares what the rules select with expectation comments on the line
// before each definition; every mismatch is an error and makes it exit 1. A
// selected definition without an expectation is a mismatch too.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp verify --rules %t/rules.yaml %t/good.cpp -- %cxxflags | FileCheck %s --check-prefix=GOOD
// GOOD: apistamp verify: 1 TUs, 5 expectations, 3 definitions selected, 0 mismatches
// RUN: %exit-code %apistamp verify --rules %t/rules.yaml %t/bad.cpp -- %cxxflags \
// RUN:   | FileCheck %s --check-prefix=BAD -implicit-check-not=error:

//--- rules.yaml
version: 1
rules:
  - id: ops
    namespace: "vision::ops"
    event: "{path}.{name}"
  - id: main-class
    where: constructor
    class: "vision::Video"

//--- good.cpp
namespace vision {
namespace ops {
// expect-event: good.nms
void nms() {}

// expect-no-event
static void helper() {}

// expect-skipped: constexpr
constexpr int version() { return 1; }
} // namespace ops

struct Video {
  // expect-event: vision.Video
  Video() {}
  // expect-no-event
  void read() {}
};
} // namespace vision

//--- bad.cpp
#define BODY {}
namespace vision {
namespace ops {
// BAD: bad.cpp:[[@LINE+1]]:1: error: expected event 'bad.roi_align', but rule 'ops' selects it with event 'bad.roi_pool'
// expect-event: bad.roi_align
void roi_pool() {}

// BAD: bad.cpp:[[@LINE+1]]:1: error: expected no event for 'vision::ops::helper', but rule 'ops' selects it with event 'bad.helper'
// expect-no-event
void helper() {}

// BAD: bad.cpp:[[@LINE+1]]:1: error: expected 'vision::ops::version' to be skipped (consteval), but it is skipped for another reason: constexpr function
// expect-skipped: consteval
constexpr int version() { return 1; }

// BAD: bad.cpp:[[@LINE+1]]:6: error: 'vision::ops::unlisted' is selected (rule 'ops' selects it with event 'bad.unlisted') but has no expectation; add '// expect-event: bad.unlisted' on the line before it, or narrow the rule
void unlisted() {}

// BAD: bad.cpp:[[@LINE+1]]:1: error: 'expect-event' is not followed by a definition
// expect-event: bad.orphan

} // namespace ops

// BAD: bad.cpp:[[@LINE+1]]:1: error: expected event 'vision.nms', but no rule selects 'vision::nms'
// expect-event: vision.nms
void nms() {}

struct Video {
  // BAD: bad.cpp:[[@LINE+1]]:3: error: expected event 'vision.Video', but 'vision::Video::Video' is skipped: body comes from macro 'BODY'
  // expect-event: vision.Video
  Video() BODY
};
} // namespace vision
// BAD: apistamp verify: 1 TUs, 6 expectations, 5 definitions selected, 7 mismatches
// BAD: exit code: 1
