// video_device_cuda.cu: the device-to-host copy of a frame coloured on the GPU (video_device.h).
#include "compute/system/cuda_check.h"
#include "compute/video/video_device.h"

namespace ms {

void copy_device_to_host(uint8_t* host, const uint8_t* device, size_t bytes, void* stream) {
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
}

}  // namespace ms
