// cuda_floor: the CUDA driver's own cost to a process, the floor under any CUDA command's wall
// time: cuInit, each device's primary context made current and one allocation (the devices
// side by side, one thread each, as mandelscope starts them), then the exit, where the driver
// releases the contexts. It prints the first two as a `time` line; process_times.py measures the
// whole process and the exit after that line, beside mandelscope:
//   python3 tests/gpu/process_times.py build/bin/cuda_floor,build/bin/mandelscope 7 "render --size=16x16 --backend=cuda -o a.png"
// (cuda_floor ignores its arguments). CUDA_FLOOR_DEVICES=N starts N devices (default 1; 0: every
// visible one). CUDA_FLOOR_RELEASE=1 releases each context on its thread before the last line
// (cuDevicePrimaryCtxReset), and the line gives that time too. Exit status: 0, or 1 to 3 for the
// call that failed.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

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
    int visible = 0;
    cuDeviceGetCount(&visible);
    const char* wanted = std::getenv("CUDA_FLOOR_DEVICES");
    int devices = wanted ? std::atoi(wanted) : 1;
    if (devices <= 0 || devices > visible) devices = visible;
    const bool release = std::getenv("CUDA_FLOOR_RELEASE") && std::atoi(std::getenv("CUDA_FLOOR_RELEASE")) != 0;
    std::vector<int> status(size_t(devices), 0);
    std::vector<std::thread> threads;
    for (int d = 0; d < devices; ++d)
        threads.emplace_back([&, d] {
            CUdevice device;
            CUcontext context;
            if (cuDeviceGet(&device, d) != CUDA_SUCCESS || cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS ||
                cuCtxSetCurrent(context) != CUDA_SUCCESS) {
                status[size_t(d)] = 2;
                return;
            }
            CUdeviceptr bytes;
            if (cuMemAlloc(&bytes, 256) != CUDA_SUCCESS) status[size_t(d)] = 3;
        });
    for (std::thread& t : threads) t.join();
    const auto ready = Clock::now();
    if (int failed = *std::max_element(status.begin(), status.end()); failed != 0) {
        std::fprintf(stderr, "cuda_floor: %s\n",
                     failed == 2 ? "a device's context could not be made" : "an allocation of 256 bytes failed");
        return failed;
    }
    double release_ms = 0.0;
    if (release) {
        threads.clear();
        for (int d = 0; d < devices; ++d)
            threads.emplace_back([d] {
                CUdevice device;
                if (cuDeviceGet(&device, d) == CUDA_SUCCESS) cuDevicePrimaryCtxReset(device);
            });
        for (std::thread& t : threads) t.join();
        release_ms = ms(ready, Clock::now());
    }
    std::printf("time       cuInit %.1f ms, %d %s and one allocation each %.1f ms", ms(start, initialised), devices,
                devices == 1 ? "device's context" : "devices' contexts", ms(initialised, ready));
    if (release) std::printf(", their release %.1f ms", release_ms);
    std::printf("\n");
    std::fflush(stdout);
    return 0;
}
