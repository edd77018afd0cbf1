// direct_cuda.cu: the CUDA sibling of direct_cpu_reference. FP32 and FP64 kernels that
// write RGBA8 (coloured in-kernel) and optionally the smooth values, into device memory the
// caller passes: the window passes its mapped interop buffer.
//
// Layout, one file per concept (llm.c style):
//   direct_cuda_kernels-inl.h   shared device helpers, KernelParams, the passes' launchers
//   direct_cuda_tile.cu       phase 1, the tile kernel (and the naive baseline)
//   direct_cuda_survivors.cu  phase 2, the survivors' queue
//   direct_cuda.cu            this file: device state, one frame, the public API
//
// What the kernel computes is defined by direct_cpu_reference: z_0 = 0,
// z_{k+1} = z_k^2 + c, escape at the first k with |z_k|^2 > kBailoutRadius^2, k counted as the
// iterations the pixel cost; cardioid/bulb test in double on the precision-rounded c; periodicity
// by exact comparison with a saved orbit value (Brent). This file is compiled with --fmad=false
// (compute/CMakeLists.txt), so nvcc never contracts a*b+c on its own: the pixel centres
// (PixelGrid), the cardioid test and the default arithmetic round exactly as the host does, and
// every FMA below is written out on purpose.
//
// How it is fast (napkin math at direct_cuda_instructions_per_iteration):
//  * Phase 1, direct_kernel: one block per 32 x (8*rounds) tile; each warp takes compact 8x4
//    sub-tiles, so the 32 lanes of a warp are neighbours and mostly share their fate. Every pixel
//    gets S iterations tested one by one: most exterior pixels escape within a handful (the first
//    three tests are skipped where |c| is too small to escape that early). Pixels still running
//    after S go to a global queue.
//  * Phase 2, direct_survivors_kernel: a persistent grid shares the queue out in chunks and
//    refills a lane as soon as its pixel is done, so slow pixels fill whole warps on every SM.
//    (Were each tile's survivors kept inside its block, the few blocks holding the interior would
//    run long on a handful of SMs while the others idled.) Survivors run blocks of N steps with a
//    single escape test; on escape the lane redoes the block step by step from its saved start, so
//    k stays exact. A queue entry carries c as well as z, so a refill neither divides the pixel
//    index nor recomputes c in double.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "compute/fractal/direct/direct_cuda_kernels-inl.h"
#include "compute/system/cuda_info.h"

namespace ms {

namespace {

using namespace direct_cuda_detail;

// ---------------------------------------------------------------------------------------------
// Launchers

// Persistent state: device buffers kept between frames (resized only when they must grow), so a
// frame costs the kernels, one small memset and one small copy of the counters. One for each
// device (current_device_state).
struct CudaState {
    std::mutex mutex;
    int device = -1;
    int sm_count = 0;
    uint32_t* palette = nullptr;           // kExpandedPaletteSize entries
    std::vector<uint32_t> palette_source;  // the table it was made from (+ interior colour)
    unsigned long long* counters = nullptr;
    unsigned long long* host_counters = nullptr;  // pinned
    cudaEvent_t start = nullptr, stop = nullptr;
    int* queue_pixel = nullptr;  // the survivors' queue, room for queue_pixels entries
    void* queue_cr = nullptr;    // 8 bytes per entry, enough for either precision
    void* queue_ci = nullptr;
    void* queue_zr = nullptr;
    void* queue_zi = nullptr;
    size_t queue_pixels = 0;
    // The distance instantiation's derivative of each survivor, by pixel (KernelParams::queue_d*):
    // made at the first frame with a distance, for the Jacobian's second column only where the
    // formula needs it (Burning Ship, Tricorn).
    void* queue_d[4] = {nullptr, nullptr, nullptr, nullptr};  // dzr, dzi, dxr, dxi
    size_t queue_d_pixels[4] = {0, 0, 0, 0};
    uint8_t* rgba = nullptr;  // for direct_cuda_to_host
    size_t rgba_bytes = 0;
    float* mu = nullptr;
    size_t mu_bytes = 0;

    void release() {
        // Errors ignored: this also runs at exit, when the runtime may already be gone.
        cudaFree(palette);
        cudaFree(counters);
        cudaFreeHost(host_counters);
        cudaFree(queue_pixel);
        cudaFree(queue_cr);
        cudaFree(queue_ci);
        cudaFree(queue_zr);
        cudaFree(queue_zi);
        for (int i = 0; i < 4; ++i) {
            cudaFree(queue_d[i]);
            queue_d[i] = nullptr;
            queue_d_pixels[i] = 0;
        }
        cudaFree(rgba);
        cudaFree(mu);
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
        palette = nullptr;
        counters = nullptr;
        host_counters = nullptr;
        queue_pixel = nullptr;
        queue_cr = queue_ci = queue_zr = queue_zi = nullptr;
        queue_pixels = 0;
        rgba = nullptr;
        mu = nullptr;
        start = stop = nullptr;
        rgba_bytes = mu_bytes = 0;
        palette_source.clear();
        device = -1;
    }
    ~CudaState() { release(); }
};

CudaState& cuda_state() { return current_device_state<CudaState>(); }

void ensure_device_state(CudaState& s) {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (s.device == device) return;
    s.release();
    CUDA_CHECK(cudaDeviceGetAttribute(&s.sm_count, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cuda_malloc(&s.palette, kExpandedPaletteSize * sizeof(uint32_t)));
    CUDA_CHECK(cuda_malloc(&s.counters, kCounterBytes));
    CUDA_CHECK(cudaMallocHost(&s.host_counters, kCounterBytes));
    CUDA_CHECK(cudaEventCreate(&s.start));
    CUDA_CHECK(cudaEventCreate(&s.stop));
    s.device = device;
}

// Room in the survivors' queue for every pixel of a frame (in the worst case all survive phase 1).
void ensure_queue(CudaState& s, size_t pixels) {
    if (s.queue_pixels >= pixels) return;
    for (void* buffer : {static_cast<void*>(s.queue_pixel), s.queue_cr, s.queue_ci, s.queue_zr, s.queue_zi})
        CUDA_CHECK(cudaFree(buffer));
    s.queue_pixel = nullptr;
    s.queue_cr = s.queue_ci = s.queue_zr = s.queue_zi = nullptr;
    s.queue_pixels = 0;
    CUDA_CHECK(cuda_malloc(&s.queue_pixel, pixels * sizeof(int)));
    for (void** buffer : {&s.queue_cr, &s.queue_ci, &s.queue_zr, &s.queue_zi})
        CUDA_CHECK(cuda_malloc(buffer, pixels * sizeof(double)));
    s.queue_pixels = pixels;
}

// Room for the derivative of every pixel of a frame, in its first `columns` arrays (2: dz; 4: the
// Jacobian's two columns).
void ensure_derivative_queue(CudaState& s, size_t pixels, int columns) {
    for (int i = 0; i < columns; ++i) {
        if (s.queue_d_pixels[i] >= pixels) continue;
        CUDA_CHECK(cudaFree(s.queue_d[i]));
        s.queue_d[i] = nullptr;
        s.queue_d_pixels[i] = 0;
        CUDA_CHECK(cuda_malloc(&s.queue_d[i], pixels * sizeof(double)));
        s.queue_d_pixels[i] = pixels;
    }
}

// Uploads the expanded palette when it differs from the one on the device.
void upload_palette(CudaState& s, const PaletteTable& palette) {
    if (palette.rgba.size() != size_t(kPaletteTableSize))
        throw std::invalid_argument("the palette table must have " + std::to_string(kPaletteTableSize) +
                                    " entries (make it with make_palette_table)");
    std::vector<uint32_t> source = palette.rgba;
    source.push_back(palette.interior_rgba);
    if (source == s.palette_source) return;
    std::vector<uint32_t> expanded(kExpandedPaletteSize);
    for (int i = 0; i < kExpandedPaletteSize; ++i)
        expanded[i] = palette_lookup(palette.rgba.data(), (i + 0.5) / kPaletteExpansion);
    CUDA_CHECK(cudaMemcpy(s.palette, expanded.data(), expanded.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
    s.palette_source = std::move(source);
}

// One frame: phase 1 (direct_cuda_tile.cu), then phase 2 over the survivors
// (direct_cuda_survivors.cu); or the naive baseline alone. kFeatures: 0 or kFeatureDistance.
template <typename T, unsigned kFeatures>
void launch(const KernelParams& p, Formula formula, const CudaTuning& tuning, bool periodicity, const CudaState& s) {
    if (tuning.naive) {
        launch_naive_kernel<T>(p);
        return;
    }
    launch_tile_pass<T, kFeatures>(p, formula, tuning.fused_multiply_add);
    if (p.max_iterations <= p.first_phase_iterations) return;  // nobody survives phase 1
    launch_survivors_pass<T, kFeatures>(p, formula, tuning, periodicity, s.sm_count);
}

// What a frame with the distance estimate adds (direct_distance_cuda): its output, and the
// colouring for a frame coloured in the kernels.
struct DistanceRequest {
    float* distance = nullptr;
    const ColourParams* colour = nullptr;  // with rgba: colour_pixel() instead of the smooth palette
};

void check_tuning(const CudaTuning& t) {
    if (t.block_steps != 8 && t.block_steps != 16 && t.block_steps != 32)
        throw std::invalid_argument("CudaTuning::block_steps must be 8, 16 or 32");
    if (t.first_phase_iterations < 1 || t.first_phase_iterations > 4096)
        throw std::invalid_argument("CudaTuning::first_phase_iterations must be in 1..4096");
    if (t.tile_rounds < 1 || t.tile_rounds > kMaxTileRounds)
        throw std::invalid_argument("CudaTuning::tile_rounds must be in 1..8");
    if (t.service_batch < 1 || t.service_batch > 32)
        throw std::invalid_argument("CudaTuning::service_batch must be in 1..32");
    if (t.survivor_blocks_per_sm < 0 || t.survivor_blocks_per_sm > 32)
        throw std::invalid_argument("CudaTuning::survivor_blocks_per_sm must be in 0..32");
}

// The render itself; the caller holds the state's mutex. `palette` colours a smooth frame; a
// frame with `distance` set is coloured by distance->colour instead and needs none.
FrameStats render_locked(CudaState& s, const View& view, Precision precision, const Shortcuts& shortcuts,
                         const PaletteTable* palette, PixelRect rect, uint8_t* rgba_device, float* mu_device,
                         const CudaTuning& tuning, const DistanceRequest* distance = nullptr) {
    if (std::string problem = validate_view(view); !problem.empty()) throw std::invalid_argument(problem);
    check_tuning(tuning);
    if ((tuning.naive || tuning.fused_multiply_add) && (view.formula != Formula::Mandelbrot || view.julia))
        throw std::invalid_argument("the naive and fused CUDA kernels draw the Mandelbrot set only");
    rect = resolve_rect(view, rect);
    if (int64_t(rect.width) * rect.height >= (int64_t(1) << 31))
        throw std::invalid_argument("a CUDA frame holds fewer than 2^31 pixels: render it in tiles");
    if (reinterpret_cast<uintptr_t>(rgba_device) % 4 != 0)
        throw std::invalid_argument("the RGBA output must be 4-byte aligned");
    if (distance && (tuning.naive || tuning.fused_multiply_add))
        throw std::invalid_argument("the distance estimate runs in the default CUDA kernels only");
    if (distance && rgba_device && !distance->colour)
        throw std::invalid_argument("a frame with the distance estimate is coloured by its ColourParams");
    ensure_device_state(s);
    if (palette) upload_palette(s, *palette);
    ensure_queue(s, size_t(rect.width) * size_t(rect.height));
    if (distance)
        ensure_derivative_queue(s, size_t(rect.width) * size_t(rect.height),
                                formula_is_holomorphic(view.formula) ? 2 : 4);

    FrameStats stats;
    stats.precision = resolve_direct_precision(view, precision);

    KernelParams p;
    p.grid = make_pixel_grid(view);
    p.rect_x = rect.x;
    p.rect_y = rect.y;
    p.rect_width = rect.width;
    p.rect_height = rect.height;
    p.max_iterations = direct_iterations(view);
    p.first_phase_iterations = std::min(tuning.first_phase_iterations, p.max_iterations);
    p.tile_rounds = tuning.tile_rounds;
    p.service_batch = tuning.service_batch;
    p.cardioid_bulb = shortcuts.cardioid_bulb && view.formula == Formula::Mandelbrot && !view.julia;
    p.julia = view.julia;
    if (view.julia) {
        p.julia_re = julia_re_value(view);
        p.julia_im = julia_im_value(view);
    }
    // fast_smooth_mu's form of formula_smooth_constants: log2(ln|z|) = log2(0.5 ln 2) + log2(log2 |z|^2).
    const SmoothConstants smooth = formula_smooth_constants(view.formula);
    p.mu_constant = float(smooth.mu_constant - smooth.mu_scale * std::log2(0.5 * std::log(2.0)));
    p.mu_scale = float(smooth.mu_scale);
    // colourize(): table position = mu * density / 100 * size + offset * size; here in entries of
    // the 8x finer table.
    p.palette_scale = view.palette_density / 100.0 * kExpandedPaletteSize;
    p.palette_offset = std::fmod(view.palette_offset * kExpandedPaletteSize, double(kExpandedPaletteSize));
    if (p.palette_offset < 0.0) p.palette_offset += kExpandedPaletteSize;  // the palette is cyclic
    p.palette_scale_f = float(p.palette_scale);
    p.palette_offset_f = float(p.palette_offset);
    p.palette = s.palette;
    p.interior_rgba = palette ? palette->interior_rgba : 0u;
    p.rgba = reinterpret_cast<uint32_t*>(rgba_device);
    p.mu = mu_device;
    p.counters = s.counters;
    p.queue_count = reinterpret_cast<int*>(s.counters + kCounterStripes * kStripeWords);
    p.queue_head = reinterpret_cast<int*>(s.counters + (kCounterStripes + 1) * kStripeWords);
    p.queue_pixel = s.queue_pixel;
    p.queue_cr = s.queue_cr;
    p.queue_ci = s.queue_ci;
    p.queue_zr = s.queue_zr;
    p.queue_zi = s.queue_zi;
    if (distance) {
        p.distance = distance->distance;
        p.inverse_pixel_step = float(1.0 / pixel_step(view));  // make_fast_finish_constants' value
        p.queue_dzr = s.queue_d[0];
        p.queue_dzi = s.queue_d[1];
        p.queue_dxr = s.queue_d[2];
        p.queue_dxi = s.queue_d[3];
        if (distance->colour) p.colour = *distance->colour;
    }

    CUDA_CHECK(cudaMemsetAsync(s.counters, 0, kCounterBytes));
    CUDA_CHECK(cudaEventRecord(s.start));
    // The mistake FrameStats::host_launch_ms exists to show: a host clock read around the
    // launches, before any synchronisation, sees only the time to queue them.
    const auto launch_start = std::chrono::steady_clock::now();
    if (distance) {
        if (stats.precision == Precision::Fp32)
            launch<float, kFeatureDistance>(p, view.formula, tuning, shortcuts.periodicity, s);
        else launch<double, kFeatureDistance>(p, view.formula, tuning, shortcuts.periodicity, s);
    } else {
        if (stats.precision == Precision::Fp32) launch<float, 0>(p, view.formula, tuning, shortcuts.periodicity, s);
        else launch<double, 0>(p, view.formula, tuning, shortcuts.periodicity, s);
    }
    stats.host_launch_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launch_start).count();
    CUDA_CHECK(cudaEventRecord(s.stop));
    CUDA_CHECK(cudaMemcpyAsync(s.host_counters, s.counters, kCounterBytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaStreamSynchronize(0));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, s.start, s.stop));
    stats.compute_ms = ms;
    for (int i = 0; i < kCounterStripes; ++i) {
        stats.iterations += s.host_counters[i * kStripeWords];
        stats.escaped_pixels += s.host_counters[i * kStripeWords + 1];
    }
    return stats;
}

}  // namespace

// Defaults, from tuning runs (tests/fractal/direct/test_direct_cuda.cpp, DISABLED_Throughput;
// the figures are in docs/performance.md):
//  * exact arithmetic in both precisions: with FMA, last-bit differences grow through chaotic
//    orbits until more pixels change their escape count than the 99.9% agreement the reference
//    comparison asks for allows, though FMA would be faster;
//  * N = 32 steps per escape test (faster than N = 16 on an all-interior frame);
//  * S = 64 first-phase iterations, 32x32 tiles, service batch 8 (the fastest on the full view,
//    shortcuts on and off; S = 32 is as fast in FP32 with the shortcuts on);
//  * phase 2 on as many blocks per SM as fit: capping them at 2 to 4, so that fewer lanes each
//    take more pixels, is slower on the full view.
CudaTuning default_cuda_tuning(Precision) {
    CudaTuning t;
    t.fused_multiply_add = false;
    t.block_steps = 32;
    t.first_phase_iterations = 64;
    t.tile_rounds = 4;
    t.service_batch = 8;
    return t;
}

// Instructions per iteration of the phase-2 loop (direct_survivors_kernel, shortcuts off,
// default tuning), counted in the sm_90 SASS (cuobjdump -sass) of one 32-step block:
//   FP32: 218 instructions = 96 FMUL + 65 FADD + 32 FFMA (6 per step + |z|^2) + FSETP + 24 for
//         saving the block's start, the warp vote and the branch -> 6.81 per iteration.
//         (Recomputing the start's squares after an escape instead of copying them costs two
//         FMULs, or DMULs, per block: a copy is cheaper.)
//         FP32 is issue-bound (one warp instruction per clock per SM partition = its 32 FP32
//         lanes), so every instruction counts.
//   FP64: 194 FP64-pipe instructions = 96 DMUL + 65 DADD + 32 DFMA + DSETP -> 6.06 per iteration.
//         The FP64 pipe runs at half the issue rate, so the 28 integer/vote instructions issue in
//         its shadow and only these count.
// Limit = SMs x lanes per SM x clock / this (FP32: 128 lanes an SM, FP64: 64); see
// docs/performance.md for what that gives on the GPUs measured.
// Other formulas: a 32-step block is 32 x their step's instructions
// (formula_cuda_step_instructions) + the 26 (FP32) or 2 (FP64) of the test, the copy and the
// vote above. Read from the sm_90 SASS of every formula's kernel (tests/gpu/sass_loop_counts.py),
// each block has exactly that count: FP32 6.81 (Mandelbrot, Burning Ship,
// Tricorn), 13.81, 12.81, 18.81, 18.81, 24.81, 17.81 (Multibrot 3..8); FP64 0.75 less.
double direct_cuda_instructions_per_iteration(Precision precision, Formula formula) {
    const double step = formula_cuda_step_instructions(formula);
    if (precision == Precision::Fp64) return (32.0 * step + 2.0) / 32.0;  // Mandelbrot: 194 / 32
    return (32.0 * step + 26.0) / 32.0;                                   // Mandelbrot: 218 / 32
}

FrameStats direct_cuda_tuned(const View& view, Precision precision, const Shortcuts& shortcuts,
                             const PaletteTable& palette, PixelRect rect, uint8_t* rgba_device, float* mu_device,
                             const CudaTuning& tuning) {
    CudaState& s = cuda_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    return render_locked(s, view, precision, shortcuts, &palette, rect, rgba_device, mu_device, tuning);
}

FrameStats direct_distance_cuda(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect,
                                float* mu_device, float* distance_device, uint32_t* rgba_device,
                                const ColourParams* colour) {
    CudaState& s = cuda_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    const DistanceRequest distance{distance_device, colour};
    return render_locked(s, view, precision, shortcuts, nullptr, rect, reinterpret_cast<uint8_t*>(rgba_device),
                         mu_device, default_cuda_tuning(resolve_direct_precision(view, precision)), &distance);
}

FrameStats direct_cuda(const View& view, Precision precision, const Shortcuts& shortcuts, const PaletteTable& palette,
                       PixelRect rect, uint8_t* rgba_device, float* mu_device) {
    Precision resolved = resolve_direct_precision(view, precision);
    return direct_cuda_tuned(view, precision, shortcuts, palette, rect, rgba_device, mu_device,
                             default_cuda_tuning(resolved));
}

FrameStats direct_cuda_tuned_to_host(const View& view, Precision precision, const Shortcuts& shortcuts,
                                     const PaletteTable& palette, PixelRect rect, uint8_t* rgba_host, float* mu_host,
                                     const CudaTuning& tuning) {
    if (std::string problem = validate_view(view); !problem.empty()) throw std::invalid_argument(problem);
    rect = resolve_rect(view, rect);
    const size_t pixels = size_t(rect.width) * size_t(rect.height);
    CudaState& s = cuda_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    ensure_device_state(s);
    auto ensure = [](auto*& buffer, size_t& capacity, size_t bytes) {
        if (capacity >= bytes) return;
        CUDA_CHECK(cudaFree(buffer));
        buffer = nullptr;
        capacity = 0;
        CUDA_CHECK(cuda_malloc(&buffer, bytes));
        capacity = bytes;
    };
    if (rgba_host) ensure(s.rgba, s.rgba_bytes, pixels * 4);
    if (mu_host) ensure(s.mu, s.mu_bytes, pixels * sizeof(float));
    FrameStats stats = render_locked(s, view, precision, shortcuts, &palette, rect, rgba_host ? s.rgba : nullptr,
                                     mu_host ? s.mu : nullptr, tuning);
    if (rgba_host) CUDA_CHECK(cudaMemcpy(rgba_host, s.rgba, pixels * 4, cudaMemcpyDeviceToHost));
    if (mu_host) CUDA_CHECK(cudaMemcpy(mu_host, s.mu, pixels * sizeof(float), cudaMemcpyDeviceToHost));
    return stats;
}

FrameStats direct_cuda_to_host(const View& view, Precision precision, const Shortcuts& shortcuts,
                               const PaletteTable& palette, PixelRect rect, uint8_t* rgba_host, float* mu_host) {
    return direct_cuda_tuned_to_host(view, precision, shortcuts, palette, rect, rgba_host, mu_host,
                                     default_cuda_tuning(resolve_direct_precision(view, precision)));
}

}  // namespace ms
