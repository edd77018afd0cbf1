// png_filter.cpp: the two per-row passes of PNG writing before deflate, vectorised with Google
// Highway (dynamic dispatch; foreach_target.h re-includes this file once per SIMD target):
// RGBA8 to RGB8 (the frames are opaque), and the Paeth filter (PNG specification, section 9.2);
// and the Adler-32 of the filtered bytes, which the zlib stream ends with.
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

#include <algorithm>
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

// Adler-32 (RFC 1950, section 8.2) of data[0, n) continuing from `adler`: zlib's adler32 is one
// byte at a time and took a quarter as long as deflating itself. For a run of K chunks of L
// bytes (b[k][j]) starting from (s1, s2):
//   s1' = s1 + sum b,   s2' = s2 + K*L*s1 + L * sum_k (bytes before chunk k) + sum_j (L - j) * sum_k b[k][j].
// The vectors keep per-8-byte sums (SumsOf8), their running prefix, and per-position sums in 16
// bits (at most 256 chunks between reductions, so 255 * 256 fits); the rest is scalar, in 64 bits.
uint32_t Adler32(uint32_t adler, const uint8_t* HWY_RESTRICT data, size_t n) {
    constexpr uint32_t kMod = 65521;
    uint64_t s1 = adler & 0xffff, s2 = adler >> 16;
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<uint8_t> d8;
    const hn::Half<decltype(d8)> d8h;
    const hn::Repartition<uint16_t, decltype(d8)> d16;
    const hn::Repartition<uint64_t, decltype(d8)> d64;
    const size_t lanes = hn::Lanes(d8);
    HWY_ALIGN uint16_t position_sums[2 * hn::MaxLanes(d16)];
    while (n >= lanes) {
        const size_t chunks = std::min<size_t>(n / lanes, 256);
        auto sums = hn::Zero(d64), prefix = hn::Zero(d64);
        auto low = hn::Zero(d16), high = hn::Zero(d16);
        for (size_t k = 0; k < chunks; ++k, data += lanes) {
            const auto v = hn::LoadU(d8, data);
            prefix = hn::Add(prefix, sums);
            sums = hn::Add(sums, hn::SumsOf8(v));
            low = hn::Add(low, hn::PromoteTo(d16, hn::LowerHalf(d8h, v)));
            high = hn::Add(high, hn::PromoteTo(d16, hn::UpperHalf(d8h, v)));
        }
        hn::Store(low, d16, position_sums);
        hn::Store(high, d16, position_sums + lanes / 2);
        uint64_t weighted = 0;
        for (size_t j = 0; j < lanes; ++j) weighted += uint64_t(lanes - j) * position_sums[j];
        const uint64_t bytes = uint64_t(chunks) * lanes;
        s2 = (s2 + bytes * s1 + lanes * hn::GetLane(hn::SumOfLanes(d64, prefix)) + weighted) % kMod;
        s1 = (s1 + hn::GetLane(hn::SumOfLanes(d64, sums))) % kMod;
        n -= bytes;
    }
#endif
    for (size_t i = 0; i < n; ++i) {  // the tail (fewer bytes than a vector), or all of it on SCALAR
        s1 += data[i];
        s2 += s1;
        if ((i & 4095) == 4095) s1 %= kMod, s2 %= kMod;
    }
    return uint32_t((s2 % kMod) << 16 | (s1 % kMod));
}

}  // namespace HWY_NAMESPACE
}  // namespace ms::png_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ms {

namespace png_simd {
HWY_EXPORT(RgbaToRgb);
HWY_EXPORT(Paeth);
HWY_EXPORT(Adler32);
}  // namespace png_simd

void png_rgba_to_rgb(const uint8_t* rgba, int width, uint8_t* rgb) {
    HWY_DYNAMIC_DISPATCH(png_simd::RgbaToRgb)(rgba, width, rgb);
}

uint32_t png_adler32(uint32_t adler, const uint8_t* data, size_t n) {
    return HWY_DYNAMIC_DISPATCH(png_simd::Adler32)(adler, data, n);
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
