// cuda_check.h: error checking for CUDA runtime calls, for .cu files only.
// CUDA_CHECK(expr) throws std::runtime_error carrying the call, file, line and CUDA's own
// message, so a failure reaches the user as a sentence rather than a black frame.
// CUDA_CHECK_LAUNCH() follows every kernel launch (launch errors are only reported by
// cudaGetLastError()). Device memory is allocated through cuda_malloc(), the fault-injection
// seam of compute/system/fault_injection.h (as is CUDA_CHECK_LAUNCH).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "compute/system/fault_injection.h"

namespace ms {

// cudaMalloc, or cudaErrorMemoryAllocation when a test injects that fault.
template <typename T>
cudaError_t cuda_malloc(T** pointer, std::size_t bytes) {
    if (fault_injected(Fault::CudaMalloc)) return cudaErrorMemoryAllocation;
    return cudaMalloc(pointer, bytes);
}

// cudaMallocAsync from the device's memory pool in `stream`'s order (microseconds once the pool
// holds the memory, where cudaMalloc of tens of MB maps it anew), or cudaErrorMemoryAllocation when
// a test injects that fault. Free with cudaFreeAsync.
template <typename T>
cudaError_t cuda_malloc_async(T** pointer, std::size_t bytes, cudaStream_t stream) {
    if (fault_injected(Fault::CudaMalloc)) return cudaErrorMemoryAllocation;
    return cudaMallocAsync(reinterpret_cast<void**>(pointer), bytes, stream);
}

// The launch status (cudaGetLastError), or a launch failure when a test injects one.
inline cudaError_t cuda_launch_status() {
    if (fault_injected(Fault::KernelLaunch)) return cudaErrorLaunchOutOfResources;
    return cudaGetLastError();
}

// Makes `device` the calling thread's current device for a scope and gives the thread back the
// one it had. -1, or the device already current: nothing changes. Errors are ignored (it also
// runs in destructors, at exit): a caller that must know checks the device beforehand.
class CudaDeviceScope {
public:
    explicit CudaDeviceScope(int device) {
        if (device < 0 || cudaGetDevice(&previous_) != cudaSuccess || previous_ == device) return;
        moved_ = cudaSetDevice(device) == cudaSuccess;
    }
    ~CudaDeviceScope() {
        if (moved_) cudaSetDevice(previous_);
    }
    CudaDeviceScope(const CudaDeviceScope&) = delete;
    CudaDeviceScope& operator=(const CudaDeviceScope&) = delete;

private:
    int previous_ = -1;
    bool moved_ = false;
};

[[noreturn]] inline void cuda_fail(cudaError_t err, const char* expr, const char* file, int line) {
    throw std::runtime_error(std::string("CUDA error: ") + cudaGetErrorString(err) + " (" + cudaGetErrorName(err) +
                             ") in " + expr + " at " + file + ":" + std::to_string(line));
}

}  // namespace ms

#define CUDA_CHECK(expr)                                                                                 \
    do {                                                                                                 \
        cudaError_t cuda_check_err_ = (expr);                                                            \
        if (cuda_check_err_ != cudaSuccess) ::ms::cuda_fail(cuda_check_err_, #expr, __FILE__, __LINE__); \
    } while (0)

#define CUDA_CHECK_LAUNCH() CUDA_CHECK(::ms::cuda_launch_status())

namespace ms {

// `count` Ts of device memory (at least one), allocated through cuda_malloc and freed with the
// object.
template <typename T>
struct CudaArray {
    T* ptr = nullptr;
    explicit CudaArray(std::size_t count) { CUDA_CHECK(cuda_malloc(&ptr, (count > 0 ? count : 1) * sizeof(T))); }
    ~CudaArray() { cudaFree(ptr); }
    CudaArray(const CudaArray&) = delete;
    CudaArray& operator=(const CudaArray&) = delete;
};

// The current device's T, made there on first use and kept for the process: state a file keeps
// between calls (buffers, events), one for each device, so that threads rendering on different
// devices at once (a video's renderers, compute/video/video_job.h) neither share it nor rebuild
// it for each other. T guards itself against two threads of one device.
template <typename T>
T& current_device_state() {
    static std::mutex mutex;
    static std::map<int, std::unique_ptr<T>> states;
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<T>& state = states[device];
    if (!state) state = std::make_unique<T>();
    return *state;
}

}  // namespace ms
