// colorize.cpp: colorize(), smooth values to RGBA8 through the palette table, vectorised with
// Google Highway (dynamic dispatch, like mandelbrot_cpu.cpp: foreach_target.h re-includes this
// file once per SIMD target). colorize_reference() in palette.cpp is the scalar version it
// must equal byte for byte; tests/fractal/test_palette.cpp compares the two on every target.
//
// Per pixel, exactly the operations of palette_lookup() (palette.h), lane by lane:
//   position = double(mu) * scale + offset                 (double, rounded separately:
//   wrapped  = position - 1024 * floor(position / 1024)     this library has -ffp-contract=off)
//   (wrapped rounded up to 1024 is 0, below 0 is 0), i = int(wrapped), j = i + 1 (mod 1024),
//   f = float(wrapped - i)
//   channel  = uint(ca + f * (cb - ca) + 0.5f)             (float), for R, G and B
// with the table's entries i and j gathered. Dividing by 1024 is a multiply by 2^-10 here, which
// rounds to the same double. It was 20 to 40 ns a pixel scalar on one core, a third of the
// window's CPU frame on the default view; a Highway vector of 8 doubles colours 8 pixels with
// two gathers.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/fractal/colorize.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

#include <cstdint>
#include <cstring>

#include "compute/fractal/mandelbrot.h"
#include "compute/fractal/palette.h"

HWY_BEFORE_NAMESPACE();
namespace ms::colorize_simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// One channel: the two entries' bytes at kShift, blended in float as palette_lookup does,
// back at kShift.
template <int kShift, class DF, class VU, class VF>
HWY_INLINE VU BlendChannel(DF df, VU a, VU b, VF f) {
    const hn::Rebind<int32_t, DF> di;
    const hn::Rebind<uint32_t, DF> du;
    const auto ff = hn::Set(du, 0xffu);
    const auto ca = hn::ConvertTo(df, hn::BitCast(di, hn::And(hn::ShiftRight<kShift>(a), ff)));
    const auto cb = hn::ConvertTo(df, hn::BitCast(di, hn::And(hn::ShiftRight<kShift>(b), ff)));
    const auto v = hn::Add(hn::Add(ca, hn::Mul(f, hn::Sub(cb, ca))), hn::Set(df, 0.5f));
    return hn::ShiftLeft<kShift>(hn::BitCast(du, hn::ConvertTo(di, v)));
}

void ColorizeRun(const float* HWY_RESTRICT mu, int64_t count, const uint32_t* HWY_RESTRICT table,
                 uint32_t interior_rgba, double scale, double offset, uint8_t* HWY_RESTRICT rgba_out) {
    const hn::ScalableTag<double> dd;
    const hn::Rebind<float, decltype(dd)> df;
    const hn::Rebind<int32_t, decltype(dd)> di;
    const hn::Rebind<uint32_t, decltype(dd)> du;
    const int64_t lanes = int64_t(hn::Lanes(dd));
    const auto v_scale = hn::Set(dd, scale), v_offset = hn::Set(dd, offset);
    const auto v_size = hn::Set(dd, double(kPaletteTableSize)), v_inv_size = hn::Set(dd, 1.0 / kPaletteTableSize);
    const auto d_zero = hn::Zero(dd);
    const auto i_size = hn::Set(di, kPaletteTableSize), i_last = hn::Set(di, kPaletteTableSize - 1);
    const auto i_zero = hn::Zero(di), i_one = hn::Set(di, 1);
    const auto f_zero = hn::Zero(df);
    const auto u_alpha = hn::Set(du, 0xff000000u), u_interior = hn::Set(du, interior_rgba);

    int64_t k = 0;
    for (; k + lanes <= count; k += lanes) {
        const auto m = hn::LoadU(df, mu + k);
        const auto position = hn::Add(hn::Mul(hn::PromoteTo(dd, m), v_scale), v_offset);
        auto wrapped = hn::Sub(position, hn::Mul(v_size, hn::Floor(hn::Mul(position, v_inv_size))));
        // As palette_lookup: a wrapped value rounded up to the size itself is entry 0, and one
        // rounded below 0 (or a NaN) is 0.
        wrapped = hn::IfThenElse(hn::Ge(wrapped, v_size), hn::Sub(wrapped, v_size), wrapped);
        wrapped = hn::IfThenElse(hn::Gt(wrapped, d_zero), wrapped, d_zero);
        // int(wrapped) truncates; the Min only keeps the gathers inside the table whatever comes.
        const auto i = hn::Min(hn::DemoteTo(di, wrapped), i_last);
        const auto i_next = hn::Add(i, i_one);
        const auto j = hn::IfThenElse(hn::Eq(i_next, i_size), i_zero, i_next);
        const auto f = hn::DemoteTo(df, hn::Sub(wrapped, hn::PromoteTo(dd, i)));
        const auto a = hn::GatherIndex(du, table, i);
        const auto b = hn::GatherIndex(du, table, j);
        const auto rgba = hn::Or(hn::Or(u_alpha, BlendChannel<0>(df, a, b, f)),
                                 hn::Or(BlendChannel<8>(df, a, b, f), BlendChannel<16>(df, a, b, f)));
        // Interior pixels (mu < 0, or NaN: the comparison is false) take the interior colour.
        const auto escaped = hn::RebindMask(du, hn::Ge(m, f_zero));
        hn::StoreU(hn::IfThenElse(escaped, rgba, u_interior), du, reinterpret_cast<uint32_t*>(rgba_out + 4 * k));
    }
    for (; k < count; ++k) {  // the last few pixels
        uint32_t c = interior_rgba;
        if (mu[k] >= 0.0f) c = palette_lookup(table, double(mu[k]) * scale + offset);
        std::memcpy(rgba_out + 4 * k, &c, 4);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace ms::colorize_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ms {

namespace colorize_simd {
HWY_EXPORT(ColorizeRun);
}  // namespace colorize_simd

void colorize(const float* mu, int64_t count, const PaletteTable& palette, const View& view, uint8_t* rgba_out) {
    if (count <= 0) return;
    const double scale = view.palette_density / 100.0 * kPaletteTableSize;
    const double offset = view.palette_offset * kPaletteTableSize;
    HWY_DYNAMIC_DISPATCH(colorize_simd::ColorizeRun)(mu, count, palette.rgba.data(), palette.interior_rgba, scale, offset,
                                                     rgba_out);
}

}  // namespace ms
#endif  // HWY_ONCE
