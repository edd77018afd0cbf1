// cuda_floor: the CUDA driver's own cost to a process, the floor under any CUDA command's wall
// time: cuInit, the first device's primary context made current and one allocation, then the
// exit, where the driver releases the context. It prints the first two as a `time` line;
// process_times.py measures the whole process and the exit after that line, beside mandelscope:
//   python3 tests/gpu/process_times.py build/bin/cuda_floor,build/bin/mandelscope 7 "render --size=16x16 --backend=cuda -o a.png"
// (cuda_floor ignores its arguments). Exit status: 0, or 1 to 3 for the call that failed.
#include <cuda.h>

#include <chrono>
#include <cstdio>

int main() {
    using Clock = std::chrono::steady_clock;
    const auto ms = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    const auto start = Clock::now();
    if (cuInit(0) != CUDA_SUCCESS) {
        std::fprintf(stderr, "cuda_floor: cuInit failed (no driver or no device)\n");
        return 1;
    }
    const auto initialised = Clock::now();
    CUdevice device;
    CUcontext context;
    if (cuDeviceGet(&device, 0) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
        cuCtxSetCurrent(context) != CUDA_SUCCESS) {
        std::fprintf(stderr, "cuda_floor: the first device's context could not be made\n");
        return 2;
    }
    CUdeviceptr bytes;
    if (cuMemAlloc(&bytes, 256) != CUDA_SUCCESS) {
        std::fprintf(stderr, "cuda_floor: an allocation of 256 bytes failed\n");
        return 3;
    }
    const auto ready = Clock::now();
    std::printf("time       cuInit %.1f ms, the context and one allocation %.1f ms\n", ms(start, initialised),
                ms(initialised, ready));
    std::fflush(stdout);
    return 0;
}
