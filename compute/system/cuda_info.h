// cuda_info.h: what CUDA reports about this machine's devices, in plain structs, or in words
// why no device can be used (no driver, no device, driver too old, built without CUDA).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ms {

struct CudaDeviceInfo {
    int index = 0;
    std::string name;
    int compute_major = 0;
    int compute_minor = 0;
    int sm_count = 0;
    int fp32_lanes_per_sm = 0;  // derived from the compute capability
    int fp64_lanes_per_sm = 0;  // likewise
    int clock_khz = 0;          // SM clock
    int memory_clock_khz = 0;
    int memory_bus_width_bits = 0;
    uint64_t total_memory_bytes = 0;
    int l2_cache_bytes = 0;
    int max_threads_per_sm = 0;
    double memory_bytes_per_second = 0.0;  // theoretical: 2 * memory clock * bus width / 8
    // Every cudaDeviceAttr value, as (name, value), the way PyCUDA's get_attributes() lists them.
    std::vector<std::pair<std::string, int>> attributes;
};

struct CudaSystemInfo {
    bool usable = false;
    std::string reason;       // why not usable, in words; empty when usable
    int driver_version = 0;   // e.g. 13000 for 13.0; 0 when no driver
    int runtime_version = 0;  // the runtime this binary was built with
    std::vector<CudaDeviceInfo> devices;
};

CudaSystemInfo query_cuda_system();

// Why no CUDA device can be used, in the words every mode prints (render, cnn, vecadd, the
// window, info): "" when one can. A missing driver is said once, in one clause.
std::string cuda_unavailable_reason();
// Is a CUDA device usable, with code in this binary that it can run? On false, `reason` says
// why in words ("built without CUDA", "no NVIDIA driver", "no CUDA device", "driver too old for
// this runtime", "the device cannot run this program's kernels", ...).
bool cuda_available(std::string* reason);
inline constexpr const char* kCudaNotBuiltReason =
    "this Mandelscope was built without CUDA (no nvcc at build time, or MANDELSCOPE_ENABLE_CUDA=OFF)";

// FP32 and FP64 lanes per SM for a compute capability (0 when unknown).
int cuda_fp32_lanes_per_sm(int major, int minor);

// Bytes of the current device's memory in use (total - free, as cudaMemGetInfo reports it: every
// process's allocations and the context). -1 without a usable device. Soak tests compare it
// before and after a soak run to see that nothing leaks.
int64_t cuda_device_memory_used_bytes();
int cuda_fp64_lanes_per_sm(int major, int minor);

}  // namespace ms
