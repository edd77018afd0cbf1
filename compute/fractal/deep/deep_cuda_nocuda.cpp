// deep_cuda_nocuda.cpp: the CPU-only build's deep_cuda: it says why it cannot run.
#include <stdexcept>

#include "compute/fractal/deep/deep_cuda.h"

namespace ms {

DeepFrame deep_cuda(const DeepLocation&, int, int, const DeepRenderOptions&) {
    throw std::runtime_error(
        "The deep CUDA path is not available: this Mandelscope was built without CUDA (no nvcc at build time).");
}

DeepRingsFrame deep_cuda_rings(const DeepLocation&, int, int, const DeepRings&, const DeepRenderOptions&) {
    throw std::runtime_error(
        "The deep CUDA path is not available: this Mandelscope was built without CUDA (no nvcc at build time).");
}

void deep_cuda_free_device_copies() {}

DeepCudaStream::~DeepCudaStream() = default;

void* DeepCudaStream::get(int) {
    throw std::runtime_error(
        "The deep CUDA path is not available: this Mandelscope was built without CUDA (no nvcc at build time).");
}

}  // namespace ms
