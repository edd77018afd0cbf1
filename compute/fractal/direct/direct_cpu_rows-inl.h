// direct_cpu_rows-inl.h: the per-row passes of the fast CPU path (direct_cpu.cpp), one
// copy per SIMD target (Highway's -inl.h convention: re-included by foreach_target.h):
//   ColumnCoordinates  c's real part per column, rounded like the reference (once per chunk)
//   RowCoordinates     those, with the cardioid/bulb test vectorised in double where it can hit
//   RowSmoothValues    the smooth values mu from (iterations, |z_k|^2), vectorised in float
// The coordinates and the test follow the reference's operations one for one (see
// escape.h); the smooth values agree with it to a few float ulps.

// Per-target include guard (Highway's idiom: toggled once per target).
#if defined(MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_
#undef MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_
#else
#define MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_
#endif

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/maths/escape.h"

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
template <class DF, class VT>
HWY_INLINE hn::Vec<DF> ToFloat(DF df, VT v) {
    if constexpr (std::is_same_v<hn::TFromV<VT>, float>) return v;
    else return hn::DemoteTo(df, v);
}
template <class DD, class VT>
HWY_INLINE hn::Vec<DD> ToDouble(DD dd, VT v) {
    using From = hn::TFromV<VT>;
    if constexpr (std::is_same_v<From, double>) return v;
    else if constexpr (std::is_same_v<From, int64_t>) return hn::ConvertTo(dd, v);
    else return hn::PromoteTo(dd, v);
}

// Column coordinates: c's real part for every column of the chunk, rounded to T exactly as the
// reference rounds it (the pixel centre computed in double, then converted); the padding gets
// kDeadLane. The same for every row, so computed once per chunk.
template <typename T>
HWY_INLINE void ColumnCoordinates(const ChunkJob& job, size_t padded_width, T* re_out) {
    const hn::ScalableTag<double> dd;
    const hn::Rebind<T, decltype(dd)> dt;  // as many T lanes as dd has doubles
    const size_t n = hn::Lanes(dd);
    const auto half = hn::Set(dd, 0.5), nan = hn::Set(dd, kDeadLane<double>);
    const auto half_width = hn::Set(dd, job.grid.half_width), step = hn::Set(dd, job.grid.step);
    const auto center = hn::Set(dd, job.grid.center_re);
    const auto x_begin = hn::Set(dd, double(job.x_begin));
    const auto width = hn::Set(dd, double(job.width));
    for (size_t x = 0; x < padded_width; x += n) {
        const auto column = hn::Iota(dd, double(x));
        // grid.re(x) = center_re + ((x + 0.5) - half_width) * step, operation for operation.
        const auto re = hn::Add(center, hn::Mul(hn::Sub(hn::Add(hn::Add(column, x_begin), half), half_width), step));
        hn::StoreU(FromDouble(dt, hn::IfThenElse(column >= width, nan, re)), dt, re_out + x);
    }
}

// Row coordinates: the chunk's column coordinates, with kDeadLane where the cardioid/bulb test (in
// double on the rounded coordinates, operation for operation as the reference) settles a pixel.
// Only the columns [shapes_begin, shapes_end) (rounded out to whole vectors) can hold such
// pixels, and only on rows within the box.
template <typename T>
HWY_INLINE void RowCoordinates(const ChunkJob& job, int y, size_t padded_width, const T* re, size_t shapes_begin,
                               size_t shapes_end, T* cr_out) {
    std::copy(re, re + padded_width, cr_out);
    const double ci = double(T(job.grid.im(y)));
    if (!job.cardioid_bulb || !(std::fabs(ci) <= kShapesMaxIm)) return;
    const hn::ScalableTag<double> dd;
    const hn::Rebind<T, decltype(dd)> dt;
    const size_t n = hn::Lanes(dd);
    const auto y2 = hn::Set(dd, ci * ci);
    const auto quarter_y2 = hn::Set(dd, 0.25 * (ci * ci));
    const auto quarter = hn::Set(dd, 0.25), one = hn::Set(dd, 1.0);
    const auto sixteenth = hn::Set(dd, 0.0625), nan = hn::Set(dd, kDeadLane<double>);
    for (size_t x = shapes_begin / n * n; x < shapes_end; x += n) {
        const auto c = ToDouble(dd, hn::LoadU(dt, re + x));
        // in_cardioid_or_period2_bulb(), operation for operation (NaN padding fails both).
        const auto xq = hn::Sub(c, quarter);
        const auto q = hn::Add(hn::Mul(xq, xq), y2);
        const auto cardioid = hn::Mul(q, hn::Add(q, xq)) <= quarter_y2;
        const auto xb = hn::Add(c, one);
        const auto bulb = hn::Add(hn::Mul(xb, xb), y2) <= sixteenth;
        hn::StoreU(FromDouble(dt, hn::IfThenElse(hn::Or(cardioid, bulb), nan, c)), dt, cr_out + x);
    }
}

// Pixels per step of RowSmoothValues<T>, a multiple of T's lanes: a whole float vector where two
// vectors of T fill one (double), so that the logs run on full vectors.
template <typename T>
HWY_INLINE size_t SmoothValuesStep() {
    const hn::ScalableTag<T> dt;
    const hn::ScalableTag<float> df;
    return HWY_TARGET != HWY_SCALAR && hn::MaxLanes(df) == 2 * hn::MaxLanes(dt) ? hn::Lanes(df) : hn::Lanes(dt);
}

// Smooth values of one row from (iterations, |z_k|^2), in float, SmoothValuesStep<T>() pixels at a
// time:
// mu = k + 1 - log2(0.5 * ln|z_k|^2), clamped at 0, for pixels that escaped (|z|^2 > R^2, tested
// in T); kInteriorMu for the others. Float logs (Highway's, within a few ulp) instead of the
// reference's double libm logs: two double logs per pixel cost a fifth of a full-view frame,
// more than most exterior pixels' iterations. mu then differs from smooth_mu() by a few float
// ulps at most (1e-6 at mu ~ 4, float rounding at larger mu), far inside the 1e-3 the paths are
// held to; escape counts are integers and exact. Also sums the row's iterations and escaped pixels.
// The formula enters through job's constants (bailout, mu_constant, log_scale; formula_math.h);
// |z|^2 is clamped to float's largest value, as the reference clamps it (a far Julia pixel of a
// degree-8 map can overflow it; Mandelbrot's never comes near).
template <typename T>
HWY_INLINE void RowSmoothValues(const ChunkJob& job, size_t padded_width, const hwy::MakeSigned<T>* k, const T* norm,
                                float* mu, uint64_t* iterations, uint64_t* escaped) {
    using TI = hwy::MakeSigned<T>;
    const hn::ScalableTag<T> dt;
    const hn::RebindToSigned<decltype(dt)> dk;
    const hn::Rebind<float, decltype(dt)> dh;  // as many float lanes as dt has
    const hn::ScalableTag<int64_t> d64;
    const size_t n = hn::Lanes(dt);
    const auto bailout = hn::Set(dt, T(job.bailout_squared));
    auto sum = hn::Zero(d64);
    size_t escaped_count = 0;
    // n pixels from x: their iteration counts (summed), and |z|^2 in float, 0 where not escaped:
    // rounding never takes an escaped |z|^2 below R^2 (a float), so escaped lanes are those above 0.
    auto load = [&](size_t x, hn::Vec<decltype(dh)>* k_float) {
        const auto kv = hn::LoadU(dk, k + x);
        if constexpr (sizeof(TI) == 8) {
            sum = hn::Add(sum, kv);
        } else {  // int32 counts, widened to int64 a part at a time
            const hn::Rebind<TI, decltype(d64)> dk_part;
            for (size_t j = 0; j < n; j += hn::Lanes(d64))
                sum = hn::Add(sum, hn::PromoteTo(d64, hn::LoadU(dk_part, k + x + j)));
        }
        *k_float = ToFloat(dh, hn::ConvertTo(dt, kv));
        const auto nv = hn::LoadU(dt, norm + x);
        return hn::Min(ToFloat(dh, hn::IfThenElseZero(nv > bailout, nv)),
                       hn::Set(dh, std::numeric_limits<float>::max()));
    };
    // mu from n_float = |z|^2 (0: not escaped) and k_float, stored at mu_out.
    auto smooth = [&](auto df, auto n_float, auto k_float, float* mu_out) {
        const auto zero = hn::Zero(df), interior = hn::Set(df, kInteriorMu);
        const auto escaped_mask = n_float > zero;
        if (hn::AllFalse(df, escaped_mask)) {  // all interior (or settled): no logs to take
            hn::StoreU(interior, df, mu_out);
            return;
        }
        // Highway's Log without its subnormal handling: |z_k|^2 > R^2 and ln|z_k| > 5 are normal
        // numbers; interior lanes (|z|^2 = 0) are overwritten below. log2 is ln times 1/ln 2.
        using VF = hn::Vec<decltype(df)>;
        const auto ln_norm = hn::impl::Log<decltype(df), VF, false>(df, n_float);
        const auto log2_half_ln = hn::Mul(
            hn::impl::Log<decltype(df), VF, false>(df, hn::Mul(hn::Set(df, 0.5f), ln_norm)),
            hn::Set(df, job.log_scale));
        auto m = hn::Sub(hn::Add(k_float, hn::Set(df, job.mu_constant)), log2_half_ln);
        m = hn::IfThenElse(m > zero, m, zero);
        hn::StoreU(hn::IfThenElse(escaped_mask, m, interior), df, mu_out);
        escaped_count += hn::CountTrue(df, escaped_mask);
    };
#if HWY_TARGET != HWY_SCALAR  // (one lane: no Combine)
    const hn::ScalableTag<float> df;
    if constexpr (hn::MaxLanes(df) == 2 * hn::MaxLanes(dt)) {
        // double: two vectors make one float vector, so the logs run at full width (in double's
        // own width they would take a large share of a full-view frame).
        for (size_t x = 0; x < padded_width; x += 2 * n) {
            hn::Vec<decltype(dh)> k_lo, k_hi;
            const auto n_lo = load(x, &k_lo);
            const auto n_hi = load(x + n, &k_hi);
            smooth(df, hn::Combine(df, n_hi, n_lo), hn::Combine(df, k_hi, k_lo), mu + x);
        }
    } else
#endif
    {
        for (size_t x = 0; x < padded_width; x += n) {
            hn::Vec<decltype(dh)> k_float;
            const auto n_float = load(x, &k_float);
            smooth(dh, n_float, k_float, mu + x);
        }
    }
    *iterations += uint64_t(hn::GetLane(hn::SumOfLanes(d64, sum)));
    *escaped += escaped_count;
}

}  // namespace HWY_NAMESPACE
}  // namespace ms::cpu_simd
HWY_AFTER_NAMESPACE();

#endif  // MANDELSCOPE_MANDELBROT_CPU_ROWS_INL_H_
