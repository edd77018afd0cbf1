// png_filter.cpp: the two per-row passes of PNG writing before deflate, vectorised with Google
// Highway (dynamic dispatch; foreach_target.h re-includes this file once per SIMD target):
// RGBA8 to RGB8 (the frames are opaque), and the Paeth filter (PNG specification, section 9.2).
// png_filter_row_reference (png_encode.cpp) is the scalar Paeth these equal byte for byte
// (tests/io/test_image_io.cpp). Scalar, the two took about 8 ns a pixel on one core, a quarter of
// `render`'s writing time at 4K.
//
// Paeth in 16-bit lanes: with p = a + b - c, |p - a| = |b - c|, |p - b| = |a - c| and
// |p - c| = |a + b - 2c|; every input is an unfiltered byte (the pixel to the left, above, and
// above-left), so a whole vector of bytes is filtered at once.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/io/png_filter.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

#include <cstddef>
#include <cstdint>

#include "compute/io/png_encode.h"

HWY_BEFORE_NAMESPACE();
namespace ms::png_simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

void RgbaToRgb(const uint8_t* HWY_RESTRICT rgba, int width, uint8_t* HWY_RESTRICT rgb) {
    const hn::ScalableTag<uint8_t> d;
    const size_t lanes = hn::Lanes(d);
    size_t x = 0;
    for (; x + lanes <= size_t(width); x += lanes) {
        hn::Vec<decltype(d)> r, g, b, a;
        hn::LoadInterleaved4(d, rgba + 4 * x, r, g, b, a);
        hn::StoreInterleaved3(r, g, b, d, rgb + 3 * x);
    }
    for (; x < size_t(width); ++x) {
        rgb[3 * x + 0] = rgba[4 * x + 0];
        rgb[3 * x + 1] = rgba[4 * x + 1];
        rgb[3 * x + 2] = rgba[4 * x + 2];
    }
}

// out[i] = row[i] - paeth(row[i - 3], up[i], up[i - 3]) for i in [3, n); n >= 3.
void Paeth(const uint8_t* HWY_RESTRICT row, const uint8_t* HWY_RESTRICT up, size_t n, uint8_t* HWY_RESTRICT out) {
    for (size_t i = 0; i < 3; ++i) out[i] = uint8_t(row[i] - up[i]);  // a = c = 0: predicts b
    const hn::ScalableTag<int16_t> d16;
    const hn::Rebind<uint8_t, decltype(d16)> d8;
    const size_t lanes = hn::Lanes(d16);
    const auto low_byte = hn::Set(d16, 0xff);
    size_t i = 3;
    for (; i + lanes <= n; i += lanes) {
        const auto x = hn::PromoteTo(d16, hn::LoadU(d8, row + i));
        const auto a = hn::PromoteTo(d16, hn::LoadU(d8, row + i - 3));
        const auto b = hn::PromoteTo(d16, hn::LoadU(d8, up + i));
        const auto c = hn::PromoteTo(d16, hn::LoadU(d8, up + i - 3));
        const auto pa = hn::Abs(hn::Sub(b, c));
        const auto pb = hn::Abs(hn::Sub(a, c));
        const auto pc = hn::Abs(hn::Sub(hn::Add(a, b), hn::Add(c, c)));
        // pa <= pb && pa <= pc ? a : pb <= pc ? b : c
        const auto not_a = hn::Or(hn::Gt(pa, pb), hn::Gt(pa, pc));
        const auto predictor = hn::IfThenElse(not_a, hn::IfThenElse(hn::Gt(pb, pc), c, b), a);
        hn::StoreU(hn::DemoteTo(d8, hn::And(hn::Sub(x, predictor), low_byte)), d8, out + i);
    }
    for (; i < n; ++i) {
        const int a = row[i - 3], b = up[i], c = up[i - 3];
        const int pa = b > c ? b - c : c - b, pb = a > c ? a - c : c - a, pc = a + b - 2 * c > 0 ? a + b - 2 * c : 2 * c - a - b;
        out[i] = uint8_t(row[i] - (pa <= pb && pa <= pc ? a : pb <= pc ? b : c));
    }
}

}  // namespace HWY_NAMESPACE
}  // namespace ms::png_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ms {

namespace png_simd {
HWY_EXPORT(RgbaToRgb);
HWY_EXPORT(Paeth);
}  // namespace png_simd

void png_rgba_to_rgb(const uint8_t* rgba, int width, uint8_t* rgb) {
    HWY_DYNAMIC_DISPATCH(png_simd::RgbaToRgb)(rgba, width, rgb);
}

void png_filter_row(const uint8_t* rgb, const uint8_t* previous, int width, uint8_t* out) {
    // Paeth on every row but the first (where it equals Sub). Measured on the default 4K frame
    // (README, "Writing PNGs"): Paeth everywhere gives a 1-3% smaller file than choosing among
    // Sub, Up and Paeth per row by libpng's sum-of-magnitudes heuristic, which costs two more
    // passes over each row. Smooth colouring is what Paeth predicts best.
    out[0] = 4;
    HWY_DYNAMIC_DISPATCH(png_simd::Paeth)(rgb, previous, size_t(width) * 3, out + 1);
}

}  // namespace ms
#endif  // HWY_ONCE
