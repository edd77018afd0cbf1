// deep_colour_cuda_nocuda.cpp: the CPU-only build's device frame and colouring: they say why
// they cannot run (the window's deep worker never asks for them without CUDA).
#include <stdexcept>

#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_device_frame.h"

namespace ms {

namespace {
constexpr const char* kNoCuda =
    "Deep frames cannot be coloured on a GPU: this Mandelscope was built without CUDA (no nvcc at build time).";
}

DeepDeviceFrame::~DeepDeviceFrame() = default;

void DeepDeviceFrame::reserve(size_t) { throw std::runtime_error(kNoCuda); }

void colour_deep_frame_cuda(DeepDeviceFrame&, const PaletteTable&, const View&, double, uint8_t*, void*) {
    throw std::runtime_error(kNoCuda);
}

void colour_deep_frame_cuda_to_host(DeepDeviceFrame&, const PaletteTable&, const View&, double, uint8_t*, void*) {
    throw std::runtime_error(kNoCuda);
}

}  // namespace ms
