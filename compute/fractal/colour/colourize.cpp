// colourize.cpp: colourize(), smooth values to RGBA8 through the palette table, vectorised with
// Google Highway (dynamic dispatch, like direct_cpu.cpp: foreach_target.h re-includes this
// file once per SIMD target). colourize_reference() in palette.cpp is the scalar version it
// must equal byte for byte; tests/fractal/colour/test_palette.cpp compares the two on every target.
//
// Per pixel, exactly the operations of palette_lookup() (palette.h), lane by lane:
//   position = double(mu) * scale + offset                 (double, rounded separately:
//   wrapped  = position - 1024 * floor(position / 1024)     this library has -ffp-contract=off)
//   (wrapped rounded up to 1024 is 0, below 0 is 0), i = int(wrapped), j = i + 1 (mod 1024),
//   f = float(wrapped - i)
//   channel  = uint(ca + f * (cb - ca) + 0.5f)             (float), for R, G and B
// with the table's entries i and j gathered. Dividing by 1024 is a multiply by 2^-10 here, which
// rounds to the same double. The positions are doubles (N lanes), the blends floats (2N
// lanes, two position vectors' worth), and entries i and i + 1 come in one 64-bit gather from a
// table of pairs built per call (8 KB; gathers are slow on Intel parts with the GDS microcode
// fix, so one per pixel instead of two matters). A vector of interior pixels only (the set's
// inside: 30% of the default view) stores the interior colour without computing a position,
// which skips the gathers and blends for most of such a view's vectors (see
// docs/performance.md).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/fractal/colour/colourize.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

#include <cstdint>
#include <cstring>

#include "compute/fractal/colour/colourize.h"
#include "compute/fractal/maths/escape.h"
#include "compute/fractal/view/view.h"
#include "compute/fractal/colour/palette.h"

HWY_BEFORE_NAMESPACE();
namespace ms::colourize_simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// One channel of 2N pixels: the two entries' bytes at kShift, blended in float as
// palette_lookup does, back at kShift.
template <int kShift, class DF, class VU, class VF>
HWY_INLINE VU BlendChannel(DF df, VU a, VU b, VF f) {
    const hn::RebindToSigned<DF> di;
    const hn::RebindToUnsigned<DF> du;
    const auto ff = hn::Set(du, 0xffu);
    const auto ca = hn::ConvertTo(df, hn::BitCast(di, hn::And(hn::ShiftRight<kShift>(a), ff)));
    const auto cb = hn::ConvertTo(df, hn::BitCast(di, hn::And(hn::ShiftRight<kShift>(b), ff)));
    const auto v = hn::Add(hn::Add(ca, hn::Mul(f, hn::Sub(cb, ca))), hn::Set(df, 0.5f));
    return hn::ShiftLeft<kShift>(hn::BitCast(du, hn::ConvertTo(di, v)));
}

// N pixels' table position in double (N = a double vector's lanes): the pair of entries
// (i, i + 1) as one 64-bit lane read from `pairs`, and f.
template <class DD, class DF>
HWY_INLINE hn::Vec<hn::Rebind<uint64_t, DD>> EntryPairs(DD dd, DF dfh, hn::Vec<DF> m, hn::Vec<DD> scale,
                                                        hn::Vec<DD> offset, const uint64_t* HWY_RESTRICT pairs,
                                                        hn::Vec<DF>* f) {
    const hn::Rebind<int32_t, DD> di;
    const hn::Rebind<int64_t, DD> di64;
    const hn::Rebind<uint64_t, DD> du64;
    const auto size = hn::Set(dd, double(kPaletteTableSize)), zero = hn::Zero(dd);
    const auto position = hn::Add(hn::Mul(hn::PromoteTo(dd, m), scale), offset);
    auto wrapped = hn::Sub(position, hn::Mul(size, hn::Floor(hn::Mul(position, hn::Set(dd, 1.0 / kPaletteTableSize)))));
    // As palette_lookup: a wrapped value rounded up to the size itself is entry 0, and one
    // rounded below 0 (or a NaN) is 0.
    wrapped = hn::IfThenElse(hn::Ge(wrapped, size), hn::Sub(wrapped, size), wrapped);
    wrapped = hn::IfThenElse(hn::Gt(wrapped, zero), wrapped, zero);
    // int(wrapped) truncates; the Min only keeps the gather inside the table whatever comes.
    const auto i = hn::Min(hn::DemoteTo(di, wrapped), hn::Set(di, kPaletteTableSize - 1));
    *f = hn::DemoteTo(dfh, hn::Sub(wrapped, hn::PromoteTo(dd, i)));
    return hn::GatherIndex(du64, pairs, hn::PromoteTo(di64, i));
}

void ColourizeRun(const float* HWY_RESTRICT mu, int64_t count, const uint32_t* HWY_RESTRICT table,
                  uint32_t interior_rgba, double scale, double offset, uint8_t* HWY_RESTRICT rgba_out) {
    int64_t k = 0;
#if HWY_TARGET != HWY_SCALAR
    // Entry i and entry i + 1 (wrapping) side by side: one 64-bit gather fetches both.
    HWY_ALIGN uint64_t pairs[kPaletteTableSize];
    for (int i = 0; i < kPaletteTableSize; ++i)
        pairs[i] = uint64_t(table[i]) | uint64_t(table[i + 1 == kPaletteTableSize ? 0 : i + 1]) << 32;
    const hn::ScalableTag<float> df;             // 2N lanes
    const hn::Half<decltype(df)> dfh;            // N
    const hn::Rebind<double, decltype(dfh)> dd;  // N
    const hn::RebindToUnsigned<decltype(df)> du;
    const int64_t lanes = int64_t(hn::Lanes(df));
    const auto v_scale = hn::Set(dd, scale), v_offset = hn::Set(dd, offset);
    const auto u_alpha = hn::Set(du, 0xff000000u), u_interior = hn::Set(du, interior_rgba);
    for (; k + lanes <= count; k += lanes) {
        const auto m = hn::LoadU(df, mu + k);
        // Interior pixels (mu < 0, or NaN: the comparison is false) take the interior colour.
        const auto escaped = hn::RebindMask(du, hn::Ge(m, hn::Zero(df)));
        uint32_t* const out = reinterpret_cast<uint32_t*>(rgba_out + 4 * k);
        if (hn::AllFalse(du, escaped)) {  // the set's inside: no table position to compute
            hn::StoreU(u_interior, du, out);
            continue;
        }
        hn::Vec<decltype(dfh)> f_lo, f_hi;
        const auto pairs_lo = EntryPairs(dd, dfh, hn::LowerHalf(dfh, m), v_scale, v_offset, pairs, &f_lo);
        const auto pairs_hi = EntryPairs(dd, dfh, hn::UpperHalf(dfh, m), v_scale, v_offset, pairs, &f_hi);
        // Little-endian: entry i is the low (even) 32 bits of each pair, entry i + 1 the high.
        const auto a = hn::ConcatEven(du, hn::BitCast(du, pairs_hi), hn::BitCast(du, pairs_lo));
        const auto b = hn::ConcatOdd(du, hn::BitCast(du, pairs_hi), hn::BitCast(du, pairs_lo));
        const auto f = hn::Combine(df, f_hi, f_lo);
        const auto rgba = hn::Or(hn::Or(u_alpha, BlendChannel<0>(df, a, b, f)),
                                 hn::Or(BlendChannel<8>(df, a, b, f), BlendChannel<16>(df, a, b, f)));
        hn::StoreU(hn::IfThenElse(escaped, rgba, u_interior), du, out);
    }
#endif
    for (; k < count; ++k) {  // the last few pixels (every pixel on the scalar target)
        uint32_t c = interior_rgba;
        if (mu[k] >= 0.0f) c = palette_lookup(table, double(mu[k]) * scale + offset);
        std::memcpy(rgba_out + 4 * k, &c, 4);
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace ms::colourize_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ms {

namespace colourize_simd {
HWY_EXPORT(ColourizeRun);
}  // namespace colourize_simd

void colourize(const float* mu, int64_t count, const PaletteTable& palette, const View& view, uint8_t* rgba_out) {
    if (count <= 0) return;
    const double scale = view.palette_density / 100.0 * kPaletteTableSize;
    const double offset = view.palette_offset * kPaletteTableSize;
    HWY_DYNAMIC_DISPATCH(colourize_simd::ColourizeRun)
    (mu, count, palette.rgba.data(), palette.interior_rgba, scale, offset, rgba_out);
}

}  // namespace ms
#endif  // HWY_ONCE
