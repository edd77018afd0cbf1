// direct_cuda_rings.cu: direct points on rings on CUDA (direct_cpu_rings.h), the exponential
// map's shallow strips when the video renders on the GPU. One thread a point runs
// direct_point-inl.h's iterate_point, the CPU's loop; the unit circle's points come from the host
// (the CPU's std::cos and std::sin), and the kernels are compiled without FMA contraction, so
// each point's c is the CPU's bit for bit.
#include "compute/fractal/direct/direct_cpu_rings.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fractal/direct/direct_point-inl.h"
#include "compute/system/cuda_check.h"
#include "compute/system/cuda_info.h"

namespace ms {

namespace {

constexpr double kTwoPi = 6.283185307179586;
constexpr int kThreads = 128;
// Rings a launch: cancel is checked between launches (a shallow strip's ring of thousands of
// points at up to millions of iterations each takes milliseconds).
constexpr int kRingsPerLaunch = 32;

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Rings first_ring .. first_ring + gridDim.y - 1; x from the block's columns. The CPU's
// expressions (direct_cpu_rings.cpp's rings_of), in the same order.
template <Formula F>
__global__ void rings_kernel(double cr, double ci, double julia_r, double julia_i, bool julia, bool shapes,
                             const double* radius, const double* cos_x, const double* sin_x, int columns,
                             int first_ring, int max_iterations, float* mu_out, unsigned long long* iterations) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = first_ring + int(blockIdx.y);
    uint64_t count = 0;
    if (x < columns) {
        const double r = radius[y];
        const double pr = cr + r * cos_x[x], pi = ci + r * sin_x[x];
        float mu = kInteriorMu;
        if (julia) mu = iterate_point<F, double>(pr, pi, julia_r, julia_i, max_iterations, true, &count);
        else if (!(shapes && in_cardioid_or_period2_bulb(pr, pi)))
            mu = iterate_point<F, double>(0.0, 0.0, pr, pi, max_iterations, true, &count);
        mu_out[size_t(y) * size_t(columns) + size_t(x)] = mu;
    }
    // Every thread reaches here: full-warp shuffles are safe.
    const unsigned long long sum = warp_sum(count);
    if (threadIdx.x % 32 == 0) atomicAdd(iterations, sum);
}

template <Formula F>
uint64_t rings_on_device(const View& view, const DirectRings& rings, float* mu_out, const std::atomic<bool>* cancel,
                         bool* cancelled, double* kernel_ms) {
    const int columns = rings.columns;
    const int count = int(rings.radius.size());
    std::vector<double> cos_x(static_cast<size_t>(columns)), sin_x(static_cast<size_t>(columns));
    for (int x = 0; x < columns; ++x) {
        cos_x[size_t(x)] = std::cos(kTwoPi * (x + 0.5) / columns);
        sin_x[size_t(x)] = std::sin(kTwoPi * (x + 0.5) / columns);
    }
    const size_t points = size_t(count) * size_t(columns);
    CudaArray<double> radius_d{size_t(count)}, cos_d{size_t(columns)}, sin_d{size_t(columns)};
    CudaArray<float> mu_d{points};
    CudaArray<unsigned long long> iterations_d{1};
    CUDA_CHECK(cudaMemcpy(radius_d.ptr, rings.radius.data(), size_t(count) * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(cos_d.ptr, cos_x.data(), size_t(columns) * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(sin_d.ptr, sin_x.data(), size_t(columns) * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(iterations_d.ptr, 0, sizeof(unsigned long long)));
    const double cr = center_re_value(view), ci = center_im_value(view);
    const double julia_r = view.julia ? julia_re_value(view) : 0.0;
    const double julia_i = view.julia ? julia_im_value(view) : 0.0;
    const bool shapes = F == Formula::Mandelbrot && !view.julia;
    const int max_iterations = direct_iterations(view);
    const auto start = std::chrono::steady_clock::now();
    bool stopped = false;
    for (int first = 0; first < count; first += kRingsPerLaunch) {
        if (cancel && cancel->load(std::memory_order_relaxed)) {
            stopped = true;
            break;
        }
        const dim3 grid(unsigned((columns + kThreads - 1) / kThreads),
                        unsigned(std::min(kRingsPerLaunch, count - first)));
        rings_kernel<F><<<grid, kThreads>>>(cr, ci, julia_r, julia_i, view.julia, shapes, radius_d.ptr, cos_d.ptr,
                                            sin_d.ptr, columns, first, max_iterations, mu_d.ptr, iterations_d.ptr);
        CUDA_CHECK_LAUNCH();
        // Each launch finishes before cancel is checked again.
        CUDA_CHECK(cudaStreamSynchronize(nullptr));
    }
    if (kernel_ms)
        *kernel_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (cancelled) *cancelled = stopped;
    unsigned long long iterations = 0;
    CUDA_CHECK(cudaMemcpy(&iterations, iterations_d.ptr, sizeof iterations, cudaMemcpyDeviceToHost));
    if (!stopped) CUDA_CHECK(cudaMemcpy(mu_out, mu_d.ptr, points * sizeof(float), cudaMemcpyDeviceToHost));
    return iterations;
}

}  // namespace

uint64_t direct_cuda_rings(const View& view, const DirectRings& rings, float* mu_out, const std::atomic<bool>* cancel,
                           bool* cancelled, double* kernel_ms) {
    std::string reason;
    if (!cuda_available(&reason)) throw std::runtime_error("The direct CUDA rings cannot run: " + reason + ".");
    if (rings.columns < 1 || rings.radius.empty())
        throw std::invalid_argument("The rings must have at least one ring of at least one point.");
    switch (view.formula) {
    case Formula::Multibrot3:
        return rings_on_device<Formula::Multibrot3>(view, rings, mu_out, cancel, cancelled, kernel_ms);
    case Formula::Multibrot4:
        return rings_on_device<Formula::Multibrot4>(view, rings, mu_out, cancel, cancelled, kernel_ms);
    case Formula::Multibrot5:
        return rings_on_device<Formula::Multibrot5>(view, rings, mu_out, cancel, cancelled, kernel_ms);
    case Formula::Multibrot6:
        return rings_on_device<Formula::Multibrot6>(view, rings, mu_out, cancel, cancelled, kernel_ms);
    case Formula::Multibrot7:
        return rings_on_device<Formula::Multibrot7>(view, rings, mu_out, cancel, cancelled, kernel_ms);
    case Formula::Multibrot8:
        return rings_on_device<Formula::Multibrot8>(view, rings, mu_out, cancel, cancelled, kernel_ms);
    case Formula::BurningShip:
        return rings_on_device<Formula::BurningShip>(view, rings, mu_out, cancel, cancelled, kernel_ms);
    case Formula::Tricorn: return rings_on_device<Formula::Tricorn>(view, rings, mu_out, cancel, cancelled, kernel_ms);
    default: return rings_on_device<Formula::Mandelbrot>(view, rings, mu_out, cancel, cancelled, kernel_ms);
    }
}

}  // namespace ms
