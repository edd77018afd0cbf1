// colour_pass_cuda.cu: the colour pass on CUDA (colour_pass_cuda.h): the histogram and
// its CDF, and the per-pixel colour kernel.
#include <cuda_runtime.h>

#include "compute/fractal/colour/colour_pass_cuda.h"
#include "compute/system/cuda_check.h"

namespace ms {

namespace {

constexpr size_t kHistogramSharedBytes = kHistogramBins * sizeof(unsigned int);

__global__ void histogram_kernel(const float* mu, long long count, float bins_per_log2, unsigned long long* counts) {
    extern __shared__ unsigned int local[];  // kHistogramBins counters: 64 KiB, above the static 48 KiB
    for (int i = threadIdx.x; i < kHistogramBins; i += blockDim.x) local[i] = 0;
    __syncthreads();
    // Whole warps run every round (the bound is rounded up to the grid's stride), so that the lanes
    // of a warp which fall in the same bin add once: most of a frame's pixels share a few bins (the
    // first escape counts), and 32 shared-memory atomics on one address run one after another.
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long rounds_end = (count + stride - 1) / stride * stride;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < rounds_end; i += stride) {
        const float m = i < count ? mu[i] : -1.0f;
        int bin = -1;
        if (m >= 0.0f) {
            // The bin histogram_rank() reads: the same float arithmetic as colouring.cpp's pass.
            bin = int(log2f(1.0f + m) * bins_per_log2);
            bin = bin < 0 ? 0 : bin >= kHistogramBins ? kHistogramBins - 1 : bin;
        }
        const unsigned same = __match_any_sync(0xffffffffu, bin);
        if (bin >= 0 && (threadIdx.x % 32) == unsigned(__ffs(same) - 1)) atomicAdd(&local[bin], unsigned(__popc(same)));
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kHistogramBins; i += blockDim.x)
        if (local[i]) atomicAdd(&counts[i], (unsigned long long)local[i]);
}

// The counts to the CDF on the device, as histogram_cdf_from_counts() does on the host (the same
// integer sums, the same double division rounded to float), so the frame needs no round trip to
// the host between the histogram and the colour pass. One block of kCdfThreads threads, each
// owning kHistogramBins / kCdfThreads consecutive bins: their sum, an exclusive scan of the sums
// over the block, then each thread's bins.
constexpr int kCdfThreads = 1024;
constexpr int kCdfBinsPerThread = kHistogramBins / kCdfThreads;
static_assert(kHistogramBins % kCdfThreads == 0, "the CDF kernel splits the bins evenly");

__global__ void __launch_bounds__(kCdfThreads) histogram_cdf_kernel(const unsigned long long* counts, float* cdf) {
    __shared__ unsigned long long warp_sums[kCdfThreads / 32];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int first = t * kCdfBinsPerThread;
    unsigned long long mine = 0;
    for (int j = 0; j < kCdfBinsPerThread; ++j) mine += counts[first + j];
    // Inclusive scan within the warp, then over the warps' totals.
    unsigned long long scan = mine;
    for (int offset = 1; offset < 32; offset <<= 1) {
        const unsigned long long other = __shfl_up_sync(0xffffffffu, scan, offset);
        if (lane >= offset) scan += other;
    }
    if (lane == 31) warp_sums[warp] = scan;
    __syncthreads();
    if (warp == 0) {
        unsigned long long w = warp_sums[lane];  // kCdfThreads / 32 == 32 warps
        for (int offset = 1; offset < 32; offset <<= 1) {
            const unsigned long long other = __shfl_up_sync(0xffffffffu, w, offset);
            if (lane >= offset) w += other;
        }
        warp_sums[lane] = w;  // inclusive: warp_sums[31] is the total
    }
    __syncthreads();
    const unsigned long long total = warp_sums[31];
    unsigned long long below = (warp > 0 ? warp_sums[warp - 1] : 0ull) + scan - mine;
    for (int j = 0; j < kCdfBinsPerThread; ++j) {
        cdf[first + j] = total == 0 ? 0.0f : float(double(below) / double(total));
        below += counts[first + j];
    }
    if (t == 0) cdf[kHistogramBins] = total == 0 ? 0.0f : 1.0f;
}
static_assert(kCdfThreads / 32 == 32, "the CDF kernel's second scan is one warp over 32 warp sums");

__global__ void colour_kernel(ColourParams p, const float* mu, const float* distance, const float* stripe,
                              const float* period, const float* atom, int width, int height, uint32_t* rgba) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;
    const size_t i = size_t(y) * width + x;
    float gx = 0.0f, gy = 0.0f;
    if (p.slopes && mu[i] >= 0.0f) mu_gradient(mu, width, height, x, y, &gx, &gy);
    rgba[i] = colour_pixel(p, mu[i], gx, gy, distance ? distance[i] : 0.0f, stripe ? stripe[i] : 0.0f,
                           period ? period[i] : 0.0f, atom ? atom[i] : 0.0f);
}

}  // namespace

float launch_histogram_cdf(const float* mu, int64_t count, int64_t max_iterations, unsigned long long* counts,
                           float* cdf, void* stream) {
    auto s = static_cast<cudaStream_t>(stream);
    // 64 KiB of dynamic shared memory: above the 48 KiB a kernel gets without asking (once per
    // device would do; the attribute is cheap to set).
    CUDA_CHECK(cudaFuncSetAttribute(histogram_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(kHistogramSharedBytes)));
    CUDA_CHECK(cudaMemsetAsync(counts, 0, kHistogramBins * sizeof(unsigned long long), s));
    const float bins_per_log2 = float(histogram_bins_per_log2(max_iterations));
    histogram_kernel<<<264, 512, kHistogramSharedBytes, s>>>(mu, (long long)count, bins_per_log2, counts);
    CUDA_CHECK_LAUNCH();
    histogram_cdf_kernel<<<1, kCdfThreads, 0, s>>>(counts, cdf);
    CUDA_CHECK_LAUNCH();
    return bins_per_log2;  // what histogram_cdf_from_counts() gives
}

void launch_colour_pass(const ColourParams& p, const float* mu, const float* distance, const float* stripe,
                        const float* period, const float* atom, int width, int height, uint32_t* rgba, void* stream) {
    const dim3 block(32, 8);
    const dim3 grid((width + 31) / 32, (height + 7) / 8);
    colour_kernel<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(p, mu, distance, stripe, period, atom, width,
                                                                         height, rgba);
    CUDA_CHECK_LAUNCH();
}

}  // namespace ms
