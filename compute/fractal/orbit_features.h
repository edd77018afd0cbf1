// orbit_features.h: the kernels' compile-time variant that accumulates, along each orbit, what
// the colouring layers need (colouring.h) besides the smooth value:
//   distance  exterior distance estimate |z| ln|z| / |dz/dc| at the escape, with
//             dz_{k+1} = 2 z_k dz_k + 1, dz_0 = 0; in pixels (divided by the pixel step);
//             0 for interior pixels. For c outside the set and a large bailout radius it lies
//             within a factor of 2 of the true distance to the set (Koebe 1/4 theorem on the
//             Green's function G = ln|z_k| / 2^k: G / (2|G'|) < dist < 2 G / |G'|).
//   stripe    the stripe average over k = 1..K of 1/2 + 1/2 sin(s arg z_k) (s whole:
//             sin(s arg z) = Im((z/|z|)^s), no trigonometry), blended between the averages
//             over 1..K and 1..K-1 by mu's fraction so that it is continuous across escape
//             counts; 0 for interior pixels.
//   period    an interior pixel's period: the orbit's, once it has settled after the steps run
//             (orbit_period(): at most kMaxOrbitPeriod extra steps, interior pixels only, so
//             nothing is added to the iteration loop); 1 in the main cardioid and 2 in the
//             period-2 bulb when the shortcut settles them; 0 where the orbit has not settled
//             and for escaped pixels.
//
// Three siblings, as for the smooth kernels:
//   mandelbrot_features_cpu_reference  one thread, the reference iterate_point with kFeatures
//   mandelbrot_features_cpu            every core (OpenMP), orbit_point_features() below
//   mandelbrot_features_cuda           one CUDA thread per pixel, orbit_point_features() too
// The smooth-only kernels are untouched: features are a template parameter, so a smooth frame
// keeps its speed exactly. Escape counts and mu follow the smooth kernels' rules (cardioid and
// bulb test, the same periodicity schedule), so mu matches mandelbrot_cpu_reference.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>

#include "compute/fractal/mandelbrot.h"
#include "compute/fractal/mandelbrot_math.h"

namespace ms {

inline constexpr unsigned kFeatureDistance = 1u;
inline constexpr unsigned kFeatureStripe = 2u;
inline constexpr unsigned kFeaturePeriod = 4u;
inline constexpr unsigned kAllFeatures = 7u;

// Outputs, rect-sized and row-major like mu; a null pointer is a feature not computed.
struct OrbitFeatureOutputs {
    float* distance = nullptr;
    float* stripe = nullptr;
    float* period = nullptr;
};

// Which features `outputs` asks for (kFeature* bits).
inline unsigned requested_features(const OrbitFeatureOutputs& outputs) {
    return (outputs.distance ? kFeatureDistance : 0u) | (outputs.stripe ? kFeatureStripe : 0u) |
           (outputs.period ? kFeaturePeriod : 0u);
}

// mu plus the features; same rules and statistics as mandelbrot_cpu_reference.
FrameStats mandelbrot_features_cpu_reference(const View& view, Precision precision, const Shortcuts& shortcuts,
                                             PixelRect rect, float* mu_out, const OrbitFeatureOutputs& outputs);
FrameStats mandelbrot_features_cpu(const View& view, Precision precision, const Shortcuts& shortcuts,
                                   PixelRect rect, float* mu_out, const OrbitFeatureOutputs& outputs,
                                   const CpuRenderControl& control = {});
// Device pointers (mu_device required, outputs' pointers device memory). Synchronous; throws
// std::runtime_error with a sentence on a CUDA error or without CUDA.
// persistent (default): the kernel whose lanes take the next pixel as soon as theirs is done;
// false: one thread per pixel (the simple kernel, a yardstick for tests and benchmarks).
FrameStats mandelbrot_features_cuda(const View& view, Precision precision, const Shortcuts& shortcuts,
                                    PixelRect rect, float* mu_device, const OrbitFeatureOutputs& outputs_device,
                                    bool persistent = true);

// --- What every path accumulates (host and device) ----------------------------------------

MS_HD inline float feature_sqrt(float x) { return sqrtf(x); }
MS_HD inline double feature_sqrt(double x) { return sqrt(x); }

// Im(u^s) for a unit vector u = (ur, ui) and a whole s >= 1, by repeated squaring (the last
// square, which the result does not use, skipped).
template <typename S>
MS_HD inline S stripe_power_im(S ur, S ui, int s) {
    S pr = S(1), pi = S(0);
    for (int e = s; e > 0;) {
        if (e & 1) {
            const S r = pr * ur - pi * ui;
            pi = pr * ui + pi * ur;
            pr = r;
        }
        e >>= 1;
        if (e == 0) break;
        const S r = ur * ur - ui * ui;
        ui = S(2) * ur * ui;
        ur = r;
    }
    return pi;
}

// The per-orbit sums of a pixel, for kFeatures (a kFeature* mask). T is the iteration's type.
template <typename T, unsigned kFeatures>
struct OrbitAccumulator {
    T dzr = 0, dzi = 0;            // dz/dc
    T stripe_sum = 0, stripe_last = 0;
    int stripe_density = 1;

    // Before the step z_k -> z_{k+1}: the derivative uses z_k.
    MS_HD void before_step(T zr, T zi) {
        if constexpr ((kFeatures & kFeatureDistance) != 0) {
            // dz' = 2 z dz + 1, written as the same sequence of roundings on every path.
            const T re = zr * dzr - zi * dzi;
            const T im = zr * dzi + zi * dzr;
            dzr = T(2) * re + T(1);
            dzi = T(2) * im;
        }
    }
    // After the step, with z_k (k >= 1) and |z_k|^2.
    MS_HD void after_step(T zr, T zi, T norm) {
        (void)zr, (void)zi, (void)norm;
        if constexpr ((kFeatures & kFeatureStripe) != 0) {
            // sin(s arg z) = Im(u^s), u = z / |z|, by repeated squaring.
#ifdef __CUDA_ARCH__
            // On the GPU the term is computed in float, with the hardware's reciprocal square root
            // (one MUFU.RSQ instead of an IEEE square root and division, which in FP64 are long
            // DFMA sequences and were most of a stripe step's cost), and for s <= 8 as
            // sin(s t) = sin t U_{s-1}(cos t), the Chebyshev polynomial by its recurrence
            // U_{j+1} = 2 cos t U_j - U_{j-1}: s - 1 FMAs instead of the squarings' complex
            // products. The term differs from the CPU's by at most a few 1e-7 (emulated on the
            // colouring tests' frame for s = 1 to 16; the tests allow 1e-5), while the sum stays in
            // T so that it does not drift over thousands of steps. (|z|^2 is kept above 1e-30,
            // where a double's tiny |z| would leave float's range.)
            const float inv = rsqrtf(fmaxf(float(norm), 1e-30f));
            const float cos_t = float(zr) * inv, sin_t = float(zi) * inv;
            float im = 0.0f;
            if (stripe_density <= 8) {
                const float two_cos = cos_t + cos_t;
                float u_previous = 0.0f, u = 1.0f;  // U_{-1}, U_0
                for (int j = 1; j < stripe_density; ++j) {
                    const float next = __fmaf_rn(two_cos, u, -u_previous);
                    u_previous = u;
                    u = next;
                }
                im = sin_t * u;
            } else {
                im = stripe_power_im(cos_t, sin_t, stripe_density);
            }
            stripe_last = T(0.5f + 0.5f * im);
#else
            const T inv = T(1) / feature_sqrt(norm);
            stripe_last = T(0.5) + T(0.5) * stripe_power_im(zr * inv, zi * inv, stripe_density);
#endif
            stripe_sum += stripe_last;
        }
    }
};

// The features of an escaped pixel (escape at step k with |z_k|^2 = norm, z_k = (zr, zi)).
template <typename T, unsigned kFeatures>
MS_HD inline void finish_escaped(const OrbitAccumulator<T, kFeatures>& a, int k, double zr, double zi,
                                 double norm, double pixel_step, float* distance, float* stripe, float* period) {
    if constexpr ((kFeatures & kFeatureDistance) != 0) {
        const double dz = sqrt(double(a.dzr) * double(a.dzr) + double(a.dzi) * double(a.dzi));
        const double d = 0.5 * sqrt(norm) * log(norm) / dz / pixel_step;  // |z| ln|z| = 1/2 |z| ln|z|^2
        *distance = d >= 0.0 && d < 3.0e38 ? float(d) : 0.0f;  // an overflowed dz: on the boundary
    }
    if constexpr ((kFeatures & kFeatureStripe) != 0) {
        // mu's fraction: log2(ln|z_k|) - log2(ln R) lies in (0, 1]; weight 1 at |z_k| just past R.
        const double l = log2(0.5 * log(norm)) - kLog2LnBailout;
        const double w = 1.0 - (l < 0.0 ? 0.0 : l > 1.0 ? 1.0 : l);
        const double all = double(a.stripe_sum) / k;
        const double previous = k > 1 ? (double(a.stripe_sum) - double(a.stripe_last)) / (k - 1) : all;
        *stripe = float(w * all + (1.0 - w) * previous);
    }
    if constexpr ((kFeatures & kFeaturePeriod) != 0) *period = 0.0f;  // the interior's only
    (void)zr;
    (void)zi;
}

// The period of an interior pixel's orbit once it has settled: the first p <= kMaxOrbitPeriod with
// |z_{n+p} - z_n|^2 <= eps (1 + |z_n|^2), eps at FP32's or FP64's resolution; 0 when the orbit
// has not settled (the boundary, or a longer period). Runs only for interior pixels of the
// period variant, at most kMaxOrbitPeriod extra steps each.
inline constexpr int kMaxOrbitPeriod = 1024;
template <typename T>
MS_HD inline int orbit_period(T zr, T zi, T cr, T ci) {
    const T eps = sizeof(T) == 4 ? T(1e-8) : T(1e-16);
    const T bound = eps * (T(1) + zr * zr + zi * zi);
    T r = zr, i = zi;
    for (int p = 1; p <= kMaxOrbitPeriod; ++p) {
        const T next_r = r * r - i * i + cr;
        const T next_i = T(2) * r * i + ci;
        r = next_r;
        i = next_i;
        const T dr = r - zr, di = i - zi;
        if (dr * dr + di * di <= bound) return p;
    }
    return 0;
}

#ifdef __CUDA_ARCH__
// The GPU's finish of an escaped pixel: finish_escaped() and smooth_mu() in float, with the
// hardware's log2 and reciprocal square root (MUFU, about 2^-22 relative), instead of double
// library logs, square roots and divisions. Those were most of the features kernel's FP64 work
// on an FP32 frame, about 110 FP64 instructions a pixel (Nsight Compute on the H100, 4K full
// view), where an exterior pixel's whole orbit is a few dozen float steps. The results stay
// within the tests' tolerances of the reference's double ones (relative 1e-5 for mu and the
// distance, absolute 1e-5 for stripes: test_colouring_cuda); k, and so which pixels escaped,
// is untouched.
__device__ __forceinline__ float feature_log2_approx(float x) {
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// mu = k + 1 - log2(ln|z|) = k + (1 - log2(0.5 ln 2)) - log2(log2 |z|^2), as the smooth kernels'
// fast_smooth_mu (norm > the bailout's square here, so no subnormal reaches the .ftz log).
__device__ __forceinline__ float feature_fast_mu(int k, float log2_norm) {
    constexpr float kMuConstantF = 2.528766372930583f;  // 1 - log2(0.5 ln 2)
    const float mu = float(k) + (kMuConstantF - feature_log2_approx(log2_norm));
    return mu > 0.0f ? mu : 0.0f;
}

template <typename T, unsigned kFeatures>
__device__ __forceinline__ float finish_escaped_fast(const OrbitAccumulator<T, kFeatures>& a, int k, T norm,
                                                      float inverse_pixel_step, float* distance, float* stripe,
                                                      float* period) {
    const float n = fminf(float(norm), 3.402823466e38f);
    const float log2_norm = feature_log2_approx(n);
    if constexpr ((kFeatures & kFeatureDistance) != 0) {
        // |z| ln|z| / |dz| = 1/2 |z| ln|z|^2 / |dz|, with 1/|dz| = rsqrt(|dz|^2); |dz|^2 in T, then
        // in float where it fits (an FP64 frame's dz may pass float's range: double there).
        const T dz2 = a.dzr * a.dzr + a.dzi * a.dzi;
        float inverse_dz;
        if (dz2 < T(3.0e38) && dz2 > T(1.0e-30))
            inverse_dz = rsqrtf(float(dz2));
        else
            inverse_dz = float(1.0 / sqrt(double(a.dzr) * double(a.dzr) + double(a.dzi) * double(a.dzi)));
        const float d = 0.5f * 0.6931471805599453f * log2_norm * (n * rsqrtf(n)) * inverse_dz * inverse_pixel_step;
        *distance = d >= 0.0f && d < 3.0e38f ? d : 0.0f;  // an overflowed dz: on the boundary
    }
    if constexpr ((kFeatures & kFeatureStripe) != 0) {
        // mu's fraction: log2(ln|z_k|) - log2(ln R) = log2(log2|z|^2) + log2(0.5 ln 2) - log2(ln R).
        constexpr float kOffset = float(-1.528766372930583 - kLog2LnBailout);  // log2(0.5 ln 2) - log2(ln R)
        const float l = feature_log2_approx(log2_norm) + kOffset;
        const float w = 1.0f - (l < 0.0f ? 0.0f : l > 1.0f ? 1.0f : l);
        const float sum = float(a.stripe_sum), last = float(a.stripe_last);
        const float all = sum / float(k);
        const float previous = k > 1 ? (sum - last) / float(k - 1) : all;
        *stripe = w * all + (1.0f - w) * previous;
    }
    if constexpr ((kFeatures & kFeaturePeriod) != 0) *period = 0.0f;
    return feature_fast_mu(k, log2_norm);
}
#endif

template <unsigned kFeatures>
MS_HD inline void finish_interior(int period_found, float* distance, float* stripe, float* period) {
    if constexpr ((kFeatures & kFeatureDistance) != 0) *distance = 0.0f;
    if constexpr ((kFeatures & kFeatureStripe) != 0) *stripe = 0.0f;
    if constexpr ((kFeatures & kFeaturePeriod) != 0) *period = float(period_found);
}

// An interior pixel that iterated to z: its period (if asked) from where the orbit settled.
template <typename T, unsigned kFeatures>
MS_HD inline void finish_interior_orbit(T zr, T zi, T cr, T ci, float* distance, float* stripe, float* period) {
    int found = 0;
    if constexpr ((kFeatures & kFeaturePeriod) != 0) found = orbit_period(zr, zi, cr, ci);
    finish_interior<kFeatures>(found, distance, stripe, period);
}

// 2 in the period-2 bulb, else 1 (for a pixel the cardioid/bulb shortcut settled).
MS_HD inline int shortcut_period(double x, double y) {
    const double xb = x + 1.0;
    return xb * xb + y * y <= 0.0625 ? 2 : 1;
}

// One pixel, the features variant: the reference's iteration (same roundings, same periodicity
// schedule) with the accumulator. Returns mu or kInteriorMu; adds the iterations it ran.
template <typename T, unsigned kFeatures>
MS_HD inline float orbit_point_features(T cr, T ci, int max_iterations, bool cardioid_bulb, bool periodicity,
                                        int stripe_density, double pixel_step, uint64_t* iterations,
                                        float* distance, float* stripe, float* period) {
    OrbitAccumulator<T, kFeatures> a;
    a.stripe_density = stripe_density;
    if (cardioid_bulb && in_cardioid_or_period2_bulb(double(cr), double(ci))) {
        finish_interior<kFeatures>(shortcut_period(double(cr), double(ci)), distance, stripe, period);
        return kInteriorMu;
    }
    const T bailout_squared = T(kBailoutRadius * kBailoutRadius);
    T zr = 0, zi = 0, saved_r = 0, saved_i = 0;
    const int interval = periodicity_interval(max_iterations);
    int next_save = next_periodicity_save(0, interval);
    for (int k = 1; k <= max_iterations; ++k) {
        a.before_step(zr, zi);
        T new_zr = zr * zr - zi * zi + cr;
        T new_zi = T(2) * zr * zi + ci;
        zr = new_zr;
        zi = new_zi;
        T norm = zr * zr + zi * zi;
        a.after_step(zr, zi, norm);
        if (norm > bailout_squared) {
            *iterations += uint64_t(k);
            finish_escaped(a, k, double(zr), double(zi), double(norm), pixel_step, distance, stripe, period);
            return smooth_mu(k, double(norm));
        }
        if (periodicity) {
            if (periodicity_compare_step(k) && zr == saved_r && zi == saved_i) {
                *iterations += uint64_t(k);
                finish_interior_orbit<T, kFeatures>(zr, zi, cr, ci, distance, stripe, period);
                return kInteriorMu;
            }
            if (k == next_save) {
                saved_r = zr;
                saved_i = zi;
                next_save = next_periodicity_save(k, interval);
            }
        }
    }
    *iterations += uint64_t(max_iterations);
    finish_interior_orbit<T, kFeatures>(zr, zi, cr, ci, distance, stripe, period);
    return kInteriorMu;
}


// The orbit of one pixel in blocks of kOrbitBlockSteps steps with one escape test each: the
// persistent CUDA kernel's loop (mandelbrot_cuda_features.cu), here as a plain struct so that the
// CPU tests run it against the reference (test_colouring.cpp). A block runs its steps without a
// test; an orbit past the bailout keeps growing (to inf or NaN, which `!(norm <= R^2)` also
// catches), so an escape anywhere in the block shows at its end, and the block then runs again
// step by step from its saved start (z and the accumulator): the escape step, mu and the features
// are the step-by-step loop's. The reference compares z for periodicity at every fourth step and
// saves it at multiples of 32 or of the interval, all block ends, so the blocks follow its
// periodicity schedule exactly: the same iterations, the same interior pixels. Within a block's
// length of max_iterations it goes one step at a time.
inline constexpr int kOrbitBlockSteps = kPeriodicityCompareStride;

enum class OrbitState { Running, Escaped, Interior };

template <typename T, unsigned kFeatures>
struct BlockedOrbit {
    T cr = 0, ci = 0;
    T zr = 0, zi = 0, norm = 0;  // z_k and |z_k|^2
    T saved_r = 0, saved_i = 0;
    int k = 0, next_save = 0;
    OrbitAccumulator<T, kFeatures> acc;

    MS_HD void start(T c_re, T c_im, int stripe_density, int interval) {
        *this = BlockedOrbit{};
        cr = c_re;
        ci = c_im;
        next_save = next_periodicity_save(0, interval);
        acc.stripe_density = stripe_density;
    }

    // One step, z -> z^2 + c with the accumulator's updates, in the reference's order; |z|^2.
    MS_HD T advance() {
        acc.before_step(zr, zi);
        const T new_zr = zr * zr - zi * zi + cr;
        const T new_zi = T(2) * zr * zi + ci;
        zr = new_zr;
        zi = new_zi;
        const T n = zr * zr + zi * zi;
        acc.after_step(zr, zi, n);
        return n;
    }

    // One block (or one step near the end); k counts the steps run.
    MS_HD OrbitState run_block(int max_iterations, bool periodicity, int interval) {
        const T bailout_squared = T(kBailoutRadius * kBailoutRadius);
        if (k <= max_iterations - kOrbitBlockSteps) {
            const T start_r = zr, start_i = zi;
            const OrbitAccumulator<T, kFeatures> start_acc = acc;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
            for (int j = 0; j < kOrbitBlockSteps; ++j) norm = advance();
            if (!(norm <= bailout_squared)) {
                // Escaped within the block: again step by step from its start.
                zr = start_r;
                zi = start_i;
                acc = start_acc;
                for (int j = 0; j < kOrbitBlockSteps; ++j) {
                    ++k;
                    norm = advance();
                    if (norm > bailout_squared) return OrbitState::Escaped;
                }
                return OrbitState::Escaped;  // not reached: the same steps escape again
            }
            k += kOrbitBlockSteps;
        } else {
            ++k;
            norm = advance();
            if (norm > bailout_squared) return OrbitState::Escaped;
        }
        // The reference's tests after step k, in its order.
        if (periodicity && periodicity_compare_step(k) && zr == saved_r && zi == saved_i) return OrbitState::Interior;
        if (k >= max_iterations) return OrbitState::Interior;
        if (periodicity && k == next_save) {
            saved_r = zr;
            saved_i = zi;
            next_save = next_periodicity_save(k, interval);
        }
        return OrbitState::Running;
    }

    // The features of a finished orbit (period only where asked for); returns mu.
    MS_HD float finish(OrbitState state, double pixel_step, float* distance, float* stripe, float* period) const {
        if (state == OrbitState::Escaped) {
            finish_escaped(acc, k, double(zr), double(zi), double(norm), pixel_step, distance, stripe, period);
            return smooth_mu(k, double(norm));
        }
        finish_interior_orbit<T, kFeatures>(zr, zi, cr, ci, distance, stripe, period);
        return kInteriorMu;
    }
#ifdef __CUDA_ARCH__
    // The same on the GPU, an escaped pixel finished in float (finish_escaped_fast);
    // inverse_pixel_step = 1 / the pixel step, computed once per frame.
    __device__ float finish_fast(OrbitState state, float inverse_pixel_step, float* distance, float* stripe,
                                 float* period) const {
        if (state == OrbitState::Escaped)
            return finish_escaped_fast(acc, k, norm, inverse_pixel_step, distance, stripe, period);
        finish_interior_orbit<T, kFeatures>(zr, zi, cr, ci, distance, stripe, period);
        return kInteriorMu;
    }
#endif
};

}  // namespace ms
