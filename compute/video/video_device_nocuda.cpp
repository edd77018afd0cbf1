// video_device_nocuda.cpp: the CPU-only build's device copy: it says why it cannot run (the
// frame sources never ask for it without CUDA).
#include <stdexcept>
#include <string>

#include "compute/video/video_device.h"

namespace ms {

void copy_device_to_host(uint8_t*, const uint8_t*, size_t, void*) {
    throw std::runtime_error(
        "A video frame cannot come back from a GPU: this Mandelscope was built without CUDA (no nvcc at build time).");
}

VideoDeviceScope::VideoDeviceScope(int device) {
    if (device >= 0)
        throw std::runtime_error("CUDA device " + std::to_string(device) +
                                 " cannot be used: this Mandelscope was built without CUDA (no nvcc at build time).");
}

VideoDeviceScope::~VideoDeviceScope() = default;

}  // namespace ms
