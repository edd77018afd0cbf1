// mandelbrot_cpu_rows-inl.h: the per-row passes of the fast CPU path (mandelbrot_cpu.cpp), one
// copy per SIMD target (Highway's -inl.h convention: re-included by foreach_target.h):
//   RowCoordinates   c's real part per pixel, rounded like the reference, and the cardioid/bulb
//                    test, vectorised in double
//   RowSmoothValues  the smooth values mu from (iterations, |z_k|^2), vectorised in double
// Both follow the reference's operations one for one (see mandelbrot_math.h).

// Per-target include guard (Highway's idiom: toggled once per target).
#if defined(MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_
#undef MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_
#else
#define MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_
#endif

#include <limits>
#include <type_traits>

#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include "compute/mandelbrot.h"
#include "compute/mandelbrot_math.h"

HWY_BEFORE_NAMESPACE();
namespace ms::cpu_simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Conversions between a double vector and the same number of T (or integer) lanes; identity
// for double (Highway's PromoteTo/DemoteTo only convert between different types).
template <class DT, class VD>
HWY_INLINE hn::Vec<DT> FromDouble(DT dt, VD v) {
    if constexpr (std::is_same_v<hn::TFromD<DT>, double>) return v;
    else return hn::DemoteTo(dt, v);
}
template <class DD, class VT>
HWY_INLINE hn::Vec<DD> ToDouble(DD dd, VT v) {
    using From = hn::TFromV<VT>;
    if constexpr (std::is_same_v<From, double>) return v;
    else if constexpr (std::is_same_v<From, int64_t>) return hn::ConvertTo(dd, v);
    else return hn::PromoteTo(dd, v);
}

// Row coordinates: c's real part for every pixel, rounded to T exactly as the reference does
// (the pixel centre computed in double, then converted), and the cardioid/bulb test in double
// on the rounded coordinates. Pixels the test settles, and the padding, get NaN.
template <typename T>
HWY_INLINE void RowCoordinates(const ChunkJob& job, int y, size_t padded_width, T* cr_out) {
    const hn::ScalableTag<double> dd;
    const hn::Rebind<T, decltype(dd)> dt;  // as many T lanes as dd has doubles
    const size_t n = hn::Lanes(dd);
    const double ci = double(T(job.grid.im(y)));
    const auto y2 = hn::Set(dd, ci * ci);
    const auto quarter_y2 = hn::Set(dd, 0.25 * (ci * ci));
    const auto half = hn::Set(dd, 0.5), quarter = hn::Set(dd, 0.25), one = hn::Set(dd, 1.0);
    const auto sixteenth = hn::Set(dd, 0.0625), nan = hn::Set(dd, std::numeric_limits<double>::quiet_NaN());
    const auto half_width = hn::Set(dd, job.grid.half_width), step = hn::Set(dd, job.grid.step);
    const auto center = hn::Set(dd, job.grid.center_re);
    const auto x_begin = hn::Set(dd, double(job.x_begin));
    const auto width = hn::Set(dd, double(job.width));
    for (size_t x = 0; x < padded_width; x += n) {
        const auto column = hn::Iota(dd, double(x));
        // grid.re(x) = center_re + ((x + 0.5) - half_width) * step, operation for operation.
        auto re = hn::Add(center, hn::Mul(hn::Sub(hn::Add(hn::Add(column, x_begin), half), half_width), step));
        re = ToDouble(dd, FromDouble(dt, re));  // round to T (a no-op for double)
        auto dead = column >= width;
        if (job.cardioid_bulb) {
            // in_cardioid_or_period2_bulb(), operation for operation.
            const auto xq = hn::Sub(re, quarter);
            const auto q = hn::Add(hn::Mul(xq, xq), y2);
            const auto cardioid = hn::Mul(q, hn::Add(q, xq)) <= quarter_y2;
            const auto xb = hn::Add(re, one);
            const auto bulb = hn::Add(hn::Mul(xb, xb), y2) <= sixteenth;
            dead = hn::Or(dead, hn::Or(cardioid, bulb));
        }
        hn::StoreU(FromDouble(dt, hn::IfThenElse(dead, nan, re)), dt, cr_out + x);
    }
}

// Smooth values of one row from (iterations, |z_k|^2), vectorised in double:
// mu = k + 1 - log2(0.5 * ln|z_k|^2), clamped at 0, for pixels that escaped (|z|^2 > R^2);
// kInteriorMu for the others. Highway's Log/Log2 are within 4 and 2 ulp (double) of libm's,
// far below float's rounding: mu comes out as the reference's smooth_mu() except when that
// double lands within a few ulp of a float rounding boundary (about one pixel in 10^8), and
// then by one float ulp. Also sums the row's iterations and escaped pixels.
template <typename T>
HWY_INLINE void RowSmoothValues(size_t padded_width, const hwy::MakeSigned<T>* k, const T* norm,
                                float* mu, double* iterations, uint64_t* escaped) {
    const hn::ScalableTag<double> dd;
    const hn::Rebind<T, decltype(dd)> dt;
    const hn::Rebind<hwy::MakeSigned<T>, decltype(dd)> dk;
    const hn::Rebind<float, decltype(dd)> df;
    const size_t n = hn::Lanes(dd);
    const auto one = hn::Set(dd, 1.0), half = hn::Set(dd, 0.5), zero = hn::Zero(dd);
    const auto bailout = hn::Set(dd, kBailoutRadius * kBailoutRadius);
    const auto interior = hn::Set(dd, double(kInteriorMu));
    auto sum = hn::Zero(dd);
    size_t escaped_count = 0;
    for (size_t x = 0; x < padded_width; x += n) {
        const auto kd = ToDouble(dd, hn::LoadU(dk, k + x));
        const auto nd = ToDouble(dd, hn::LoadU(dt, norm + x));
        const auto escaped_mask = nd > bailout;
        sum = hn::Add(sum, kd);
        if (hn::AllFalse(dd, escaped_mask)) {  // all interior (or settled): no logs to take
            hn::StoreU(hn::DemoteTo(df, interior), df, mu + x);
            continue;
        }
        // Highway's Log without its subnormal handling: |z_k|^2 > R^2 and ln|z_k| > 5 are
        // normal numbers (interior lanes, |z|^2 = 0, are overwritten below). Log2 is Log times
        // 1/ln 2, exactly as Highway's Log2 computes it.
        const auto ln_norm = hn::impl::Log<decltype(dd), hn::Vec<decltype(dd)>, false>(dd, nd);
        const auto log2_half_ln = hn::Mul(hn::impl::Log<decltype(dd), hn::Vec<decltype(dd)>, false>(dd, hn::Mul(half, ln_norm)),
                                          hn::Set(dd, 1.44269504088896340735992));
        auto m = hn::Sub(hn::Add(kd, one), log2_half_ln);
        m = hn::IfThenElse(m > zero, m, zero);
        m = hn::IfThenElse(escaped_mask, m, interior);
        hn::StoreU(hn::DemoteTo(df, m), df, mu + x);
        escaped_count += hn::CountTrue(dd, escaped_mask);
    }
    *iterations += hn::GetLane(hn::SumOfLanes(dd, sum));
    *escaped += escaped_count;
}

}  // namespace HWY_NAMESPACE
}  // namespace ms::cpu_simd
HWY_AFTER_NAMESPACE();

#endif  // MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_
