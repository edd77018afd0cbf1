// cuda_info_nocuda.cpp: the CPU-only build's answer to "which CUDA devices are there?".
#include "compute/system/cuda_info.h"
#include "compute/system/cuda_start.h"

namespace ms {

CudaSystemInfo query_cuda_system() {
    CudaSystemInfo info;
    info.reason = kCudaNotBuiltReason;
    return info;
}

std::string cuda_unavailable_reason() { return kCudaNotBuiltReason; }

int cuda_fp32_lanes_per_sm(int, int) { return 0; }
int cuda_fp64_lanes_per_sm(int, int) { return 0; }
int64_t cuda_device_memory_used_bytes() { return -1; }

void cuda_start_in_background() {}
void cuda_finish_background_work() {}
void cuda_release_devices_in_background(const std::vector<int>&) {}
bool cuda_device_released(int) { return false; }

bool cuda_device_present(std::string* reason) {
    if (reason) *reason = kCudaNotBuiltReason;
    return false;
}

bool cuda_available(std::string* reason) {
    if (reason) *reason = kCudaNotBuiltReason;
    return false;
}

}  // namespace ms
