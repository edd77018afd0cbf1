// formula_math.h: the maths of each formula (formula.h), shared by every path: the CPU reference,
// the SIMD CPU path (direct_cpu.cpp, on Highway vectors) and the CUDA kernels (hence MS_HD).
// The formula is a template parameter everywhere, so a path compiles one loop per formula and
// none branches on it per iteration; Mandelbrot's instantiation is the arithmetic it always had.
//
// One step, z <- f(z) + c, is written once (formula_step) over any V that has + - * (float,
// double, a Highway vector), as the same sequence of separately rounded IEEE operations on every
// path (the CPU library is built with -ffp-contract=off, the CUDA kernels with --fmad=false), so
// the fast paths can match the reference's escape counts bit for bit:
//   z^2:   (zr2 - zi2, (zr + zr) * zi)           from the squares the loop keeps for |z|^2
//   Burning Ship: the imaginary part is |(zr + zr) * zi|, Tricorn's is its negation
//   z^d:   square-and-multiply from z^2 (d = 3: z^2 z, 4: (z^2)^2, 5: (z^2)^2 z, 6: (z^2 z)^2,
//          7: (z^2 z)^2 z, 8: ((z^2)^2)^2), a product as (ar br - ai bi, ar bi + ai br)
//
// The colouring's orbit features (orbit_features.h) ride on the same loops: the distance
// estimate's derivative is formula_derivative_step() (formula_step-inl.h: d z^(d-1) dz + 1, or the
// 2x2 real Jacobian for the Burning Ship and the Tricorn), stripes add sin(s arg z); both are
// chosen at compile time with the formula, so no loop branches on them per iteration.
//
// Escape and smooth value. Every formula escapes at the first k >= 1 with |z_k| > R (escape is
// tested after each step; a Julia pixel with |z_0| > R therefore escapes at k = 1). R is
// kBailoutRadius (256) for degree 2 and 64 for the Multibrots: z^8 of a z just inside 256 would
// put |z|^2 past float's range (2^128), and a higher degree needs a smaller R for the same
// smoothness (the smooth value's error falls like |c| / R^d). The smooth value generalises
// direct.h's to degree d:
//     mu = k + 1 - log_d(ln|z_k| / ln R) - log2(ln 256)
// which is direct.h's mu for d = 2, R = 256, and keeps log_d(ln|z_k| / ln R) in (0, 1], so
// mandelbrot_escape_count() recovers k for every formula. |z_k|^2 is clamped to float's largest
// value first (far Julia pixels of a degree-8 map can overflow |z|^2 to infinity in FP32): every
// path then gives mu = 0 for them.
//
// Shortcuts: the cardioid/bulb test belongs to the Mandelbrot parameter plane only (no closed
// form is proven for the others' components, nor for Julia sets). Periodicity (an exact repeat of
// a saved z) is safe for every formula and every Julia set: a step is a fixed function of z, so a
// repeated z repeats forever and never escapes.
#pragma once

#include <cfloat>
#include <cmath>

#include "compute/fractal/view/formula.h"
#include "compute/fractal/maths/escape.h"

namespace ms {

inline constexpr double kMultibrotBailoutRadius = 64.0;

MS_HD constexpr double formula_bailout_radius(Formula formula) {
    return formula_degree(formula) >= 3 ? kMultibrotBailoutRadius : kBailoutRadius;
}

// |x| for scalars (Highway paths pass hn::Abs in a lambda).
struct ScalarAbs {
    template <typename T>
    MS_HD T operator()(T x) const {
        return fabs(x);
    }
};

// -v, t < 0 ? -v : v and a b + c rounded once, for scalars (formula_derivative_step's ops; Highway
// paths pass their own).
struct ScalarDerivativeOps {
    template <typename T>
    MS_HD T fma(T a, T b, T c) const {
#ifdef __CUDA_ARCH__
        if constexpr (sizeof(T) == sizeof(float)) return __fmaf_rn(a, b, c);
        else return __fma_rn(a, b, c);
#else
        return std::fma(a, b, c);
#endif
    }
    template <typename T>
    MS_HD T neg(T v) const {
        return -v;
    }
    template <typename T>
    MS_HD T neg_if_negative(T t, T v) const {
        return t < T(0) ? -v : v;
    }
};

// formula_step() and its helpers, written once in formula_step-inl.h, which the SIMD path includes
// again inside its per-target namespace (Highway's vector operators only inline into code compiled
// for their target).
#include "compute/fractal/maths/formula_step-inl.h"

// The smooth value's constants for a formula: mu = k + mu_constant - log2(ln|z_k|) * mu_scale,
// with mu_scale = 1 / log2(d) and mu_constant = 1 + log_d(ln R) - log2(ln 256) (1 and 1 for
// Mandelbrot). Host and reference side; the fast paths fold them into their own constants.
struct SmoothConstants {
    double mu_constant = 1.0;
    double mu_scale = 1.0;
};

inline SmoothConstants formula_smooth_constants(Formula formula) {
    if (formula_degree(formula) == 2 && formula_bailout_radius(formula) == kBailoutRadius) return {};
    const double scale = 1.0 / std::log2(double(formula_degree(formula)));
    return {1.0 + std::log2(std::log(formula_bailout_radius(formula))) * scale - kLog2LnBailout, scale};
}

// The same smooth value with the formula known at compile time, host and device (the orbit-feature
// paths, orbit_features.h): the same operations as formula_smooth_mu below, so the CPU paths
// agree with it bit for bit.
template <Formula F>
MS_HD inline float formula_smooth_mu_of(int k, double norm_squared) {
    if constexpr (F == Formula::Mandelbrot) {
        return smooth_mu(k, norm_squared);
    } else {
        // formula_smooth_constants(F): {1, 1} for the other degree-2 maps (R = 256).
        constexpr bool kDegree2 = formula_degree(F) == 2 && formula_bailout_radius(F) == kBailoutRadius;
        const double scale = kDegree2 ? 1.0 : 1.0 / log2(double(formula_degree(F)));
        const double constant = kDegree2 ? 1.0 : 1.0 + log2(log(formula_bailout_radius(F))) * scale - kLog2LnBailout;
        const double n = norm_squared < double(FLT_MAX) ? norm_squared : double(FLT_MAX);
        const double mu = double(k) + constant - log2(0.5 * log(n)) * scale;
        return mu > 0.0 ? float(mu) : 0.0f;
    }
}

// The reference's smooth value for any formula (smooth_mu for Mandelbrot), clamped at 0.
inline float formula_smooth_mu(Formula formula, int k, double norm_squared) {
    if (formula == Formula::Mandelbrot) return smooth_mu(k, norm_squared);
    const SmoothConstants s = formula_smooth_constants(formula);
    const double n = norm_squared < double(FLT_MAX) ? norm_squared : double(FLT_MAX);
    const double mu = double(k) + s.mu_constant - std::log2(0.5 * std::log(n)) * s.mu_scale;
    return mu > 0.0 ? float(mu) : 0.0f;
}

}  // namespace ms
