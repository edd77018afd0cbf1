// deep_cuda.cu: the deep frame on CUDA (see deep_cuda.h). Host part: setup and BLA (shared with
// the CPU path), device buffers, one launch, copies back. Device part: one thread per pixel
// running deep_iterate_pixel, per-warp sums of the counters added atomically.
#include "compute/fractal/deep/deep_cuda.h"

#include <chrono>
#include <stdexcept>

#include "compute/fractal/deep/deep_perturbation.h"
#include "compute/fractal/mandelbrot.h"
#include "compute/system/cuda_check.h"

namespace ms {

namespace {

// ---------------------------------------------------------------------------------------------
// GPU kernel

struct DeviceCounters {
    unsigned long long iterations, bla_iterations, bla_skips, steps, rebases, escaped;
};

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

constexpr int kBlockWidth = 16;
constexpr int kBlockHeight = 8;  // 128 threads: 4 warps, each two rows of 16 pixels

// One instantiation per number type, formula (formula.h), plane (kJulia), rebasing and distance
// estimate (kDistance: into `distance`, else unused). W, w_last and bla_w are a Julia set's
// critical orbit and its table (unused elsewhere).
template <typename T, bool kRebase, Formula F, bool kJulia, bool kDistance>
__global__ void deep_pixels_kernel(const DeepComplex<T>* Z, int64_t last_index, BlaView<T, DeepBlaLinear<F, T>> bla,
                                   const DeepComplex<T>* W, int64_t w_last, BlaView<T, DeepBlaLinear<F, T>> bla_w,
                                   DeepComplex<T> offset, T spacing, int width, int height,
                                   int64_t max_iterations, int64_t* counts, double* mu, float* distance,
                                   DeviceCounters* totals) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    DeepPixelCounters c;
    if (x < width && y < height) {
        // The same expressions as the CPU loop (deep_cpu.cpp), so the same dc bit for bit.
        const T dy = deep_from_double<T>(-(y + 0.5 - 0.5 * height)) * spacing;
        const T dx = deep_from_double<T>(x + 0.5 - 0.5 * width) * spacing;
        const DeepComplex<T> dc{offset.re + dx, offset.im + dy};
        const size_t i = size_t(y) * size_t(width) + size_t(x);
        double pixel_mu;
        if constexpr (kDistance)
            counts[i] = deep_iterate_pixel<T, kRebase, F, kJulia, true>(Z, last_index, bla, dc, max_iterations,
                                                                        &pixel_mu, c, W, w_last, &bla_w,
                                                                        DeepDistanceOutput<T>{spacing, distance + i});
        else
            counts[i] = deep_iterate_pixel<T, kRebase, F, kJulia>(Z, last_index, bla, dc, max_iterations, &pixel_mu,
                                                                  c, W, w_last, &bla_w);
        mu[i] = pixel_mu;
    }
    // Every thread of the block reaches here (no early return): full-warp shuffles are safe.
    unsigned long long sums[6] = {warp_sum(c.iterations), warp_sum(c.bla_iterations),
                                  warp_sum(c.bla_skips),  warp_sum(c.steps),
                                  warp_sum(c.rebases),    warp_sum(c.escaped)};
    if ((threadIdx.y * blockDim.x + threadIdx.x) % 32 == 0) {
        atomicAdd(&totals->iterations, sums[0]);
        atomicAdd(&totals->bla_iterations, sums[1]);
        atomicAdd(&totals->bla_skips, sums[2]);
        atomicAdd(&totals->steps, sums[3]);
        atomicAdd(&totals->rebases, sums[4]);
        atomicAdd(&totals->escaped, sums[5]);
    }
}

// ---------------------------------------------------------------------------------------------
// Launcher

// A device allocation freed on scope exit (also when a CUDA_CHECK throws).
template <typename T>
struct DeviceArray {
    T* ptr = nullptr;
    explicit DeviceArray(size_t count) { CUDA_CHECK(cudaMalloc(&ptr, (count ? count : 1) * sizeof(T))); }
    ~DeviceArray() { cudaFree(ptr); }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;
};

struct EventPair {
    cudaEvent_t start = nullptr, stop = nullptr;
    EventPair() {
        CUDA_CHECK(cudaEventCreate(&start));
        CUDA_CHECK(cudaEventCreate(&stop));
    }
    ~EventPair() {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
    }
};

template <typename T, Formula F, bool kJulia, bool kRebase, bool kDistance = false>
void render_pixels_cuda(const DeepLocation& location, const DeepFrameSetup& setup,
                        const DeepRenderOptions& options, DeepFrame* frame) {
    using L = DeepBlaLinear<F, T>;
    DeepFrameStats& stats = frame->stats;
    std::shared_ptr<const BlaTable<T, L>> table, critical_table;  // null with BLA off
    if (!deep_frame_bla(setup, options, &table, &critical_table, &stats)) return;
    const size_t table_size = table ? table->entries.size() : 0;
    const size_t critical_table_size = critical_table ? critical_table->entries.size() : 0;
    if (options.cancel && options.cancel->load()) {
        stats.cancelled = true;
        return;
    }
    const ReferenceOrbit& orbit = *setup.orbit;
    const size_t orbit_size = orbit.z.size();
    // Everything below runs in order on one stream: the caller's, or the default one.
    const cudaStream_t stream = static_cast<cudaStream_t>(options.cuda_stream);
    const size_t pixels = size_t(frame->width) * size_t(frame->height);

    DeviceArray<DeepComplex<T>> z_device(orbit_size);
    CUDA_CHECK(cudaMemcpyAsync(z_device.ptr, deep_orbit_data<T>(orbit), orbit_size * sizeof(DeepComplex<T>),
                               cudaMemcpyHostToDevice, stream));
    DeviceArray<BlaStep<T, L>> bla_device(table_size);
    BlaView<T, L> bla{};
    if (table_size) {
        CUDA_CHECK(cudaMemcpyAsync(bla_device.ptr, table->entries.data(), table_size * sizeof(BlaStep<T, L>),
                                   cudaMemcpyHostToDevice, stream));
        bla = bla_view(table.get());
        bla.entries = bla_device.ptr;
    }
    // A Julia set's critical orbit and its table (one-element placeholders elsewhere).
    const size_t critical_size = orbit.critical_z.size();
    DeviceArray<DeepComplex<T>> w_device(critical_size);
    if (critical_size)
        CUDA_CHECK(cudaMemcpyAsync(w_device.ptr, deep_critical_data<T>(orbit), critical_size * sizeof(DeepComplex<T>),
                                   cudaMemcpyHostToDevice, stream));
    DeviceArray<BlaStep<T, L>> bla_w_device(critical_table_size);
    BlaView<T, L> bla_w{};
    if (critical_table_size) {
        CUDA_CHECK(cudaMemcpyAsync(bla_w_device.ptr, critical_table->entries.data(),
                                   critical_table_size * sizeof(BlaStep<T, L>), cudaMemcpyHostToDevice, stream));
        bla_w = bla_view(critical_table.get());
        bla_w.entries = bla_w_device.ptr;
    }
    DeviceArray<int64_t> counts_device(pixels);
    DeviceArray<double> mu_device(pixels);
    DeviceArray<float> distance_device(kDistance ? pixels : 0);
    DeviceArray<DeviceCounters> totals_device(1);
    CUDA_CHECK(cudaMemsetAsync(totals_device.ptr, 0, sizeof(DeviceCounters), stream));

    const T spacing = deep_from_floatexp<T>(setup.spacing);
    const DeepComplex<T> offset{deep_from_floatexp<T>(setup.offset.re), deep_from_floatexp<T>(setup.offset.im)};
    const dim3 block(kBlockWidth, kBlockHeight);
    const dim3 grid((frame->width + kBlockWidth - 1) / kBlockWidth,
                    (frame->height + kBlockHeight - 1) / kBlockHeight);
    EventPair events;
    CUDA_CHECK(cudaEventRecord(events.start, stream));
    const int64_t w_last = orbit.critical_last_index();
    deep_pixels_kernel<T, kRebase, F, kJulia, kDistance><<<grid, block, 0, stream>>>(
        z_device.ptr, orbit.last_index(), bla, w_device.ptr, w_last, bla_w, offset, spacing, frame->width,
        frame->height, location.max_iterations, counts_device.ptr, mu_device.ptr, distance_device.ptr,
        totals_device.ptr);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaEventRecord(events.stop, stream));
    CUDA_CHECK(cudaEventSynchronize(events.stop));
    float kernel_ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&kernel_ms, events.start, events.stop));
    stats.pixels_ms = kernel_ms;

    CUDA_CHECK(cudaMemcpyAsync(frame->escape_count.data(), counts_device.ptr, pixels * sizeof(int64_t),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(frame->mu.data(), mu_device.ptr, pixels * sizeof(double), cudaMemcpyDeviceToHost,
                               stream));
    if constexpr (kDistance)
        CUDA_CHECK(cudaMemcpyAsync(frame->distance.data(), distance_device.ptr, pixels * sizeof(float),
                                   cudaMemcpyDeviceToHost, stream));
    DeviceCounters totals{};
    CUDA_CHECK(cudaMemcpyAsync(&totals, totals_device.ptr, sizeof totals, cudaMemcpyDeviceToHost, stream));
    // Host memory is read below, and the device arrays are freed on return: wait for the stream.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    stats.iterations = totals.iterations;
    stats.bla_iterations = totals.bla_iterations;
    stats.bla_skips = totals.bla_skips;
    stats.perturbation_steps = totals.steps;
    stats.rebases = totals.rebases;
    stats.escaped_pixels = totals.escaped;
}

}  // namespace

DeepCudaStream::~DeepCudaStream() {
    if (stream_) cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void* DeepCudaStream::get() {
    if (!stream_) {
        std::string reason;
        if (!cuda_available(&reason)) throw std::runtime_error("The deep CUDA path cannot run: " + reason + ".");
        cudaStream_t stream = nullptr;
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        stream_ = stream;
    }
    return stream_;
}

DeepFrame deep_cuda(const DeepLocation& location, int width, int height, const DeepRenderOptions& options) {
    std::string reason;
    if (!cuda_available(&reason)) throw std::runtime_error("The deep CUDA path cannot run: " + reason + ".");
    auto start = std::chrono::steady_clock::now();
    DeepFrame frame;
    DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    if (setup.orbit) {
        const bool is_double = frame.stats.number_type == DeepNumberType::Double;
        if (!options.rebase) {  // Mandelbrot only (deep_frame_setup checked)
            if (is_double) render_pixels_cuda<double, Formula::Mandelbrot, false, false>(location, setup, options, &frame);
            else render_pixels_cuda<FloatExp, Formula::Mandelbrot, false, false>(location, setup, options, &frame);
        } else if (options.distance) {  // Mandelbrot's parameter plane only (deep_frame_setup checked)
            if (is_double)
                render_pixels_cuda<double, Formula::Mandelbrot, false, true, true>(location, setup, options, &frame);
            else
                render_pixels_cuda<FloatExp, Formula::Mandelbrot, false, true, true>(location, setup, options, &frame);
        } else {
            deep_dispatch_formula(setup.map, [&]<Formula F, bool kJulia>() {
                if (is_double) render_pixels_cuda<double, F, kJulia, true>(location, setup, options, &frame);
                else render_pixels_cuda<FloatExp, F, kJulia, true>(location, setup, options, &frame);
            });
        }
    }
    frame.stats.frame_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return frame;
}

}  // namespace ms
