// png_deflate.cpp: the PNG-specialised deflate encoder (see png_deflate.h for the scheme), its
// parse and emit loops compiled once per SIMD target with Google Highway (dynamic dispatch:
// foreach_target.h re-includes this file once per target). The block headers, once per 64K
// symbols, are scalar (png_deflate_blocks.cpp). Section numbers refer to RFC 1951.
//
// Per block, three passes over data that stays in the core's caches:
// 1. Parse into 16-bit tokens (png_deflate_blocks.h: a literal byte, or a match's length and
//    distance in one number): a vector of N bytes (64 with AVX-512) is compared with itself 1
//    and 3 bytes back; the two bit masks say at once where the next match of 3 or more bytes
//    starts, and its length while it ends inside the vector (else N-byte compares go on). The
//    bytes before it are literals: the whole vector is stored, widened to tokens, and the count
//    advanced (no branch per byte). Both match lengths are taken without a branch on the data.
// 2. Count the tokens: four histograms in turn, so that a run of equal tokens does not wait on
//    its own counter's last store.
// 3. Emit: each token's bits and their count come from one table; three tokens go into the
//    64-bit bit buffer per 8-byte store (two when a block has a token of more than 19 bits),
//    with no branch per token.
// The tokens are those of a greedy parse (at each byte the longer of the two matches, the one
// at distance 1 on a tie, else a literal), cut into blocks of kPngDeflateBlockTokens symbols:
// the output is the same, bit for bit, as a one-token-at-a-time encoder of that parse writes.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/io/png_deflate.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "compute/io/png_deflate.h"
#include "compute/io/png_deflate_blocks.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "png_deflate.cpp packs bits with little-endian 64-bit stores"
#endif

HWY_BEFORE_NAMESPACE();
namespace ms::png_deflate_simd {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;
using namespace ms::deflate;

// One block's tokens (png_deflate_blocks.h), kept per thread: kPngDeflateBlockTokens and a
// vector of slack for the literals' whole-vector stores.
struct ParsedBlock {
    std::vector<uint16_t> tokens;
    size_t count = 0;
};

// How many bytes from a and b (b < a: overlapping is what a run is) agree, up to `max`; reads
// no byte at or past a + max.
template <class D>
HWY_INLINE size_t MatchLength(D d, const uint8_t* HWY_RESTRICT a, const uint8_t* b, size_t max) {
    size_t k = 0;
#if HWY_TARGET != HWY_SCALAR
    const size_t lanes = hn::Lanes(d);
    for (; k + lanes <= max; k += lanes) {
        const auto differ = hn::Ne(hn::LoadU(d, a + k), hn::LoadU(d, b + k));
        if (!hn::AllFalse(d, differ)) return k + size_t(hn::FindFirstTrue(d, differ));
    }
#else
    (void)d;
#endif
    for (; k + 8 <= max; k += 8) {
        uint64_t x, y;
        std::memcpy(&x, a + k, 8);
        std::memcpy(&y, b + k, 8);
        if (const uint64_t diff = x ^ y) return k + size_t(__builtin_ctzll(diff) >> 3);
    }
    while (k < max && a[k] == b[k]) ++k;
    return k;
}

// The greedy choice at data[at] (at >= 3): the match to take, as its token, or -1 for a literal.
template <class D>
HWY_INLINE int ChooseMatch(D d, const uint8_t* HWY_RESTRICT data, size_t at, size_t n, size_t* length) {
    const size_t max = std::min(kMaxMatch, n - at);
    size_t best = data[at] == data[at - 1] ? MatchLength(d, data + at, data + at - 1, max) : 0;
    int which = 0;
    if (best < max && data[at] == data[at - 3]) {
        const size_t len3 = MatchLength(d, data + at, data + at - 3, max);
        if (len3 > best) best = len3, which = 1;
    }
    *length = best;
    return best >= kMinMatch ? match_token(best, which) : -1;
}

// Greedy parse of data[at, n) into at most `max_tokens` tokens; returns the position reached.
size_t ParseBlock(const uint8_t* HWY_RESTRICT data, size_t at, size_t n, size_t max_tokens, ParsedBlock* block) {
    uint16_t* const tokens = block->tokens.data();
    size_t t = 0;
    const hn::ScalableTag<uint8_t> d;
    // The first bytes cannot reach back 3 (nor 1): a segment starts with an empty window.
    while (at < n && t < max_tokens && at < kDistance[kDistances - 1]) {
        const size_t max = std::min(kMaxMatch, n - at);
        const size_t length = at >= 1 ? MatchLength(d, data + at, data + at - 1, max) : 0;
        if (length >= kMinMatch) {
            tokens[t++] = match_token(length, 0);
            at += length;
        } else {
            tokens[t++] = data[at++];
        }
    }
#if HWY_TARGET != HWY_SCALAR
    const hn::Half<decltype(d)> dh;
    const hn::Rebind<uint16_t, decltype(dh)> d16;
    const size_t lanes = hn::Lanes(d), half = lanes / 2;
    // Bits 0..lanes-3: where a match of 3 can start and be seen inside one vector.
    const uint64_t decided = lanes >= 64 ? ~uint64_t(0) >> 2 : (uint64_t(1) << (lanes - 2)) - 1;
    while (at + lanes <= n && t < max_tokens) {
        const auto v = hn::LoadU(d, data + at);
        uint8_t bytes1[8] = {}, bytes3[8] = {};
        hn::StoreMaskBits(d, hn::Eq(v, hn::LoadU(d, data + at - 1)), bytes1);
        hn::StoreMaskBits(d, hn::Eq(v, hn::LoadU(d, data + at - 3)), bytes3);
        uint64_t same1, same3;  // bit i: data[at + i] equals the byte 1 (3) before it
        std::memcpy(&same1, bytes1, 8);
        std::memcpy(&same3, bytes3, 8);
        const uint64_t starts = ((same1 & same1 >> 1 & same1 >> 2) | (same3 & same3 >> 1 & same3 >> 2)) & decided;
        // The literals before the first start (all the decided bytes when there is none),
        // stored as the whole vector widened to tokens: the buffer has a vector of slack.
        const size_t count = std::min(starts ? size_t(__builtin_ctzll(starts)) : lanes - 2, max_tokens - t);
        hn::StoreU(hn::PromoteTo(d16, hn::LowerHalf(dh, v)), d16, tokens + t);
        hn::StoreU(hn::PromoteTo(d16, hn::UpperHalf(dh, v)), d16, tokens + t + half);
        t += count;
        at += count;
        if (!starts || t == max_tokens) continue;
        // A match starts at `at`, bit i of the masks. While a run ends inside the vector its
        // length is in the mask already (the lanes past the vector read as different): bit k of
        // `ends` says that byte at + k differs from the one 1 (3) before it, so the count of
        // trailing zeros is the run's length (0 when data[at] differs; 64 when none is set).
        // Both lengths are taken without a branch on the data; the greedy choice is the longer,
        // the one at distance 1 on a tie.
        const size_t i = count, inside = lanes - i;
        const size_t max = std::min(kMaxMatch, n - at);
        size_t len1 = size_t(std::countr_zero(~(same1 >> i)));
        size_t len3 = size_t(std::countr_zero(~(same3 >> i)));
        if (HWY_UNLIKELY(len1 >= inside || len3 >= inside)) {  // a run to the vector's end: go on
            const size_t rest = max - std::min(max, inside);
            if (len1 >= inside) len1 = inside + MatchLength(d, data + at + inside, data + at + inside - 1, rest);
            if (len3 >= inside) len3 = inside + MatchLength(d, data + at + inside, data + at + inside - 3, rest);
        }
        len1 = std::min(len1, max);
        len3 = std::min(len3, max);
        const size_t which = size_t(len3 > len1), best = std::max(len1, len3);  // (a select, not a branch)
        tokens[t++] = uint16_t(257 - kMinMatch + (which << 8) + best);  // match_token(best, which), as arithmetic
        at += best;
    }
#endif
    // The last bytes, fewer than a vector (or all of them on the scalar target).
    while (at < n && t < max_tokens) {
        size_t length = 0;
        const int token = ChooseMatch(d, data, at, n, &length);
        if (token >= 0) {
            tokens[t++] = uint16_t(token);
            at += length;
        } else {
            tokens[t++] = data[at++];
        }
    }
    block->count = t;
    return at;
}

// The tokens' symbol counts: four histograms in turn, so that a run of equal tokens does not
// wait on its own counter's last store; then the matches' tokens folded into their length
// symbols and distances.
void CountSymbols(const uint16_t* HWY_RESTRICT tokens, size_t n, SymbolCounts* counts) {
    uint32_t h[4][kTokenSymbols] = {};
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        ++h[0][tokens[k]];
        ++h[1][tokens[k + 1]];
        ++h[2][tokens[k + 2]];
        ++h[3][tokens[k + 3]];
    }
    for (; k < n; ++k) ++h[0][tokens[k]];
    for (int s = 0; s < kTokenSymbols; ++s) h[0][s] += h[1][s] + h[2][s] + h[3][s];
    for (int s = 0; s < 256; ++s) counts->literal_length[s] = h[0][s];
    for (int dist = 0; dist < kDistances; ++dist) {
        for (size_t len = kMinMatch; len <= kMaxMatch; ++len) {
            const uint32_t c = h[0][match_token(len, dist)];
            counts->literal_length[kLengths.symbol[len]] += c;
            counts->distance[dist] += c;
        }
    }
}

// The block's tokens through its codes (begin_block reserved the room for them), and its end:
// `per_store` tokens into the 64-bit buffer, then one 8-byte store, the same few instructions for
// every token with no branch to mispredict. Fewer than 8 bits wait after a store, so 3 tokens of
// up to 19 bits fit, and 2 of up to 28.
template <int per_store>
void EmitTokens(BitWriter& w, const BlockCodes& codes, const uint16_t* HWY_RESTRICT tokens, size_t n) {
    uint8_t* out = w.base + w.pos;
    uint64_t buffer = w.buffer;
    uint64_t count = w.count;
    const uint64_t* const table = codes.token;
    auto add = [&](uint64_t code) {
        buffer |= (code >> 8) << count;
        count += code & 0xff;
    };
    auto store = [&] {
        std::memcpy(out, &buffer, 8);
        out += count >> 3;
        buffer >>= count & ~uint64_t(7);
        count &= 7;
    };
    size_t t = 0;
    for (; t + per_store <= n; t += per_store) {
        for (int k = 0; k < per_store; ++k) add(table[tokens[t + size_t(k)]]);
        store();
    }
    for (; t < n; ++t) {
        add(table[tokens[t]]);
        store();
    }
    add(table[kEndOfBlockToken]);
    store();
    w.pos = size_t(out - w.base);
    w.buffer = buffer;
    w.count = unsigned(count);
}

void EmitBlock(BitWriter& w, const BlockCodes& codes, const uint16_t* HWY_RESTRICT tokens, size_t n) {
    if (codes.max_token_bits <= 19) EmitTokens<3>(w, codes, tokens, n);
    else EmitTokens<2>(w, codes, tokens, n);  // 15 + 5 + 1 = 21 at most
}

void DeflateSegment(const uint8_t* HWY_RESTRICT data, size_t n, std::vector<uint8_t>* out) {
    BitWriter w{out, out->size()};
    // Kept per thread: fresh buffers per segment are fresh mappings from the kernel and page
    // faults on every use.
    thread_local ParsedBlock block;
    if (block.tokens.size() < kPngDeflateBlockTokens + HWY_MAX_BYTES)
        block.tokens.resize(kPngDeflateBlockTokens + HWY_MAX_BYTES);
    size_t at = 0;
    while (at < n) {
        const size_t end = ParseBlock(data, at, n, kPngDeflateBlockTokens, &block);
        SymbolCounts counts;
        CountSymbols(block.tokens.data(), block.count, &counts);
        BlockCodes codes;
        if (begin_block(w, counts, data, at, end, &codes)) EmitBlock(w, codes, block.tokens.data(), block.count);
        at = end;
    }
    // The empty stored block of a sync flush: the stream stops on a byte boundary, unfinished.
    put_stored(w, data, n, n);
    out->resize(w.pos);
}

}  // namespace HWY_NAMESPACE
}  // namespace ms::png_deflate_simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ms {

namespace png_deflate_simd {
HWY_EXPORT(DeflateSegment);
}  // namespace png_deflate_simd

void png_deflate_segment(const uint8_t* data, size_t n, std::vector<uint8_t>* out) {
    HWY_DYNAMIC_DISPATCH(png_deflate_simd::DeflateSegment)(data, n, out);
}

}  // namespace ms
#endif  // HWY_ONCE
