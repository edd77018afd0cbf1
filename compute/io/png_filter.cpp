// png_filter.cpp: the per-row pass of PNG writing before deflate, vectorised with Google Highway
// (dynamic dispatch; foreach_target.h re-includes this file once per SIMD target): the Up filter
// (PNG specification, section 9.2) straight from RGBA8 rows to the RGB bytes of the PNG (the
// frames are opaque, so alpha is dropped in the same pass); the Adler-32 of the filtered bytes,
// which the zlib stream ends with; and the CRC-32 of the deflated pieces, which the IDAT chunks
// carry. png_filter_row_reference (png_encode.cpp) is the scalar filter this equals byte for
// byte (tests/io/test_image_io.cpp); zlib is the checksums' reference (test_png_deflate.cpp).
//
// Why Up and not Paeth: on our fractal frames Up gives the smaller file with this project's
// deflate (matches at distances 1 and 3 only), on the default view, the seahorse valley, the
// fire and rainbow palettes and a supersampled frame (see docs/performance.md). It is also a byte
// subtraction where Paeth needs 16-bit lanes and three comparisons, and it reads the row above
// as it is in the caller's RGBA, so no RGB copy of either row is made.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/io/png_filter.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <zlib.h>

#include "compute/io/png_encode.h"

HWY_BEFORE_NAMESPACE();
namespace ms::png_simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// One row of RGBA8 filtered with Up for an RGB PNG: out[i] = rgb[i] - rgb_above[i], alpha dropped.
// Per vector of N bytes (N / 4 pixels): one byte subtraction on the RGBA bytes, a byte shuffle
// within each 128-bit block that packs its four pixels' RGB into the block's first 12 bytes,
// and one 32-bit lane permutation that closes the gaps between the blocks; the store writes N
// bytes of which the first 3N / 4 are the pixels' (the next store overwrites the rest). So the
// row's RGB is never written on its own, and the filter is one pass over the RGBA.
void FilterUp(const uint8_t* HWY_RESTRICT rgba, const uint8_t* HWY_RESTRICT above, int width,
              uint8_t* HWY_RESTRICT out) {
    size_t x = 0;
    const size_t w = size_t(width);
#if HWY_TARGET != HWY_SCALAR
    const hn::ScalableTag<uint8_t> d8;
    const hn::Repartition<uint32_t, decltype(d8)> d32;
    const size_t lanes32 = hn::Lanes(d32), pixels = lanes32;  // a 32-bit lane is a pixel
    // Within each block of 16 bytes: the RGB of its four pixels first, the alphas last.
    alignas(16) static constexpr uint8_t kPackBlock[16] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 3, 7, 11, 15};
    const auto pack_block = hn::LoadDup128(d8, kPackBlock);
    // Across blocks: the three RGB lanes of each block, in order, then the alpha lanes.
    HWY_ALIGN int32_t pack_lanes[hn::MaxLanes(d32)];
    const size_t blocks = lanes32 / 4;
    for (size_t b = 0; b < blocks; ++b) {
        for (size_t k = 0; k < 3; ++k) pack_lanes[3 * b + k] = int32_t(4 * b + k);
        pack_lanes[3 * blocks + b] = int32_t(4 * b + 3);
    }
    const auto pack = hn::SetTableIndices(d32, pack_lanes);
    auto filtered = [&](size_t at) {
        const auto diff = hn::Sub(hn::LoadU(d8, rgba + 4 * at), hn::LoadU(d8, above + 4 * at));
        return hn::BitCast(d8, hn::TableLookupLanes(hn::BitCast(d32, hn::TableLookupBytes(diff, pack_block)), pack));
    };
    // Whole stores while they end inside the row's 3 * width bytes...
    for (; 3 * x + 4 * pixels <= 3 * w; x += pixels) hn::StoreU(filtered(x), d8, out + 3 * x);
    // ...then one more vector through a buffer, and the last pixels one by one.
    if (x + pixels <= w) {
        HWY_ALIGN uint8_t last[hn::MaxLanes(d8)];
        hn::Store(filtered(x), d8, last);
        std::memcpy(out + 3 * x, last, 3 * pixels);
        x += pixels;
    }
#endif
    for (; x < w; ++x)
        for (size_t c = 0; c < 3; ++c) out[3 * x + c] = uint8_t(rgba[4 * x + c] - above[4 * x + c]);
}

// Adler-32 (RFC 1950, section 8.2) of data[0, n) continuing from `adler`: zlib's adler32 is one
// byte at a time and took a quarter as long as deflating itself. For a run of K chunks of L
// bytes (b[k][j]) starting from (s1, s2):
//   s1' = s1 + sum b,   s2' = s2 + K*L*s1 + L * sum_k (bytes before chunk k) + sum_j (L - j) * sum_k b[k][j].
// On AVX2 and AVX-512 (Adler32Madd below) the last sum is taken per chunk with byte-by-weight
// multiply-adds (vpmaddubsw, weights L..1, then vpmaddwd into 32 bits), the running prefix of
// the chunks' sums in 64 bits beside it: five instructions per chunk. Elsewhere the vectors keep
// per-8-byte sums (SumsOf8), their running prefix, and per-position sums in 16 bits (at most 256
// chunks between reductions, so 255 * 256 fits); the rest is scalar, in 64 bits.
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#if HWY_TARGET == HWY_AVX2
using AdlerVec = __m256i;
HWY_INLINE AdlerVec AdlerLoad(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
HWY_INLINE void AdlerStore(void* p, AdlerVec v) { _mm256_storeu_si256(static_cast<__m256i*>(p), v); }
HWY_INLINE AdlerVec AdlerZero() { return _mm256_setzero_si256(); }
HWY_INLINE AdlerVec AdlerAdd64(AdlerVec a, AdlerVec b) { return _mm256_add_epi64(a, b); }
HWY_INLINE AdlerVec AdlerAdd32(AdlerVec a, AdlerVec b) { return _mm256_add_epi32(a, b); }
HWY_INLINE AdlerVec AdlerSums(AdlerVec v) { return _mm256_sad_epu8(v, _mm256_setzero_si256()); }
HWY_INLINE AdlerVec AdlerWeighted(AdlerVec v, AdlerVec w) {
    return _mm256_madd_epi16(_mm256_maddubs_epi16(v, w), _mm256_set1_epi16(1));
}
#else
using AdlerVec = __m512i;
HWY_INLINE AdlerVec AdlerLoad(const void* p) { return _mm512_loadu_si512(p); }
HWY_INLINE void AdlerStore(void* p, AdlerVec v) { _mm512_storeu_si512(p, v); }
HWY_INLINE AdlerVec AdlerZero() { return _mm512_setzero_si512(); }
HWY_INLINE AdlerVec AdlerAdd64(AdlerVec a, AdlerVec b) { return _mm512_add_epi64(a, b); }
HWY_INLINE AdlerVec AdlerAdd32(AdlerVec a, AdlerVec b) { return _mm512_add_epi32(a, b); }
HWY_INLINE AdlerVec AdlerSums(AdlerVec v) { return _mm512_sad_epu8(v, _mm512_setzero_si512()); }
HWY_INLINE AdlerVec AdlerWeighted(AdlerVec v, AdlerVec w) {
    return _mm512_madd_epi16(_mm512_maddubs_epi16(v, w), _mm512_set1_epi16(1));
}
#endif
// Chunks of L = sizeof(AdlerVec) bytes, 1024 of them (32 or 64 KiB) between reductions: the
// 32-bit weighted sums grow by at most 2 * 255 * 64 a chunk, the 64-bit ones cannot overflow.
uint32_t Adler32Madd(uint32_t adler, const uint8_t* HWY_RESTRICT data, size_t n) {
    constexpr uint32_t kMod = 65521;
    constexpr size_t kL = sizeof(AdlerVec), kChunks = 1024;
    uint64_t s1 = adler & 0xffff, s2 = adler >> 16;
    alignas(64) int8_t weights[kL];
    for (size_t j = 0; j < kL; ++j) weights[j] = int8_t(kL - j);
    const AdlerVec w = AdlerLoad(weights);
    alignas(64) uint64_t lanes64[kL / 8];
    alignas(64) uint32_t lanes32[kL / 4];
    while (n >= kL) {
        const size_t chunks = std::min(n / kL, kChunks);
        AdlerVec sums = AdlerZero(), prefix = AdlerZero(), weighted = AdlerZero();
        for (size_t k = 0; k < chunks; ++k, data += kL) {
            const AdlerVec v = AdlerLoad(data);
            prefix = AdlerAdd64(prefix, sums);
            sums = AdlerAdd64(sums, AdlerSums(v));
            weighted = AdlerAdd32(weighted, AdlerWeighted(v, w));
        }
        uint64_t sum = 0, sum_prefix = 0, sum_weighted = 0;
        AdlerStore(lanes64, sums);
        for (uint64_t x : lanes64) sum += x;
        AdlerStore(lanes64, prefix);
        for (uint64_t x : lanes64) sum_prefix += x;
        AdlerStore(lanes32, weighted);
        for (uint32_t x : lanes32) sum_weighted += x;
        const uint64_t bytes = uint64_t(chunks) * kL;
        s2 = (s2 + bytes * s1 + kL * sum_prefix + sum_weighted) % kMod;
        s1 = (s1 + sum) % kMod;
        n -= bytes;
    }
    for (size_t i = 0; i < n; ++i) s1 += data[i], s2 += s1;  // fewer than kL bytes: no overflow
    return uint32_t((s2 % kMod) << 16 | (s1 % kMod));
}
#endif

uint32_t Adler32(uint32_t adler, const uint8_t* HWY_RESTRICT data, size_t n) {
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    return Adler32Madd(adler, data, n);
#else
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
#endif
}

// CRC-32 (the PNG chunks' and zlib's crc32) of data[0, n) continuing from `crc`, by carry-less
// multiplication where the target has PCLMULQDQ: four 16-byte lanes folded 64 bytes at a time,
// then into one, with the folding constants x^(4*128 + 32), x^(4*128 - 32), x^(128 + 32) and
// x^(128 - 32) mod P (reflected), as in Intel's white paper "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ". The folded 16 bytes have the same CRC, with a zero register,
// as everything they replace; zlib finishes those and the last bytes (fewer than 16). zlib's
// crc32_z, a table per byte, is the reference (tests/io/test_png_deflate.cpp) and the fallback.
uint32_t Crc32(uint32_t crc, const uint8_t* HWY_RESTRICT data, size_t n) {
#if (HWY_TARGET == HWY_SSE4 || HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) && \
    !defined(HWY_DISABLE_PCLMUL_AES)
    if (n >= 64) {
        const __m128i fold4 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);  // (high, low)
        const __m128i fold1 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
        auto load = [](const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
        // x's low half times k's low, its high half times k's high, and the next 16 bytes.
        auto fold = [](__m128i x, __m128i k, __m128i next) {
            return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)),
                                 next);
        };
        // The register's start value (zlib's crc is its complement) enters as the first 4 bytes.
        __m128i x0 = _mm_xor_si128(load(data), _mm_cvtsi32_si128(int(~crc)));
        __m128i x1 = load(data + 16), x2 = load(data + 32), x3 = load(data + 48);
        data += 64;
        n -= 64;
        for (; n >= 64; data += 64, n -= 64) {
            x0 = fold(x0, fold4, load(data));
            x1 = fold(x1, fold4, load(data + 16));
            x2 = fold(x2, fold4, load(data + 32));
            x3 = fold(x3, fold4, load(data + 48));
        }
        __m128i x = fold(fold(fold(x0, fold1, x1), fold1, x2), fold1, x3);
        for (; n >= 16; data += 16, n -= 16) x = fold(x, fold1, load(data));
        alignas(16) uint8_t folded[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(folded), x);
        // zlib's crc32(c, b) is ~update(~c, b): c = 0xffffffff runs the register from zero.
        crc = uint32_t(crc32_z(0xffffffffu, folded, 16));
    }
#endif
    return uint32_t(crc32_z(crc, data, n));
}

}  // namespace HWY_NAMESPACE
}  // namespace ms::png_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ms {

namespace png_simd {
HWY_EXPORT(FilterUp);
HWY_EXPORT(Adler32);
HWY_EXPORT(Crc32);
}  // namespace png_simd

uint32_t png_crc32(uint32_t crc, const uint8_t* data, size_t n) {
    return HWY_DYNAMIC_DISPATCH(png_simd::Crc32)(crc, data, n);
}

uint32_t png_adler32(uint32_t adler, const uint8_t* data, size_t n) {
    return HWY_DYNAMIC_DISPATCH(png_simd::Adler32)(adler, data, n);
}

void png_filter_row(const uint8_t* rgba, const uint8_t* above_rgba, int width, uint8_t* out) {
    out[0] = 2;  // Up
    HWY_DYNAMIC_DISPATCH(png_simd::FilterUp)(rgba, above_rgba, width, out + 1);
}

}  // namespace ms
#endif  // HWY_ONCE
