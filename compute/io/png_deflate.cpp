// png_deflate.cpp: the PNG-specialised deflate encoder (see png_deflate.h for the scheme), its
// parse and emit loops compiled once per SIMD target with Google Highway (dynamic dispatch:
// foreach_target.h re-includes this file once per target). The block headers, once per 32K
// symbols, are scalar (png_deflate_blocks.cpp). Section numbers refer to RFC 1951.
//
// Per block, three passes over data that stays in the core's caches:
// 1. Parse: a vector of N bytes (64 with AVX-512) is compared with itself 1 and 3 bytes back;
//    the two bit masks say at once where the next match of 3 or more bytes starts. The bytes
//    before it are literals: the whole vector is stored to the block's literal buffer and the
//    count advanced (no branch per byte). A match's length comes from the same masks while it
//    ends inside the vector, else from N-byte compares further on. The result is a list of
//    sequences (so many literals, then one match), as zstd represents a block.
// 2. Count the literals' symbols: four histograms in turn, so that a run of equal bytes does
//    not wait on its own counter's last store.
// 3. Emit: three literal codes into the 64-bit bit buffer per 8-byte store (3 x 15 bits + 7
//    waiting fit), then each match as one bit string.
// The tokens are those of a greedy parse (at each byte the longer of the two matches, the one
// at distance 1 on a tie, else a literal), cut into blocks of kPngDeflateBlockTokens symbols:
// the output is the same, bit for bit, as the one-token-at-a-time encoder this replaced.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/io/png_deflate.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per SIMD target
#include <hwy/highway.h>

#include <algorithm>
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

// `literals` literal bytes, then (when match_length > 0) one match.
struct Sequence {
    uint32_t literals;
    uint16_t match_length;
    uint16_t distance_index;  // into kDistance
};

// One block's parse, in buffers kept per thread.
struct ParsedBlock {
    std::vector<uint8_t> literals;  // kPngDeflateBlockTokens + a vector of slack
    std::vector<Sequence> sequences;  // kPngDeflateBlockTokens + 1
    size_t literal_count = 0, sequence_count = 0;
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

// The greedy choice at data[at] (at >= 3): the match to take (length 0: a literal).
template <class D>
HWY_INLINE Sequence ChooseMatch(D d, const uint8_t* HWY_RESTRICT data, size_t at, size_t n) {
    const size_t max = std::min(kMaxMatch, n - at);
    size_t best = data[at] == data[at - 1] ? MatchLength(d, data + at, data + at - 1, max) : 0;
    uint16_t which = 0;
    if (best < max && data[at] == data[at - 3]) {
        const size_t len3 = MatchLength(d, data + at, data + at - 3, max);
        if (len3 > best) best = len3, which = 1;
    }
    return {0, uint16_t(best >= kMinMatch ? best : 0), which};
}

// Greedy parse of data[at, n) into at most `max_tokens` symbols (a literal or a match is one),
// counting the matches' symbols into *counts; returns the position reached.
size_t ParseBlock(const uint8_t* HWY_RESTRICT data, size_t at, size_t n, size_t max_tokens, ParsedBlock* block,
                  SymbolCounts* counts) {
    uint8_t* const literals = block->literals.data();
    Sequence* const sequences = block->sequences.data();
    size_t tokens = 0, nl = 0, ns = 0;
    uint32_t run = 0;  // literals since the last match
    const hn::ScalableTag<uint8_t> d;
    auto take_match = [&](const Sequence& m) {
        sequences[ns++] = {run, m.match_length, m.distance_index};
        run = 0;
        ++tokens;
        ++counts->literal_length[kLengths.symbol[m.match_length]];
        ++counts->distance[m.distance_index];
        at += m.match_length;
    };
    auto take_literal = [&] {
        literals[nl++] = data[at++];
        ++run;
        ++tokens;
    };
    // The first bytes cannot reach back 3 (nor 1): a segment starts with an empty window.
    while (at < n && tokens < max_tokens && at < kDistance[kDistances - 1]) {
        const size_t max = std::min(kMaxMatch, n - at);
        const size_t length = at >= 1 ? MatchLength(d, data + at, data + at - 1, max) : 0;
        if (length >= kMinMatch)
            take_match({0, uint16_t(length), 0});
        else
            take_literal();
    }
#if HWY_TARGET != HWY_SCALAR
    const size_t lanes = hn::Lanes(d);
    // Bits 0..lanes-3: where a match of 3 can start and be seen inside one vector.
    const uint64_t decided = lanes >= 64 ? ~uint64_t(0) >> 2 : (uint64_t(1) << (lanes - 2)) - 1;
    while (at + lanes <= n && tokens < max_tokens) {
        const auto v = hn::LoadU(d, data + at);
        uint8_t bytes1[8] = {}, bytes3[8] = {};
        hn::StoreMaskBits(d, hn::Eq(v, hn::LoadU(d, data + at - 1)), bytes1);
        hn::StoreMaskBits(d, hn::Eq(v, hn::LoadU(d, data + at - 3)), bytes3);
        uint64_t same1, same3;  // bit i: data[at + i] equals the byte 1 (3) before it
        std::memcpy(&same1, bytes1, 8);
        std::memcpy(&same3, bytes3, 8);
        const uint64_t starts = ((same1 & same1 >> 1 & same1 >> 2) | (same3 & same3 >> 1 & same3 >> 2)) & decided;
        // The literals before the first start (all the decided bytes when there is none),
        // stored as the whole vector: the buffer has a vector of slack.
        const size_t count = std::min(starts ? size_t(__builtin_ctzll(starts)) : lanes - 2, max_tokens - tokens);
        hn::StoreU(v, d, literals + nl);
        nl += count;
        run += uint32_t(count);
        tokens += count;
        at += count;
        if (!starts || tokens == max_tokens) continue;
        // A match starts at `at`, bit i of the masks. While a run ends inside the vector its
        // length is in the mask already (the lanes past the vector read as different).
        const size_t i = count, inside = lanes - i;
        const size_t max = std::min(kMaxMatch, n - at);
        // Bit k of ends: byte at + k differs from the one 1 (3) before; none set: all 64 agree.
        const uint64_t ends1 = ~(same1 >> i), ends3 = ~(same3 >> i);
        size_t best = ends1 ? size_t(__builtin_ctzll(ends1)) : 64;  // 0 when data[at] != data[at - 1]
        if (best >= inside) best = inside + MatchLength(d, data + at + inside, data + at + inside - 1, max - std::min(max, inside));
        best = std::min(best, max);
        uint16_t which = 0;
        if (best < max && (same3 >> i & 1)) {
            size_t len3 = ends3 ? size_t(__builtin_ctzll(ends3)) : 64;
            if (len3 >= inside)
                len3 = inside + MatchLength(d, data + at + inside, data + at + inside - 3, max - std::min(max, inside));
            len3 = std::min(len3, max);
            if (len3 > best) best = len3, which = 1;
        }
        take_match({0, uint16_t(best), which});
    }
#endif
    // The last bytes, fewer than a vector (or all of them on the scalar target).
    while (at < n && tokens < max_tokens) {
        const Sequence m = ChooseMatch(d, data, at, n);
        if (m.match_length)
            take_match(m);
        else
            take_literal();
    }
    if (run > 0) sequences[ns++] = {run, 0, 0};
    block->literal_count = nl;
    block->sequence_count = ns;
    return at;
}

// The literals' symbol counts, four histograms in turn (see the top of the file).
void CountLiterals(const uint8_t* HWY_RESTRICT literals, size_t n, uint32_t* HWY_RESTRICT freq) {
    uint32_t h[4][256] = {};
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        ++h[0][literals[k]];
        ++h[1][literals[k + 1]];
        ++h[2][literals[k + 2]];
        ++h[3][literals[k + 3]];
    }
    for (; k < n; ++k) ++h[0][literals[k]];
    for (int s = 0; s < 256; ++s) freq[s] += h[0][s] + h[1][s] + h[2][s] + h[3][s];
}

// The block's symbols through its codes (begin_block reserved the room for them).
void EmitBlock(BitWriter& w, const BlockCodes& codes, const uint8_t* HWY_RESTRICT literals,
               const Sequence* HWY_RESTRICT sequences, size_t sequence_count) {
    uint8_t* const out = w.base;
    size_t pos = w.pos;
    uint64_t buffer = w.buffer;
    unsigned count = w.count;
    const uint32_t* const lit = codes.literal;
    auto add = [&](uint64_t bits, unsigned n) {
        buffer |= bits << count;
        count += n;
    };
    auto add_literal = [&](uint8_t byte) {
        const uint32_t e = lit[byte];
        add(e & 0xffff, e >> 16);
    };
    auto flush = [&] {
        std::memcpy(out + pos, &buffer, 8);
        pos += count >> 3;
        buffer >>= count & ~7u;
        count &= 7;
    };
    for (size_t s = 0; s < sequence_count; ++s) {
        const Sequence q = sequences[s];
        const uint8_t* p = literals;
        literals += q.literals;
        size_t left = q.literals;
        for (; left >= 3; left -= 3, p += 3) {  // 3 codes of up to 15 bits, and 7 waiting
            add_literal(p[0]);
            add_literal(p[1]);
            add_literal(p[2]);
            flush();
        }
        if (left > 0) {
            add_literal(p[0]);
            if (left > 1) add_literal(p[1]);
            flush();
        }
        if (q.match_length) {
            add(codes.match_bits[q.distance_index][q.match_length], codes.match_nbits[q.distance_index][q.match_length]);
            flush();
        }
    }
    add(codes.end_of_block & 0xffff, codes.end_of_block >> 16);
    flush();
    w.pos = pos;
    w.buffer = buffer;
    w.count = count;
}

void DeflateSegment(const uint8_t* HWY_RESTRICT data, size_t n, std::vector<uint8_t>* out) {
    BitWriter w{out, out->size()};
    // Kept per thread: fresh buffers per segment are fresh mappings from the kernel and page
    // faults on every use.
    thread_local ParsedBlock block;
    if (block.sequences.size() < kPngDeflateBlockTokens + 1) {
        block.literals.resize(kPngDeflateBlockTokens + HWY_MAX_BYTES);
        block.sequences.resize(kPngDeflateBlockTokens + 1);
    }
    size_t at = 0;
    while (at < n) {
        SymbolCounts counts;
        const size_t end = ParseBlock(data, at, n, kPngDeflateBlockTokens, &block, &counts);
        CountLiterals(block.literals.data(), block.literal_count, counts.literal_length);
        BlockCodes codes;
        if (begin_block(w, counts, data, at, end, &codes))
            EmitBlock(w, codes, block.literals.data(), block.sequences.data(), block.sequence_count);
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
