// direct_cuda_features.cu: the colouring layers on CUDA (coloured_frame.h,
// orbit_features.h), in parts, llm.c style:
//   features kernels  mu plus the distance estimate, the stripe average, the period and the atom period,
//                     accumulated in the iteration loop: the persistent kernel (the default:
//                     lanes refilled from chunks of pixels as their pixels finish, the orbit in
//                     blocks of 4 steps with one test each, as the smooth survivors pass does)
//                     and the one-thread-per-pixel kernel running orbit_point_features(), kept as
//                     the yardstick the tests compare the persistent one with.
//                     kFeatures is a template parameter, so each colouring pays only for what it
//                     uses. So is the formula F (formula.h; Julia or not is data: z_0, c and
//                     the derivative's start), as in the smooth kernels.
//   colour passes     the histogram and the colour kernel (colour_pass_cuda.h, in
//                     colour_pass_cuda.cu, shared with the deep path); a colouring
//                     without slopes or histogram is coloured by the kernel that finishes each
//                     pixel, with the same colour_pixel().
//   escaped pass      for stripes (no period interior): the smooth kernels classify every pixel
//                     and make mu, then only the escaped orbits run again with the features
//                     (escaped_features_kernel, the long ones through the persistent kernel's
//                     late list): interior pixels never pay for them.
//   launchers         render_coloured_cuda: the smooth kernels (direct_cuda) when no orbit
//                     feature is needed; their distance instantiation (direct_distance_cuda,
//                     the derivative carried beside z in the tile and survivors kernels) for the
//                     distance estimate alone; the escaped pass after the smooth kernels for
//                     stripes; else (the period interior, the atom layer) the features kernel; then the passes
//                     above, queued behind it, and one wait for the device at the end of the frame.
// Compiled with --fmad=false like the other Mandelbrot kernels (compute/CMakeLists.txt), so the
// iteration rounds as the CPU's does and mu matches the CPU reference.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fractal/colour/colour_pass_cuda.h"
#include "compute/fractal/colour/pixel_colour.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/system/cuda_check.h"

namespace ms {

namespace {

// ---------------------------------------------------------------------------------------------
// Kernels

struct FeatureParams {
    PixelGrid grid;
    int rect_x = 0, rect_y = 0, rect_width = 0, rect_height = 0;
    int max_iterations = 0;
    bool cardioid_bulb = true, periodicity = true;  // cardioid_bulb: Mandelbrot's parameter plane only
    bool julia = false;                             // z_0 = the pixel, c = (julia_re, julia_im)
    double julia_re = 0.0, julia_im = 0.0;
    int stripe_density = 1;
    StripePolynomial stripe_poly;  // stripe_polynomial(stripe_density), made once on the host
    FastFinishConstants finish;    // the formula's, for the float finish (make_fast_finish_constants)
    float* mu = nullptr;
    float* distance = nullptr;
    float* stripe = nullptr;
    float* period = nullptr;
    float* atom = nullptr;
    unsigned long long* counters = nullptr;  // [0] iterations, [1] escaped pixels, [2] next pixel, [3] late count
    // The escaped-only pipeline (render_coloured_locked): pixels whose orbits are long, appended by
    // escaped_features_kernel for the persistent kernel, which then takes its pixels from this list
    // (counters[3] entries) instead of the whole rectangle.
    int* late = nullptr;
    bool from_late_list = false;
    // Set (persistent kernel only) for a colouring whose colour needs only the pixel's own values,
    // no slopes and no histogram: the kernel colours each pixel as it finishes, with the colour
    // pass's colour_pixel(), so the features need not go through memory nor the frame through a
    // second pass.
    uint32_t* rgba = nullptr;
    ColourParams colour;
};

// Sums a value over the warp and adds it once per warp (the counters would otherwise take one
// atomic per pixel).
__device__ void add_per_warp(unsigned long long* counter, unsigned long long value) {
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(0xffffffffu, value, offset);
    if ((threadIdx.x + threadIdx.y * blockDim.x) % 32 == 0 && value) atomicAdd(counter, value);
}

// The orbit's start for the pixel (x, y) of the rectangle: z_0 = 0 and c = the pixel on the
// parameter plane, z_0 = the pixel and c fixed on a Julia set (P, a compile-time parameter of
// the kernels, as the formula is: OrbitPlane in orbit_features.h).
template <typename T, OrbitPlane P>
__device__ __forceinline__ void pixel_orbit(const FeatureParams& p, int x, int y, T* zr, T* zi, T* cr, T* ci) {
    const T pr = T(p.grid.re(p.rect_x + x)), pi = T(p.grid.im(p.rect_y + y));
    if constexpr (P == OrbitPlane::Julia) {
        *zr = pr;
        *zi = pi;
        *cr = T(p.julia_re);
        *ci = T(p.julia_im);
    } else {
        *zr = T(0);
        *zi = T(0);
        *cr = pr;
        *ci = pi;
    }
}

// Every kernel below takes the formula F as a template parameter (formula_math.h), like the
// smooth kernels: one compiled loop per formula, no branch on it per iteration.
template <typename T, unsigned kFeatures, Formula F, OrbitPlane P>
__global__ void __launch_bounds__(256) direct_features_kernel(FeatureParams p) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const bool inside = x < p.rect_width && y < p.rect_height;
    uint64_t iterations = 0;
    bool escaped = false;
    if (inside) {
        const size_t i = size_t(y) * p.rect_width + x;
        float scratch = 0.0f;
        T zr, zi, cr, ci;
        pixel_orbit<T, P>(p, x, y, &zr, &zi, &cr, &ci);
        const float mu = orbit_point_features<T, kFeatures, F>(
            zr, zi, cr, ci, P == OrbitPlane::Julia, p.max_iterations, p.cardioid_bulb, p.periodicity, p.stripe_density,
            p.grid.step, &iterations, p.distance ? p.distance + i : &scratch, p.stripe ? p.stripe + i : &scratch,
            p.period ? p.period + i : &scratch, p.atom ? p.atom + i : &scratch);
        p.mu[i] = mu;
        escaped = mu >= 0.0f;
    }
    // Every lane takes part in the shuffles (blocks are 32 x 8, so a warp is one row of 32).
    add_per_warp(&p.counters[0], iterations);
    add_per_warp(&p.counters[1], escaped ? 1ull : 0ull);
}

// The persistent variant (the default): a grid sized to the device, each lane iterating one pixel
// and taking the next as soon as its pixel is done, so lanes do not idle beside a slow neighbour
// until the warp's slowest pixel finishes (what makes the one-pixel-per-thread kernel above slow on
// frames with long orbits). It is shaped like the smooth kernels' survivors pass
// (direct_cuda_survivors.cu), for the same reasons:
//   - pixels are handed out in chunks: one atomic per warp and up to kChunkPixels pixels, not one
//     per refill (on a 4K frame most pixels escape within a few steps, so refills are frequent and
//     a single global counter would be the bottleneck), the chunks shrinking to 32 pixels as the
//     frame runs out (guided, as OpenMP's schedule), so the last warps do not hold long ones; a
//     pixel the cardioid/bulb test settles is finished inside the refill, without an iteration
//     round;
//   - the orbit runs in blocks of 4 steps with one test each (BlockedOrbit, orbit_features.h,
//     which the CPU tests check against the reference), redone step by step on an escape, on
//     the reference's periodicity schedule: the same iterations, the same interior pixels.
// Up to kBlocksPerRefill blocks between refills.
constexpr int kBlocksPerRefill = 4;
constexpr int kChunkPixels = 256;

template <typename T, unsigned kFeatures, Formula F, OrbitPlane P>
__global__ void __launch_bounds__(256)
    direct_features_persistent_kernel(FeatureParams p, unsigned long long* next_pixel) {
    const long long total = p.from_late_list ? (long long)p.counters[3] : (long long)p.rect_width * p.rect_height;
    const unsigned lane = threadIdx.x % 32;
    const long long warps_in_grid = (long long)gridDim.x * blockDim.x / 32;
    const int interval = periodicity_interval(p.max_iterations);
    uint64_t iterations = 0;
    unsigned long long escaped_pixels = 0;
    // Warp-uniform: the warp's current chunk of pixels, and whether the frame has none left.
    long long chunk_next = 0, chunk_end = 0;
    bool drained = false;
    // The lane's pixel and its orbit.
    bool have = false;
    long long pixel = 0;
    BlockedOrbit<T, kFeatures, F, P> orbit;
    // The lane's pixel is done: its outputs, and its colour where the kernel colours.
    auto write_pixel = [&](float mu, float distance, float stripe, float period, float atom) {
        p.mu[pixel] = mu;
        if (p.distance) p.distance[pixel] = distance;
        if (p.stripe) p.stripe[pixel] = stripe;
        if (p.period) p.period[pixel] = period;
        if (p.atom) p.atom[pixel] = atom;
        if (p.rgba) p.rgba[pixel] = colour_pixel(p.colour, mu, 0.0f, 0.0f, distance, stripe, period, atom);
    };
    for (;;) {
        // Refill the idle lanes from the warp's chunk, taking new chunks as needed; a pixel the
        // shortcut settles is written here and its lane served again.
        unsigned need = drained ? 0u : ~__ballot_sync(0xffffffffu, have);
        while (need) {
            if (chunk_next >= chunk_end) {
                // Guided: chunks shrink with the pixels left, from kChunkPixels to one pixel a lane,
                // so that no warp is left with a long chunk at the frame's end. The counter's value
                // read first is only a hint for the size; the atomic makes the chunks disjoint.
                unsigned long long start = 0;
                long long size = 0;
                if (lane == 0) {
                    const long long left = total - (long long)*static_cast<volatile unsigned long long*>(next_pixel);
                    size = left / (4ll * warps_in_grid);
                    size = size < 32 ? 32 : size > kChunkPixels ? kChunkPixels : size;
                    start = atomicAdd(next_pixel, (unsigned long long)size);
                }
                start = __shfl_sync(0xffffffffu, start, 0);
                size = __shfl_sync(0xffffffffu, size, 0);
                if ((long long)start >= total) {
                    drained = true;
                    break;
                }
                chunk_next = (long long)start;
                chunk_end = min(chunk_next + size, total);
            }
            const int available = int(min(chunk_end - chunk_next, 32ll));
            const int rank = __popc(need & ((1u << lane) - 1u));
            if (((need >> lane) & 1u) && rank < available) {
                pixel = p.from_late_list ? (long long)p.late[chunk_next + rank] : chunk_next + rank;
                const int x = int(pixel) % p.rect_width, y = int(pixel) / p.rect_width;  // < 2^31 (check_frame)
                T zr, zi, cr, ci;
                pixel_orbit<T, P>(p, x, y, &zr, &zi, &cr, &ci);
                have = true;
                if (p.cardioid_bulb && atom_allows_shortcut(kFeatures) &&
                    in_cardioid_or_period2_bulb(double(cr), double(ci))) {
                    float distance = 0.0f, stripe = 0.0f, period = 0.0f;
                    finish_interior<kFeatures>(shortcut_period(double(cr), double(ci)), &distance, &stripe, &period);
                    write_pixel(kInteriorMu, distance, stripe, period, 0.0f);
                    have = false;
                } else {
                    orbit.start(zr, zi, cr, ci, P == OrbitPlane::Julia, p.stripe_density, p.stripe_poly, interval);
                }
            }
            chunk_next += min(__popc(need), available);
            need = ~__ballot_sync(0xffffffffu, have);
        }
        if (!__any_sync(0xffffffffu, have)) break;  // drained and every lane done

        for (int block = 0; block < kBlocksPerRefill && have; ++block) {
            const OrbitState state = orbit.run_block(p.max_iterations, p.periodicity, interval);
            if (state != OrbitState::Running) {
                iterations += uint64_t(orbit.k);
                float distance = 0.0f, stripe = 0.0f, period = 0.0f, atom = 0.0f;
                const float mu = orbit.finish_fast(state, p.finish, &distance, &stripe, &period);
                finish_atom(orbit.acc, &atom);
                write_pixel(mu, distance, stripe, period, atom);
                if (state == OrbitState::Escaped) ++escaped_pixels;
                have = false;
            }
        }
    }
    add_per_warp(&p.counters[0], iterations);
    add_per_warp(&p.counters[1], escaped_pixels);
}

// The escaped-only pipeline's first pass (render_coloured_locked): the smooth kernels have made mu,
// so each pixel already knows whether it escaped, and an interior pixel (most of the iterations of
// a frame with much of the set in view) never pays for the derivative or the stripes: it is
// finished here without a step. An escaped pixel runs its orbit again from c with the features,
// one thread a pixel in the frame's order (neighbours escape after about as many steps), when the
// orbit is short: mu = k + f with f in [-2.47, -1.47) (|z_k|^2 between 2^16 and 2^32), so
// k <= mu + 2.5 < kShortOrbitSteps. A longer one, near the set's boundary where neighbours' counts
// spread, is appended to the late list (one atomic per warp) for the persistent kernel, whose
// lanes refill as their pixels finish. The same arithmetic as the reference, so the same k; the
// periodicity test is not needed (the pixel escapes).
constexpr float kShortOrbitSteps = 96.0f;

template <typename T, unsigned kFeatures>
__device__ __forceinline__ void write_feature_pixel(const FeatureParams& p, long long pixel, float mu, float distance,
                                                    float stripe, float period) {
    p.mu[pixel] = mu;
    if (p.distance) p.distance[pixel] = distance;
    if (p.stripe) p.stripe[pixel] = stripe;
    if (p.period) p.period[pixel] = period;
    if (p.rgba) p.rgba[pixel] = colour_pixel(p.colour, mu, 0.0f, 0.0f, distance, stripe, period);
}

__device__ __forceinline__ bool is_late(float smooth) { return smooth >= 0.0f && smooth + 2.5f >= kShortOrbitSteps; }

// The late list, made before either pass so that the persistent kernel's long orbits run on a
// second stream beside the short pass (their time is the longest orbits' latency, not work).
__global__ void __launch_bounds__(256)
    late_list_kernel(const float* mu, int width, int height, unsigned long long* late_count, int* late) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const bool inside = x < width && y < height;
    const long long pixel = (long long)y * width + x;
    const bool mine = inside && is_late(mu[pixel]);
    // Every lane reaches the ballot (blocks are 32 x 8: a warp is one row of 32): one atomic a warp.
    const unsigned lanes = __ballot_sync(0xffffffffu, mine);
    if (!lanes) return;
    const unsigned lane = threadIdx.x % 32, leader = unsigned(__ffs(lanes) - 1);
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(late_count, (unsigned long long)__popc(lanes));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (mine) late[base + __popc(lanes & ((1u << lane) - 1u))] = int(pixel);
}

template <typename T, unsigned kFeatures, Formula F, OrbitPlane P>
__global__ void __launch_bounds__(256) escaped_features_kernel(FeatureParams p) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= p.rect_width || y >= p.rect_height) return;
    const long long pixel = (long long)y * p.rect_width + x;
    const float smooth = p.mu[pixel];
    if (is_late(smooth)) return;  // the late list's
    float distance = 0.0f, stripe = 0.0f, period = 0.0f;
    if (!(smooth >= 0.0f)) {
        finish_interior<kFeatures>(0, &distance, &stripe, &period);
        write_feature_pixel<T, kFeatures>(p, pixel, kInteriorMu, distance, stripe, period);
        return;
    }
    // The reference's arithmetic and order (BlockedOrbit::advance), so the same k. The smooth
    // kernels' mu tells how many steps the orbit runs before it escapes: those run without a test,
    // four to a loop test, and the last few step by step with a test each, as the reference does.
    // For every formula mu lies in [k - 2.47, k - 1.47) (formula_math.h), so int(mu) - 1 <= k - 3:
    // the untested steps end two steps or more before the escape, whatever mu's float rounding.
    BlockedOrbit<T, kFeatures, F, P> orbit;
    const int interval = periodicity_interval(p.max_iterations);
    T zr, zi, cr, ci;
    pixel_orbit<T, P>(p, x, y, &zr, &zi, &cr, &ci);
    orbit.start(zr, zi, cr, ci, P == OrbitPlane::Julia, p.stripe_density, p.stripe_poly, interval);
    const int untested = min(int(smooth) - 1, p.max_iterations);
    int j = 0;
    for (; j + 4 <= untested; j += 4) {
#pragma unroll
        for (int i = 0; i < 4; ++i) orbit.advance();
        orbit.acc.flush_stripe();  // FP64 with the fixed stripe term: its float sum of 4 into the double
    }
    for (; j < untested; ++j) orbit.advance();
    orbit.k = untested > 0 ? untested : 0;
    const T bailout_squared = T(formula_bailout_radius(F) * formula_bailout_radius(F));
    OrbitState state = OrbitState::Interior;
    while (orbit.k < p.max_iterations) {
        ++orbit.k;
        orbit.norm = orbit.advance();
        if (orbit.norm > bailout_squared) {
            state = OrbitState::Escaped;
            break;
        }
    }
    const float mu = orbit.finish_fast(state, p.finish, &distance, &stripe, &period);
    write_feature_pixel<T, kFeatures>(p, pixel, mu, distance, stripe, period);
}

// ---------------------------------------------------------------------------------------------
// Launchers

// The escaped pass's second stream (non-blocking, so it runs beside the legacy default stream) and
// its two events.
struct SideStream {
    cudaStream_t stream = nullptr;
    cudaEvent_t listed = nullptr, done = nullptr;
};

// Device buffers kept between frames, grown when a frame needs more; one for each device
// (current_device_state).
struct ColourCudaState {
    std::mutex mutex;
    int device = -1;
    float* mu = nullptr;
    float* distance = nullptr;
    float* stripe = nullptr;
    float* period = nullptr;
    float* atom = nullptr;
    int* late = nullptr;  // the escaped-only pipeline's late list (pixel indices)
    size_t pixels = 0;
    uint8_t* rgba = nullptr;  // for the _to_host variant
    size_t rgba_pixels = 0;
    uint32_t* table = nullptr;                    // kPaletteTableSize entries
    float* cdf = nullptr;                         // kHistogramBins + 1
    unsigned long long* counts = nullptr;         // kHistogramBins
    unsigned long long* counters = nullptr;       // 3
    unsigned long long* host_counters = nullptr;  // 2, pinned: read back without a copy of its own
    std::vector<uint32_t> table_uploaded;         // the palette table now in `table` (uploaded when it changes)
    int sm_count = 0;
    cudaEvent_t start = nullptr, stop = nullptr;
    SideStream side;

    void release() {
        // Errors ignored: this also runs at exit, when the runtime may already be gone.
        for (void* p : {static_cast<void*>(mu), static_cast<void*>(distance), static_cast<void*>(stripe),
                        static_cast<void*>(period), static_cast<void*>(atom), static_cast<void*>(rgba),
                        static_cast<void*>(table), static_cast<void*>(cdf), static_cast<void*>(counts),
                        static_cast<void*>(counters), static_cast<void*>(late)})
            cudaFree(p);
        if (host_counters) cudaFreeHost(host_counters);
        host_counters = nullptr;
        table_uploaded.clear();
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
        if (side.listed) cudaEventDestroy(side.listed);
        if (side.done) cudaEventDestroy(side.done);
        if (side.stream) cudaStreamDestroy(side.stream);
        side = SideStream{};
        mu = distance = stripe = period = atom = cdf = nullptr;
        late = nullptr;
        sm_count = 0;
        rgba = nullptr;
        table = nullptr;
        counts = counters = nullptr;
        start = stop = nullptr;
        pixels = rgba_pixels = 0;
        device = -1;
    }
    ~ColourCudaState() { release(); }
};

ColourCudaState& colour_state() { return current_device_state<ColourCudaState>(); }

void ensure_state(ColourCudaState& s, size_t pixels) {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (s.device != device) {
        s.release();
        CUDA_CHECK(cuda_malloc(&s.table, kPaletteTableSize * sizeof(uint32_t)));
        CUDA_CHECK(cuda_malloc(&s.cdf, (kHistogramBins + 1) * sizeof(float)));
        CUDA_CHECK(cuda_malloc(&s.counts, kHistogramBins * sizeof(unsigned long long)));
        CUDA_CHECK(cuda_malloc(&s.counters, 4 * sizeof(unsigned long long)));  // iterations, escaped, next pixel, late
        CUDA_CHECK(cudaMallocHost(&s.host_counters, 2 * sizeof(unsigned long long)));
        CUDA_CHECK(cudaDeviceGetAttribute(&s.sm_count, cudaDevAttrMultiProcessorCount, device));
        CUDA_CHECK(cudaEventCreate(&s.start));
        CUDA_CHECK(cudaEventCreate(&s.stop));
        CUDA_CHECK(cudaStreamCreateWithFlags(&s.side.stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&s.side.listed, cudaEventDisableTiming));
        CUDA_CHECK(cudaEventCreateWithFlags(&s.side.done, cudaEventDisableTiming));
        s.device = device;
    }
    if (s.pixels < pixels) {
        for (float** buffer : {&s.mu, &s.distance, &s.stripe, &s.period, &s.atom}) {
            CUDA_CHECK(cudaFree(*buffer));
            *buffer = nullptr;
        }
        CUDA_CHECK(cudaFree(s.late));
        s.late = nullptr;
        s.pixels = 0;
        for (float** buffer : {&s.mu, &s.distance, &s.stripe, &s.period, &s.atom})
            CUDA_CHECK(cuda_malloc(buffer, pixels * sizeof(float)));
        CUDA_CHECK(cuda_malloc(&s.late, pixels * sizeof(int)));
        s.pixels = pixels;
    }
}

template <typename T, unsigned kFeatures, Formula F, OrbitPlane P>
void launch_features(const FeatureParams& p, bool persistent, int sm_count, bool escaped_only, const SideStream& side) {
    if (p.rgba && !persistent) throw std::logic_error("only the persistent features kernel colours in the kernel");
    // The escaped pass is the stripes' only (the distance alone rides in the smooth kernels:
    // direct_distance_cuda), so it is compiled for them only.
    if constexpr ((kFeatures & kFeatureStripe) == 0 || (kFeatures & (kFeaturePeriod | kFeatureAtom)) != 0) {
        if (escaped_only) throw std::logic_error("the escaped pass is for the stripes");
    } else if (escaped_only) {
        // mu is the smooth kernels' (p.mu). The late list first; its persistent kernel on the side
        // stream, beside the short pass on this one; then this stream waits for the side's.
        const dim3 block(32, 8);
        const dim3 grid((p.rect_width + 31) / 32, (p.rect_height + 7) / 8);
        late_list_kernel<<<grid, block>>>(p.mu, p.rect_width, p.rect_height, p.counters + 3, p.late);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(side.listed, 0));
        CUDA_CHECK(cudaStreamWaitEvent(side.stream, side.listed, 0));
        FeatureParams late = p;
        late.from_late_list = true;
        late.cardioid_bulb = false;  // every listed pixel escapes
        late.periodicity = false;
        int per_sm = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, direct_features_persistent_kernel<T, kFeatures, F, P>, 256, 0));
        direct_features_persistent_kernel<T, kFeatures, F, P>
            <<<std::max(1, per_sm) * std::max(1, sm_count), 256, 0, side.stream>>>(late, late.counters + 2);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaEventRecord(side.done, side.stream));
        escaped_features_kernel<T, kFeatures, F, P><<<grid, block>>>(p);
        CUDA_CHECK_LAUNCH();
        CUDA_CHECK(cudaStreamWaitEvent(0, side.done, 0));
        return;
    }
    if constexpr ((kFeatures & kFeatureStripeFixed) != 0) {
        throw std::logic_error("the stripes' fixed form is compiled for the escaped pass only");
    } else {
        if (persistent) {
            // As many resident blocks as fit (the occupancy API), every SM kept busy.
            int per_sm = 0;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, direct_features_persistent_kernel<T, kFeatures, F, P>, 256, 0));
            direct_features_persistent_kernel<T, kFeatures, F, P>
                <<<std::max(1, per_sm) * std::max(1, sm_count), 256>>>(p, p.counters + 2);
        } else {
            const dim3 block(32, 8);
            const dim3 grid((p.rect_width + 31) / 32, (p.rect_height + 7) / 8);
            direct_features_kernel<T, kFeatures, F, P><<<grid, block>>>(p);
        }
        CUDA_CHECK_LAUNCH();
    }
}

// The stripes (with or without the distance): the escaped pass takes the density's form as a
// compile-time parameter (kFeatureStripeFixed, orbit_features.h) where it is at most 8, the
// default's case; above, and in the features kernels over every pixel, the step decides.
template <typename T, unsigned kFeatures, Formula F, OrbitPlane P>
void launch_stripe_features(const FeatureParams& p, bool persistent, int sm_count, bool escaped_only,
                            const SideStream& side) {
    constexpr unsigned kFixed = kFeatures | kFeatureStripeFixed;
    if (escaped_only && p.stripe_poly.fast && p.stripe_poly.odd)
        launch_features<T, kFixed | kFeatureStripeOdd, F, P>(p, persistent, sm_count, true, side);
    else if (escaped_only && p.stripe_poly.fast) launch_features<T, kFixed, F, P>(p, persistent, sm_count, true, side);
    else launch_features<T, kFeatures, F, P>(p, persistent, sm_count, escaped_only, side);
}

template <typename T, Formula F, OrbitPlane P>
void launch_features_any(unsigned features, const FeatureParams& p, bool persistent, int sm_count, bool escaped_only,
                         const SideStream& side) {
    switch (features) {
    case 1: return launch_features<T, 1, F, P>(p, persistent, sm_count, false, side);
    case 2: return launch_stripe_features<T, 2, F, P>(p, persistent, sm_count, escaped_only, side);
    case 3: return launch_stripe_features<T, 3, F, P>(p, persistent, sm_count, escaped_only, side);
    case 4: return launch_features<T, 4, F, P>(p, persistent, sm_count, false, side);
    case 5: return launch_features<T, 5, F, P>(p, persistent, sm_count, false, side);
    case 6: return launch_features<T, 6, F, P>(p, persistent, sm_count, false, side);
    case 7: return launch_features<T, 7, F, P>(p, persistent, sm_count, false, side);
    // The atom variants (orbit_features.h's atom_feature_variant: alone, or with every feature).
    case kFeatureAtom: return launch_features<T, kFeatureAtom, F, P>(p, persistent, sm_count, false, side);
    default: return launch_features<T, kAtomWithAllFeatures, F, P>(p, persistent, sm_count, false, side);
    }
}

// The formula, and parameter plane or Julia set, picked once per frame on the host.
template <typename T>
void launch_features_formula(Formula formula, unsigned features, const FeatureParams& p, bool persistent, int sm_count,
                             bool escaped_only, const SideStream& side) {
    switch (formula) {
#define MS_LAUNCH_CASE(F)                                                                                              \
    case F:                                                                                                            \
        return p.julia ? launch_features_any<T, F, OrbitPlane::Julia>(features, p, persistent, sm_count, escaped_only, \
                                                                      side)                                            \
                       : launch_features_any<T, F, OrbitPlane::Parameter>(features, p, persistent, sm_count,           \
                                                                          escaped_only, side);
        MS_LAUNCH_CASE(Formula::Mandelbrot)
        MS_LAUNCH_CASE(Formula::Multibrot3)
        MS_LAUNCH_CASE(Formula::Multibrot4)
        MS_LAUNCH_CASE(Formula::Multibrot5)
        MS_LAUNCH_CASE(Formula::Multibrot6)
        MS_LAUNCH_CASE(Formula::Multibrot7)
        MS_LAUNCH_CASE(Formula::Multibrot8)
        MS_LAUNCH_CASE(Formula::BurningShip)
        MS_LAUNCH_CASE(Formula::Tricorn)
#undef MS_LAUNCH_CASE
    }
}

// Queues the features kernel into s's buffers (mu into mu_device), then the copy of its counters
// into s.host_counters; the caller holds the mutex, has made the state, and synchronises before
// read_feature_counters(). Returns the statistics but for the counters and compute_ms.
FrameStats launch_features_locked(ColourCudaState& s, const View& view, Precision precision, const Shortcuts& shortcuts,
                                  PixelRect rect, unsigned features, float* mu_device, const OrbitFeatureOutputs& out,
                                  bool persistent = true, uint32_t* rgba = nullptr,
                                  const ColourParams* colour = nullptr, bool escaped_only = false) {
    FrameStats stats;
    stats.precision = resolve_direct_precision(view, precision);
    FeatureParams p;
    p.grid = make_pixel_grid(view);
    p.rect_x = rect.x;
    p.rect_y = rect.y;
    p.rect_width = rect.width;
    p.rect_height = rect.height;
    p.max_iterations = direct_iterations(view);
    p.cardioid_bulb = shortcuts.cardioid_bulb && view.formula == Formula::Mandelbrot && !view.julia;
    p.periodicity = shortcuts.periodicity;
    p.julia = view.julia;
    if (view.julia) {
        p.julia_re = julia_re_value(view);
        p.julia_im = julia_im_value(view);
    }
    p.stripe_density = view.colouring.stripe_density;
    p.stripe_poly = stripe_polynomial(p.stripe_density);
    p.finish = make_fast_finish_constants(view.formula, p.grid.step);
    p.mu = mu_device;
    p.distance = out.distance;
    p.stripe = out.stripe;
    p.period = out.period;
    p.atom = out.atom;
    p.counters = s.counters;
    if (rgba) {
        p.rgba = rgba;
        p.colour = *colour;
    }
    CUDA_CHECK(cudaMemsetAsync(s.counters, 0, 4 * sizeof(unsigned long long)));
    const auto launch_start = std::chrono::steady_clock::now();
    p.late = s.late;
    if (stats.precision == Precision::Fp32)
        launch_features_formula<float>(view.formula, features, p, persistent, s.sm_count, escaped_only, s.side);
    else launch_features_formula<double>(view.formula, features, p, persistent, s.sm_count, escaped_only, s.side);
    stats.host_launch_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launch_start).count();
    CUDA_CHECK(cudaMemcpyAsync(s.host_counters, s.counters, 2 * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    return stats;
}

void read_feature_counters(const ColourCudaState& s, FrameStats* stats) {
    stats->iterations = s.host_counters[0];
    stats->escaped_pixels = s.host_counters[1];
}

// The time from s.start to s.stop, once the stream has reached s.stop.
double elapsed_ms(const ColourCudaState& s) {
    CUDA_CHECK(cudaEventSynchronize(s.stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, s.start, s.stop));
    return ms;
}

void check_frame(const View& view, PixelRect* rect) {
    if (std::string problem = validate_view(view); !problem.empty()) throw std::invalid_argument(problem);
    *rect = resolve_rect(view, *rect);
    if (int64_t(rect->width) * rect->height >= (int64_t(1) << 31))
        throw std::invalid_argument("a CUDA frame holds fewer than 2^31 pixels: render it in tiles");
}

FrameStats render_coloured_locked(ColourCudaState& s, const View& view, Precision precision, const Shortcuts& shortcuts,
                                  const PaletteTable& palette, PixelRect rect, double pixel_scale, uint8_t* rgba_device,
                                  float* mu_device) {
    const size_t pixels = size_t(rect.width) * size_t(rect.height);
    ensure_state(s, pixels);
    if (palette.rgba.size() != size_t(kPaletteTableSize))
        throw std::invalid_argument("the palette table must have " + std::to_string(kPaletteTableSize) + " entries");
    // Before any kernel: cudaMemcpy from pageable memory would wait for the kernels queued before it.
    if (s.table_uploaded != palette.rgba) {
        s.table_uploaded.clear();
        CUDA_CHECK(
            cudaMemcpy(s.table, palette.rgba.data(), kPaletteTableSize * sizeof(uint32_t), cudaMemcpyHostToDevice));
        s.table_uploaded = palette.rgba;
    }
    float* mu = mu_device ? mu_device : s.mu;
    const unsigned features = colouring_orbit_features(view.colouring);
    ColourParams p = make_colour_params(view, pixel_scale);
    p.table = s.table;
    p.interior_rgba = palette.interior_rgba;
    // A colour from the pixel's own values (no slopes, no histogram): the features kernel colours
    // as it goes, and the frame has no pass but the kernel's.
    const bool colour_in_kernel = features != 0 && !view.colouring.slopes &&
                                  view.colouring.base != ColourBase::Histogram;
    uint32_t* rgba = reinterpret_cast<uint32_t*>(rgba_device);
    FrameStats stats;
    // The distance estimate alone (no stripes, no period): the smooth kernels' distance
    // instantiation (direct_distance_cuda) carries the derivative beside z, so the frame is
    // one smooth pass with the derivative's arithmetic; coloured there too when the colour needs
    // only mu and the distance.
    // The stripes need the orbit of escaped pixels only: the smooth kernels (with their tile pass,
    // interior shortcuts and survivor packing) classify every pixel and make mu, then
    // escaped_features_kernel and the late list run the escaped orbits again with the features.
    // The period interior and the atom layer need interior orbits: the features kernel over every pixel.
    const bool distance_only = features == kFeatureDistance;
    const bool escaped_only = !distance_only && features != 0 && (features & (kFeaturePeriod | kFeatureAtom)) == 0;
    if (distance_only) {
        stats = colour_in_kernel ? direct_distance_cuda(view, precision, shortcuts, rect, mu_device, nullptr, rgba, &p)
                                 : direct_distance_cuda(view, precision, shortcuts, rect, mu, s.distance);
        CUDA_CHECK(cudaEventRecord(s.start));
    }
    if (features == 0 || escaped_only) {
        // Histogram and slopes need only mu: the smooth kernels make it (their colours are
        // overwritten by the colour pass below), and time themselves.
        stats = direct_cuda(view, precision, shortcuts, palette, rect, escaped_only ? nullptr : rgba_device, mu);
        CUDA_CHECK(cudaEventRecord(s.start));
    }
    if (escaped_only) {
        const OrbitFeatureOutputs out = colour_in_kernel ? OrbitFeatureOutputs{}
                                                         : OrbitFeatureOutputs{
                                                               features & kFeatureDistance ? s.distance : nullptr,
                                                               features & kFeatureStripe ? s.stripe : nullptr, nullptr};
        const FrameStats passes = launch_features_locked(s, view, precision, shortcuts, rect, features, mu, out, true,
                                                         colour_in_kernel ? rgba : nullptr, &p, true);
        stats.host_launch_ms += passes.host_launch_ms;
    } else if (features != 0 && !distance_only) {
        const OrbitFeatureOutputs out = colour_in_kernel
                                            ? OrbitFeatureOutputs{}
                                            : OrbitFeatureOutputs{features & kFeatureDistance ? s.distance : nullptr,
                                                                  features & kFeatureStripe ? s.stripe : nullptr,
                                                                  features & kFeaturePeriod ? s.period : nullptr,
                                                                  features & kFeatureAtom ? s.atom : nullptr};
        CUDA_CHECK(cudaEventRecord(s.start));
        stats = launch_features_locked(s, view, precision, shortcuts, rect, features, mu, out, true,
                                       colour_in_kernel ? rgba : nullptr, &p);
    }
    // The colour passes, queued behind the kernels that make their input: the frame waits for the
    // device once, at the end.
    if (view.colouring.base == ColourBase::Histogram) {
        p.bins_per_log2 = launch_histogram_cdf(mu, int64_t(pixels), view.max_iterations, s.counts, s.cdf, nullptr);
        p.cdf = s.cdf;
    }
    if (!colour_in_kernel)
        launch_colour_pass(p, mu, features & kFeatureDistance ? s.distance : nullptr,
                           features & kFeatureStripe ? s.stripe : nullptr,
                           features & kFeaturePeriod ? s.period : nullptr, features & kFeatureAtom ? s.atom : nullptr,
                           rect.width, rect.height, rgba, nullptr);
    CUDA_CHECK(cudaEventRecord(s.stop));
    const double ms = elapsed_ms(s);
    if (features == 0 || escaped_only || distance_only) {
        // The smooth kernels' own time, then the passes'. The statistics stay the smooth frame's
        // (its iterations and escapes: what the frame is), not counting the escaped orbits run again.
        stats.compute_ms += ms;
    } else {
        stats.compute_ms = ms;
        read_feature_counters(s, &stats);
    }
    return stats;
}

}  // namespace

FrameStats direct_features_cuda(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect,
                                float* mu_device, const OrbitFeatureOutputs& outputs_device, bool persistent) {
    check_frame(view, &rect);
    if (!mu_device) throw std::invalid_argument("direct_features_cuda needs a device buffer for mu");
    ColourCudaState& s = colour_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    ensure_state(s, 0);
    CUDA_CHECK(cudaEventRecord(s.start));
    FrameStats stats = launch_features_locked(s, view, precision, shortcuts, rect, requested_features(outputs_device),
                                              mu_device, outputs_device, persistent);
    CUDA_CHECK(cudaEventRecord(s.stop));
    stats.compute_ms = elapsed_ms(s);
    read_feature_counters(s, &stats);
    return stats;
}

FrameStats render_coloured_cuda(const View& view, Precision precision, const Shortcuts& shortcuts,
                                const PaletteTable& palette, PixelRect rect, double pixel_scale, uint8_t* rgba_device,
                                float* mu_device) {
    if (colouring_is_plain(view.colouring))
        return direct_cuda(view, precision, shortcuts, palette, rect, rgba_device, mu_device);
    check_frame(view, &rect);
    ColourCudaState& s = colour_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    return render_coloured_locked(s, view, precision, shortcuts, palette, rect, pixel_scale, rgba_device, mu_device);
}

FrameStats render_coloured_cuda_to_host(const View& view, Precision precision, const Shortcuts& shortcuts,
                                        const PaletteTable& palette, PixelRect rect, double pixel_scale,
                                        uint8_t* rgba_host, float* mu_host) {
    if (colouring_is_plain(view.colouring))
        return direct_cuda_to_host(view, precision, shortcuts, palette, rect, rgba_host, mu_host);
    check_frame(view, &rect);
    const size_t pixels = size_t(rect.width) * size_t(rect.height);
    ColourCudaState& s = colour_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    ensure_state(s, pixels);
    if (s.rgba_pixels < pixels) {
        CUDA_CHECK(cudaFree(s.rgba));
        s.rgba = nullptr;
        s.rgba_pixels = 0;
        CUDA_CHECK(cuda_malloc(&s.rgba, pixels * 4));
        s.rgba_pixels = pixels;
    }
    FrameStats stats = render_coloured_locked(s, view, precision, shortcuts, palette, rect, pixel_scale, s.rgba, s.mu);
    if (rgba_host) CUDA_CHECK(cudaMemcpy(rgba_host, s.rgba, pixels * 4, cudaMemcpyDeviceToHost));
    if (mu_host) CUDA_CHECK(cudaMemcpy(mu_host, s.mu, pixels * sizeof(float), cudaMemcpyDeviceToHost));
    return stats;
}

}  // namespace ms
