// direct_cuda_features_nocuda.cpp: the CPU-only build's colouring entry points on CUDA:
// they say why they cannot run.
#include <stdexcept>

#include "compute/fractal/direct/coloured_frame.h"
#include "compute/system/cuda_info.h"

namespace ms {

FrameStats direct_features_cuda(const View&, Precision, const Shortcuts&, PixelRect, float*, const OrbitFeatureOutputs&,
                                bool) {
    throw std::runtime_error(kCudaNotBuiltReason);
}

FrameStats direct_distance_cuda(const View&, Precision, const Shortcuts&, PixelRect, float*, float*, uint32_t*,
                                const ColourParams*) {
    throw std::runtime_error(kCudaNotBuiltReason);
}

FrameStats render_coloured_cuda(const View&, Precision, const Shortcuts&, const PaletteTable&, PixelRect, double,
                                uint8_t*, float*) {
    throw std::runtime_error(kCudaNotBuiltReason);
}

FrameStats render_coloured_cuda_to_host(const View&, Precision, const Shortcuts&, const PaletteTable&, PixelRect,
                                        double, uint8_t*, float*) {
    throw std::runtime_error(kCudaNotBuiltReason);
}

}  // namespace ms
