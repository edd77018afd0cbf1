// video_device_cuda.cu: the device-to-host copy of a frame coloured on the GPU, and a renderer's
// device (video_device.h).
#include <string>

#include "compute/system/cuda_check.h"
#include "compute/video/video_device.h"

namespace ms {

void copy_device_to_host(uint8_t* host, const uint8_t* device, size_t bytes, void* stream) {
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
}

VideoDeviceScope::VideoDeviceScope(int device) {
    if (device < 0) return;
    int current = 0;
    CUDA_CHECK(cudaGetDevice(&current));
    if (current == device) return;
    if (const cudaError_t err = cudaSetDevice(device); err != cudaSuccess)
        throw std::runtime_error("CUDA device " + std::to_string(device) + " cannot be used: " +
                                 cudaGetErrorString(err));
    previous_ = current;
}

VideoDeviceScope::~VideoDeviceScope() {
    if (previous_ >= 0) cudaSetDevice(previous_);  // errors ignored: it may run while unwinding
}

}  // namespace ms
