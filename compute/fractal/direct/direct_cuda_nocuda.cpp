// direct_cuda_nocuda.cpp: the CPU-only build's CUDA entry points: they say why they cannot run.
#include <stdexcept>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/direct/direct_cpu_rings.h"
#include "compute/fractal/direct/direct_cuda_tuning.h"

#include "compute/system/cuda_info.h"

namespace ms {

namespace {
constexpr const char* kNoCuda = kCudaNotBuiltReason;
}

FrameStats direct_cuda(const View&, Precision, const Shortcuts&, const PaletteTable&, PixelRect, uint8_t*, float*) {
    throw std::runtime_error(kNoCuda);
}

FrameStats direct_cuda_to_host(const View&, Precision, const Shortcuts&, const PaletteTable&, PixelRect, uint8_t*,
                               float*) {
    throw std::runtime_error(kNoCuda);
}

double direct_cuda_instructions_per_iteration(Precision, Formula) { return 0.0; }

uint64_t direct_cuda_rings(const View&, const DirectRings&, float*, const std::atomic<bool>*, bool*, double*) {
    throw std::runtime_error(kNoCuda);
}

CudaTuning default_cuda_tuning(Precision) { return {}; }

FrameStats direct_cuda_tuned(const View&, Precision, const Shortcuts&, const PaletteTable&, PixelRect, uint8_t*, float*,
                             const CudaTuning&) {
    throw std::runtime_error(kNoCuda);
}

FrameStats direct_cuda_tuned_to_host(const View&, Precision, const Shortcuts&, const PaletteTable&, PixelRect, uint8_t*,
                                     float*, const CudaTuning&) {
    throw std::runtime_error(kNoCuda);
}

}  // namespace ms
