// floatexp.h: an extended-range real number (FloatExp) and a small complex type (DeepComplex)
// whose arithmetic runs unchanged on the CPU (.cpp) and in CUDA kernels (.cu).
//
// Why: past zoom ~1e300 the per-pixel deltas of perturbation (~1e-300 and smaller) underflow
// every hardware float. A FloatExp keeps a double mantissa and a 64-bit binary exponent:
//     value = mantissa * 2^exponent
// Normalisation rules (every operation returns a normalised value):
//   - zero:      mantissa == 0.0 (either sign), exponent == kFloatExpZeroExponent
//   - otherwise: 1 <= |mantissa| < 2, exponent any int64 in +-2^60 (a zoom of 1e60000 needs
//                exponents near -2e5; the range is never the limit)
//   - inf / NaN mantissas pass through unnormalised (they mean a bug upstream or an overflow
//     of the caller's double inputs; they compare and convert like the double they are)
// The exponent is int64 rather than int32 for free: a double + int32 struct pads to 16 bytes
// anyway, and int64 cannot overflow in products of products.
// Why a double mantissa and not a float one: the deltas must carry the precision of the
// double path (53 bits) past 1e-308; a float mantissa would lose agreement with the MPFR truth
// at long orbits.
//
// DeepComplex<T> is a plain {re, im} with the few operations perturbation and BLA need;
// T is double or FloatExp, and the perturbation loop is one template over both, so there is
// no per-iteration branch on the number type.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#ifdef __CUDACC__
#define MS_DEEP_HD __host__ __device__ __forceinline__
#ifdef __CUDA_ARCH__
#define MS_DEEP_UNROLL _Pragma("unroll")
#else
#define MS_DEEP_UNROLL  // a .cu file's host pass: the host compiler does not know nvcc's pragma
#endif
#else
// always_inline: deep_cpu.cpp instantiates the pixel loop once per formula, plane and number
// type (36 loops); with plain `inline` GCC's unit-growth limit stops inlining FloatExp's
// operators into some of them, and those loops run far slower (see docs/performance.md).
#define MS_DEEP_HD inline __attribute__((always_inline))
#define MS_DEEP_UNROLL _Pragma("GCC unroll 8")
#endif

namespace ms {

inline constexpr int64_t kFloatExpZeroExponent = INT64_MIN / 4;

MS_DEEP_HD uint64_t fe_bits(double x) {
#ifdef __CUDA_ARCH__
    return uint64_t(__double_as_longlong(x));
#else
    uint64_t u;
    std::memcpy(&u, &x, 8);
    return u;
#endif
}

MS_DEEP_HD double fe_from_bits(uint64_t u) {
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x;
    std::memcpy(&x, &u, 8);
    return x;
#endif
}

// 2^k for k in [-1022, 1023], built from its bits (no libm call).
MS_DEEP_HD double fe_pow2(int k) { return fe_from_bits(uint64_t(1023 + k) << 52); }

struct FloatExp {
    double mantissa = 0.0;
    int64_t exponent = kFloatExpZeroExponent;
};

// Normalises mantissa * 2^exponent (mantissa any double).
MS_DEEP_HD FloatExp fe_make(double mantissa, int64_t exponent) {
    if (mantissa == 0.0) return FloatExp{mantissa, kFloatExpZeroExponent};
    uint64_t bits = fe_bits(mantissa);
    int biased = int((bits >> 52) & 0x7ff);
    if (biased == 0x7ff) return FloatExp{mantissa, exponent};  // inf or NaN
    if (biased == 0) {                                         // subnormal: scale into the normal range first
        mantissa *= 18446744073709551616.0;                    // 2^64
        exponent -= 64;
        bits = fe_bits(mantissa);
        biased = int((bits >> 52) & 0x7ff);
    }
    bits = (bits & 0x800FFFFFFFFFFFFFull) | (uint64_t(1023) << 52);
    return FloatExp{fe_from_bits(bits), exponent + biased - 1023};
}

MS_DEEP_HD FloatExp fe_from_double(double x) { return fe_make(x, 0); }

// Nearest double: 0 (signed) below the subnormal range, inf above the range.
MS_DEEP_HD double fe_to_double(FloatExp x) {
    // In double's normal range: one multiply by 2^e built from its bits (no ldexp call).
    if (x.exponent >= -1022 && x.exponent <= 1023) return x.mantissa * fe_pow2(int(x.exponent));
    if (x.mantissa == 0.0) return x.mantissa;
    if (x.exponent > 1100) return x.mantissa * INFINITY;
    if (x.exponent < -1200) return x.mantissa * 0.0;
    return ldexp(x.mantissa, int(x.exponent));
}

MS_DEEP_HD FloatExp operator*(FloatExp a, FloatExp b) {
    return fe_make(a.mantissa * b.mantissa, a.exponent + b.exponent);
}

MS_DEEP_HD FloatExp operator-(FloatExp a) { return FloatExp{-a.mantissa, a.exponent}; }

// Aligns the smaller operand to the larger one's exponent; past 64 bits of difference the
// smaller cannot change a 53-bit mantissa and is dropped.
MS_DEEP_HD FloatExp operator+(FloatExp a, FloatExp b) {
    if (a.exponent < b.exponent) {
        FloatExp t = a;
        a = b;
        b = t;
    }
    int64_t shift = a.exponent - b.exponent;
    if (shift > 64) return a;
    return fe_make(a.mantissa + b.mantissa * fe_pow2(-int(shift)), a.exponent);
}

MS_DEEP_HD FloatExp operator-(FloatExp a, FloatExp b) { return a + (-b); }

// a b + c rounded once, as fma() rounds doubles (deep_perturbation.h's fused loop): the same bits
// as double arithmetic wherever the values are in double's range. The smaller of a b and c is
// scaled to the larger's exponent (exact: a normal mantissa scaled by at most 2^-110); one of
// more than 2^110 below the other changes the rounding only where the larger is exactly halfway
// between two doubles (a b has at most 106 significant bits), and there only by its sign, which
// a stand-in of 2^-200 with that sign keeps.
MS_DEEP_HD FloatExp fe_fma(FloatExp a, FloatExp b, FloatExp c) {
    if (a.mantissa == 0.0 || b.mantissa == 0.0) return c;
    const int64_t product_exponent = a.exponent + b.exponent;
    if (c.mantissa == 0.0) return fe_make(a.mantissa * b.mantissa, product_exponent);
    const int64_t shift = product_exponent - c.exponent;
    if (shift >= 0) {
        const double scaled = shift > 110 ? copysign(fe_pow2(-200), c.mantissa) : c.mantissa * fe_pow2(-int(shift));
        return fe_make(fma(a.mantissa, b.mantissa, scaled), product_exponent);
    }
    if (shift < -110) return fe_make(fma(copysign(fe_pow2(-200), a.mantissa), b.mantissa, c.mantissa), c.exponent);
    return fe_make(fma(a.mantissa * fe_pow2(int(shift)), b.mantissa, c.mantissa), c.exponent);
}

// Times 2^k, exact.
MS_DEEP_HD FloatExp fe_ldexp(FloatExp a, int64_t k) {
    if (a.mantissa == 0.0) return a;
    return FloatExp{a.mantissa, a.exponent + k};
}

MS_DEEP_HD FloatExp fe_abs(FloatExp a) { return FloatExp{fabs(a.mantissa), a.exponent}; }

MS_DEEP_HD FloatExp fe_sqrt(FloatExp a) {  // a >= 0
    if (a.mantissa == 0.0) return a;
    int64_t e = a.exponent;
    double m = a.mantissa;
    if (e & 1) {
        m *= 2.0;
        e -= 1;
    }
    return fe_make(sqrt(m), e / 2);
}

MS_DEEP_HD FloatExp fe_div(FloatExp a, FloatExp b) { return fe_make(a.mantissa / b.mantissa, a.exponent - b.exponent); }

// Ordering of normalised values: the sign first, then the exponent, then the mantissa.
MS_DEEP_HD bool operator<(FloatExp a, FloatExp b) {
    bool a_neg = a.mantissa < 0.0, b_neg = b.mantissa < 0.0;
    if (a.mantissa == 0.0 || b.mantissa == 0.0 || a_neg != b_neg) return a.mantissa < b.mantissa;
    if (a.exponent != b.exponent) return a_neg ? a.exponent > b.exponent : a.exponent < b.exponent;
    return a.mantissa < b.mantissa;
}
MS_DEEP_HD bool operator>(FloatExp a, FloatExp b) { return b < a; }
MS_DEEP_HD bool operator<=(FloatExp a, FloatExp b) { return !(b < a); }
MS_DEEP_HD bool operator>=(FloatExp a, FloatExp b) { return !(a < b); }
MS_DEEP_HD bool operator==(FloatExp a, FloatExp b) {
    return a.mantissa == b.mantissa && (a.mantissa == 0.0 || a.exponent == b.exponent);
}

// --- the number-type interface the templated deep code uses (double and FloatExp) --------
MS_DEEP_HD double deep_twice(double x) { return x + x; }
MS_DEEP_HD FloatExp deep_twice(FloatExp x) { return fe_ldexp(x, 1); }
MS_DEEP_HD double deep_to_double(double x) { return x; }
MS_DEEP_HD double deep_to_double(FloatExp x) { return fe_to_double(x); }
MS_DEEP_HD double deep_abs(double x) { return fabs(x); }
MS_DEEP_HD FloatExp deep_abs(FloatExp x) { return fe_abs(x); }
MS_DEEP_HD double deep_sqrt(double x) { return sqrt(x); }
MS_DEEP_HD FloatExp deep_sqrt(FloatExp x) { return fe_sqrt(x); }
MS_DEEP_HD double deep_fma(double a, double b, double c) { return fma(a, b, c); }
MS_DEEP_HD FloatExp deep_fma(FloatExp a, FloatExp b, FloatExp c) { return fe_fma(a, b, c); }
MS_DEEP_HD double deep_div(double a, double b) { return a / b; }
MS_DEEP_HD FloatExp deep_div(FloatExp a, FloatExp b) { return fe_div(a, b); }
MS_DEEP_HD bool deep_finite(double x) { return x - x == 0.0; }
MS_DEEP_HD bool deep_finite(FloatExp x) { return x.mantissa - x.mantissa == 0.0; }
template <typename T>
MS_DEEP_HD T deep_from_double(double x);
template <>
MS_DEEP_HD double deep_from_double<double>(double x) {
    return x;
}
template <>
MS_DEEP_HD FloatExp deep_from_double<FloatExp>(double x) {
    return fe_from_double(x);
}
MS_DEEP_HD bool deep_negative(double x) { return x < 0.0; }
MS_DEEP_HD bool deep_negative(FloatExp x) { return x.mantissa < 0.0; }
// x * k for a small integer k (a binomial coefficient): one multiply of the mantissa.
MS_DEEP_HD double deep_times_small(double x, double k) { return x * k; }
MS_DEEP_HD FloatExp deep_times_small(FloatExp x, double k) { return fe_make(x.mantissa * k, x.exponent); }
MS_DEEP_HD double deep_max(double a, double b) { return a > b ? a : b; }
MS_DEEP_HD FloatExp deep_max(FloatExp a, FloatExp b) { return a > b ? a : b; }
MS_DEEP_HD double deep_min(double a, double b) { return a < b ? a : b; }
MS_DEEP_HD FloatExp deep_min(FloatExp a, FloatExp b) { return a < b ? a : b; }

template <typename T>
struct DeepComplex {
    T re{};
    T im{};
};

template <typename T>
MS_DEEP_HD DeepComplex<T> operator+(DeepComplex<T> a, DeepComplex<T> b) {
    return {a.re + b.re, a.im + b.im};
}
template <typename T>
MS_DEEP_HD DeepComplex<T> operator-(DeepComplex<T> a, DeepComplex<T> b) {
    return {a.re - b.re, a.im - b.im};
}
template <typename T>
MS_DEEP_HD DeepComplex<T> operator*(DeepComplex<T> a, DeepComplex<T> b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <typename T>
MS_DEEP_HD DeepComplex<T> deep_twice(DeepComplex<T> a) {
    return {deep_twice(a.re), deep_twice(a.im)};
}
// |a|^2
template <typename T>
MS_DEEP_HD T deep_norm(DeepComplex<T> a) {
    return a.re * a.re + a.im * a.im;
}
template <typename T>
MS_DEEP_HD T deep_cabs(DeepComplex<T> a) {
    return deep_sqrt(deep_norm(a));
}
template <typename T>
MS_DEEP_HD DeepComplex<double> deep_to_double(DeepComplex<T> a) {
    return {deep_to_double(a.re), deep_to_double(a.im)};
}

}  // namespace ms
