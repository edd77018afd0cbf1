// mandelbrot_cuda.cu: the CUDA sibling of mandelbrot_cpu_reference. FP32 and FP64 kernels that
// write RGBA8 (coloured in-kernel) and optionally the smooth values, into device memory the
// caller passes: the window passes its mapped interop buffer.
//
// Layout (llm.c style): shared device helpers, the kernels, then the launchers.
//
// What the kernel computes is defined by mandelbrot_cpu_reference: z_0 = 0,
// z_{k+1} = z_k^2 + c, escape at the first k with |z_k|^2 > kBailoutRadius^2, k counted as the
// iterations the pixel cost; cardioid/bulb test in double on the precision-rounded c; periodicity
// by exact comparison with a saved orbit value (Brent). This file is compiled with --fmad=false
// (compute/CMakeLists.txt), so nvcc never contracts a*b+c on its own: the pixel centres
// (PixelGrid), the cardioid test and the default arithmetic round exactly as the host does, and
// every FMA below is written out on purpose.
//
// How it is fast (napkin math at mandelbrot_cuda_instructions_per_iteration):
//  * Phase 1, mandelbrot_kernel: one block per 32 x (8*rounds) tile; each warp takes compact 8x4
//    sub-tiles, so the 32 lanes of a warp are neighbours and mostly share their fate. Every pixel
//    gets S iterations tested one by one: most exterior pixels escape within a handful (the first
//    three tests are skipped where |c| is too small to escape that early). Pixels still running
//    after S go to a global queue.
//  * Phase 2, mandelbrot_survivors_kernel: a persistent grid shares the queue out in chunks and
//    refills a lane as soon as its pixel is done, so slow pixels fill whole warps on every SM.
//    (A first version kept each tile's survivors inside its block: the few blocks holding the
//    interior then ran long on a handful of SMs while the others idled, ~2x slower on the full
//    view.) Survivors run blocks of N steps with a single escape test; on escape the lane redoes
//    the block step by step from its saved start, so k stays exact. A queue entry carries c as
//    well as z, so a refill neither divides the pixel index nor recomputes c in double.
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

#include "compute/cuda_check.h"
#include "compute/cuda_info.h"
#include "compute/mandelbrot.h"
#include "compute/mandelbrot_cuda_tuning.h"
#include "compute/mandelbrot_math.h"

namespace ms {

namespace {

// ---------------------------------------------------------------------------------------------
// Shared device helpers

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kTileWidth = 32;       // pixels (a queued pixel is row * 32 + col); a round covers 32 x 8
constexpr int kRoundHeight = 8;
constexpr int kBlockThreads = 256;   // 8 warps, each an 8x4 sub-tile per round
constexpr int kMaxTileRounds = 8;
// The palette is pre-sampled 8x finer than the 1024-entry table (at the centres of the finer
// bins), so the kernel picks one entry instead of interpolating: within 1/16 of a table entry of
// colorize(), i.e. the same colour or one level off in a channel.
constexpr int kPaletteExpansion = 8;
constexpr int kExpandedPaletteSize = kPaletteTableSize * kPaletteExpansion;
// Statistics: each block sums its threads' counts in shared memory and adds them with one atomic
// pair to one of kCounterStripes stripes (each on its own 128-byte line, so the atomics spread
// over L2 slices instead of queueing at one address); the host adds the stripes up.
constexpr int kCounterStripes = 64;
constexpr int kStripeWords = 16;  // 128 bytes
// Two more 128-byte lines after the stripes hold the queue's count and head.
constexpr size_t kCounterBytes = size_t(kCounterStripes + 2) * kStripeWords * sizeof(unsigned long long);

struct KernelParams {
    PixelGrid grid;
    int rect_x = 0, rect_y = 0, rect_width = 0, rect_height = 0;
    int max_iterations = 0;
    int first_phase_iterations = 0;  // S, already clamped to max_iterations
    int tile_rounds = 4;
    int service_batch = 8;           // lanes waiting before a warp runs its finish/refill path
    bool cardioid_bulb = true;
    double palette_scale = 0.0;   // expanded-table entries per unit of mu
    double palette_offset = 0.0;  // expanded-table entries, reduced to [0, kExpandedPaletteSize)
    float palette_scale_f = 0.0f;
    float palette_offset_f = 0.0f;
    const uint32_t* palette = nullptr;
    uint32_t interior_rgba = 0;
    uint32_t* rgba = nullptr;     // may be null
    float* mu = nullptr;          // may be null
    unsigned long long* counters = nullptr;  // [kCounterStripes][kStripeWords]: iterations, escaped
    // The survivors' queue (phase 1 -> phase 2): pixel index (y * rect_width + x), c and z.
    int* queue_count = nullptr;  // entries appended by the tile kernel
    int* queue_head = nullptr;   // entries taken by the survivors kernel
    int* queue_pixel = nullptr;
    void* queue_zr = nullptr;    // T[]
    void* queue_zi = nullptr;
    void* queue_cr = nullptr;
    void* queue_ci = nullptr;
};

template <typename T>
__device__ __forceinline__ T fused(T a, T b, T c);
template <>
__device__ __forceinline__ float fused<float>(float a, float b, float c) { return __fmaf_rn(a, b, c); }
template <>
__device__ __forceinline__ double fused<double>(double a, double b, double c) { return __fma_rn(a, b, c); }

// The orbit state: z and, carried along, the squares of its parts (the next step needs them and
// so does |z|^2, so each is computed once).
template <typename T>
struct Orbit {
    T zr = 0, zi = 0, zr2 = 0, zi2 = 0;
};

// One step z <- z^2 + c.
//   exact (default): zr' = (zr^2 - zi^2) + cr and zi' = fma(2, zr*zi, ci): every operation
//     rounds as in the reference (2*zr*zi: doubling is exact, so rounding zr*zi then adding
//     2x it to ci with one FMA gives the reference's bits). 6 FP instructions:
//     FMUL zr*zi, FADD, FADD, FFMA, FMUL zr'^2, FMUL zi'^2.
//   fused: zr' = fma(zr, zr, -zi^2) + cr: zr^2 is not rounded on its own, so orbits near the
//     boundary can differ from the reference in the last bit (a few pixels' escape counts move by
//     one, see tests/test_mandelbrot_cuda.cpp). 5 instructions: FMUL, FFMA, FADD, FFMA, FMUL;
//     zr2 is not kept and |z|^2 = fma(zr, zr, zi2).
template <typename T, bool kFused>
__device__ __forceinline__ void step(Orbit<T>& o, T cr, T ci) {
    const T t = o.zr * o.zi;
    if constexpr (kFused) {
        o.zr = fused(o.zr, o.zr, -o.zi2) + cr;
    } else {
        o.zr = (o.zr2 - o.zi2) + cr;
        o.zr2 = o.zr * o.zr;
    }
    o.zi = fused(T(2), t, ci);
    o.zi2 = o.zi * o.zi;
}

template <typename T, bool kFused>
__device__ __forceinline__ T norm(const Orbit<T>& o) {
    if constexpr (kFused) return fused(o.zr, o.zr, o.zi2);
    else return o.zr2 + o.zi2;
}

template <typename T>
__device__ __forceinline__ Orbit<T> orbit_at(T zr, T zi) {
    Orbit<T> o;
    o.zr = zr;
    o.zi = zi;
    o.zr2 = zr * zr;
    o.zi2 = zi * zi;
    return o;
}

__device__ __forceinline__ float log2_approx(float x) {
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// smooth_mu (mandelbrot_math.h) rearranged for the GPU: mu = k + 1 - log2(ln|z|) with
// ln|z| = 0.5 * ln2 * log2|z|^2, so mu = k + (1 - log2(0.5 ln 2)) - log2(log2 |z|^2).
// Two hardware log2s (MUFU, absolute error ~2^-22) instead of two double-precision library logs
// that would cost more than all of an exterior pixel's iterations. mu agrees with smooth_mu to
// ~1e-6 plus float rounding; k (the integer classification) is the same by construction.
// norm > kBailoutRadius^2 here, so no subnormal input reaches the .ftz log.
constexpr float kMuConstant = 2.528766372930583f;  // 1 - log2(0.5 * ln 2)

template <typename T>
__device__ __forceinline__ float fast_smooth_mu(int k, T norm_squared) {
    float frac = kMuConstant - log2_approx(log2_approx(float(norm_squared)));
    float mu = float(k) + frac;
    return mu > 0.0f ? mu : 0.0f;  // NaN or negative -> 0, like smooth_mu
}

// The palette entry for mu. In float while the position stays below 2^19 entries (error < 1/32
// of an expanded entry: mu below ~6,000 at density 1), else in double like colorize().
// kFloatOnly: the host has checked that every mu of the frame maps below 2^19 entries
// (positions_fit_float), so the range test and the double path go.
template <bool kFloatOnly = false>
__device__ __forceinline__ uint32_t colour_of(const KernelParams& p, float mu) {
    if (!(mu >= 0.0f)) return p.interior_rgba;
    const float position = __fmaf_rn(mu, p.palette_scale_f, p.palette_offset_f);
    long long entry;
    if (kFloatOnly || fabsf(position) < 524288.0f)
        entry = __float2int_rd(position);
    else
        entry = __double2ll_rd(__fma_rn(double(mu), p.palette_scale, p.palette_offset));
    return __ldg(p.palette + (entry & (kExpandedPaletteSize - 1)));
}

__device__ __forceinline__ void write_pixel(const KernelParams& p, size_t offset, float mu) {
    if (p.rgba) p.rgba[offset] = colour_of(p, mu);
    if (p.mu) p.mu[offset] = mu;
}

// The same with the outputs known at compile time (the tile kernel writes most pixels; this
// saves the pointer tests). kColour: 0 no RGBA, 1 RGBA with float positions, 2 RGBA in general.
template <int kColour, bool kMu>
__device__ __forceinline__ void write_pixel_at(const KernelParams& p, unsigned offset, float mu) {
    if constexpr (kColour != 0) p.rgba[offset] = colour_of<kColour == 1>(p, mu);
    if constexpr (kMu) p.mu[offset] = mu;
}

// Per-thread statistics, summed per block (shuffles, then shared memory) and added to one stripe.
struct LaneStats {
    unsigned long long iterations = 0;
    unsigned escaped = 0;
};

__device__ __forceinline__ unsigned warp_sum(unsigned v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(kFullMask, v);  // one REDUX instruction
#else
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(kFullMask, v, offset);
    return v;
#endif
}

// Every thread of the block must call this (it has a barrier). `thread` is the linear thread index.
// `small`: every thread's iteration count fits 27 bits, so the warp sums fit 32.
template <bool kSmall = false>
__device__ __forceinline__ void flush_stats(const KernelParams& p, LaneStats s, int thread, int threads) {
    __shared__ unsigned long long warp_iterations[32];
    __shared__ unsigned warp_escaped[32];
    if constexpr (kSmall) {
        s.iterations = warp_sum(unsigned(s.iterations));
    } else {
        for (int offset = 16; offset > 0; offset >>= 1)
            s.iterations += __shfl_xor_sync(kFullMask, s.iterations, offset);
    }
    s.escaped = warp_sum(s.escaped);
    if ((thread & 31) == 0) {
        warp_iterations[thread >> 5] = s.iterations;
        warp_escaped[thread >> 5] = s.escaped;
    }
    __syncthreads();
    if (thread == 0) {
        unsigned long long iterations = 0, escaped = 0;
        for (int w = 0; w < threads / 32; ++w) {
            iterations += warp_iterations[w];
            escaped += warp_escaped[w];
        }
        const unsigned stripe = (blockIdx.y * gridDim.x + blockIdx.x) % kCounterStripes;
        if (iterations) atomicAdd(&p.counters[stripe * kStripeWords], iterations);
        if (escaped) atomicAdd(&p.counters[stripe * kStripeWords + 1], escaped);
    }
}

// The cardioid/bulb test exactly as the reference calls it (in double, on the rounded c), behind
// the box that holds both shapes (kShapesMinRe..., mandelbrot_math.h), so the double-precision
// test only runs near them.
template <typename T>
__device__ __forceinline__ bool known_interior(T cr, T ci) {
    if (!(cr >= T(kShapesMinRe) && cr <= T(kShapesMaxRe) && ci >= T(-kShapesMaxIm) && ci <= T(kShapesMaxIm)))
        return false;
    return in_cardioid_or_period2_bulb(double(cr), double(ci));
}

__device__ __forceinline__ unsigned lanemask_lt() {
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

// Steps one by one from iteration k up to `limit`, testing every step; returns true at the first
// escape (k is then its iteration and n its |z|^2). Unrolled by four with one loop test per four
// steps: 9 instructions per step in FP32 (6 arithmetic, |z|^2, compare, branch). (Testing only
// the largest of four |z|^2, with 3 FMNMX, issued fewer instructions per step but ran the steps
// after an escape for nothing: the tile kernel got 7% slower.)
template <typename T, bool kFused>
__device__ __forceinline__ bool iterate_checked(Orbit<T>& o, T cr, T ci, int& k, int limit, T& n) {
    const T bailout_squared = T(kBailoutRadius * kBailoutRadius);
    while (k <= limit - 4) {
        step<T, kFused>(o, cr, ci);
        n = norm<T, kFused>(o);
        if (n > bailout_squared) { k += 1; return true; }
        step<T, kFused>(o, cr, ci);
        n = norm<T, kFused>(o);
        if (n > bailout_squared) { k += 2; return true; }
        step<T, kFused>(o, cr, ci);
        n = norm<T, kFused>(o);
        if (n > bailout_squared) { k += 3; return true; }
        step<T, kFused>(o, cr, ci);
        n = norm<T, kFused>(o);
        if (n > bailout_squared) { k += 4; return true; }
        k += 4;
    }
    while (k < limit) {
        step<T, kFused>(o, cr, ci);
        ++k;
        n = norm<T, kFused>(o);
        if (n > bailout_squared) return true;
    }
    return false;
}

// ---------------------------------------------------------------------------------------------
// Kernels

// Phase 1, the tile kernel: one block per 32 x (8 * rounds) tile, each warp an 8x4 sub-tile per
// round (neighbours share their fate), S iterations per pixel tested one by one. Escaped and
// interior pixels are written; the survivors are gathered in shared memory and appended to the
// global queue with one atomic per block (coalesced copy).
template <typename T, bool kFused, int kColour, bool kMu>
__global__ void __launch_bounds__(kBlockThreads, 8)  // <= 32 registers: full occupancy
mandelbrot_kernel(KernelParams p) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    __shared__ int queue_count, queue_base;
    const int tile_height = kRoundHeight * p.tile_rounds;
    const int capacity = kTileWidth * tile_height;
    T* tile_cr = reinterpret_cast<T*>(shared_bytes);        // kTileWidth
    T* tile_ci = tile_cr + kTileWidth;                        // tile_height
    T* queue_zr = tile_ci + tile_height;                      // capacity
    T* queue_zi = queue_zr + capacity;                        // capacity
    unsigned short* queue_pixel = reinterpret_cast<unsigned short*>(queue_zi + capacity);

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int tile_x = blockIdx.x * kTileWidth, tile_y = blockIdx.y * tile_height;
    const T bailout_squared = T(kBailoutRadius * kBailoutRadius);

    // Pixel centres of the tile's columns and rows, computed once (in double, as PixelGrid does
    // on the host, then rounded to T like the reference).
    if (threadIdx.x < kTileWidth)
        tile_cr[threadIdx.x] = T(p.grid.re(p.rect_x + tile_x + int(threadIdx.x)));
    else if (threadIdx.x < kTileWidth + tile_height)
        tile_ci[threadIdx.x - kTileWidth] =
            T(p.grid.im(p.rect_y + tile_y + int(threadIdx.x) - kTileWidth));
    if (threadIdx.x == 0) queue_count = 0;
    __syncthreads();

    // This thread's column and first row; each round moves down 8 rows. live_rows: the tile's
    // rows inside the rectangle, none where the column is outside it (one test per round).
    const int col = (warp & 3) * 8 + (lane & 7);
    const T cr = tile_cr[col];
    const int live_rows = tile_x + col < p.rect_width ? min(tile_height, p.rect_height - tile_y) : 0;
    const int first = p.first_phase_iterations;
    const bool may_skip = first >= 3;
    unsigned iterations = 0, escaped_pixels = 0;  // at most 8 rounds x S each: fits easily
    int row = (warp >> 2) * 4 + (lane >> 3);
    unsigned offset = unsigned(tile_y + row) * unsigned(p.rect_width) + unsigned(tile_x + col);
    for (int round = 0; round < p.tile_rounds; ++round) {
        bool survivor = false;
        Orbit<T> o;
        if (row < live_rows) {
            const T ci = tile_ci[row];
            float mu = kInteriorMu;
            if (!(p.cardioid_bulb && known_interior(cr, ci))) {  // else interior, 0 iterations
                // z_1 = c (the reference's 0*0 - 0*0 + c has the same value), so k starts at 1.
                o = orbit_at(cr, ci);
                int k = 1;
                T n = norm<T, kFused>(o);
                bool escaped;
                if (may_skip && n <= T(12)) {
                    // |c|^2 <= 12: |z_2| <= 15.5 and |z_3| <= 243 < 256, so steps 1 to 3 cannot
                    // escape (a 5% margin, far above rounding): no test for them.
                    step<T, kFused>(o, cr, ci);
                    step<T, kFused>(o, cr, ci);
                    k = 3;
                    escaped = iterate_checked<T, kFused>(o, cr, ci, k, first, n);
                } else {
                    escaped = n > bailout_squared || iterate_checked<T, kFused>(o, cr, ci, k, first, n);
                }
                if (escaped) {
                    mu = fast_smooth_mu(k, n);
                    iterations += unsigned(k);
                    ++escaped_pixels;
                } else if (k >= p.max_iterations) {
                    iterations += unsigned(k);
                } else {
                    survivor = true;
                }
            }
            // One write for every pixel finished here (a single store per warp and round).
            if (!survivor) write_pixel_at<kColour, kMu>(p, offset, mu);
        }
        // Queue the survivors in shared memory, one shared atomic per warp.
        const unsigned survivors = __ballot_sync(kFullMask, survivor);
        if (survivors) {
            int base = 0;
            if (lane == 0) base = atomicAdd(&queue_count, __popc(survivors));
            base = __shfl_sync(kFullMask, base, 0);
            if (survivor) {
                const int slot = base + __popc(survivors & lanemask_lt());
                queue_pixel[slot] = (unsigned short)(row * kTileWidth + col);
                queue_zr[slot] = o.zr;
                queue_zi[slot] = o.zi;
            }
        }
        row += kRoundHeight;
        offset += unsigned(p.rect_width) * kRoundHeight;
    }
    LaneStats stats;
    stats.iterations = iterations;
    stats.escaped = escaped_pixels;
    __syncthreads();
    // Append them to the global queue: one global atomic per block, then a coalesced copy (c
    // comes from the tile's tables, so phase 2 neither divides nor recomputes it).
    const int count = queue_count;
    if (count > 0) {
        if (threadIdx.x == 0) queue_base = atomicAdd(p.queue_count, count);
        __syncthreads();
        const int base = queue_base;
        for (int i = threadIdx.x; i < count; i += kBlockThreads) {
            const int pixel = queue_pixel[i];
            const int pixel_row = pixel >> 5, pixel_col = pixel & (kTileWidth - 1);
            const int entry = base + i;
            p.queue_pixel[entry] = (tile_y + pixel_row) * p.rect_width + tile_x + pixel_col;
            static_cast<T*>(p.queue_cr)[entry] = tile_cr[pixel_col];
            static_cast<T*>(p.queue_ci)[entry] = tile_ci[pixel_row];
            static_cast<T*>(p.queue_zr)[entry] = queue_zr[i];
            static_cast<T*>(p.queue_zi)[entry] = queue_zi[i];
        }
    }
    flush_stats<true>(p, stats, threadIdx.x, kBlockThreads);
}

// Phase 2, the survivors kernel: a persistent grid shares the queue out. Each warp takes chunks
// of kChunk entries (one global atomic per chunk) and refills a lane as soon as its pixel is done,
// so long-lived pixels are packed into full warps spread over every SM, instead of one block
// working through its own tile's survivors while the rest of the GPU idles. Survivors run blocks
// of N steps with one escape test; on escape the lane goes back to the block's start and repeats
// it step by step, so k stays exact. Periodicity (Brent) compares z with a saved value at the end
// of every block and saves z after 1, 2, 4, 8... blocks. An orbit that repeats exactly is periodic
// in this arithmetic, so the pixel never escapes: the reference, which compares every step, marks
// it interior too. Comparing only every N steps finds the same orbits (once the save interval
// exceeds lcm(period, N)), a few blocks later; only the iteration statistic differs.
constexpr int kChunk = 32;

template <typename T, bool kFused, int kBlockSteps, bool kPeriodicity>
__global__ void __launch_bounds__(kBlockThreads)
mandelbrot_survivors_kernel(KernelParams p) {
    const int lane = threadIdx.x & 31;
    const T bailout_squared = T(kBailoutRadius * kBailoutRadius);
    const int max_iterations = p.max_iterations;
    const int queued = *p.queue_count;  // written by the tile kernel, which has finished
    LaneStats stats;
    if (queued > 0) {
        bool drained = false;                    // warp-uniform: the queue has no entries left
        int chunk_next = 0, chunk_end = 0;       // warp-uniform: this warp's entries to hand out
        bool have = false;
        unsigned have_mask = 0;                  // warp-uniform: the lanes that hold a pixel
        int pixel = 0, k = 0;
        T cr = 0, ci = 0;
        Orbit<T> o;
        T saved_zr = 0, saved_zi = 0;
        int blocks = 0, next_save = 1;
        for (;;) {
            // Refill the idle lanes from the warp's chunk, taking new chunks as needed.
            unsigned need = drained ? 0u : ~have_mask;
            while (need) {
                if (chunk_next >= chunk_end) {
                    int start = 0;
                    if (lane == 0) start = atomicAdd(p.queue_head, kChunk);
                    start = __shfl_sync(kFullMask, start, 0);
                    if (start >= queued) {
                        drained = true;
                        break;
                    }
                    chunk_next = start;
                    chunk_end = min(start + kChunk, queued);
                }
                const int available = chunk_end - chunk_next;
                const int rank = __popc(need & lanemask_lt());
                if (((need >> lane) & 1u) && rank < available) {
                    const int entry = chunk_next + rank;
                    pixel = p.queue_pixel[entry];
                    cr = static_cast<const T*>(p.queue_cr)[entry];
                    ci = static_cast<const T*>(p.queue_ci)[entry];
                    o = orbit_at(static_cast<const T*>(p.queue_zr)[entry], static_cast<const T*>(p.queue_zi)[entry]);
                    k = p.first_phase_iterations;
                    saved_zr = o.zr;
                    saved_zi = o.zi;
                    blocks = 0;
                    next_save = 1;
                    have = true;
                }
                chunk_next += min(__popc(need), available);
                have_mask = __ballot_sync(kFullMask, have);
                need = chunk_next < chunk_end ? 0u : ~have_mask;  // else every idle lane got one
            }
            if (have_mask == 0) break;

            // Blocks of N steps. A lane that needs attention (its block escaped, fewer than N
            // iterations left, or its orbit repeated) waits until p.service_batch lanes do (idle
            // lanes that a refill could serve count too), or no lane is still running: the finish
            // and refill paths below then run once for several lanes instead of once per lane,
            // which is most of phase 2's cost on boundary pixels.
            const int idle = drained ? 0 : 32 - __popc(have_mask);
            bool finish = false, periodic = false;
            for (;;) {
                if (have && !finish && !periodic) {
                    if (k > max_iterations - kBlockSteps) {
                        finish = true;  // fewer than N steps left: go one by one
                    } else {
                        const Orbit<T> start = o;  // register copies: no FP64-pipe work
#pragma unroll
                        for (int j = 0; j < kBlockSteps; ++j) step<T, kFused>(o, cr, ci);
                        if (!(norm<T, kFused>(o) <= bailout_squared)) {  // also catches NaN
                            o = start;
                            finish = true;
                        } else {
                            k += kBlockSteps;
                            if constexpr (kPeriodicity) {
                                if (o.zr == saved_zr && o.zi == saved_zi) {
                                    periodic = true;
                                } else if (++blocks == next_save) {
                                    saved_zr = o.zr;
                                    saved_zi = o.zi;
                                    next_save *= 2;
                                }
                            }
                        }
                    }
                }
                const unsigned waiting = __ballot_sync(kFullMask, finish || periodic);
                if (waiting == have_mask || __popc(waiting) + idle >= p.service_batch) break;
            }

            // The service: the lanes whose block escaped repeat it step by step (or go one by one
            // to max_iterations). Its exits differ per lane, so the warp meets again before the
            // lanes that are done colour and write their pixels together.
            T n = 0;
            bool escaped = false;
            if (finish) {
                // After a block that escaped this finds the exact escape step, since it repeats
                // the same operations.
                const int limit = k > max_iterations - kBlockSteps ? max_iterations : k + kBlockSteps;
                escaped = iterate_checked<T, kFused>(o, cr, ci, k, limit, n);
            }
            __syncwarp();
            // Done: periodic, escaped, or at max_iterations. (A block that escaped always escapes
            // in its redo, so a finishing lane that did not escape is at max_iterations.)
            if (periodic || escaped || (finish && k >= max_iterations)) {
                stats.iterations += unsigned(k);
                stats.escaped += escaped ? 1u : 0u;
                write_pixel(p, size_t(pixel), escaped ? fast_smooth_mu(k, n) : kInteriorMu);
                have = false;
            }
            have_mask = __ballot_sync(kFullMask, have);
        }
    }
    flush_stats(p, stats, threadIdx.x, kBlockThreads);
}

// The baseline: one pixel per thread in 16x16 blocks, the escape test every iteration, written
// the way nvcc contracts the reference's expressions by default. Kept to measure the tile
// kernel against (CudaTuning::naive); same output and statistics (no shortcuts).
template <typename T>
__global__ void mandelbrot_naive_kernel(KernelParams p) {
    const int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
    LaneStats stats;
    if (x < p.rect_width && y < p.rect_height) {
        const T cr = T(p.grid.re(p.rect_x + x)), ci = T(p.grid.im(p.rect_y + y));
        const T bailout_squared = T(kBailoutRadius * kBailoutRadius);
        T zr = 0, zi = 0;
        float mu = kInteriorMu;
        int k = 1;
        for (; k <= p.max_iterations; ++k) {
            T new_zr = fused(zr, zr, -(zi * zi)) + cr;
            zi = fused(T(2) * zr, zi, ci);
            zr = new_zr;
            T n = fused(zr, zr, zi * zi);
            if (n > bailout_squared) {
                mu = fast_smooth_mu(k, n);
                ++stats.escaped;
                break;
            }
        }
        stats.iterations = unsigned(k > p.max_iterations ? p.max_iterations : k);
        write_pixel(p, size_t(y) * size_t(p.rect_width) + size_t(x), mu);
    }
    flush_stats(p, stats, threadIdx.y * 16 + threadIdx.x, 256);
}

// ---------------------------------------------------------------------------------------------
// Launchers

// Persistent state: device buffers kept between frames (resized only when they must grow), so a
// frame costs the kernels, one small memset and one small copy of the counters.
struct CudaState {
    std::mutex mutex;
    int device = -1;
    int sm_count = 0;
    uint32_t* palette = nullptr;  // kExpandedPaletteSize entries
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
    uint8_t* rgba = nullptr;  // for mandelbrot_cuda_to_host
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

CudaState& cuda_state() {
    static CudaState state;
    return state;
}

void ensure_device_state(CudaState& s) {
    int device = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    if (s.device == device) return;
    s.release();
    CUDA_CHECK(cudaDeviceGetAttribute(&s.sm_count, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaMalloc(&s.palette, kExpandedPaletteSize * sizeof(uint32_t)));
    CUDA_CHECK(cudaMalloc(&s.counters, kCounterBytes));
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
    CUDA_CHECK(cudaMalloc(&s.queue_pixel, pixels * sizeof(int)));
    for (void** buffer : {&s.queue_cr, &s.queue_ci, &s.queue_zr, &s.queue_zi})
        CUDA_CHECK(cudaMalloc(buffer, pixels * sizeof(double)));
    s.queue_pixels = pixels;
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
    CUDA_CHECK(cudaMemcpy(s.palette, expanded.data(), expanded.size() * sizeof(uint32_t),
                          cudaMemcpyHostToDevice));
    s.palette_source = std::move(source);
}

// The survivors kernel runs as a persistent grid: as many blocks as fit on the GPU at once.
// (tuning.survivor_blocks_per_sm, if set and lower, caps it: fewer lanes each take more pixels).
template <typename T, bool kFused, int kBlockSteps, bool kPeriodicity>
void launch_survivors_kernel(const KernelParams& p, const CudaTuning& tuning, const CudaState& s) {
    auto kernel = mandelbrot_survivors_kernel<T, kFused, kBlockSteps, kPeriodicity>;
    static int blocks_per_sm = 0;  // per instantiation; the same on every device we run on
    if (blocks_per_sm == 0) {
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kernel, kBlockThreads, 0));
        blocks_per_sm = std::max(blocks_per_sm, 1);
    }
    const int cap = tuning.survivor_blocks_per_sm;
    kernel<<<s.sm_count * (cap > 0 ? std::min(cap, blocks_per_sm) : blocks_per_sm), kBlockThreads>>>(p);
}

template <typename T, bool kFused>
void launch_survivors_kernel(const KernelParams& p, const CudaTuning& tuning, bool periodicity, const CudaState& s) {
    auto go = [&](auto steps_tag) {
        constexpr int kSteps = decltype(steps_tag)::value;
        if (periodicity) launch_survivors_kernel<T, kFused, kSteps, true>(p, tuning, s);
        else launch_survivors_kernel<T, kFused, kSteps, false>(p, tuning, s);
    };
    switch (tuning.block_steps) {
        case 8: go(std::integral_constant<int, 8>{}); break;
        case 16: go(std::integral_constant<int, 16>{}); break;
        default: go(std::integral_constant<int, 32>{}); break;
    }
}

// Whether every palette position of the frame stays below 2^19 entries, where colour_of's float
// path is exact enough: mu < max_iterations (fast_smooth_mu subtracts log2(log2 |z|^2) > 4), with
// a margin for the float rounding of mu and of the bound itself.
bool positions_fit_float(const KernelParams& p) {
    return double(p.max_iterations) * std::fabs(p.palette_scale) + p.palette_offset < 0.99 * 524288.0;
}

template <typename T>
void launch(const KernelParams& p, const CudaTuning& tuning, bool periodicity, const CudaState& s) {
    if (tuning.naive) {
        dim3 grid((p.rect_width + 15) / 16, (p.rect_height + 15) / 16);
        mandelbrot_naive_kernel<T><<<grid, dim3(16, 16)>>>(p);
        CUDA_CHECK_LAUNCH();
        return;
    }
    const int tile_height = kRoundHeight * p.tile_rounds;
    const int capacity = kTileWidth * tile_height;
    const size_t shared_bytes = sizeof(T) * (kTileWidth + tile_height + 2 * size_t(capacity)) +
                                sizeof(unsigned short) * capacity;
    const dim3 grid((p.rect_width + kTileWidth - 1) / kTileWidth, (p.rect_height + tile_height - 1) / tile_height);
    auto tile = [&](auto fused_tag) {
        constexpr bool kFused = decltype(fused_tag)::value;
        auto go = [&](auto colour_tag) {
            constexpr int kColour = decltype(colour_tag)::value;
            if (p.mu) mandelbrot_kernel<T, kFused, kColour, true><<<grid, kBlockThreads, shared_bytes>>>(p);
            else mandelbrot_kernel<T, kFused, kColour, false><<<grid, kBlockThreads, shared_bytes>>>(p);
        };
        if (!p.rgba) go(std::integral_constant<int, 0>{});
        else if (positions_fit_float(p)) go(std::integral_constant<int, 1>{});
        else go(std::integral_constant<int, 2>{});
    };
    if (tuning.fused_multiply_add) tile(std::true_type{});
    else tile(std::false_type{});
    CUDA_CHECK_LAUNCH();
    if (p.max_iterations <= p.first_phase_iterations) return;  // nobody survives phase 1
    if (tuning.fused_multiply_add) launch_survivors_kernel<T, true>(p, tuning, periodicity, s);
    else launch_survivors_kernel<T, false>(p, tuning, periodicity, s);
    CUDA_CHECK_LAUNCH();
}

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

// The render itself; the caller holds the state's mutex.
FrameStats render_locked(CudaState& s, const View& view, Precision precision, const Shortcuts& shortcuts,
                         const PaletteTable& palette, PixelRect rect, uint8_t* rgba_device,
                         float* mu_device, const CudaTuning& tuning) {
    if (std::string problem = validate_view(view); !problem.empty()) throw std::invalid_argument(problem);
    check_tuning(tuning);
    rect = resolve_rect(view, rect);
    if (int64_t(rect.width) * rect.height >= (int64_t(1) << 31))
        throw std::invalid_argument("a CUDA frame holds fewer than 2^31 pixels: render it in tiles");
    if (reinterpret_cast<uintptr_t>(rgba_device) % 4 != 0)
        throw std::invalid_argument("the RGBA output must be 4-byte aligned");
    ensure_device_state(s);
    upload_palette(s, palette);
    ensure_queue(s, size_t(rect.width) * size_t(rect.height));

    FrameStats stats;
    stats.precision = resolve_precision(view, precision);

    KernelParams p;
    p.grid = {center_re_value(view), center_im_value(view), pixel_step(view), 0.5 * view.width,
              0.5 * view.height};
    p.rect_x = rect.x;
    p.rect_y = rect.y;
    p.rect_width = rect.width;
    p.rect_height = rect.height;
    p.max_iterations = view.max_iterations;
    p.first_phase_iterations = std::min(tuning.first_phase_iterations, view.max_iterations);
    p.tile_rounds = tuning.tile_rounds;
    p.service_batch = tuning.service_batch;
    p.cardioid_bulb = shortcuts.cardioid_bulb;
    // colorize(): table position = mu * density / 100 * size + offset * size; here in entries of
    // the 8x finer table.
    p.palette_scale = view.palette_density / 100.0 * kExpandedPaletteSize;
    p.palette_offset = std::fmod(view.palette_offset * kExpandedPaletteSize, double(kExpandedPaletteSize));
    if (p.palette_offset < 0.0) p.palette_offset += kExpandedPaletteSize;  // the palette is cyclic
    p.palette_scale_f = float(p.palette_scale);
    p.palette_offset_f = float(p.palette_offset);
    p.palette = s.palette;
    p.interior_rgba = palette.interior_rgba;
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

    CUDA_CHECK(cudaMemsetAsync(s.counters, 0, kCounterBytes));
    CUDA_CHECK(cudaEventRecord(s.start));
    // The mistake FrameStats::host_launch_ms exists to show: a host clock read around the
    // launches, before any synchronisation, sees only the time to queue them.
    const auto launch_start = std::chrono::steady_clock::now();
    if (stats.precision == Precision::Fp32) launch<float>(p, tuning, shortcuts.periodicity, s);
    else launch<double>(p, tuning, shortcuts.periodicity, s);
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

// A kernel to ask the runtime whether this binary has code the device can run.
__global__ void probe_kernel() {}

}  // namespace

// Defaults, from the tuning runs on an H100 (tests/test_mandelbrot_cuda.cpp, DISABLED_Throughput):
//  * exact arithmetic in both precisions: with FMA, last-bit differences grow through chaotic
//    orbits until 0.2% (seahorse valley, FP64) to 2.7% (FP32) of the pixels change their escape
//    count, against the 99.9% the reference comparison asks for; FMA would be ~17% faster;
//  * N = 32 steps per escape test (all-interior 4K: 4.78e12 it/s FP32 vs 4.25e12 with N = 16);
//  * S = 64 first-phase iterations, 32x32 tiles, service batch 8 (the fastest measured on the
//    full view, shortcuts on and off; S = 32 is as fast in FP32 with the shortcuts on);
//  * phase 2 on as many blocks per SM as fit: capping them at 2 to 4, so that fewer lanes each
//    take more pixels, was 5-12% slower on the full view.
CudaTuning default_cuda_tuning(Precision) {
    CudaTuning t;
    t.fused_multiply_add = false;
    t.block_steps = 32;
    t.first_phase_iterations = 64;
    t.tile_rounds = 4;
    t.service_batch = 8;
    return t;
}

// Instructions per iteration of the phase-2 loop (mandelbrot_survivors_kernel, shortcuts off,
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
// Limit = SMs x lanes x clock / this: H100 132 x 128 x 1.98 GHz / 6.81 = 4.91e12 it/s FP32 and
// 132 x 64 x 1.98 GHz / 6.06 = 2.76e12 it/s FP64 (the README's 4.2e12 and 2.4e12 assume 8 and 7
// instructions with an escape test every iteration).
double mandelbrot_cuda_instructions_per_iteration(Precision precision) {
    if (precision == Precision::Fp64) return 194.0 / 32.0;
    return 218.0 / 32.0;
}

bool cuda_available(std::string* reason) {
    // The device's absence in compute/cuda_info.h's words, the same in every mode.
    if (std::string why = cuda_unavailable_reason(); !why.empty()) {
        if (reason) *reason = why;
        return false;
    }
    cudaError_t err = cudaSuccess;
    cudaFuncAttributes attributes{};
    err = cudaFuncGetAttributes(&attributes, probe_kernel);
    if (err != cudaSuccess) {
        cudaGetLastError();
        int device = 0, major = 0, minor = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
        if (reason)
            *reason = "the CUDA device (compute capability " + std::to_string(major) + "." +
                      std::to_string(minor) + ") cannot run this program's kernels: " +
                      cudaGetErrorString(err);
        return false;
    }
    if (reason) reason->clear();
    return true;
}

FrameStats mandelbrot_cuda_tuned(const View& view, Precision precision, const Shortcuts& shortcuts,
                                 const PaletteTable& palette, PixelRect rect, uint8_t* rgba_device,
                                 float* mu_device, const CudaTuning& tuning) {
    CudaState& s = cuda_state();
    std::lock_guard<std::mutex> lock(s.mutex);
    return render_locked(s, view, precision, shortcuts, palette, rect, rgba_device, mu_device, tuning);
}

FrameStats mandelbrot_cuda(const View& view, Precision precision, const Shortcuts& shortcuts,
                           const PaletteTable& palette, PixelRect rect, uint8_t* rgba_device,
                           float* mu_device) {
    Precision resolved = resolve_precision(view, precision);
    return mandelbrot_cuda_tuned(view, precision, shortcuts, palette, rect, rgba_device, mu_device,
                                 default_cuda_tuning(resolved));
}

FrameStats mandelbrot_cuda_tuned_to_host(const View& view, Precision precision,
                                         const Shortcuts& shortcuts, const PaletteTable& palette,
                                         PixelRect rect, uint8_t* rgba_host, float* mu_host,
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
        CUDA_CHECK(cudaMalloc(&buffer, bytes));
        capacity = bytes;
    };
    if (rgba_host) ensure(s.rgba, s.rgba_bytes, pixels * 4);
    if (mu_host) ensure(s.mu, s.mu_bytes, pixels * sizeof(float));
    FrameStats stats = render_locked(s, view, precision, shortcuts, palette, rect,
                                     rgba_host ? s.rgba : nullptr, mu_host ? s.mu : nullptr, tuning);
    if (rgba_host) CUDA_CHECK(cudaMemcpy(rgba_host, s.rgba, pixels * 4, cudaMemcpyDeviceToHost));
    if (mu_host) CUDA_CHECK(cudaMemcpy(mu_host, s.mu, pixels * sizeof(float), cudaMemcpyDeviceToHost));
    return stats;
}

FrameStats mandelbrot_cuda_to_host(const View& view, Precision precision, const Shortcuts& shortcuts,
                                   const PaletteTable& palette, PixelRect rect, uint8_t* rgba_host,
                                   float* mu_host) {
    return mandelbrot_cuda_tuned_to_host(view, precision, shortcuts, palette, rect, rgba_host, mu_host,
                                         default_cuda_tuning(resolve_precision(view, precision)));
}

}  // namespace ms
