// direct_features_cpu.cpp: the orbit-feature variant (orbit_features.h) on every core, SIMD.
// Rows are shared out dynamically (OpenMP; cpu_row_jobs.h, the frame's setup and loop that
// direct_cpu.cpp shares); each row is iterated one vector of pixels at a time
// with Google Highway (the target picked at run time, as direct_cpu.cpp does), the
// distance estimate's derivative and the stripe sum stepped in the same vectors. All lanes of a
// vector share the step count, so they share the periodicity schedule too (saves and compares
// exactly as the reference's), and the rare events (an escape, an exact repeat) are settled
// lane by lane off the hot loop, where finish_escaped() / finish_interior_orbit() of
// orbit_features.h turn the lane's sums into features in scalar code. The atom period is a
// lane's running minimum of |z|^2 and its step, kept in the vectors beside z (kAtom).
// Same IEEE operations in the same order as the reference's iterate_point (this library is
// compiled with -ffp-contract=off), so mu, the features and the iteration counts match it
// exactly. Simpler than the smooth kernel (no survivor queues, one vector in flight): this path
// serves the colouring layers only; the smooth frame keeps direct_cpu.cpp.

#ifndef MANDELSCOPE_FEATURES_CPU_SHARED
#define MANDELSCOPE_FEATURES_CPU_SHARED

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>

#include <omp.h>

#include "compute/fractal/direct/cpu_row_jobs.h"
#include "compute/fractal/direct/direct_features.h"

namespace ms::features_simd {

// One row of the frame to iterate, y (shared by every SIMD target's code). The frame's part
// (CpuRowJob) is setup_cpu_frame's (cpu_row_jobs.h).
struct RowJob : CpuRowJob {
    bool distance = false, stripe = false, period = false, atom = false;
    int stripe_density = 1;
    float* mu = nullptr;  // width floats
    float* distance_out = nullptr;
    float* stripe_out = nullptr;
    float* period_out = nullptr;
    float* atom_out = nullptr;
};

}  // namespace ms::features_simd

#endif  // MANDELSCOPE_FEATURES_CPU_SHARED

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/fractal/direct/direct_features_cpu.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace ms::features_simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// formula_step() and formula_derivative_step() for this target (see formula_step-inl.h).
#include "compute/fractal/maths/formula_step-inl.h"

// a b + c rounded once: FusedMulAdd.
#include "compute/fractal/maths/fused_lanes-inl.h"

// formula_derivative_step's -v, t < 0 ? -v : v and fma on vectors (the same sign flips and
// single roundings as the scalar ScalarDerivativeOps, so the lanes match the reference).
template <class D>
struct VectorDerivativeOps {
    using V = hn::Vec<D>;
    HWY_INLINE V fma(V a, V b, V c) const { return FusedMulAdd(a, b, c); }
    HWY_INLINE V neg(V v) const { return hn::Neg(v); }
    HWY_INLINE V neg_if_negative(V t, V v) const { return hn::IfThenElse(hn::Lt(t, hn::Zero(D())), hn::Neg(v), v); }
};

// A lane's state when it finished, for the scalar finish.
template <typename T>
struct LaneEnd {
    int k = 0;  // steps run; 0: not finished
    bool escaped = false;
    T zr = 0, zi = 0, norm = 0, dzr = 0, dzi = 0, dxr = 0, dxi = 0, stripe_sum = 0, stripe_last = 0;
    T atom = 0;  // the atom period, the step of the smallest |z|^2 (kAtom)
};

template <Formula F, class D, bool kDe, bool kStripe, bool kAtom>
HWY_NOINLINE void FeatureRowImpl(D d, const RowJob& job, RowJobsResult* result) {
    using T = hn::TFromD<D>;
    using V = hn::Vec<D>;
    constexpr unsigned kLoop = (kDe ? kFeatureDistance : 0u) | (kStripe ? kFeatureStripe : 0u);
    const size_t lanes = hn::Lanes(d);
    HWY_ALIGN T lane_cr[HWY_MAX_BYTES / sizeof(T)];
    HWY_ALIGN T lane_zr[HWY_MAX_BYTES / sizeof(T)];
    HWY_ALIGN T a[11][HWY_MAX_BYTES / sizeof(T)];  // lanes' values at an event
    LaneEnd<T> end[HWY_MAX_BYTES / sizeof(T)];
    // The row's imaginary part: c's on the parameter plane, z_0's on a Julia set (c fixed).
    const T row_im = T(job.grid.im(job.y));
    const T ci_scalar = job.julia ? T(job.julia_im) : row_im;
    const T julia_cr = T(job.julia_re);
    const V ci = hn::Set(d, ci_scalar), two = hn::Set(d, T(2)), one = hn::Set(d, T(1)), half = hn::Set(d, T(0.5));
    // What the derivative adds per step (1, or 0 on a Julia set) and f'(z)'s factor d.
    const V dz_add = hn::Set(d, job.julia ? T(0) : T(1)), degree = hn::Set(d, T(formula_degree(F)));
    const VectorDerivativeOps<D> ops;
    const V bailout = hn::Set(d, T(formula_bailout_radius(F) * formula_bailout_radius(F)));
    const int interval = periodicity_interval(job.max_iterations);
    float scratch = 0.0f;

    for (int x0 = 0; x0 < job.width; x0 += int(lanes)) {
        const int n = std::min(int(lanes), job.width - x0);
        // c per lane, rounded as the reference rounds it; the cardioid/bulb test per lane.
        auto done = hn::FirstN(d, 0);
        HWY_ALIGN T settled[HWY_MAX_BYTES / sizeof(T)] = {};  // every lane set below; GCC cannot tell
        for (size_t l = 0; l < lanes; ++l) {
            end[l] = LaneEnd<T>{};
            const bool exists = int(l) < n;
            const T pixel_re = exists ? T(job.grid.re(job.x_begin + x0 + int(l))) : T(0);
            lane_cr[l] = job.julia ? julia_cr : pixel_re;
            lane_zr[l] = job.julia ? pixel_re : T(0);
            const bool shortcut = exists && job.cardioid_bulb &&
                                  in_cardioid_or_period2_bulb(double(lane_cr[l]), double(ci_scalar));
            settled[l] = exists && !shortcut ? T(0) : T(1);
        }
        done = hn::Ne(hn::Load(d, settled), hn::Zero(d));
        const V cr = hn::Load(d, lane_cr);
        V zr = hn::Load(d, lane_zr), zi = job.julia ? hn::Set(d, row_im) : hn::Zero(d);
        V zr2 = hn::Mul(zr, zr), zi2 = hn::Mul(zi, zi);
        // The derivative's start (orbit_features.h): 0, or the identity on a Julia set.
        V dzr = job.julia ? one : hn::Zero(d), dzi = hn::Zero(d), dxr = hn::Zero(d), dxi = dzr;
        V sum = hn::Zero(d), last = hn::Zero(d), saved_r = hn::Zero(d), saved_i = hn::Zero(d);
        // kAtom: the smallest |z_n|^2 so far and its n (the accumulator's atom_norm, atom_period).
        V atom_norm = hn::Set(d, T(INFINITY)), atom_n = hn::Zero(d);
        int next_save = next_periodicity_save(0, interval);
        // Records the lanes of `mask` as finished at step k.
        auto record = [&](decltype(done) mask, int k, bool escaped, V norm) {
            hn::Store(zr, d, a[0]);
            hn::Store(zi, d, a[1]);
            hn::Store(norm, d, a[2]);
            hn::Store(dzr, d, a[3]);
            hn::Store(dzi, d, a[4]);
            hn::Store(sum, d, a[5]);
            hn::Store(last, d, a[6]);
            hn::Store(hn::VecFromMask(d, mask), d, a[7]);
            hn::Store(dxr, d, a[8]);
            hn::Store(dxi, d, a[9]);
            hn::Store(atom_n, d, a[10]);
            for (size_t l = 0; l < lanes; ++l) {
                T flag;
                std::memcpy(&flag, &a[7][l], sizeof(T));
                if (flag == T(0)) continue;  // all-zero bits: not in the mask
                end[l] = {k,       escaped, a[0][l], a[1][l], a[2][l], a[3][l],
                          a[4][l], a[8][l], a[9][l], a[5][l], a[6][l], a[10][l]};
            }
        };
        int k = 1;
        for (; k <= job.max_iterations && !hn::AllTrue(d, done); ++k) {
            if constexpr (kDe) formula_derivative_step<F>(zr, zi, dzr, dzi, dxr, dxi, dz_add, degree, ops);
            formula_step<F>(zr, zi, zr2, zi2, cr, ci, [](V v) { return hn::Abs(v); });
            zr2 = hn::Mul(zr, zr);
            zi2 = hn::Mul(zi, zi);
            const V norm = hn::Add(zr2, zi2);
            if constexpr (kAtom) {
                const auto lower = hn::Lt(norm, atom_norm);
                atom_norm = hn::IfThenElse(lower, norm, atom_norm);
                atom_n = hn::IfThenElse(lower, hn::Set(d, T(k)), atom_n);
            }
            if constexpr (kStripe) {
                const V inv = hn::Div(one, hn::Sqrt(norm));
                V ur = hn::Mul(zr, inv), ui = hn::Mul(zi, inv);
                V pr = one, pi = hn::Zero(d);
                for (int e = job.stripe_density; e > 0; e >>= 1) {
                    if (e & 1) {
                        const V r = hn::Sub(hn::Mul(pr, ur), hn::Mul(pi, ui));
                        pi = hn::Add(hn::Mul(pr, ui), hn::Mul(pi, ur));
                        pr = r;
                    }
                    const V r = hn::Sub(hn::Mul(ur, ur), hn::Mul(ui, ui));
                    ui = hn::Mul(hn::Mul(two, ur), ui);
                    ur = r;
                }
                last = hn::Add(half, hn::Mul(half, pi));
                sum = hn::Add(sum, last);
            }
            const auto escaped = hn::AndNot(done, hn::Gt(norm, bailout));
            if (HWY_UNLIKELY(!hn::AllFalse(d, escaped))) {
                record(escaped, k, true, norm);
                done = hn::Or(done, escaped);
            }
            if (job.periodicity) {
                if (periodicity_compare_step(k)) {
                    const auto repeat = hn::AndNot(done, hn::And(hn::Eq(zr, saved_r), hn::Eq(zi, saved_i)));
                    if (HWY_UNLIKELY(!hn::AllFalse(d, repeat))) {
                        record(repeat, k, false, norm);
                        done = hn::Or(done, repeat);
                    }
                }
                if (k == next_save) {
                    saved_r = zr;
                    saved_i = zi;
                    next_save = next_periodicity_save(k, interval);
                }
            }
        }
        // Lanes still running ran out of iterations: interior, at their last z.
        const auto running = hn::Not(done);
        if (!hn::AllFalse(d, running)) record(running, job.max_iterations, false, hn::Zero(d));

        for (int l = 0; l < n; ++l) {
            const int x = x0 + l;
            float* distance = job.distance ? job.distance_out + x : &scratch;
            float* stripe = job.stripe ? job.stripe_out + x : &scratch;
            float* period = job.period ? job.period_out + x : &scratch;
            const LaneEnd<T>& e = end[l];
            if (job.atom) job.atom_out[x] = float(e.atom);
            if (e.k == 0) {  // settled by the cardioid/bulb test (Mandelbrot's parameter plane)
                finish_interior<kLoop | kFeaturePeriod>(shortcut_period(double(lane_cr[l]), double(ci_scalar)),
                                                        distance, stripe, period);
                job.mu[x] = kInteriorMu;
                continue;
            }
            result->iterations += uint64_t(e.k);
            if (e.escaped) {
                OrbitAccumulator<T, kLoop, F> acc;
                acc.dzr = e.dzr;
                acc.dzi = e.dzi;
                acc.dxr = e.dxr;
                acc.dxi = e.dxi;
                acc.stripe_sum = e.stripe_sum;
                acc.stripe_last = e.stripe_last;
                finish_escaped(acc, e.k, double(e.zr), double(e.zi), double(e.norm), job.grid.step, distance, stripe,
                               &scratch);
                if (job.period) *period = 0.0f;
                job.mu[x] = formula_smooth_mu_of<F>(e.k, double(e.norm));
                ++result->escaped_pixels;
            } else {
                if (job.period)
                    finish_interior_orbit<T, kLoop | kFeaturePeriod, F>(e.zr, e.zi, lane_cr[l], ci_scalar, distance,
                                                                        stripe, period);
                else finish_interior_orbit<T, kLoop, F>(e.zr, e.zi, lane_cr[l], ci_scalar, distance, stripe, period);
                job.mu[x] = kInteriorMu;
            }
        }
    }
}

template <Formula F, typename T>
void FeatureRowOf(const RowJob& job, RowJobsResult* result) {
    const hn::ScalableTag<T> d;
    // Every combination, the atom period's too: the stripes' term is the loop's dearest, so an
    // atom frame does not pay for it unasked (the reference and CUDA compile fewer variants,
    // orbit_features.h's atom_feature_variant).
    const auto run = [&]<bool kDe, bool kStripe>() {
        if (job.atom) FeatureRowImpl<F, decltype(d), kDe, kStripe, true>(d, job, result);
        else FeatureRowImpl<F, decltype(d), kDe, kStripe, false>(d, job, result);
    };
    if (job.distance && job.stripe) run.template operator()<true, true>();
    else if (job.distance) run.template operator()<true, false>();
    else if (job.stripe) run.template operator()<false, true>();
    else run.template operator()<false, false>();
}

// The formula picked once per row, outside every loop.
template <typename T>
void FeatureRow(const RowJob& job, RowJobsResult* result) {
    switch (job.formula) {
    case Formula::Mandelbrot: return FeatureRowOf<Formula::Mandelbrot, T>(job, result);
    case Formula::Multibrot3: return FeatureRowOf<Formula::Multibrot3, T>(job, result);
    case Formula::Multibrot4: return FeatureRowOf<Formula::Multibrot4, T>(job, result);
    case Formula::Multibrot5: return FeatureRowOf<Formula::Multibrot5, T>(job, result);
    case Formula::Multibrot6: return FeatureRowOf<Formula::Multibrot6, T>(job, result);
    case Formula::Multibrot7: return FeatureRowOf<Formula::Multibrot7, T>(job, result);
    case Formula::Multibrot8: return FeatureRowOf<Formula::Multibrot8, T>(job, result);
    case Formula::BurningShip: return FeatureRowOf<Formula::BurningShip, T>(job, result);
    case Formula::Tricorn: return FeatureRowOf<Formula::Tricorn, T>(job, result);
    }
}

void FeatureRowF32(const RowJob& job, RowJobsResult* result) { FeatureRow<float>(job, result); }
void FeatureRowF64(const RowJob& job, RowJobsResult* result) { FeatureRow<double>(job, result); }

}  // namespace HWY_NAMESPACE
}  // namespace ms::features_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE

namespace ms {

namespace features_simd {
HWY_EXPORT(FeatureRowF32);
HWY_EXPORT(FeatureRowF64);
}  // namespace features_simd

FrameStats direct_features_cpu(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect,
                               float* mu_out, const OrbitFeatureOutputs& outputs, const CpuRenderControl& control) {
    const CpuFrameSetup frame = setup_cpu_frame(view, precision, shortcuts, rect);
    features_simd::RowJob base{frame.job};
    base.distance = outputs.distance != nullptr;
    base.stripe = outputs.stripe != nullptr;
    base.period = outputs.period != nullptr;
    base.atom = outputs.atom != nullptr;
    if (base.atom) base.cardioid_bulb = false;  // the atom period needs every orbit (orbit_features.h)
    base.stripe_density = view.colouring.stripe_density;
    auto* row_fn = frame.precision == Precision::Fp32 ? HWY_DYNAMIC_DISPATCH(features_simd::FeatureRowF32)
                                                      : HWY_DYNAMIC_DISPATCH(features_simd::FeatureRowF64);
    constexpr int kRowsPerJob = 4;
    const int width = frame.rect.width;
    return run_cpu_row_jobs(frame, kRowsPerJob, control, [&](int row0, int rows, RowJobsResult* counts) {
        for (int y = row0; y < row0 + rows; ++y) {
            features_simd::RowJob job = base;
            job.y = frame.rect.y + y;
            const size_t at = size_t(y) * width;
            job.mu = mu_out + at;
            job.distance_out = outputs.distance ? outputs.distance + at : nullptr;
            job.stripe_out = outputs.stripe ? outputs.stripe + at : nullptr;
            job.period_out = outputs.period ? outputs.period + at : nullptr;
            job.atom_out = outputs.atom ? outputs.atom + at : nullptr;
            row_fn(job, counts);
        }
    });
}

}  // namespace ms

#endif  // HWY_ONCE
