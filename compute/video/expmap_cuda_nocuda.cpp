// expmap_cuda_nocuda.cpp: the CPU-only build's expmap reconstruction on the device: it says why
// it cannot run (the renderer asks for it only with ExpmapOptions::cuda).
#include <stdexcept>

#include "compute/video/expmap_cuda.h"

namespace ms {

struct ExpmapDevice::State {};

ExpmapDevice::ExpmapDevice() = default;
ExpmapDevice::~ExpmapDevice() = default;

void ExpmapDevice::reconstruct(const ExpmapReconstruction&, const std::map<int, std::vector<MipLevel>>&,
                               const std::vector<MipLevel>&, uint8_t*) {
    throw std::runtime_error(
        "The exponential map cannot reconstruct frames on a GPU: this Mandelscope was built without CUDA (no nvcc at "
        "build time).");
}

void ExpmapDevice::colour_levels(int, DeepDeviceFrame&, const PaletteTable&, const View&, int, int) {
    throw std::runtime_error(
        "The exponential map cannot colour strips on a GPU: this Mandelscope was built without CUDA (no nvcc at build "
        "time).");
}

void ExpmapDevice::upload_mu(DeepDeviceFrame&, const double*, int, int) {
    throw std::runtime_error(
        "The exponential map cannot colour strips on a GPU: this Mandelscope was built without CUDA (no nvcc at build "
        "time).");
}

std::shared_ptr<const ExpmapDeviceStrip> ExpmapDevice::share_strip(int) const {
    throw std::runtime_error(
        "The exponential map cannot share strips on a GPU: this Mandelscope was built without CUDA (no nvcc at build "
        "time).");
}

void ExpmapDevice::adopt_strip(int, const ExpmapDeviceStrip&) {
    throw std::runtime_error(
        "The exponential map cannot share strips on a GPU: this Mandelscope was built without CUDA (no nvcc at build "
        "time).");
}

}  // namespace ms
