// deep_derivative.h: the derivative that the deep distance estimate carries beside each pixel
// (deep_perturbation.h's kDistance loop, shared by the CPU and CUDA), for every formula of
// formula.h, on the parameter plane and on Julia sets. The direct kernels' derivative
// (formula_step-inl.h's formula_derivative_step, orbit_features.h) is the same maths on z itself;
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
// Number type: D takes the deltas' type for double deltas. For FloatExp deltas its entries are
// doubles under one shared exponent (DeepScaled: value = m 2^e, the largest entry of m in
// [1, 2)): a step is then the double arithmetic of the double path plus one exponent sum and
// one normalisation, where entries of their own FloatExp would normalise after every product
// and align before every sum (the 2x2 Jacobian's eight products a step would make FloatExp DE
// frames far slower than the smooth ones). The entries share the largest one's 53 bits: an entry
// 2^-60 of it is kept to 2^-113 of the whole, which is what |D| and |J^T z| need, and one below
// 2^-500 of it is dropped. The factors w and A, B are brought to shared exponents too, so nothing
// underflows when w passes within 1e-320 of the critical point.
#pragma once

#include <math.h>

#include <type_traits>

#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/numbers/floatexp.h"
#include "compute/fractal/view/formula.h"

namespace ms {

// A derivative of FloatExp deltas: the entries m (a DeepComplex<double> or DeepMatrix<double>)
// times 2^e; m == 0 has e = kFloatExpZeroExponent, so that a sum takes the other's exponent.
template <class M>
struct DeepScaled {
    M m{};
    int64_t e = kFloatExpZeroExponent;
};

namespace deep_derivative_detail {

template <Formula F, typename T>
struct Type {
    using type = std::conditional_t<formula_is_holomorphic(F), DeepComplex<T>, DeepMatrix<T>>;
};
template <Formula F>
struct Type<F, FloatExp> {
    using type =
        std::conditional_t<formula_is_holomorphic(F), DeepScaled<DeepComplex<double>>, DeepScaled<DeepMatrix<double>>>;
};

// Entries below 2^-500 of the largest are dropped (0): beside it they are lost in its rounding
// many times over, and kept they would sink into double's subnormals within a few products,
// where every operation is many times slower (the Tricorn's off-diagonal entries on the real
// axis would sink there).
inline constexpr int kScaledFloorExponent = -500;

// x 2^-e as a double, e at least x's exponent (0 below the floor).
MS_DEEP_HD double scaled(FloatExp x, int64_t e) {
    const int64_t k = x.exponent - e;
    return k >= kScaledFloorExponent ? x.mantissa * fe_pow2(int(k)) : 0.0;
}
// m times 2^k, k <= 0 (an operand aligned down to a larger exponent; 0 below the floor).
MS_DEEP_HD double shifted(double m, int64_t k) { return k >= kScaledFloorExponent ? m * fe_pow2(int(k)) : 0.0; }

MS_DEEP_HD int64_t max_exponent(int64_t a, int64_t b) { return a > b ? a : b; }
// The exponent of a product: a + times b, or zero's where either factor is 0 (whose exponent,
// kFloatExpZeroExponent, must not be summed: eight of them overflow).
MS_DEEP_HD int64_t product_exponent(int64_t a, int64_t b, int64_t times = 1) {
    return a == kFloatExpZeroExponent || b == kFloatExpZeroExponent ? kFloatExpZeroExponent : a + times * b;
}

template <typename Fn>
MS_DEEP_HD void for_entries(DeepComplex<double>& m, Fn fn) {
    fn(m.re);
    fn(m.im);
}
template <typename Fn>
MS_DEEP_HD void for_entries(DeepMatrix<double>& m, Fn fn) {
    fn(m.xx);
    fn(m.xy);
    fn(m.yx);
    fn(m.yy);
}

// The largest entry into [1, 2), its power of two into e.
template <class M>
MS_DEEP_HD void normalise(DeepScaled<M>* d) {
    double largest = 0.0;
    for_entries(d->m, [&](double& x) { largest = fabs(x) > largest ? fabs(x) : largest; });
    if (largest == 0.0) {
        d->e = kFloatExpZeroExponent;
        return;
    }
    const int biased = int((fe_bits(largest) >> 52) & 0x7ff);
    if (biased == 0x7ff) return;          // inf or NaN: the estimate reads 0 (on the boundary)
    if (biased == 0 || biased == 2046) {  // subnormal or 2^1023 (never in practice): via ldexp
        const FloatExp n = fe_make(largest, 0);
        for_entries(d->m, [&](double& x) { x = ldexp(x, -int(n.exponent)); });
        d->e += n.exponent;
        return;
    }
    const int k = biased - 1023;
    const double s = fe_pow2(-k), floor = fe_pow2(kScaledFloorExponent);
    for_entries(d->m, [&](double& x) { x = fabs(x) * s >= floor ? x * s : 0.0; });
    d->e += k;
}

// a + b, aligned to the larger exponent.
template <class M>
MS_DEEP_HD DeepScaled<M> add(const DeepScaled<M>& a, const DeepScaled<M>& b) {
    DeepScaled<M> large = a.e < b.e ? b : a, small = a.e < b.e ? a : b;
    if (small.e == kFloatExpZeroExponent) return large;
    const int64_t k = small.e - large.e;
    for_entries(small.m, [&](double& x) { x = shifted(x, k); });
    large.m = bla_add(large.m, small.m);
    return large;
}

// A FloatExp complex or matrix (w, a BLA step's A or B) as doubles under its largest exponent.
MS_DEEP_HD DeepScaled<DeepComplex<double>> to_scaled(const DeepComplex<FloatExp>& a) {
    const int64_t e = max_exponent(a.re.exponent, a.im.exponent);
    return {{scaled(a.re, e), scaled(a.im, e)}, e};
}
MS_DEEP_HD DeepScaled<DeepMatrix<double>> to_scaled(const DeepMatrix<FloatExp>& a) {
    const int64_t e = max_exponent(max_exponent(a.xx.exponent, a.xy.exponent),
                                   max_exponent(a.yx.exponent, a.yy.exponent));
    return {{scaled(a.xx, e), scaled(a.xy, e), scaled(a.yx, e), scaled(a.yy, e)}, e};
}

}  // namespace deep_derivative_detail

// A complex number for the holomorphic maps, a real 2x2 matrix (columns d/dx, d/dy) otherwise;
// for FloatExp deltas under one exponent (DeepScaled, above).
template <Formula F, typename T>
using DeepDerivative = typename deep_derivative_detail::Type<F, T>::type;

// spacing (times I, for a Jacobian) as a derivative.
template <Formula F, typename T>
MS_DEEP_HD DeepDerivative<F, T> deep_derivative_spacing(T spacing) {
    DeepDerivative<F, T> d{};
    if constexpr (std::is_same_v<T, FloatExp>) {
        if constexpr (formula_is_holomorphic(F)) {
            d.m.re = spacing.mantissa;
        } else {
            d.m.xx = spacing.mantissa;
            d.m.yy = spacing.mantissa;
        }
        d.e = spacing.exponent;
    } else if constexpr (formula_is_holomorphic(F)) {
        d.re = spacing;
    } else {
        d.xx = spacing;
        d.yy = spacing;
    }
    return d;
}

// D_0: 0 on the parameter plane (z_0 = 0 whatever the pixel), spacing (times I) on a Julia set
// (z_0 = the pixel).
template <Formula F, bool kJulia, typename T>
MS_DEEP_HD DeepDerivative<F, T> deep_derivative_start(T spacing) {
    if constexpr (kJulia) return deep_derivative_spacing<F>(spacing);
    else return DeepDerivative<F, T>{};
}

// J_f(w) D for the map F, in the entries' type V (T, or double under a shared exponent).
template <Formula F, typename V, class D>
MS_DEEP_HD D deep_derivative_product(const DeepComplex<V>& w, const D& d, bool flip) {
    if constexpr (F == Formula::Mandelbrot) {
        (void)flip;
        return deep_twice(w * d);  // Mandelbrot: D' = 2 w D, the plain complex product
    } else if constexpr (formula_is_holomorphic(F)) {
        (void)flip;
        constexpr int degree = formula_degree(F);
        DeepComplex<V> power = w;  // w^(d-1)
        MS_DEEP_UNROLL
        for (int j = 2; j < degree; ++j) power = power * w;
        const DeepComplex<V> q = power * d;
        return {deep_times_small(q.re, double(degree)), deep_times_small(q.im, double(degree))};
    } else {
        const V x2 = deep_twice(w.re), y2 = deep_twice(w.im);
        // Each column (u, v) becomes (x2 u - y2 v, s (y2 u + x2 v)), s = -1 where flip.
        const V yx = y2 * d.xx + x2 * d.yx, yy = y2 * d.xy + x2 * d.yy;
        return {x2 * d.xx - y2 * d.yx, x2 * d.xy - y2 * d.yy, flip ? -yx : yx, flip ? -yy : yy};
    }
}

// One perturbation step's derivative, with w = Z_m + z before the step.
template <Formula F, bool kJulia, typename T>
MS_DEEP_HD void deep_derivative_step(DeepComplex<T> w, T spacing, DeepDerivative<F, T>* d) {
    bool flip = false;
    if constexpr (F == Formula::Tricorn) {
        flip = true;
    } else if constexpr (F == Formula::BurningShip) {
        // sign(ab) < 0 from the signs alone (the product of two tiny doubles could underflow
        // to a signless 0); a coordinate exactly 0 counts as positive, as in the direct path.
        const bool a_negative = deep_negative(w.re), b_negative = deep_negative(w.im);
        const bool a_positive = deep_negative(-w.re), b_positive = deep_negative(-w.im);
        flip = (a_negative && b_positive) || (a_positive && b_negative);
    }
    if constexpr (std::is_same_v<T, FloatExp>) {
        namespace detail = deep_derivative_detail;
        const auto ws = detail::to_scaled(w);
        constexpr int64_t powers = formula_is_holomorphic(F) ? formula_degree(F) - 1 : 1;
        DeepDerivative<F, T> next{deep_derivative_product<F>(ws.m, d->m, flip),
                                  detail::product_exponent(d->e, ws.e, powers)};
        if constexpr (!kJulia) next = detail::add(next, deep_derivative_spacing<F>(spacing));
        detail::normalise(&next);
        *d = next;
    } else {
        *d = deep_derivative_product<F>(w, *d, flip);
        if constexpr (!kJulia) {
            if constexpr (formula_is_holomorphic(F)) {
                d->re = d->re + spacing;
            } else {
                d->xx = d->xx + spacing;
                d->yy = d->yy + spacing;
            }
        }
    }
}

// A BLA skip's derivative: D <- A D + B spacing (A D on a Julia set, whose steps add no dc).
// L: the table's linear maps, DeepComplex<T> or DeepMatrix<T>.
template <Formula F, bool kJulia, typename T, typename L>
MS_DEEP_HD void deep_derivative_skip(const L& a, const L& b, T spacing, DeepDerivative<F, T>* d) {
    if constexpr (std::is_same_v<T, FloatExp>) {
        namespace detail = deep_derivative_detail;
        const auto as = detail::to_scaled(a);
        DeepDerivative<F, T> next{bla_compose(as.m, d->m), detail::product_exponent(d->e, as.e)};
        if constexpr (!kJulia) {
            auto bs = detail::to_scaled(b);
            detail::for_entries(bs.m, [&](double& x) { x *= spacing.mantissa; });
            bs.e = detail::product_exponent(bs.e, spacing.exponent);
            next = detail::add(next, bs);
        }
        detail::normalise(&next);
        *d = next;
    } else if constexpr (kJulia) {
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
    if constexpr (std::is_same_v<T, FloatExp>) {
        // |D| (or |J^T z|, with z in double: past the bailout, below 1e15) from the entries,
        // then its exponent.
        double length;
        if constexpr (formula_is_holomorphic(F)) {
            length = sqrt(d.m.re * d.m.re + d.m.im * d.m.im);
            estimate = deep_to_double(fe_div(fe_from_double(0.5 * sqrt(norm) * log(norm)), fe_make(length, d.e)));
        } else {
            const DeepComplex<double> zd = deep_to_double(z);
            const double gx = d.m.xx * zd.re + d.m.yx * zd.im, gy = d.m.xy * zd.re + d.m.yy * zd.im;
            length = sqrt(gx * gx + gy * gy);
            estimate = deep_to_double(fe_div(fe_from_double(0.5 * norm * log(norm)), fe_make(length, d.e)));
        }
    } else if constexpr (formula_is_holomorphic(F)) {
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
