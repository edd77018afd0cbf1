// deep_derivative.h: the derivative that the deep distance estimate carries beside each pixel
// (deep_perturbation.h's kDistance loop, shared by the CPU and CUDA), for every formula of
// formula.h, on the parameter plane and on Julia sets. The direct kernels' derivative
// (formula_step.inc's formula_derivative_step, orbit_features.h) is the same maths on z itself;
// at depth the pixel's value is Z_m + z (reference plus delta) and its derivative is carried
// whole, not as a delta: it is small and needs no perturbation.
//
// D is kept in the image's units (times the pixel spacing: the change of z per pixel), so that
// the estimate comes out in pixels and stays in range at any depth (deep_perturbation.h's
// DeepDistanceOutput says why). With w = Z_m + z the pixel's full value before a step:
//   holomorphic (Mandelbrot, Multibrot d): D complex, D <- d w^(d-1) D + spacing
//   Tricorn, Burning Ship: D the real 2x2 Jacobian of z by the pixel's (x, y),
//       D <- J_f(w) D + spacing I, J_f(w) = [[2a, -2b], [2sb, 2sa]] for w = a + ib, s = -1 for the
//       Tricorn and s = sign(ab) for the Burning Ship (the fold |.| of the full orbit's value,
//       not of the reference's: a pixel whose coordinate has crossed an axis folds there)
//   Julia sets: D = dz/dz_0, D_0 = spacing (times I), and no + spacing
//   a BLA skip z -> A z + B dc: D <- A D + B spacing (A D alone on a Julia set), the
//       derivative of the skip itself: within the skip's radius |z| << |Z_m|, so A, the product
//       of the steps' J_f at the reference, is the product at Z_m + z to within the table's
//       epsilon (for the Burning Ship the radius keeps both coordinates off the axes, so the
//       fold's sign is the reference's)
//   a rebase: D unchanged (the full value, hence its derivative, is)
// At the escape, DE = G / |grad G| with G = ln|z| (the potential up to d^-k, which cancels):
//   holomorphic |z| ln|z| / |D|;  matrix |z|^2 ln|z| / |J^T z|  (grad ln|z| = J^T z / |z|^2)
// in pixels; 0 where D overflowed (on the boundary, as the direct path writes it).
#pragma once

#include <math.h>

#include <type_traits>

#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/deep/floatexp.h"
#include "compute/fractal/formula.h"

namespace ms {

// A complex number for the holomorphic maps, a real 2x2 matrix (columns d/dx, d/dy) otherwise.
template <Formula F, typename T>
using DeepDerivative = std::conditional_t<formula_is_holomorphic(F), DeepComplex<T>, DeepMatrix<T>>;

// D_0: 0 on the parameter plane (z_0 = 0 whatever the pixel), spacing (times I) on a Julia set
// (z_0 = the pixel).
template <Formula F, bool kJulia, typename T>
MS_DEEP_HD DeepDerivative<F, T> deep_derivative_start(T spacing) {
    DeepDerivative<F, T> d{};
    if constexpr (kJulia) {
        if constexpr (formula_is_holomorphic(F)) {
            d.re = spacing;
        } else {
            d.xx = spacing;
            d.yy = spacing;
        }
    }
    return d;
}

// One perturbation step's derivative, with w = Z_m + z before the step.
template <Formula F, bool kJulia, typename T>
MS_DEEP_HD void deep_derivative_step(DeepComplex<T> w, T spacing, DeepDerivative<F, T>* d) {
    if constexpr (F == Formula::Mandelbrot) {
        *d = deep_twice(w * *d);  // Mandelbrot's arithmetic as it always was
    } else if constexpr (formula_is_holomorphic(F)) {
        constexpr int degree = formula_degree(F);
        DeepComplex<T> power = w;  // w^(d-1)
MS_DEEP_UNROLL
        for (int j = 2; j < degree; ++j) power = power * w;
        const DeepComplex<T> q = power * *d;
        *d = {deep_times_small(q.re, double(degree)), deep_times_small(q.im, double(degree))};
    } else {
        const T x2 = deep_twice(w.re), y2 = deep_twice(w.im);
        // Each column (u, v) becomes (x2 u - y2 v, s (y2 u + x2 v)).
        const T xx = x2 * d->xx - y2 * d->yx, yx = y2 * d->xx + x2 * d->yx;
        const T xy = x2 * d->xy - y2 * d->yy, yy = y2 * d->xy + x2 * d->yy;
        bool flip;
        if constexpr (F == Formula::Tricorn) {
            flip = true;
        } else {
            // sign(ab) < 0 from the signs alone (the product of two tiny doubles could underflow
            // to a signless 0); a coordinate exactly 0 counts as positive, as in the direct path.
            const bool a_negative = deep_negative(w.re), b_negative = deep_negative(w.im);
            const bool a_positive = deep_negative(-w.re), b_positive = deep_negative(-w.im);
            flip = (a_negative && b_positive) || (a_positive && b_negative);
        }
        d->xx = xx;
        d->xy = xy;
        d->yx = flip ? -yx : yx;
        d->yy = flip ? -yy : yy;
    }
    if constexpr (!kJulia) {
        if constexpr (formula_is_holomorphic(F)) {
            d->re = d->re + spacing;
        } else {
            d->xx = d->xx + spacing;
            d->yy = d->yy + spacing;
        }
    }
}

// A BLA skip's derivative: D <- A D + B spacing (A D on a Julia set, whose steps add no dc).
template <Formula F, bool kJulia, typename T>
MS_DEEP_HD void deep_derivative_skip(const DeepDerivative<F, T>& a, const DeepDerivative<F, T>& b, T spacing,
                                     DeepDerivative<F, T>* d) {
    if constexpr (kJulia) {
        *d = bla_compose(a, *d);
    } else if constexpr (formula_is_holomorphic(F)) {
        *d = bla_compose(a, *d) + DeepComplex<T>{b.re * spacing, b.im * spacing};
    } else {
        *d = bla_add(bla_compose(a, *d), DeepMatrix<T>{b.xx * spacing, b.xy * spacing, b.yx * spacing, b.yy * spacing});
    }
}

// The estimate in pixels at the escape: z the escaped value (Z_m + z), norm its |z|^2 in double.
// In the deltas' type: a double |D| past 1e154 overflows its norm (DE below 1e-150 px: 0, on the
// boundary).
template <Formula F, typename T>
MS_DEEP_HD float deep_distance_estimate(DeepComplex<T> z, double norm, const DeepDerivative<F, T>& d) {
    double estimate;
    if constexpr (formula_is_holomorphic(F)) {
        // |z| ln|z| = 1/2 |z| ln|z|^2.
        estimate = deep_to_double(deep_div(deep_from_double<T>(0.5 * sqrt(norm) * log(norm)), deep_cabs(d)));
    } else {
        // |z|^2 ln|z| = 1/2 |z|^2 ln|z|^2, over |J^T z|.
        const DeepComplex<T> g{d.xx * z.re + d.yx * z.im, d.xy * z.re + d.yy * z.im};
        estimate = deep_to_double(deep_div(deep_from_double<T>(0.5 * norm * log(norm)), deep_cabs(g)));
    }
    return estimate >= 0.0 && estimate < 3.0e38 ? float(estimate) : 0.0f;
}

}  // namespace ms
