// rules/torchvision.yaml, rule 'ops': the dispatching entry points in
// ops/*.cpp, not the kernels in its subfolders, not vision::ops::detail.
// RUN: rm -rf %t && %split-file %s %t
// RUN: %apistamp verify --rules %rules/torchvision.yaml --root %t \
// RUN:   %t/torchvision/csrc/ops/nms.cpp %t/torchvision/csrc/ops/cpu/nms_kernel.cpp -- -std=c++17 \
// RUN:   | %FileCheck %s
// CHECK: apistamp verify: 2 TUs, 5 expectations, 2 definitions selected, 0 mismatches

//--- torchvision/csrc/ops/nms.cpp
namespace at { struct Tensor {}; }
namespace vision {
namespace ops {
// expect-event: torchvision.csrc.ops.nms.nms
at::Tensor nms(const at::Tensor& dets, const at::Tensor& scores, double iou_threshold) {
  return dets;
}

namespace detail {
// expect-no-event
at::Tensor _nms_backward(const at::Tensor& grad) { return grad; }
} // namespace detail

namespace {
// expect-no-event
int helper() { return 0; }
} // namespace

// expect-event: torchvision.csrc.ops.nms.roi_align
at::Tensor roi_align(const at::Tensor& input) { return input; }
} // namespace ops
} // namespace vision

//--- torchvision/csrc/ops/cpu/nms_kernel.cpp
namespace at { struct Tensor {}; }
namespace vision {
namespace ops {
// expect-no-event
at::Tensor nms_kernel(const at::Tensor& dets) { return dets; }
} // namespace ops
} // namespace vision
