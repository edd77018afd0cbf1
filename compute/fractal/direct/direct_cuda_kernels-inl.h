// direct_cuda_kernels-inl.h: what the Mandelbrot kernels share (included by the .cu files of
// compute/fractal/ only): the launch constants, KernelParams, the device helpers (one step,
// smooth value, colouring, statistics, the cardioid/bulb test), and the host functions that
// launch each pass. Split by concept (see direct_cuda.cu for the whole design):
//   direct_cuda_tile.cu       phase 1, the tile pass (and the naive baseline kernel)
//   direct_cuda_survivors.cu  phase 2, the survivors' queue
//   direct_cuda.cu            the launcher: device state, one frame, the public API
// Every file is compiled with --fmad=false (compute/CMakeLists.txt): see direct_cuda.cu.
//
// Formulas (compute/fractal/view/formula.h) are a template parameter F of every kernel and device
// helper: Mandelbrot's instantiation is the hand-tuned code below, operation for operation; the
// others take formula_math.h's step, whose operations match the CPU reference's. A Julia set is
// a runtime flag read once per pixel (z_0 = the pixel, c = p.julia_re/im), never per iteration.
// The distance estimate rides along as one more template parameter, kFeatures (orbit_features.h's
// kFeature* mask: 0 or kFeatureDistance): the tile and survivors kernels then carry the
// derivative (Derivative below) beside z, finish an escaped pixel's distance where it escapes and
// pass the derivative through the queue. kFeatures = 0 is the smooth frame, operation for
// operation the same code as without the features (every addition below is behind
// `if constexpr`).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "compute/fractal/colour/pixel_colour.h"
#include "compute/fractal/direct/direct.h"
#include "compute/fractal/direct/direct_cuda_tuning.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/system/cuda_check.h"

namespace ms::direct_cuda_detail {

// ---------------------------------------------------------------------------------------------
// Shared device helpers

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kTileWidth = 32;  // pixels (a queued pixel is row * 32 + col); a round covers 32 x 8
constexpr int kRoundHeight = 8;
constexpr int kBlockThreads = 256;  // 8 warps, each an 8x4 sub-tile per round
constexpr int kMaxTileRounds = 8;
// The palette is pre-sampled 8x finer than the 1024-entry table (at the centres of the finer
// bins), so the kernel picks one entry instead of interpolating: within 1/16 of a table entry of
// colourize(), i.e. the same colour or one level off in a channel.
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
    int service_batch = 8;      // lanes waiting before a warp runs its finish/refill path
    bool cardioid_bulb = true;  // the host clears it for other formulas and Julia sets
    bool julia = false;         // z_0 = the pixel, c = (julia_re, julia_im)
    double julia_re = 0.0, julia_im = 0.0;
    // The smooth value of formulas other than Mandelbrot: mu = k + mu_constant - mu_scale *
    // log2(log2 |z|^2) (formula_smooth_constants rearranged as fast_smooth_mu does).
    float mu_constant = 0.0f, mu_scale = 1.0f;
    double palette_scale = 0.0;   // expanded-table entries per unit of mu
    double palette_offset = 0.0;  // expanded-table entries, reduced to [0, kExpandedPaletteSize)
    float palette_scale_f = 0.0f;
    float palette_offset_f = 0.0f;
    const uint32_t* palette = nullptr;
    uint32_t interior_rgba = 0;
    uint32_t* rgba = nullptr;                // may be null
    float* mu = nullptr;                     // may be null
    unsigned long long* counters = nullptr;  // [kCounterStripes][kStripeWords]: iterations, escaped
    // The survivors' queue (phase 1 -> phase 2): pixel index (y * rect_width + x), c and z.
    int* queue_count = nullptr;  // entries appended by the tile kernel
    int* queue_head = nullptr;   // entries taken by the survivors kernel
    int* queue_pixel = nullptr;
    void* queue_zr = nullptr;  // T[]
    void* queue_zi = nullptr;
    void* queue_cr = nullptr;
    void* queue_ci = nullptr;
    // The distance instantiation only (kFeatures = kFeatureDistance):
    //   distance: rect-sized, may be null; 0 for interior pixels, as orbit_features.h's;
    //   queue_d*: a survivor's derivative (T[], rect-sized, indexed by the pixel, not the queue
    //     entry, so the tile kernel writes it where the pixel survives without staging it in
    //     shared memory); queue_dxr/dxi for Burning Ship and Tricorn only;
    //   rgba, when set, is coloured with colour_pixel() and `colour` (the colouring's own pass,
    //     pixel_colour.h), not with the smooth palette above.
    float* distance = nullptr;
    float inverse_pixel_step = 1.0f;
    void* queue_dzr = nullptr;
    void* queue_dzi = nullptr;
    void* queue_dxr = nullptr;
    void* queue_dxi = nullptr;
    ColourParams colour;
};

template <typename T>
__device__ __forceinline__ T fused(T a, T b, T c);
template <>
__device__ __forceinline__ float fused<float>(float a, float b, float c) {
    return __fmaf_rn(a, b, c);
}
template <>
__device__ __forceinline__ double fused<double>(double a, double b, double c) {
    return __fma_rn(a, b, c);
}

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
//     one, see tests/fractal/direct/test_direct_cuda.cpp). 5 instructions: FMUL, FFMA, FADD, FFMA, FMUL;
//     zr2 is not kept and |z|^2 = fma(zr, zr, zi2).
// Other formulas (kFused is false for them): Burning Ship and Tricorn as Mandelbrot's exact step
// (quadratic_step_fused, formula_step-inl.h), with |t| and -t as operand modifiers of the FFMA (no
// extra instruction); Multibrots through formula_step (formula_math.h). Each rounds as the
// reference does.
template <Formula F, typename T, bool kFused>
__device__ __forceinline__ void step(Orbit<T>& o, T cr, T ci) {
    if constexpr (F == Formula::Mandelbrot && kFused) {
        const T t = o.zr * o.zi;
        o.zr = fused(o.zr, o.zr, -o.zi2) + cr;
        o.zi = fused(T(2), t, ci);
        o.zi2 = o.zi * o.zi;
        return;
    } else if constexpr (formula_degree(F) == 2) {
        quadratic_step_fused<F>(o.zr, o.zi, o.zr2, o.zi2, cr, ci, ScalarDerivativeOps{}, ScalarAbs{});
    } else {
        formula_step<F>(o.zr, o.zi, o.zr2, o.zi2, cr, ci, ScalarAbs{});
        o.zr2 = o.zr * o.zr;
        o.zi2 = o.zi * o.zi;
    }
}

// The derivative the distance estimate carries (orbit_features.h, formula_derivative_step): D =
// dz_k/dc on the parameter plane, dz_k/dz_0 on a Julia set; (dxr, dxi) is the Jacobian's second
// column (Burning Ship, Tricorn; dead code for the holomorphic formulas, so no registers). `one`
// is what a step adds: 1 on the parameter plane, 0 on a Julia set (a register: Julia is data in
// these kernels).
template <typename T>
struct Derivative {
    T dzr = 0, dzi = 0, dxr = 0, dxi = 0;
    T one = 1;
};

// Where a kernel carries no derivative (kFeatures = 0).
struct NoDerivative {};

// Before the step z_k -> z_{k+1}, with z_k, as OrbitAccumulator::before_step does: the same
// expression and roundings as the reference (--fmad=false), so the same D.
template <Formula F, typename T>
__device__ __forceinline__ void derivative_step(Derivative<T>& d, T zr, T zi) {
    formula_derivative_step<F>(zr, zi, d.dzr, d.dzi, d.dxr, d.dxi, d.one, T(formula_degree(F)), ScalarDerivativeOps{});
}

// D at the kernels' first k: on the parameter plane the tile kernel starts at z_1 = c, so D_1 =
// the step from z_0 = 0, D_0 = 0 (the identity, with the reference's signs of zero); on a Julia
// set at z_0, D_0 = the identity and nothing is added per step.
template <Formula F, typename T>
__device__ __forceinline__ Derivative<T> derivative_start(bool julia) {
    Derivative<T> d;
    if (julia) {
        d.dzr = T(1);
        d.dxi = T(1);
        d.one = T(0);
    } else {
        derivative_step<F>(d, T(0), T(0));
    }
    return d;
}

// Mandelbrot's distance instantiation on a Julia set: kFeatureDistance | kFeatureJuliaSet, so that
// the scaled derivative below adds its constants as immediates (nothing on a Julia set). The host
// picks it where p.julia is set (launch_tile_pass, launch_survivors_pass); the other formulas and
// the plain steps keep Derivative::one.
constexpr unsigned kFeatureJuliaSet = 1u << 8;

// Mandelbrot's derivative within a block of steps whose length the code knows, scaled
// (mandelbrot_scaled_derivative_step, formula_step-inl.h): after j steps of the block the kernel
// holds E = D / 2^j, and a step is E <- z E + 2^-(j+1) (+ 0 on a Julia set): 4 operations, where
// D's own step (formula_derivative_step) has the two doublings too. Scaling by a power of 2 is
// exact, and every rounding of this step is the plain step's rounding scaled by 2^(j+1), so E 2^j
// has D's bits (while E stays a normal number: |D| above 2^-94 in FP32 for blocks of 32, far
// below what an escaping orbit's derivative reaches). j is a constant once the block's loop is
// unrolled, and so is the addend.
template <typename T, unsigned kFeatures>
__device__ __forceinline__ void scaled_derivative_step(Derivative<T>& d, T zr, T zi, int j) {
    const T h = (kFeatures & kFeatureJuliaSet) != 0 ? T(0) : T(1.0 / double(1ull << (j + 1)));
    mandelbrot_scaled_derivative_step(zr, zi, d.dzr, d.dzi, h, ScalarDerivativeOps{});
}

// E 2^j: D again, after j scaled steps.
template <typename T>
__device__ __forceinline__ void unscale_derivative(Derivative<T>& d, int j) {
    const T s = T(double(1ull << j));
    d.dzr *= s;
    d.dzi *= s;
}

// Whether a kernel takes the scaled derivative: Mandelbrot's distance instantiation.
template <Formula F, unsigned kFeatures>
constexpr bool kScaledDerivative = F == Formula::Mandelbrot && (kFeatures & kFeatureDistance) != 0;

// One step of the orbit and, for kFeatures with kFeatureDistance, of the derivative before it.
template <Formula F, typename T, bool kFused, unsigned kFeatures>
__device__ __forceinline__ void step(Orbit<T>& o, Derivative<T>& d, T cr, T ci) {
    if constexpr ((kFeatures & kFeatureDistance) != 0) derivative_step<F>(d, o.zr, o.zi);
    else (void)d;
    step<F, T, kFused>(o, cr, ci);
}

template <Formula F, typename T, bool kFused>
__device__ __forceinline__ T norm(const Orbit<T>& o) {
    if constexpr (kFused && F == Formula::Mandelbrot) return fused(o.zr, o.zr, o.zi2);
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

// smooth_mu (escape.h) rearranged for the GPU: mu = k + 1 - log2(ln|z|) with
// ln|z| = 0.5 * ln2 * log2|z|^2, so mu = k + (1 - log2(0.5 ln 2)) - log2(log2 |z|^2).
// Two hardware log2s (MUFU, absolute error ~2^-22) instead of two double-precision library logs
// that would cost more than all of an exterior pixel's iterations. mu agrees with smooth_mu to
// ~1e-6 plus float rounding; k (the integer classification) is the same by construction.
// norm > kBailoutRadius^2 here, so no subnormal input reaches the .ftz log.
constexpr float kMuConstant = 2.528766372930583f;  // 1 - log2(0.5 * ln 2)

// Other formulas: log_d instead of log2 and their constant (formula_math.h), |z|^2 clamped to
// float's largest value as on the CPU.
template <Formula F = Formula::Mandelbrot, typename T>
__device__ __forceinline__ float fast_smooth_mu(const KernelParams& p, int k, T norm_squared) {
    if constexpr (F != Formula::Mandelbrot) {
        const float n = fminf(float(norm_squared), 3.402823466e38f);
        const float mu = float(k) + (p.mu_constant - p.mu_scale * feature_log2_approx(feature_log2_approx(n)));
        return mu > 0.0f ? mu : 0.0f;
    }
    float frac = kMuConstant - feature_log2_approx(feature_log2_approx(float(norm_squared)));
    float mu = float(k) + frac;
    return mu > 0.0f ? mu : 0.0f;  // NaN or negative -> 0, like smooth_mu
}

// The palette entry for mu. In float while the position stays below 2^19 entries (error < 1/32
// of an expanded entry: mu below ~6,000 at density 1), else in double like colourize().
// kFloatOnly: the host has checked that every mu of the frame maps below 2^19 entries
// (positions_fit_float), so the range test and the double path go.
template <bool kFloatOnly = false>
__device__ __forceinline__ uint32_t colour_of(const KernelParams& p, float mu) {
    if (!(mu >= 0.0f)) return p.interior_rgba;
    const float position = __fmaf_rn(mu, p.palette_scale_f, p.palette_offset_f);
    long long entry;
    if (kFloatOnly || fabsf(position) < 524288.0f) entry = __float2int_rd(position);
    else entry = __double2ll_rd(__fma_rn(double(mu), p.palette_scale, p.palette_offset));
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
// the box that holds both shapes (kShapesMinRe..., escape.h), so the double-precision
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
// the largest of four |z|^2, with 3 FMNMX, issues fewer instructions per step but runs the steps
// after an escape for nothing, which makes the tile kernel slower.)
template <Formula F, typename T, bool kFused, unsigned kFeatures = 0>
__device__ __forceinline__ bool iterate_checked(Orbit<T>& o, Derivative<T>& d, T cr, T ci, int& k, int limit, T& n) {
    const T bailout_squared = T(formula_bailout_radius(F) * formula_bailout_radius(F));
    if constexpr (kScaledDerivative<F, kFeatures> && sizeof(T) == 8) {
        // Blocks of 4 with the scaled derivative (D again at each exit and after the block). In
        // FP64 only, which the FP64 pipe's throughput bounds: in FP32 the tile pass's pixels mostly
        // escape within a few steps, and the exits' rescaling makes it slower (more instructions
        // for no gain in range; see docs/performance.md).
        while (k <= limit - 4) {
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                scaled_derivative_step<T, kFeatures>(d, o.zr, o.zi, j);
                step<F, T, kFused>(o, cr, ci);
                n = norm<F, T, kFused>(o);
                if (n > bailout_squared) {
                    k += j + 1;
                    unscale_derivative(d, j + 1);
                    return true;
                }
            }
            unscale_derivative(d, 4);
            k += 4;
        }
    }
    while (k <= limit - 4) {
        step<F, T, kFused, kFeatures>(o, d, cr, ci);
        n = norm<F, T, kFused>(o);
        if (n > bailout_squared) {
            k += 1;
            return true;
        }
        step<F, T, kFused, kFeatures>(o, d, cr, ci);
        n = norm<F, T, kFused>(o);
        if (n > bailout_squared) {
            k += 2;
            return true;
        }
        step<F, T, kFused, kFeatures>(o, d, cr, ci);
        n = norm<F, T, kFused>(o);
        if (n > bailout_squared) {
            k += 3;
            return true;
        }
        step<F, T, kFused, kFeatures>(o, d, cr, ci);
        n = norm<F, T, kFused>(o);
        if (n > bailout_squared) {
            k += 4;
            return true;
        }
        k += 4;
    }
    while (k < limit) {
        step<F, T, kFused, kFeatures>(o, d, cr, ci);
        ++k;
        n = norm<F, T, kFused>(o);
        if (n > bailout_squared) return true;
    }
    return false;
}

// The smooth kernels' form (no derivative).
template <Formula F, typename T, bool kFused>
__device__ __forceinline__ bool iterate_checked(Orbit<T>& o, T cr, T ci, int& k, int limit, T& n) {
    Derivative<T> unused;
    return iterate_checked<F, T, kFused, 0>(o, unused, cr, ci, k, limit, n);
}

// The distance of a pixel that escaped at z = o with |z|^2 = n (fast_distance_estimate, the
// features kernels' float finish), in pixels.
template <Formula F, typename T>
__device__ __forceinline__ float escaped_distance(const KernelParams& p, const Orbit<T>& o, const Derivative<T>& d,
                                                  T n) {
    const float nf = fminf(float(n), 3.402823466e38f);
    return fast_distance_estimate<F>(d.dzr, d.dzi, d.dxr, d.dxi, o.zr, o.zi, nf, feature_log2_approx(nf),
                                     p.inverse_pixel_step);
}

// A finished pixel of the distance instantiation: mu, its distance (0 inside), and its colour by
// the colouring's colour_pixel() where the frame is coloured here; each output where its pointer
// is set (uniform branches, once per pixel).
__device__ __forceinline__ void write_distance_pixel(const KernelParams& p, size_t offset, float mu, float distance) {
    if (p.mu) p.mu[offset] = mu;
    if (p.distance) p.distance[offset] = distance;
    if (p.rgba) p.rgba[offset] = colour_pixel(p.colour, mu, 0.0f, 0.0f, distance, 0.0f, 0.0f);
}

// ---------------------------------------------------------------------------------------------
// The passes' launchers (host), each beside its kernel. Each checks its launches.

// Phase 1 (direct_cuda_tile.cu): one block per tile; picks the colouring variant.
// kFeatures: 0 (the smooth frame) or kFeatureDistance (the distance instantiation: no fused form).
template <typename T, unsigned kFeatures = 0>
void launch_tile_pass(const KernelParams& p, Formula formula, bool fused_multiply_add);
// The naive one-pixel-per-thread baseline (direct_cuda_tile.cu), for CudaTuning::naive.
template <typename T>
void launch_naive_kernel(const KernelParams& p);
// Phase 2 (direct_cuda_survivors.cu): a persistent grid over the survivors' queue.
template <typename T, unsigned kFeatures = 0>
void launch_survivors_pass(const KernelParams& p, Formula formula, const CudaTuning& tuning, bool periodicity,
                           int sm_count);

// Calls go(std::integral_constant<Formula, F>{}) for the formula: the one switch from a runtime
// formula to the kernels' template parameter.
template <class Go>
void with_formula(Formula formula, Go&& go) {
    switch (formula) {
    case Formula::Mandelbrot: return go(std::integral_constant<Formula, Formula::Mandelbrot>{});
    case Formula::Multibrot3: return go(std::integral_constant<Formula, Formula::Multibrot3>{});
    case Formula::Multibrot4: return go(std::integral_constant<Formula, Formula::Multibrot4>{});
    case Formula::Multibrot5: return go(std::integral_constant<Formula, Formula::Multibrot5>{});
    case Formula::Multibrot6: return go(std::integral_constant<Formula, Formula::Multibrot6>{});
    case Formula::Multibrot7: return go(std::integral_constant<Formula, Formula::Multibrot7>{});
    case Formula::Multibrot8: return go(std::integral_constant<Formula, Formula::Multibrot8>{});
    case Formula::BurningShip: return go(std::integral_constant<Formula, Formula::BurningShip>{});
    case Formula::Tricorn: return go(std::integral_constant<Formula, Formula::Tricorn>{});
    }
}

}  // namespace ms::direct_cuda_detail
