// mandelbrot_cuda_nocuda.cpp: the CPU-only build's CUDA entry points: they say why they cannot run.
#include <stdexcept>

#include "compute/fractal/mandelbrot.h"
#include "compute/fractal/mandelbrot_cuda_tuning.h"

#include "compute/system/cuda_info.h"

namespace ms {

namespace {
constexpr const char* kNoCuda = kCudaNotBuiltReason;
}

bool cuda_available(std::string* reason) {
    if (reason) *reason = kNoCuda;
    return false;
}

FrameStats mandelbrot_cuda(const View&, Precision, const Shortcuts&, const PaletteTable&, PixelRect,
                           uint8_t*, float*) {
    throw std::runtime_error(kNoCuda);
}

FrameStats mandelbrot_cuda_to_host(const View&, Precision, const Shortcuts&, const PaletteTable&,
                                   PixelRect, uint8_t*, float*) {
    throw std::runtime_error(kNoCuda);
}

double mandelbrot_cuda_instructions_per_iteration(Precision, Formula) { return 0.0; }

CudaTuning default_cuda_tuning(Precision) { return {}; }

FrameStats mandelbrot_cuda_tuned(const View&, Precision, const Shortcuts&, const PaletteTable&,
                                 PixelRect, uint8_t*, float*, const CudaTuning&) {
    throw std::runtime_error(kNoCuda);
}

FrameStats mandelbrot_cuda_tuned_to_host(const View&, Precision, const Shortcuts&,
                                         const PaletteTable&, PixelRect, uint8_t*, float*,
                                         const CudaTuning&) {
    throw std::runtime_error(kNoCuda);
}

}  // namespace ms
