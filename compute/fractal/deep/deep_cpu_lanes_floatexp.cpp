// deep_cpu_lanes_floatexp.cpp: deep_cpu_lanes_floatexp.h's row loop. Compiled once per SIMD target
// (Highway's foreach_target.h re-includes this file); the target is picked at run time.
//
// A FloatExp in a vector is two vectors: the mantissas (doubles) and the exponents (int64). Each
// floatexp.h operation below computes every case of the scalar one and picks per lane, so that a
// lane holds the scalar result bit for bit: the mantissa's double operation rounds the same way,
// and the exponent's integer arithmetic is exact.
//
// Per pass of a vector of lanes, each lane does what one pass of deep_iterate_pixel's loop does:
//   1. level 0's test |z|^2 < r0 (FloatExp compare); the lanes where it passes look their skip up
//      (bla_lookup_above_first, per lane) and compute B dc in the vector;
//   2. z <- a z + c for every lane (deep_fused_mul_add: fe_fma), a step's a = Z_m + current
//      (current = Z_m + z) and c = dc, or a skip's A and B dc; on a Julia set z <- a z
//      (deep_fused_mul); a Multibrot's step is its Horner form (+ dc) and its skip A z (+ B dc),
//      unfused, and so are the Burning Ship's and the Tricorn's folded step and matrix skip;
//   3. m advances, Z_m and level 0's radius are gathered (a Julia set's lane from W once it has
//      rebased), the full value's norm is tested against the bailout and against |z|^2
//      (Zhuoran's rebase); lanes with an event (escape, rebase, the iteration limit, the orbit's
//      end) are settled in a scalar pass, and a finished lane takes the row's next pixel.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/fractal/deep/deep_cpu_lanes_floatexp.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "compute/fractal/deep/deep_cpu_lanes_floatexp.h"

HWY_BEFORE_NAMESPACE();
namespace ms::deep_lanes_floatexp {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

using D = hn::ScalableTag<double>;
using DI = hn::RebindToSigned<D>;
using VD = hn::Vec<D>;
using VI = hn::Vec<DI>;
using MD = hn::Mask<D>;
using MI = hn::Mask<DI>;
constexpr size_t kMaxLanes = HWY_MAX_BYTES / sizeof(double);
constexpr int kGroups = 2;  // vectors in flight

// The lanes' arithmetic: the Mandelbrot set's fused loop; a Multibrot's Horner step, its degree
// read at run time; or the Burning Ship's and the Tricorn's folded step and real 2x2 matrix skips
// (which of the two read at run time). The last two round each product and sum on its own.
enum class Family { Fused, Multibrot, Fold };

// a b + c rounded once (fe_fma's fma): FusedMulAdd.
#include "compute/fractal/maths/fused_lanes-inl.h"
// A mask's lanes as bits: MaskBits.
#include "compute/fractal/maths/mask_bits-inl.h"

// A FloatExp a lane: mantissa m and exponent e (floatexp.h's normalisation).
struct VFE {
    VD m;
    VI e;
};
struct VComplex {
    VFE re, im;
};

HWY_INLINE MD ToD(MI mask) { return hn::RebindMask(D(), mask); }
HWY_INLINE MI ToI(MD mask) { return hn::RebindMask(DI(), mask); }

// 2^k for k in [-1022, 1023] (fe_pow2), from its bits.
HWY_INLINE VD Pow2(VI k) {
    const DI di;
    return hn::BitCast(D(), hn::ShiftLeft<52>(hn::Add(k, hn::Set(di, 1023))));
}

// The biased exponent field of x.
HWY_INLINE VI BiasedExponent(VD x) {
    const DI di;
    return hn::And(hn::ShiftRight<52>(hn::BitCast(di, x)), hn::Set(di, 0x7ff));
}

// fe_make: mantissa * 2^exponent normalised (zero: the zero exponent; inf and NaN as they are;
// a subnormal mantissa scaled by 2^64 first). The operations below make no subnormal, inf or NaN
// mantissa from finite normalised operands, so those cases take a branch of their own.
HWY_NOINLINE VFE MakeRare(VD mantissa, VI exponent) {
    const D d;
    const DI di;
    const MD zero = hn::Eq(mantissa, hn::Zero(d));
    const MI special = hn::Eq(BiasedExponent(mantissa), hn::Set(di, 0x7ff));
    const MI subnormal = hn::Eq(BiasedExponent(mantissa), hn::Zero(di));
    const VD m = hn::IfThenElse(ToD(subnormal), hn::Mul(mantissa, hn::Set(d, 18446744073709551616.0)), mantissa);
    const VI e = hn::IfThenElse(subnormal, hn::Sub(exponent, hn::Set(di, 64)), exponent);
    const VI bits = hn::BitCast(di, m);
    const VD normal_m = hn::BitCast(
        d, hn::Or(hn::And(bits, hn::Set(di, int64_t(0x800FFFFFFFFFFFFFull))), hn::Set(di, int64_t(1023) << 52)));
    const VI normal_e = hn::Add(e, hn::Sub(BiasedExponent(m), hn::Set(di, 1023)));
    const MI keep = hn::Or(ToI(zero), special);
    return VFE{
        hn::IfThenElse(ToD(keep), mantissa, normal_m),
        hn::IfThenElse(ToI(zero), hn::Set(di, kFloatExpZeroExponent), hn::IfThenElse(special, exponent, normal_e))};
}
HWY_INLINE VFE Make(VD mantissa, VI exponent) {
    const D d;
    const DI di;
    const VI biased = BiasedExponent(mantissa);
    const MD zero = hn::Eq(mantissa, hn::Zero(d));
    // Biased exponent 0 (a subnormal, or zero) or 0x7ff (inf, NaN): (biased - 1) & 0xfff >= 0x7fe.
    const MI rare = hn::Gt(hn::And(hn::Sub(biased, hn::Set(di, 1)), hn::Set(di, 0xfff)), hn::Set(di, 0x7fd));
    if (HWY_UNLIKELY(!hn::AllFalse(di, hn::AndNot(ToI(zero), rare)))) return MakeRare(mantissa, exponent);
    const VI bits = hn::BitCast(di, mantissa);
    const VD normal_m = hn::BitCast(
        d, hn::Or(hn::And(bits, hn::Set(di, int64_t(0x800FFFFFFFFFFFFFull))), hn::Set(di, int64_t(1023) << 52)));
    const VI normal_e = hn::Add(exponent, hn::Sub(biased, hn::Set(di, 1023)));
    return VFE{hn::IfThenElse(zero, mantissa, normal_m),
               hn::IfThenElse(ToI(zero), hn::Set(di, kFloatExpZeroExponent), normal_e)};
}

HWY_INLINE VFE Mul(VFE a, VFE b) { return Make(hn::Mul(a.m, b.m), hn::Add(a.e, b.e)); }

// operator+: the smaller aligned to the larger's exponent; past 64 bits of difference the larger.
HWY_INLINE VFE Add(VFE a, VFE b) {
    const DI di;
    const MI swap = hn::Lt(a.e, b.e);
    const VD big_m = hn::IfThenElse(ToD(swap), b.m, a.m), small_m = hn::IfThenElse(ToD(swap), a.m, b.m);
    const VI big_e = hn::IfThenElse(swap, b.e, a.e), small_e = hn::IfThenElse(swap, a.e, b.e);
    const VI shift = hn::Sub(big_e, small_e);
    const MI dropped = hn::Gt(shift, hn::Set(di, 64));
    const VI aligned = hn::IfThenZeroElse(dropped, shift);  // in range for Pow2 where used
    const VFE sum = Make(hn::Add(big_m, hn::Mul(small_m, Pow2(hn::Neg(aligned)))), big_e);
    return VFE{hn::IfThenElse(ToD(dropped), big_m, sum.m), hn::IfThenElse(dropped, big_e, sum.e)};
}

HWY_INLINE VFE Negate(VFE a) { return VFE{hn::Neg(a.m), a.e}; }

HWY_INLINE VFE Blend(MD mask, VFE yes, VFE no) {
    return VFE{hn::IfThenElse(mask, yes.m, no.m), hn::IfThenElse(ToI(mask), yes.e, no.e)};
}

// fe_fma: a b + c rounded once, by its cases (a or b zero: c; c zero: the product; else the
// smaller of a b and c scaled to the larger's exponent, a stand-in of 2^-200 with its sign past
// 2^-110).
HWY_INLINE VFE Fma(VFE a, VFE b, VFE c) {
    const D d;
    const DI di;
    const MD zero_product = hn::Or(hn::Eq(a.m, hn::Zero(d)), hn::Eq(b.m, hn::Zero(d)));
    const MD zero_c = hn::Eq(c.m, hn::Zero(d));
    const VI product_exponent = hn::Add(a.e, b.e);
    const VI shift = hn::Sub(product_exponent, c.e);
    const MI c_smaller = hn::Not(hn::Lt(shift, hn::Zero(di)));  // shift >= 0
    const MI c_far = hn::Gt(shift, hn::Set(di, 110));
    const MI product_far = hn::Lt(shift, hn::Set(di, -110));
    const VD stand_in = hn::Set(d, 0x1p-200);
    // shift >= 0: fma(a, b, c scaled by 2^-shift) at the product's exponent.
    const VI down = hn::Neg(hn::Min(hn::Max(shift, hn::Zero(di)), hn::Set(di, 110)));
    const VD scaled_c = hn::IfThenElse(ToD(c_far), hn::CopySign(stand_in, c.m), hn::Mul(c.m, Pow2(down)));
    // shift < 0: fma(a scaled by 2^shift, b, c) at c's exponent.
    const VI up = hn::Min(hn::Max(shift, hn::Set(di, -110)), hn::Zero(di));
    const VD scaled_a = hn::IfThenElse(ToD(product_far), hn::CopySign(stand_in, a.m), hn::Mul(a.m, Pow2(up)));
    const VD x = hn::IfThenElse(ToD(c_smaller), a.m, scaled_a);
    const VD y = hn::IfThenElse(ToD(c_smaller), scaled_c, c.m);
    VFE r = Make(FusedMulAdd(x, b.m, y), hn::IfThenElse(c_smaller, product_exponent, c.e));
    if (HWY_UNLIKELY(!hn::AllFalse(d, zero_c))) r = Blend(zero_c, Make(hn::Mul(a.m, b.m), product_exponent), r);
    return Blend(zero_product, c, r);
}

// operator<: the sign first, then the exponent, then the mantissa.
HWY_INLINE MD Less(VFE a, VFE b) {
    const D d;
    const MD a_negative = hn::Lt(a.m, hn::Zero(d)), b_negative = hn::Lt(b.m, hn::Zero(d));
    const MD by_mantissa = hn::Lt(a.m, b.m);
    const MD simple = hn::Or(hn::Or(hn::Eq(a.m, hn::Zero(d)), hn::Eq(b.m, hn::Zero(d))),
                             hn::Xor(a_negative, b_negative));
    const MD by_exponent = hn::Or(hn::And(a_negative, ToD(hn::Gt(a.e, b.e))),
                                  hn::AndNot(a_negative, ToD(hn::Lt(a.e, b.e))));
    const MD exponents_differ = ToD(hn::Ne(a.e, b.e));
    const MD by_sign_and_size = hn::Or(hn::And(exponents_differ, by_exponent),
                                       hn::AndNot(exponents_differ, by_mantissa));
    return hn::Or(hn::And(simple, by_mantissa), hn::AndNot(simple, by_sign_and_size));
}

// fe_to_double(x) > limit for a limit in double's normal range above 2: in range the mantissa times
// 2^e, above it inf or a huge value (greater for a positive mantissa), below it a value below 2.
HWY_INLINE MD GreaterThan(VFE x, double limit) {
    const D d;
    const DI di;
    const VI clamped = hn::Min(hn::Max(x.e, hn::Set(di, -1022)), hn::Set(di, 1023));
    const MD in_range = hn::Gt(hn::Mul(x.m, Pow2(clamped)), hn::Set(d, limit));
    const MD above = hn::And(ToD(hn::Gt(x.e, hn::Set(di, 1023))), hn::Gt(x.m, hn::Zero(d)));
    return hn::Or(in_range, above);
}

// deep_fused_mul_add(a, z, c): re = fma(a.re, z.re, fma(-a.im, z.im, c.re)),
// im = fma(a.re, z.im, fma(a.im, z.re, c.im)).
HWY_INLINE VComplex FusedProductAdd(const VComplex& a, const VComplex& z, const VComplex& c) {
    return VComplex{Fma(a.re, z.re, Fma(Negate(a.im), z.im, c.re)), Fma(a.re, z.im, Fma(a.im, z.re, c.im))};
}
// deep_fused_mul(a, z) (a Julia set's step and skip): re = fma(a.re, z.re, -(a.im z.im)),
// im = fma(a.re, z.im, a.im z.re).
HWY_INLINE VComplex FusedProduct(const VComplex& a, const VComplex& z) {
    return VComplex{Fma(a.re, z.re, Negate(Mul(a.im, z.im))), Fma(a.re, z.im, Mul(a.im, z.re))};
}
// deep_fused_norm(v): fma(re, re, im im).
HWY_INLINE VFE FusedNorm(const VComplex& v) { return Fma(v.re, v.re, Mul(v.im, v.im)); }
HWY_INLINE VComplex AddComplex(const VComplex& a, const VComplex& b) {
    return VComplex{Add(a.re, b.re), Add(a.im, b.im)};
}
// DeepComplex's operator*: a.re b.re - a.im b.im, a.re b.im + a.im b.re (a - b is a + (-b)).
HWY_INLINE VComplex MulComplex(const VComplex& a, const VComplex& b) {
    return VComplex{Add(Mul(a.re, b.re), Negate(Mul(a.im, b.im))), Add(Mul(a.re, b.im), Mul(a.im, b.re))};
}

// deep_norm(v): re re + im im (the Multibrots' norm; the Mandelbrot set's is fused).
HWY_INLINE VFE Norm(const VComplex& v) { return Add(Mul(v.re, v.re), Mul(v.im, v.im)); }
template <Family kFamily>
HWY_INLINE VFE NormOf(const VComplex& v) {
    if constexpr (kFamily != Family::Fused) return Norm(v);
    else return FusedNorm(v);
}
// deep_times_small(x, k): fe_make(mantissa k, exponent).
HWY_INLINE VFE TimesSmall(VFE x, double k) { return Make(hn::Mul(x.m, hn::Set(D(), k)), x.e); }

// A Multibrot's f(Z + z) - f(Z) for its degree (3 to 8; deep_perturbation_step's Horner form,
// the same products and sums in the same order). The degree is a run-time value: one loop serves
// every Multibrot, where a copy of the lanes a degree would multiply their code by six.
constexpr int kMaxDegree = 8;
HWY_INLINE VComplex MultibrotStep(const VComplex& Z, const VComplex& z, int degree) {
    VComplex power[kMaxDegree];  // Z^1 .. Z^(d-1)
    power[1] = Z;
    for (int j = 2; j < degree; ++j) power[j] = MulComplex(power[j - 1], Z);
    VComplex acc{Add(z.re, TimesSmall(Z.re, double(degree))), Add(z.im, TimesSmall(Z.im, double(degree)))};
    for (int k = degree - 2; k >= 1; --k) {
        const double b = deep_binomial(degree, k);
        const VComplex& p = power[degree - k];
        acc = MulComplex(acc, z);
        acc = VComplex{Add(acc.re, TimesSmall(p.re, b)), Add(acc.im, TimesSmall(p.im, b))};
    }
    return MulComplex(acc, z);
}

// deep_twice: fe_ldexp(x, 1), which leaves a zero as it is.
HWY_INLINE VFE Twice(VFE x) {
    const MD zero = hn::Eq(x.m, hn::Zero(D()));
    return VFE{x.m, hn::IfThenElse(ToI(zero), x.e, hn::Add(x.e, hn::Set(DI(), 1)))};
}

// deep_diffabs(c, d) = |c + d| - |c| by its cases (deep_negative: the mantissa below 0).
HWY_INLINE VFE Diffabs(const VFE& c, const VFE& d_) {
    const D d;
    const MD c_negative = hn::Lt(c.m, hn::Zero(d));
    const MD s_negative = hn::Lt(Add(c, d_).m, hn::Zero(d));
    const VFE twice_c_plus_d = Add(Twice(c), d_);
    const VFE if_c = Blend(s_negative, Negate(twice_c_plus_d), d_);
    const VFE if_not_c = Blend(s_negative, Negate(d_), twice_c_plus_d);
    return Blend(c_negative, if_not_c, if_c);
}

// The Burning Ship's (burning_ship) or the Tricorn's f(Z + z) - f(Z) (deep_perturbation_step's,
// the same products and sums in the same order).
HWY_INLINE VComplex FoldStep(const VComplex& Z, const VComplex& z, bool burning_ship) {
    const VComplex a{Add(Twice(Z.re), z.re), Add(Twice(Z.im), z.im)};  // deep_twice(Z) + z
    if (!burning_ship) {
        const VComplex w = MulComplex(a, z);
        return VComplex{w.re, Negate(w.im)};
    }
    const VFE re = Add(Mul(a.re, z.re), Negate(Mul(a.im, z.im)));
    const VFE c = Mul(Z.re, Z.im);
    const VFE d_ = Add(Mul(Z.re, z.im), Mul(z.re, Add(Z.im, z.im)));
    return VComplex{re, Twice(Diffabs(c, d_))};
}

// bla_apply of a real 2x2 matrix, its rows (xx, xy) in upper and (yx, yy) in lower, to v.
HWY_INLINE VComplex MatrixApply(const VComplex& upper, const VComplex& lower, const VComplex& v) {
    return VComplex{Add(Mul(upper.re, v.re), Mul(upper.im, v.im)), Add(Mul(lower.re, v.re), Mul(lower.im, v.im))};
}

// A vector's lanes as arrays (the scalar passes' view) and back.
struct LaneArrays {
    HWY_ALIGN double m[kMaxLanes];
    HWY_ALIGN int64_t e[kMaxLanes];
    FloatExp at(size_t lane) const { return FloatExp{m[lane], e[lane]}; }
    void set(size_t lane, FloatExp x) {
        m[lane] = x.mantissa;
        e[lane] = x.exponent;
    }
};
HWY_INLINE void Store(VFE x, LaneArrays* a) {
    hn::Store(x.m, D(), a->m);
    hn::Store(x.e, DI(), a->e);
}
HWY_INLINE VFE Load(const LaneArrays& a) { return VFE{hn::Load(D(), a.m), hn::Load(DI(), a.e)}; }

// A derivative of FloatExp deltas (deep_derivative.h's DeepScaled<DeepComplex<double>>): the
// entries re, im times 2^e.
struct VScaled {
    VD re, im;
    VI e;
};

// deep_derivative.h's operations on DeepScaled derivatives, case for case.
constexpr int64_t kScaledFloor = deep_derivative_detail::kScaledFloorExponent;

// product_exponent: a + b, or zero's exponent where either is zero's.
HWY_INLINE VI ProductExponent(VI a, VI b) {
    const VI zero = hn::Set(DI(), kFloatExpZeroExponent);
    return hn::IfThenElse(hn::Or(hn::Eq(a, zero), hn::Eq(b, zero)), zero, hn::Add(a, b));
}
// shifted (and scaled): m 2^k for k <= 0, 0 below the floor.
HWY_INLINE VD Shifted(VD m, VI k) {
    const DI di;
    const MI kept = hn::Not(hn::Lt(k, hn::Set(di, kScaledFloor)));
    return hn::IfThenElseZero(ToD(kept), hn::Mul(m, Pow2(hn::Max(k, hn::Set(di, kScaledFloor)))));
}
// to_scaled: a FloatExp complex as doubles under its larger exponent.
HWY_INLINE VScaled ToScaled(const VComplex& a) {
    const VI e = hn::Max(a.re.e, a.im.e);
    return VScaled{Shifted(a.re.m, hn::Sub(a.re.e, e)), Shifted(a.im.m, hn::Sub(a.im.e, e)), e};
}
HWY_INLINE VScaled BlendScaled(MD mask, const VScaled& yes, const VScaled& no) {
    return VScaled{hn::IfThenElse(mask, yes.re, no.re), hn::IfThenElse(mask, yes.im, no.im),
                   hn::IfThenElse(ToI(mask), yes.e, no.e)};
}
// add: a + b aligned to the larger exponent (a zero's exponent leaves the other as it is).
HWY_INLINE VScaled AddScaled(const VScaled& a, const VScaled& b) {
    const MD swap = ToD(hn::Lt(a.e, b.e));
    const VScaled large = BlendScaled(swap, b, a), small = BlendScaled(swap, a, b);
    const MD small_zero = ToD(hn::Eq(small.e, hn::Set(DI(), kFloatExpZeroExponent)));
    const VI k = hn::Sub(small.e, large.e);
    const VD re = hn::Add(large.re, Shifted(small.re, k)), im = hn::Add(large.im, Shifted(small.im, k));
    return VScaled{hn::IfThenElse(small_zero, large.re, re), hn::IfThenElse(small_zero, large.im, im), large.e};
}
// normalise, where the largest entry is subnormal, 2^1023-sized, inf or NaN (never in practice):
// deep_derivative.h's own code, lane by lane.
HWY_NOINLINE VScaled NormaliseRare(const VScaled& x) {
    const D d;
    const DI di;
    HWY_ALIGN double re[kMaxLanes], im[kMaxLanes];
    HWY_ALIGN int64_t e[kMaxLanes];
    hn::Store(x.re, d, re);
    hn::Store(x.im, d, im);
    hn::Store(x.e, di, e);
    for (size_t lane = 0; lane < hn::Lanes(d); ++lane) {
        DeepDerivative<Formula::Mandelbrot, FloatExp> v{{re[lane], im[lane]}, e[lane]};
        deep_derivative_detail::normalise(&v);
        re[lane] = v.m.re;
        im[lane] = v.m.im;
        e[lane] = v.e;
    }
    return VScaled{hn::Load(d, re), hn::Load(d, im), hn::Load(di, e)};
}
// normalise: the larger entry into [1, 2), its power of two into e, entries below 2^-500 of it
// dropped; a zero derivative takes zero's exponent.
HWY_INLINE VScaled Normalise(const VScaled& x) {
    const D d;
    const DI di;
    const VD largest = hn::Max(hn::Abs(x.re), hn::Abs(x.im));
    const VI biased = BiasedExponent(largest);
    const MD zero = hn::Eq(largest, hn::Zero(d));
    const MD nan = hn::Or(hn::Ne(x.re, x.re), hn::Ne(x.im, x.im));
    const MI special = hn::Or(hn::Eq(biased, hn::Set(di, 0x7ff)), hn::Eq(biased, hn::Set(di, 2046)));
    const MI subnormal = hn::AndNot(ToI(zero), hn::Eq(biased, hn::Zero(di)));
    if (HWY_UNLIKELY(!hn::AllFalse(d, hn::Or(nan, ToD(hn::Or(special, subnormal)))))) return NormaliseRare(x);
    const VI k = hn::Sub(biased, hn::Set(di, 1023));
    const VD scale = Pow2(hn::Neg(k)), floor = hn::Set(d, 0x1p-500);
    const VD re = hn::Mul(x.re, scale), im = hn::Mul(x.im, scale);
    const VD kept_re = hn::IfThenElseZero(hn::Not(hn::Lt(hn::Abs(re), floor)), re);
    const VD kept_im = hn::IfThenElseZero(hn::Not(hn::Lt(hn::Abs(im), floor)), im);
    return VScaled{hn::IfThenElse(zero, x.re, kept_re), hn::IfThenElse(zero, x.im, kept_im),
                   hn::IfThenElse(ToI(zero), hn::Set(di, kFloatExpZeroExponent), hn::Add(x.e, k))};
}

// The Burning Ship's and the Tricorn's derivative (deep_derivative.h's DeepScaled<DeepMatrix>): the
// 2x2 Jacobian's entries xx, xy, yx, yy times 2^e; a skip's A and B under their largest exponent.
struct VScaledMatrix {
    VD xx, xy, yx, yy;
    VI e;
};
HWY_INLINE VScaledMatrix BlendScaledMatrix(MD mask, const VScaledMatrix& yes, const VScaledMatrix& no) {
    return VScaledMatrix{hn::IfThenElse(mask, yes.xx, no.xx), hn::IfThenElse(mask, yes.xy, no.xy),
                         hn::IfThenElse(mask, yes.yx, no.yx), hn::IfThenElse(mask, yes.yy, no.yy),
                         hn::IfThenElse(ToI(mask), yes.e, no.e)};
}
// to_scaled of a FloatExp matrix: its entries as doubles under their largest exponent.
HWY_INLINE VScaledMatrix ToScaledMatrix(const VFE& xx, const VFE& xy, const VFE& yx, const VFE& yy) {
    const VI e = hn::Max(hn::Max(xx.e, xy.e), hn::Max(yx.e, yy.e));
    return VScaledMatrix{Shifted(xx.m, hn::Sub(xx.e, e)), Shifted(xy.m, hn::Sub(xy.e, e)),
                         Shifted(yx.m, hn::Sub(yx.e, e)), Shifted(yy.m, hn::Sub(yy.e, e)), e};
}
// add: a + b aligned to the larger exponent, entry by entry (bla_add).
HWY_INLINE VScaledMatrix AddScaledMatrix(const VScaledMatrix& a, const VScaledMatrix& b) {
    const MD swap = ToD(hn::Lt(a.e, b.e));
    const VScaledMatrix large = BlendScaledMatrix(swap, b, a), small = BlendScaledMatrix(swap, a, b);
    const MD small_zero = ToD(hn::Eq(small.e, hn::Set(DI(), kFloatExpZeroExponent)));
    const VI k = hn::Sub(small.e, large.e);
    auto sum = [&](VD big, VD other) { return hn::IfThenElse(small_zero, big, hn::Add(big, Shifted(other, k))); };
    return VScaledMatrix{sum(large.xx, small.xx), sum(large.xy, small.xy), sum(large.yx, small.yx),
                         sum(large.yy, small.yy), large.e};
}
// normalise's rare cases (see NormaliseRare), lane by lane.
HWY_NOINLINE VScaledMatrix NormaliseMatrixRare(const VScaledMatrix& x) {
    const D d;
    const DI di;
    HWY_ALIGN double xx[kMaxLanes], xy[kMaxLanes], yx[kMaxLanes], yy[kMaxLanes];
    HWY_ALIGN int64_t e[kMaxLanes];
    hn::Store(x.xx, d, xx);
    hn::Store(x.xy, d, xy);
    hn::Store(x.yx, d, yx);
    hn::Store(x.yy, d, yy);
    hn::Store(x.e, di, e);
    for (size_t lane = 0; lane < hn::Lanes(d); ++lane) {
        DeepDerivative<Formula::BurningShip, FloatExp> v{{xx[lane], xy[lane], yx[lane], yy[lane]}, e[lane]};
        deep_derivative_detail::normalise(&v);
        xx[lane] = v.m.xx;
        xy[lane] = v.m.xy;
        yx[lane] = v.m.yx;
        yy[lane] = v.m.yy;
        e[lane] = v.e;
    }
    return VScaledMatrix{hn::Load(d, xx), hn::Load(d, xy), hn::Load(d, yx), hn::Load(d, yy), hn::Load(di, e)};
}
// normalise: the largest of the four entries into [1, 2) (as Normalise does for two).
HWY_INLINE VScaledMatrix NormaliseMatrix(const VScaledMatrix& x) {
    const D d;
    const DI di;
    const VD largest = hn::Max(hn::Max(hn::Abs(x.xx), hn::Abs(x.xy)), hn::Max(hn::Abs(x.yx), hn::Abs(x.yy)));
    const VI biased = BiasedExponent(largest);
    const MD zero = hn::Eq(largest, hn::Zero(d));
    const MD nan = hn::Or(hn::Or(hn::Ne(x.xx, x.xx), hn::Ne(x.xy, x.xy)),
                          hn::Or(hn::Ne(x.yx, x.yx), hn::Ne(x.yy, x.yy)));
    const MI special = hn::Or(hn::Eq(biased, hn::Set(di, 0x7ff)), hn::Eq(biased, hn::Set(di, 2046)));
    const MI subnormal = hn::AndNot(ToI(zero), hn::Eq(biased, hn::Zero(di)));
    if (HWY_UNLIKELY(!hn::AllFalse(d, hn::Or(nan, ToD(hn::Or(special, subnormal)))))) return NormaliseMatrixRare(x);
    const VI k = hn::Sub(biased, hn::Set(di, 1023));
    const VD scale = Pow2(hn::Neg(k)), floor = hn::Set(d, 0x1p-500);
    auto kept = [&](VD v) {
        const VD scaled = hn::Mul(v, scale);
        return hn::IfThenElse(zero, v, hn::IfThenElseZero(hn::Not(hn::Lt(hn::Abs(scaled), floor)), scaled));
    };
    return VScaledMatrix{kept(x.xx), kept(x.xy), kept(x.yx), kept(x.yy),
                         hn::IfThenElse(ToI(zero), hn::Set(di, kFloatExpZeroExponent), hn::Add(x.e, k))};
}

// One vector of lanes, each a pixel or idle (alive 0: no skip, no event, m stays 0); d is the
// derivative (the distance estimate's); atom_norm and atom_n the atom period so far (deep_atom.h:
// the smallest |Z_m + z|^2 and its n, 0 none yet), base_n the lanes' base (n at m = 0). On a
// Julia set on_w is 1 where the lane iterates against W (after its first rebase), and w_lanes
// the same as a vector.
struct Group {
    VComplex z, current, dc, Zm;
    VFE z2, r0, atom_norm;
    VScaled d;
    VScaledMatrix jacobian;  // Family::Fold's derivative (d unused)
    VI m, stop, atom_n, base_n, w_lanes;
    VD alive;
    int pixel[kMaxLanes];
    int64_t base[kMaxLanes], limit[kMaxLanes], on_w[kMaxLanes];
};

// An orbit the lanes iterate against and its table: the row's Z, and a Julia set's W.
struct LaneOrbit {
    const DeepComplex<FloatExp>* z = nullptr;
    int64_t last = 0;
    const BlaView<FloatExp, DeepComplex<FloatExp>>* bla = nullptr;
    const BlaView<FloatExp, DeepMatrix<FloatExp>>* bla_matrix = nullptr;  // the Burning Ship's, the Tricorn's
    const DeepAtomStep<FloatExp>* atom_steps = nullptr;
    int64_t size0 = 0;  // level 0's entries (0: BLA off)
};

struct RowState {
    const DeepLanesRowFloatExp* row;
    LaneOrbit orbit[2];  // Z; a Julia set's W
    // The gathers' bases (Z's points, Z's radii or a stand-in) and, on a Julia set, where W's
    // points and radii lie from them, in 8-byte words: a lane on W adds these to its indices.
    const double* radii;
    const int64_t* radii_e;
    int64_t w_points = 0, w_radii = 0;
    int degree = 2;             // the formula's (a Multibrot's step and derivative read it)
    bool burning_ship = false;  // Family::Fold: the Burning Ship (else the Tricorn)
    int next_pixel = 0;
    DeepPixelCounters* counters;
};

// A holomorphic formula's derivative of FloatExp deltas: the same type for every one.
using Derivative = DeepDerivative<Formula::Mandelbrot, FloatExp>;
// The Burning Ship's and the Tricorn's (a Jacobian): the same type for both.
using FoldDerivative = DeepDerivative<Formula::BurningShip, FloatExp>;
static_assert(std::is_same_v<DeepDerivative<Formula::Tricorn, FloatExp>, FoldDerivative>);
static_assert(std::is_same_v<DeepDerivative<Formula::Multibrot8, FloatExp>, Derivative>);
static_assert(formula_degree(Formula::Multibrot8) == kMaxDegree, "MultibrotStep's powers hold every degree");

// deep_smooth_mu for the row's formula (its degree and bailout).
double SmoothMu(Formula formula, int64_t n, double norm) {
    switch (formula) {
    case Formula::Multibrot3: return deep_smooth_mu<Formula::Multibrot3>(n, norm);
    case Formula::Multibrot4: return deep_smooth_mu<Formula::Multibrot4>(n, norm);
    case Formula::Multibrot5: return deep_smooth_mu<Formula::Multibrot5>(n, norm);
    case Formula::Multibrot6: return deep_smooth_mu<Formula::Multibrot6>(n, norm);
    case Formula::Multibrot7: return deep_smooth_mu<Formula::Multibrot7>(n, norm);
    case Formula::Multibrot8: return deep_smooth_mu<Formula::Multibrot8>(n, norm);
    default: return deep_smooth_mu<Formula::Mandelbrot>(n, norm);
    }
}

// A radius for rows without a table (BLA off): never read past the gathers' blend.
const FloatExp kNoRadius{};

// The scalar view of a group: every vector as arrays.
struct GroupArrays {
    LaneArrays zr, zi, cr, ci, dcr, dci, Zr, Zi, z2, r0, atom_norm;
    HWY_ALIGN int64_t m[kMaxLanes], stop[kMaxLanes], de[kMaxLanes], atom_n[kMaxLanes];
    HWY_ALIGN double alive[kMaxLanes], dre[kMaxLanes], dim[kMaxLanes];
    HWY_ALIGN double jxx[kMaxLanes], jxy[kMaxLanes], jyx[kMaxLanes], jyy[kMaxLanes];
    HWY_ALIGN int64_t je[kMaxLanes];
};
template <Family kFamily>
HWY_INLINE void StoreGroup(const Group& g, GroupArrays* a) {
    Store(g.z.re, &a->zr);
    Store(g.z.im, &a->zi);
    Store(g.current.re, &a->cr);
    Store(g.current.im, &a->ci);
    Store(g.dc.re, &a->dcr);
    Store(g.dc.im, &a->dci);
    Store(g.Zm.re, &a->Zr);
    Store(g.Zm.im, &a->Zi);
    Store(g.z2, &a->z2);
    Store(g.r0, &a->r0);
    Store(g.atom_norm, &a->atom_norm);
    hn::Store(g.atom_n, DI(), a->atom_n);
    hn::Store(g.m, DI(), a->m);
    hn::Store(g.stop, DI(), a->stop);
    hn::Store(g.alive, D(), a->alive);
    hn::Store(g.d.re, D(), a->dre);
    hn::Store(g.d.im, D(), a->dim);
    hn::Store(g.d.e, DI(), a->de);
    if constexpr (kFamily == Family::Fold) {
        hn::Store(g.jacobian.xx, D(), a->jxx);
        hn::Store(g.jacobian.xy, D(), a->jxy);
        hn::Store(g.jacobian.yx, D(), a->jyx);
        hn::Store(g.jacobian.yy, D(), a->jyy);
        hn::Store(g.jacobian.e, DI(), a->je);
    }
}
template <Family kFamily>
HWY_INLINE void LoadGroup(const GroupArrays& a, Group* g) {
    g->z = VComplex{Load(a.zr), Load(a.zi)};
    g->current = VComplex{Load(a.cr), Load(a.ci)};
    g->dc = VComplex{Load(a.dcr), Load(a.dci)};
    g->Zm = VComplex{Load(a.Zr), Load(a.Zi)};
    g->z2 = Load(a.z2);
    g->r0 = Load(a.r0);
    g->atom_norm = Load(a.atom_norm);
    g->atom_n = hn::Load(DI(), a.atom_n);
    g->base_n = hn::LoadU(DI(), g->base);
    g->w_lanes = hn::LoadU(DI(), g->on_w);
    g->m = hn::Load(DI(), a.m);
    g->stop = hn::Load(DI(), a.stop);
    g->alive = hn::Load(D(), a.alive);
    g->d = VScaled{hn::Load(D(), a.dre), hn::Load(D(), a.dim), hn::Load(DI(), a.de)};
    if constexpr (kFamily == Family::Fold)
        g->jacobian = VScaledMatrix{hn::Load(D(), a.jxx), hn::Load(D(), a.jxy), hn::Load(D(), a.jyx),
                                    hn::Load(D(), a.jyy), hn::Load(DI(), a.je)};
}

// The lane's stop: the lesser of its orbit's last index and the iterations left.
int64_t LaneStop(const RowState& s, int64_t on_w, int64_t limit) {
    const int64_t last = s.orbit[on_w].last;
    return limit < last ? limit : last;
}

// Gives `lane` the row's next pixel at the orbit's start, as deep_iterate_pixel starts one (z_0 =
// 0 and D_0 = 0 on the parameter plane, z_0 = dc and D_0 = spacing on a Julia set), or idles it.
template <Family kFamily>
void StartLane(RowState& s, Group& g, GroupArrays& a, size_t lane) {
    const DeepLanesRowFloatExp& row = *s.row;
    for (;;) {
        const bool idle = s.next_pixel >= row.count;
        const int q = idle ? -1 : s.next_pixel++;
        const DeepComplex<FloatExp> dc = idle ? DeepComplex<FloatExp>{} : row.dc[q];
        const DeepComplex<FloatExp> z = row.julia ? dc : DeepComplex<FloatExp>{};
        const DeepComplex<FloatExp>& Z0 = row.orbit[0];
        a.zr.set(lane, z.re);
        a.zi.set(lane, z.im);
        a.Zr.set(lane, Z0.re);
        a.Zi.set(lane, Z0.im);
        a.r0.set(lane, FloatExp{});  // bla_first_radius at m = 0
        const DeepComplex<FloatExp> current = Z0 + z;
        a.cr.set(lane, current.re);
        a.ci.set(lane, current.im);
        a.z2.set(lane, kFamily != Family::Fused ? deep_norm(z) : deep_fused_norm(z));
        // Every holomorphic formula's D_0 (deep_derivative_start) is the Mandelbrot set's.
        const Derivative d0 = row.julia ? deep_derivative_start<Formula::Mandelbrot, true>(row.spacing)
                                        : deep_derivative_start<Formula::Mandelbrot, false>(row.spacing);
        a.dre[lane] = d0.m.re;
        a.dim[lane] = d0.m.im;
        a.de[lane] = d0.e;
        if constexpr (kFamily == Family::Fold) {  // the Jacobian's D_0: 0, or spacing I on a Julia set
            const FoldDerivative j0 = row.julia ? deep_derivative_start<Formula::BurningShip, true>(row.spacing)
                                                : deep_derivative_start<Formula::BurningShip, false>(row.spacing);
            a.jxx[lane] = j0.m.xx;
            a.jxy[lane] = j0.m.xy;
            a.jyx[lane] = j0.m.yx;
            a.jyy[lane] = j0.m.yy;
            a.je[lane] = j0.e;
        }
        a.atom_norm.set(lane, FloatExp{});
        a.atom_n[lane] = 0;
        a.m[lane] = 0;
        g.base[lane] = 0;
        g.on_w[lane] = 0;
        g.pixel[lane] = q;
        a.dcr.set(lane, dc.re);
        a.dci.set(lane, dc.im);
        if (idle) {
            a.alive[lane] = 0.0;
            g.limit[lane] = 0;
            a.stop[lane] = 0;
            return;
        }
        a.alive[lane] = 1.0;
        g.limit[lane] = row.max_iterations;
        a.stop[lane] = LaneStop(s, 0, row.max_iterations);
        if (row.max_iterations > 0) return;
        deep_lanes_inside(row, q, 0);  // no iteration to run: inside at once
        s.counters->iterations += uint64_t(row.max_iterations);
    }
}

// The scalar pass over the lanes in `events` (escaped, closer, or m at its stop), in
// deep_iterate_pixel's order: the escape, then the rebase, then the limit.
template <Family kFamily>
HWY_NOINLINE void FinishLanes(RowState& s, Group& g, uint64_t events, const VFE& full_norm_v, const MD& escaped_v) {
    const DeepLanesRowFloatExp& row = *s.row;
    GroupArrays a;
    StoreGroup<kFamily>(g, &a);
    LaneArrays full_norm;
    Store(full_norm_v, &full_norm);
    HWY_ALIGN double escaped[kMaxLanes];
    hn::Store(hn::VecFromMask(D(), escaped_v), D(), escaped);
    for (uint64_t bits = events; bits; bits &= bits - 1) {
        const size_t lane = size_t(__builtin_ctzll(bits));
        const int p = g.pixel[lane];
        const int64_t m = a.m[lane];
        if (escaped[lane] != 0.0) {
            const int64_t n = g.base[lane] + m;
            row.escape_count[p] = n;
            const double norm = fe_to_double(full_norm.at(lane));
            row.mu[p] = SmoothMu(row.formula, n, norm);
            const DeepComplex<FloatExp> full{a.cr.at(lane), a.ci.at(lane)};
            if (row.distance) {
                if constexpr (kFamily == Family::Fold)
                    row.distance[p] = deep_distance_estimate<Formula::BurningShip>(
                        full, norm, FoldDerivative{{a.jxx[lane], a.jxy[lane], a.jyx[lane], a.jyy[lane]}, a.je[lane]});
                else
                    row.distance[p] = deep_distance_estimate<Formula::Mandelbrot>(
                        full, norm, Derivative{{a.dre[lane], a.dim[lane]}, a.de[lane]});
            }
            if (row.atom_period) row.atom_period[p] = float(a.atom_n[lane]);
            s.counters->iterations += uint64_t(n);
            ++s.counters->escaped;
            StartLane<kFamily>(s, g, a, lane);
            continue;
        }
        // current is already the full value; z2 is |z|^2 (the rebase test's).
        const bool closer = full_norm.at(lane) < a.z2.at(lane);
        if (closer || m == s.orbit[g.on_w[lane]].last) {
            a.zr.set(lane, a.cr.at(lane));
            a.zi.set(lane, a.ci.at(lane));
            a.z2.set(lane, full_norm.at(lane));
            g.base[lane] += m;
            g.limit[lane] = row.max_iterations - g.base[lane];
            a.m[lane] = 0;
            if (row.julia) g.on_w[lane] = 1;  // from Z_0 = 0 on the parameter plane, W_0 = 0 on a Julia set
            const DeepComplex<FloatExp>& start = s.orbit[g.on_w[lane]].z[0];
            a.Zr.set(lane, start.re);
            a.Zi.set(lane, start.im);
            a.r0.set(lane, FloatExp{});  // bla_first_radius at m = 0
            a.stop[lane] = LaneStop(s, g.on_w[lane], g.limit[lane]);
            ++s.counters->rebases;
        }
        if (!(a.m[lane] < g.limit[lane])) {
            deep_lanes_inside(row, p, a.atom_n[lane]);
            s.counters->iterations += uint64_t(row.max_iterations);
            StartLane<kFamily>(s, g, a, lane);
        }
    }
    LoadGroup<kFamily>(a, &g);
}

// The inputs of a pass's a z + c for every lane of g (deep_fused_mul_add): a step's a = Z_m + current
// and c = dc, or a skip's A and B dc; on a Julia set a z alone (deep_fused_mul). A Multibrot's
// step reads only c (Iterate makes its f(Z + z) - f(Z)). The skipping lanes look their entries up
// here, each in its orbit's table.
// kDistance: the derivative's D <- f D + addend, f = w (a step, w = current scaled; Iterate makes
// the Mandelbrot set's 2 w D and a Multibrot's d w^(d-1) D from it) or A (a skip), addend =
// spacing or B spacing, all under shared exponents (deep_derivative_step and
// deep_derivative_skip; on a Julia set no addend). kAtom: the skipping lanes whose skip has an
// inside (deep_atom.h), its smallest |Z|^2 and that value's n.
struct PassInputs {
    VComplex a, c;
    VComplex a_lower;  // Family::Fold: a skip's matrix A, its rows (xx, xy) in a and (yx, yy) here
    VI length;
    MD alive, skip;
    VScaled factor, addend;
    // Family::Fold's derivative: a skip's A and every lane's addend (spacing I, B spacing) as
    // matrices; a step's w is factor's.
    VScaledMatrix factor_matrix, addend_matrix;
    MD inside;
    VFE inside_norm;
    VI inside_n;
};
template <Family kFamily, bool kDistance, bool kAtom, bool kJulia>
HWY_INLINE PassInputs Prepare(RowState& s, const Group& g) {
    const D d;
    const DI di;
    const DeepLanesRowFloatExp& row = *s.row;
    PassInputs in;
    in.alive = hn::Gt(g.alive, hn::Zero(d));
    const MD skip = hn::And(Less(g.z2, g.r0), in.alive);
    in.skip = skip;
    if constexpr (kFamily != Family::Fused) {  // a step reads no a: only a skip's A goes in
        const VFE zero{hn::Zero(d), hn::Set(di, kFloatExpZeroExponent)};
        in.a = VComplex{zero, zero};
        if constexpr (kFamily == Family::Fold) in.a_lower = in.a;
    } else {
        in.a = AddComplex(g.Zm, g.current);
    }
    if constexpr (kDistance) {
        in.factor = ToScaled(g.current);
        // A zero addend (zero's exponent) leaves the product as it is (AddScaled).
        const VD spacing = hn::Set(d, kJulia ? 0.0 : row.spacing.mantissa);
        const VI spacing_e = hn::Set(di, kJulia ? kFloatExpZeroExponent : row.spacing.exponent);
        if constexpr (kFamily == Family::Fold) {
            in.addend_matrix = VScaledMatrix{spacing, hn::Zero(d), hn::Zero(d), spacing, spacing_e};
            in.factor_matrix = VScaledMatrix{hn::Zero(d), hn::Zero(d), hn::Zero(d), hn::Zero(d), spacing_e};
        } else {
            in.addend = VScaled{spacing, hn::Zero(d), spacing_e};
        }
    }
    in.c = g.dc;
    in.length = hn::IfThenElseZero(ToI(in.alive), hn::Set(di, 1));
    if constexpr (kAtom) in.inside = hn::Lt(hn::Zero(d), hn::Zero(d));  // none
    const uint64_t skip_bits = MaskBits(d, skip);
    if (skip_bits) {
        // Each such lane's entry, as deep_iterate_pixel looks it up; then its B dc (bla_apply) in
        // the vector. The other lanes' A and B are 0.
        // A matrix's xx, xy, yx, yy go into ar, ai, ar2, ai2 (B's likewise into b*).
        LaneArrays z2, ar, ai, br, bi, ar2, ai2, br2, bi2, inside_norm;
        HWY_ALIGN int64_t m[kMaxLanes], lengths[kMaxLanes], inside_n[kMaxLanes];
        HWY_ALIGN double inside[kMaxLanes];
        if constexpr (kAtom) {
            hn::Store(hn::Zero(d), d, inside);
            hn::Store(hn::Zero(di), di, inside_n);
            Store(VFE{hn::Zero(d), hn::Set(di, kFloatExpZeroExponent)}, &inside_norm);
        }
        const VFE zero{hn::Zero(d), hn::Set(di, kFloatExpZeroExponent)};
        for (LaneArrays* x : {&ar, &ai, &br, &bi, &ar2, &ai2, &br2, &bi2}) Store(zero, x);
        Store(g.z2, &z2);
        hn::Store(g.m, di, m);
        hn::Store(in.length, di, lengths);
        for (uint64_t bits = skip_bits; bits; bits &= bits - 1) {
            const size_t lane = size_t(__builtin_ctzll(bits));
            const LaneOrbit& orbit = s.orbit[kJulia ? g.on_w[lane] : 0];
            int64_t length, entry;  // the skip's, and its entry's index in the table
            if constexpr (kFamily == Family::Fold) {
                const BlaStep<FloatExp, DeepMatrix<FloatExp>>* step = bla_lookup_above_first(
                    *orbit.bla_matrix, m[lane], z2.at(lane), g.limit[lane] - m[lane]);
                ar.set(lane, step->a.xx);
                ai.set(lane, step->a.xy);
                ar2.set(lane, step->a.yx);
                ai2.set(lane, step->a.yy);
                br.set(lane, step->b.xx);
                bi.set(lane, step->b.xy);
                br2.set(lane, step->b.yx);
                bi2.set(lane, step->b.yy);
                length = step->length;
                entry = step - orbit.bla_matrix->entries;
            } else {
                const BlaStep<FloatExp>* step = bla_lookup_above_first(*orbit.bla, m[lane], z2.at(lane),
                                                                       g.limit[lane] - m[lane]);
                ar.set(lane, step->a.re);
                ai.set(lane, step->a.im);
                br.set(lane, step->b.re);
                bi.set(lane, step->b.im);
                length = step->length;
                entry = step - orbit.bla->entries;
            }
            lengths[lane] = length;
            if constexpr (kAtom) {
                const DeepAtomStep<FloatExp>& atom = orbit.atom_steps[entry];
                if (atom.offset != 0) {
                    inside[lane] = 1.0;
                    inside_norm.set(lane, atom.norm);
                    inside_n[lane] = g.base[lane] + m[lane] + atom.offset;
                }
            }
            s.counters->bla_iterations += uint64_t(length);
            ++s.counters->bla_skips;
        }
        in.a = VComplex{Blend(skip, Load(ar), in.a.re), Blend(skip, Load(ai), in.a.im)};
        if constexpr (kFamily == Family::Fold)
            in.a_lower = VComplex{Blend(skip, Load(ar2), in.a_lower.re), Blend(skip, Load(ai2), in.a_lower.im)};
        if constexpr (!kJulia) {
            const VComplex b{Load(br), Load(bi)};
            const VComplex b_dc = kFamily == Family::Fold ? MatrixApply(b, VComplex{Load(br2), Load(bi2)}, g.dc)
                                                          : MulComplex(b, g.dc);
            in.c = VComplex{Blend(skip, b_dc.re, in.c.re), Blend(skip, b_dc.im, in.c.im)};
        }
        in.length = hn::Load(di, lengths);
        if constexpr (kAtom) {
            in.inside = hn::Gt(hn::Load(d, inside), hn::Zero(d));
            in.inside_norm = Load(inside_norm);
            in.inside_n = hn::Load(di, inside_n);
        }
        if constexpr (kDistance && kFamily == Family::Fold) {
            in.factor_matrix = BlendScaledMatrix(skip, ToScaledMatrix(Load(ar), Load(ai), Load(ar2), Load(ai2)),
                                                 in.factor_matrix);
            if constexpr (!kJulia) {
                VScaledMatrix b_spacing = ToScaledMatrix(Load(br), Load(bi), Load(br2), Load(bi2));
                const VD spacing = hn::Set(d, row.spacing.mantissa);
                for (VD* x : {&b_spacing.xx, &b_spacing.xy, &b_spacing.yx, &b_spacing.yy}) *x = hn::Mul(*x, spacing);
                b_spacing.e = ProductExponent(b_spacing.e, hn::Set(di, row.spacing.exponent));
                in.addend_matrix = BlendScaledMatrix(skip, b_spacing, in.addend_matrix);
            }
        } else if constexpr (kDistance) {
            in.factor = BlendScaled(skip, ToScaled(VComplex{Load(ar), Load(ai)}), in.factor);
            if constexpr (!kJulia) {
                VScaled b_spacing = ToScaled(VComplex{Load(br), Load(bi)});
                b_spacing.re = hn::Mul(b_spacing.re, hn::Set(d, row.spacing.mantissa));
                b_spacing.im = hn::Mul(b_spacing.im, hn::Set(d, row.spacing.mantissa));
                b_spacing.e = ProductExponent(b_spacing.e, hn::Set(di, row.spacing.exponent));
                in.addend = BlendScaled(skip, b_spacing, in.addend);
            }
        }
    }
    return in;
}

// z and m after the pass, and Z_m and level 0's radius at the new m (bla_first_radius: 0 outside
// 1 .. size0), gathered, from W's where a Julia set's lane has moved there: a point is four 8-byte
// words (re's mantissa and exponent, im's), a radius two.
template <Family kFamily, bool kDistance, bool kJulia>
HWY_INLINE void Iterate(const RowState& s, const PassInputs& in, Group& g) {
    const D d;
    const DI di;
    const DeepLanesRowFloatExp& row = *s.row;
    if constexpr (kDistance && kFamily == Family::Fold) {
        // deep_derivative_step's J_f(w) D where the lane steps (w = current scaled, flipped in its
        // second row by the Tricorn, and by the Burning Ship where w's coordinates have opposite
        // signs), deep_derivative_skip's A D where it skips; then the addend and the normalisation.
        const VScaledMatrix& j = g.jacobian;
        const VD x2 = hn::Add(in.factor.re, in.factor.re), y2 = hn::Add(in.factor.im, in.factor.im);
        MD flip = hn::Eq(hn::Zero(d), hn::Zero(d));  // the Tricorn: every lane
        if (s.burning_ship) {
            const VD zero = hn::Zero(d);
            const MD a_negative = hn::Lt(g.current.re.m, zero), a_positive = hn::Gt(g.current.re.m, zero);
            const MD b_negative = hn::Lt(g.current.im.m, zero), b_positive = hn::Gt(g.current.im.m, zero);
            flip = hn::Or(hn::And(a_negative, b_positive), hn::And(a_positive, b_negative));
        }
        const VD syx = hn::Add(hn::Mul(y2, j.xx), hn::Mul(x2, j.yx)),
                 syy = hn::Add(hn::Mul(y2, j.xy), hn::Mul(x2, j.yy));
        const VScaledMatrix stepped{hn::Sub(hn::Mul(x2, j.xx), hn::Mul(y2, j.yx)),
                                    hn::Sub(hn::Mul(x2, j.xy), hn::Mul(y2, j.yy)),
                                    hn::IfThenElse(flip, hn::Neg(syx), syx), hn::IfThenElse(flip, hn::Neg(syy), syy),
                                    ProductExponent(j.e, in.factor.e)};
        const VScaledMatrix& A = in.factor_matrix;  // bla_compose(A, D)
        const VScaledMatrix skipped{hn::Add(hn::Mul(A.xx, j.xx), hn::Mul(A.xy, j.yx)),
                                    hn::Add(hn::Mul(A.xx, j.xy), hn::Mul(A.xy, j.yy)),
                                    hn::Add(hn::Mul(A.yx, j.xx), hn::Mul(A.yy, j.yx)),
                                    hn::Add(hn::Mul(A.yx, j.xy), hn::Mul(A.yy, j.yy)), ProductExponent(j.e, A.e)};
        g.jacobian = NormaliseMatrix(AddScaledMatrix(BlendScaledMatrix(in.skip, skipped, stepped), in.addend_matrix));
    } else if constexpr (kDistance) {
        // The factor times D (DeepComplex's product of doubles); where the lane steps, the Mandelbrot
        // set's 2 w D (the product doubled), a Multibrot's d w^(d-1) D (w^(d-1) from the scaled w,
        // its exponent d-1 times w's); then the addend and the normalisation.
        const VD pr = hn::Sub(hn::Mul(in.factor.re, g.d.re), hn::Mul(in.factor.im, g.d.im));
        const VD pi = hn::Add(hn::Mul(in.factor.re, g.d.im), hn::Mul(in.factor.im, g.d.re));
        VScaled product;
        if constexpr (kFamily == Family::Fused) {
            product = VScaled{hn::IfThenElse(in.skip, pr, hn::Add(pr, pr)),
                              hn::IfThenElse(in.skip, pi, hn::Add(pi, pi)), ProductExponent(g.d.e, in.factor.e)};
        } else {
            VD qr = in.factor.re, qi = in.factor.im;  // w^(d-1)
            VI powers = in.factor.e;                  // its exponent, (d-1) times w's
            for (int j = 2; j < s.degree; ++j) {
                const VD tr = hn::Sub(hn::Mul(qr, in.factor.re), hn::Mul(qi, in.factor.im));
                const VD ti = hn::Add(hn::Mul(qr, in.factor.im), hn::Mul(qi, in.factor.re));
                qr = tr;
                qi = ti;
                powers = hn::Add(powers, in.factor.e);
            }
            const VD degree = hn::Set(d, double(s.degree));
            const VD sr = hn::Mul(hn::Sub(hn::Mul(qr, g.d.re), hn::Mul(qi, g.d.im)), degree);
            const VD si = hn::Mul(hn::Add(hn::Mul(qr, g.d.im), hn::Mul(qi, g.d.re)), degree);
            const VI zero = hn::Set(di, kFloatExpZeroExponent);
            const MI either_zero = hn::Or(hn::Eq(g.d.e, zero), hn::Eq(in.factor.e, zero));
            const VI step_e = hn::IfThenElse(either_zero, zero, hn::Add(g.d.e, powers));
            product = VScaled{hn::IfThenElse(in.skip, pr, sr), hn::IfThenElse(in.skip, pi, si),
                              hn::IfThenElse(ToI(in.skip), ProductExponent(g.d.e, in.factor.e), step_e)};
        }
        g.d = Normalise(AddScaled(product, in.addend));
    }
    if constexpr (kFamily == Family::Fused) {
        if constexpr (kJulia) g.z = FusedProduct(in.a, g.z);
        else g.z = FusedProductAdd(in.a, g.z, in.c);
    } else {
        // A step's f(Z + z) - f(Z) (+ dc), a skip's A z (+ B dc): deep_iterate_pixel's, unfused.
        VComplex stepped = kFamily == Family::Fold ? FoldStep(g.Zm, g.z, s.burning_ship)
                                                   : MultibrotStep(g.Zm, g.z, s.degree);
        if constexpr (!kJulia) stepped = AddComplex(stepped, in.c);
        if (!hn::AllFalse(d, in.skip)) {  // a pass where no lane skips makes no A z
            VComplex skipped = kFamily == Family::Fold ? MatrixApply(in.a, in.a_lower, g.z) : MulComplex(in.a, g.z);
            if constexpr (!kJulia) skipped = AddComplex(skipped, in.c);
            stepped = VComplex{Blend(in.skip, skipped.re, stepped.re), Blend(in.skip, skipped.im, stepped.im)};
        }
        g.z = stepped;
    }
    g.m = hn::Add(g.m, in.length);
    const double* orbit = reinterpret_cast<const double*>(row.orbit);
    const int64_t* orbit_e = reinterpret_cast<const int64_t*>(row.orbit);
    VI at = hn::ShiftLeft<2>(g.m);
    VI size0 = hn::Set(di, s.orbit[0].size0);
    VI radius_at = hn::ShiftLeft<1>(hn::Sub(g.m, hn::Set(di, 1)));
    if constexpr (kJulia) {
        const MI on_w = hn::Eq(g.w_lanes, hn::Set(di, 1));
        at = hn::Add(at, hn::IfThenElseZero(on_w, hn::Set(di, s.w_points)));
        size0 = hn::IfThenElse(on_w, hn::Set(di, s.orbit[1].size0), size0);
        radius_at = hn::Add(radius_at, hn::IfThenElseZero(on_w, hn::Set(di, s.w_radii)));
    }
    g.Zm = VComplex{VFE{hn::GatherIndex(d, orbit, at), hn::GatherIndex(di, orbit_e + 1, at)},
                    VFE{hn::GatherIndex(d, orbit + 2, at), hn::GatherIndex(di, orbit_e + 3, at)}};
    const MI in_table = hn::And(hn::Gt(g.m, hn::Zero(di)), hn::Not(hn::Gt(g.m, size0)));
    radius_at = hn::IfThenElseZero(in_table, radius_at);
    g.r0 = Blend(ToD(in_table), VFE{hn::GatherIndex(d, s.radii, radius_at), hn::GatherIndex(di, s.radii_e, radius_at)},
                 VFE{hn::Zero(d), hn::Set(di, kFloatExpZeroExponent)});
}

// The lanes in `candidates` whose value `norm` at n is the smallest yet take it as their atom
// period (deep_iterate_pixel's kAtom test: none yet, or strictly smaller).
HWY_INLINE void TakeSmaller(MD candidates, const VFE& norm, VI n, Group& g) {
    const MD none = ToD(hn::Eq(g.atom_n, hn::Zero(DI())));
    const MD smaller = hn::And(candidates, hn::Or(none, Less(norm, g.atom_norm)));
    g.atom_norm = Blend(smaller, norm, g.atom_norm);
    g.atom_n = hn::IfThenElse(ToI(smaller), n, g.atom_n);
}

// kAtom: the period (a skip's inside first, then the value landed on); then the escape and rebase
// tests (the full value's norm against the bailout and against |z|^2) and the limit; lanes with
// an event go through the scalar pass.
template <Family kFamily, bool kAtom>
HWY_INLINE void Settle(RowState& s, const PassInputs& in, Group& g) {
    const VComplex full = AddComplex(g.Zm, g.z);
    const VFE full_norm = NormOf<kFamily>(full);
    if constexpr (kAtom) {
        TakeSmaller(in.inside, in.inside_norm, in.inside_n, g);
        TakeSmaller(in.alive, full_norm, hn::Add(g.base_n, g.m), g);
    }
    // Every Multibrot's; the Burning Ship's and the Tricorn's are the Mandelbrot set's (degree 2).
    constexpr Formula kBailoutOf = kFamily == Family::Multibrot ? Formula::Multibrot3 : Formula::Mandelbrot;
    constexpr double kBailoutSquared = formula_bailout_radius(kBailoutOf) * formula_bailout_radius(kBailoutOf);
    const MD escaped = hn::And(GreaterThan(full_norm, kBailoutSquared), in.alive);
    g.current = full;
    g.z2 = NormOf<kFamily>(g.z);
    const MD events = hn::And(hn::Or(hn::Or(escaped, Less(full_norm, g.z2)), ToD(hn::Not(hn::Lt(g.m, g.stop)))),
                              in.alive);
    const uint64_t event_bits = MaskBits(D(), events);
    if (HWY_UNLIKELY(event_bits)) FinishLanes<kFamily>(s, g, event_bits, full_norm, escaped);
}

void ApplyOp(DeepFloatExpLaneOp op, const FloatExp* a, const FloatExp* b, const FloatExp* c, FloatExp* out, size_t n) {
    const D d;
    const size_t lanes = hn::Lanes(d);
    LaneArrays x, y, z, r;
    for (size_t start = 0; start < n; start += lanes) {
        for (size_t lane = 0; lane < lanes; ++lane) {
            const size_t i = start + lane < n ? start + lane : n - 1;
            x.set(lane, a[i]);
            y.set(lane, b[i]);
            z.set(lane, c ? c[i] : FloatExp{});
        }
        VFE result;
        switch (op) {
        case DeepFloatExpLaneOp::Add: result = Add(Load(x), Load(y)); break;
        case DeepFloatExpLaneOp::Mul: result = Mul(Load(x), Load(y)); break;
        case DeepFloatExpLaneOp::Fma: result = Fma(Load(x), Load(y), Load(z)); break;
        default: result = VFE{hn::IfThenElseZero(Less(Load(x), Load(y)), hn::Set(d, 1.0)), hn::Zero(DI())}; break;
        }
        Store(result, &r);
        for (size_t lane = 0; lane < lanes && start + lane < n; ++lane) out[start + lane] = r.at(lane);
    }
}

// An orbit and its table as the lanes read them (bla or bla_matrix, the formula's).
LaneOrbit OrbitOf(const DeepComplex<FloatExp>* z, int64_t last, const BlaView<FloatExp, DeepComplex<FloatExp>>* bla,
                  const BlaView<FloatExp, DeepMatrix<FloatExp>>* bla_matrix, const FloatExp* r2,
                  const DeepAtomStep<FloatExp>* atom_steps) {
    const int levels = bla ? bla->levels : bla_matrix ? bla_matrix->levels : 0;
    const int64_t size0 = levels > 0 && r2 ? (bla ? bla->level_size[0] : bla_matrix->level_size[0]) : 0;
    return LaneOrbit{z, last, bla, bla_matrix, atom_steps, size0};
}

// The distance in 8-byte words from `from` to `to` (the gathers index from one base for both
// orbits).
int64_t WordsBetween(const void* from, const void* to) {
    return int64_t(reinterpret_cast<uintptr_t>(to) - reinterpret_cast<uintptr_t>(from)) / int64_t(sizeof(double));
}

template <Family kFamily, bool kDistance, bool kAtom, bool kJulia>
void LanesRowOf(const DeepLanesRowFloatExp& row, DeepPixelCounters* counters) {
    const D d;
    RowState s;
    s.row = &row;
    s.counters = counters;
    s.orbit[0] = OrbitOf(row.orbit, row.last_index, row.bla, row.bla_matrix, row.bla_r2, row.atom_steps);
    s.degree = formula_degree(row.formula);
    s.burning_ship = row.formula == Formula::BurningShip;
    s.radii = s.orbit[0].size0 > 0 ? reinterpret_cast<const double*>(row.bla_r2) : &kNoRadius.mantissa;
    s.radii_e = s.orbit[0].size0 > 0 ? reinterpret_cast<const int64_t*>(row.bla_r2) + 1 : &kNoRadius.exponent;
    if constexpr (kJulia) {
        s.orbit[1] = OrbitOf(row.orbit_w, row.last_index_w, row.bla_w, row.bla_matrix_w, row.bla_r2_w,
                             row.atom_steps_w);
        s.w_points = WordsBetween(row.orbit, row.orbit_w);
        s.w_radii = s.orbit[1].size0 > 0 ? WordsBetween(s.radii, row.bla_r2_w) : 0;
    }
    const uint64_t skipped_before = counters->bla_iterations;
    const uint64_t iterations_before = counters->iterations;
    Group groups[kGroups];
    int alive_groups = 0;
    for (Group& g : groups) {
        GroupArrays a;
        for (size_t lane = 0; lane < hn::Lanes(d); ++lane) StartLane<kFamily>(s, g, a, lane);
        LoadGroup<kFamily>(a, &g);
        ++alive_groups;
    }
    // One pass of deep_iterate_pixel's loop for every lane, the groups' stages side by side, so
    // that their independent chains of dependent operations overlap. A group whose lanes are all
    // idle passes through unchanged.
    while (alive_groups > 0) {
        PassInputs in[kGroups];
        for (int k = 0; k < kGroups; ++k) in[k] = Prepare<kFamily, kDistance, kAtom, kJulia>(s, groups[k]);
        for (int k = 0; k < kGroups; ++k) Iterate<kFamily, kDistance, kJulia>(s, in[k], groups[k]);
        alive_groups = 0;
        for (int k = 0; k < kGroups; ++k) {
            Settle<kFamily, kAtom>(s, in[k], groups[k]);
            alive_groups += !hn::AllFalse(d, hn::Gt(groups[k].alive, hn::Zero(d)));
        }
    }
    counters->steps += (counters->iterations - iterations_before) - (counters->bla_iterations - skipped_before);
}

template <Family kFamily, bool kJulia>
void LanesRowOn(const DeepLanesRowFloatExp& row, DeepPixelCounters* counters) {
    if (row.atom_period) {
        if (row.distance) LanesRowOf<kFamily, true, true, kJulia>(row, counters);
        else LanesRowOf<kFamily, false, true, kJulia>(row, counters);
    } else {
        if (row.distance) LanesRowOf<kFamily, true, false, kJulia>(row, counters);
        else LanesRowOf<kFamily, false, false, kJulia>(row, counters);
    }
}

template <Family kFamily>
void LanesRowFor(const DeepLanesRowFloatExp& row, DeepPixelCounters* counters) {
    if (row.julia) LanesRowOn<kFamily, true>(row, counters);
    else LanesRowOn<kFamily, false>(row, counters);
}

// The Mandelbrot set's fused loop, every Multibrot's with its degree at run time, or the Burning
// Ship's and the Tricorn's.
void LanesRow(const DeepLanesRowFloatExp& row, DeepPixelCounters* counters) {
    if (row.formula == Formula::Mandelbrot) LanesRowFor<Family::Fused>(row, counters);
    else if (deep_formula_bla_is_matrix(row.formula)) LanesRowFor<Family::Fold>(row, counters);
    else LanesRowFor<Family::Multibrot>(row, counters);  // deep_lanes_row_floatexp has refused the rest
}

}  // namespace HWY_NAMESPACE
}  // namespace ms::deep_lanes_floatexp
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ms {
namespace deep_lanes_floatexp {
HWY_EXPORT(LanesRow);
HWY_EXPORT(ApplyOp);
}  // namespace deep_lanes_floatexp

void deep_lanes_row_floatexp(const DeepLanesRowFloatExp& row, DeepPixelCounters* counters) {
    if (!deep_lanes_take(row.formula))
        throw std::invalid_argument(std::string("the FloatExp lanes do not take the formula ") +
                                    formula_name(row.formula));
    HWY_DYNAMIC_DISPATCH(deep_lanes_floatexp::LanesRow)(row, counters);
}

void deep_floatexp_lanes_apply(DeepFloatExpLaneOp op, const FloatExp* a, const FloatExp* b, const FloatExp* c,
                               FloatExp* out, size_t n) {
    if (n > 0) HWY_DYNAMIC_DISPATCH(deep_lanes_floatexp::ApplyOp)(op, a, b, c, out, n);
}

}  // namespace ms
#endif  // HWY_ONCE
