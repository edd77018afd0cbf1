// png_deflate.cpp: the PNG-specialised deflate encoder (see png_deflate.h for the scheme).
// Written from RFC 1951; section numbers below refer to it.
#include "compute/io/png_deflate.h"

#include <algorithm>
#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "png_deflate.cpp packs bits with little-endian 64-bit stores"
#endif

namespace ms {

namespace {

constexpr int kLitLenSymbols = 286;  // 0..255 literals, 256 end of block, 257..285 lengths
constexpr int kDistSymbols = 30;
constexpr int kCodeLengthSymbols = 19;
constexpr int kEndOfBlock = 256;
constexpr int kMaxBits = 15;            // longest literal/length or distance code (3.2.7)
constexpr int kMaxCodeLengthBits = 7;   // longest code of the code-length alphabet
constexpr size_t kMinMatch = 3, kMaxMatch = 258;
constexpr size_t kMaxStoredBlock = 65535;

// The distances searched, and their distance codes (3.2.5: distances 1 and 3 are codes 0 and
// 2, with no extra bits). Paeth-filtered RGB repeats a byte or a pixel.
constexpr int kDistances = 2;
constexpr uint32_t kDistance[kDistances] = {1, 3};
constexpr int kDistanceCode[kDistances] = {0, 2};

// 3.2.5: the length codes 257..285, their first length and extra bits.
constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
// 3.2.7: the order in which the code-length code's lengths are sent.
constexpr uint8_t kCodeLengthOrder[kCodeLengthSymbols] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

// Match length -> its length symbol (257..285), extra bits and their value.
struct LengthTable {
    uint16_t symbol[kMaxMatch + 1] = {};
    uint8_t extra_bits[kMaxMatch + 1] = {};
    uint16_t extra_value[kMaxMatch + 1] = {};
    LengthTable() {
        for (int code = 0; code < 29; ++code) {
            const int span = code == 28 ? 1 : 1 << kLengthExtra[code];
            for (int k = 0; k < span; ++k) {
                const int length = kLengthBase[code] + k;
                if (length > int(kMaxMatch)) break;
                symbol[length] = uint16_t(257 + code);
                extra_bits[length] = kLengthExtra[code];
                extra_value[length] = uint16_t(k);
            }
        }
    }
};
const LengthTable kLengths;

// A token is a literal byte (0..255) or a match: kMatchFlag | distance index << 16 | length.
constexpr uint32_t kMatchFlag = 0x80000000u;

// How many bytes from a and b (b < a: overlapping is what a run is) agree, up to `max`.
inline size_t match_length(const uint8_t* a, const uint8_t* b, size_t max) {
    size_t k = 0;
    while (k + 8 <= max) {
        uint64_t x, y;
        std::memcpy(&x, a + k, 8);
        std::memcpy(&y, b + k, 8);
        if (const uint64_t diff = x ^ y) return k + size_t(__builtin_ctzll(diff) >> 3);
        k += 8;
    }
    while (k < max && a[k] == b[k]) ++k;
    return k;
}

// How often each literal/length symbol and each distance occurs in a block's tokens.
struct SymbolCounts {
    uint32_t literal_length[kLitLenSymbols] = {};
    uint32_t distance[kDistances] = {};  // by index into kDistance
};

// Greedy parse of data[at, n) into at most `max_tokens` tokens, counted into *counts as they are
// made (a second pass over the tokens cost a quarter of emitting them); returns the position
// reached.
size_t tokenise(const uint8_t* data, size_t at, size_t n, uint32_t* tokens, size_t max_tokens, size_t* token_count,
                SymbolCounts* counts) {
    size_t t = 0;
    uint32_t* const lit_freq = counts->literal_length;
    // The first bytes cannot reach back 3 (nor 1): a segment starts with an empty window.
    while (at < n && t < max_tokens && at < kDistance[kDistances - 1]) {
        const size_t max = std::min(kMaxMatch, n - at);
        const size_t run = at >= 1 ? match_length(data + at, data + at - 1, max) : 0;
        if (run >= kMinMatch) {
            tokens[t++] = kMatchFlag | uint32_t(run);
            ++lit_freq[kLengths.symbol[run]];
            ++counts->distance[0];
            at += run;
        } else {
            ++lit_freq[data[at]];
            tokens[t++] = data[at++];
        }
    }
    while (at < n && t < max_tokens) {
#if defined(__SSE2__)
        // 16 bytes at once: where no match of 3 or more starts in the first 14 (neither byte i,
        // i+1, i+2 equal to the ones 1 back, nor to the ones 3 back), all 14 are literals. The
        // greedy choice below would make the same tokens, one mispredicted branch at a time.
        if (at + 16 <= n && t + 14 <= max_tokens) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at));
            const unsigned eq1 = unsigned(_mm_movemask_epi8(
                _mm_cmpeq_epi8(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at - 1)))));
            const unsigned eq3 = unsigned(_mm_movemask_epi8(
                _mm_cmpeq_epi8(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + at - 3)))));
            const unsigned starts = ((eq1 & eq1 >> 1 & eq1 >> 2) | (eq3 & eq3 >> 1 & eq3 >> 2)) & 0x3fff;
            const size_t literals = starts ? size_t(__builtin_ctz(starts)) : 14;
            for (size_t k = 0; k < literals; ++k) {
                tokens[t + k] = data[at + k];
                ++lit_freq[data[at + k]];
            }
            t += literals;
            at += literals;
            if (literals == 14) continue;
        }
#endif
        const uint8_t byte = data[at];
        const bool same1 = byte == data[at - 1], same3 = byte == data[at - 3];
        if (!same1 && !same3) {  // the common literal: no compare loop at all
            tokens[t++] = byte;
            ++lit_freq[byte];
            ++at;
            continue;
        }
        const size_t max = std::min(kMaxMatch, n - at);
        size_t best = same1 ? match_length(data + at, data + at - 1, max) : 0;
        uint32_t which = 0;
        if (same3 && best < max) {
            const size_t len3 = match_length(data + at, data + at - 3, max);
            if (len3 > best) best = len3, which = 1;
        }
        if (best >= kMinMatch) {
            tokens[t++] = kMatchFlag | which << 16 | uint32_t(best);
            ++lit_freq[kLengths.symbol[best]];
            ++counts->distance[which];
            at += best;
        } else {
            tokens[t++] = byte;
            ++lit_freq[byte];
            ++at;
        }
    }
    *token_count = t;
    return at;
}

// LSB-first bit packing (3.1.1) with a 64-bit buffer; after each put fewer than 8 bits wait, so
// one put may carry up to 56 bits. Each put stores 8 bytes: the caller keeps 8 bytes of slack.
// Hot loops work on a local copy (see put_block), so that its fields stay in registers.
struct BitWriter {
    std::vector<uint8_t>* out;
    size_t pos = 0;  // bytes complete
    uint64_t buffer = 0;
    int count = 0;   // bits waiting in `buffer`, < 8 between puts
    uint8_t* base = nullptr;  // out->data(), as of the last reserve

    // Room for `bytes` more bytes (plus the slack of the 8-byte stores).
    void reserve(size_t bytes) {
        if (out->size() < pos + bytes + 16) out->resize(std::max(pos + bytes + 16, out->size() + out->size() / 2));
        base = out->data();
    }
    void put(uint64_t bits, int n) {
        buffer |= bits << count;
        count += n;
        std::memcpy(base + pos, &buffer, 8);
        pos += size_t(count >> 3);
        buffer >>= count & ~7;
        count &= 7;
    }
    void align() {  // pad with zero bits to the byte
        if (count > 0) put(0, 8 - count);
    }
};

// Canonical codes from lengths (3.2.2), bit-reversed for LSB-first packing.
void canonical_codes(const uint8_t* lengths, int count, uint16_t* codes) {
    int bl_count[kMaxBits + 1] = {};
    for (int s = 0; s < count; ++s) ++bl_count[lengths[s]];
    bl_count[0] = 0;
    uint32_t next_code[kMaxBits + 2] = {};
    uint32_t code = 0;
    for (int bits = 1; bits <= kMaxBits; ++bits) {
        code = (code + uint32_t(bl_count[bits - 1])) << 1;
        next_code[bits] = code;
    }
    for (int s = 0; s < count; ++s) {
        const int len = lengths[s];
        if (len == 0) {
            codes[s] = 0;
            continue;
        }
        uint32_t c = next_code[len]++, reversed = 0;
        for (int b = 0; b < len; ++b, c >>= 1) reversed = reversed << 1 | (c & 1);
        codes[s] = uint16_t(reversed);
    }
}

// One symbol of the code-length alphabet (3.2.7) with its extra bits.
struct CodeLengthSymbol {
    uint8_t symbol;
    uint8_t extra;
};

// Run-length codes the lengths of both alphabets as one sequence (runs may cross from one to
// the other, 3.2.7).
int code_length_symbols(const uint8_t* lengths, int total, CodeLengthSymbol* out) {
    int n = 0;
    for (int i = 0; i < total;) {
        const uint8_t v = lengths[i];
        int run = 1;
        while (i + run < total && lengths[i + run] == v) ++run;
        i += run;
        if (v == 0) {
            while (run >= 11) {
                const int r = std::min(run, 138);
                out[n++] = {18, uint8_t(r - 11)};
                run -= r;
            }
            if (run >= 3) {
                out[n++] = {17, uint8_t(run - 3)};
                run = 0;
            }
        } else {
            out[n++] = {v, 0};
            --run;
            while (run >= 3) {
                const int r = std::min(run, 6);
                out[n++] = {16, uint8_t(r - 3)};
                run -= r;
            }
        }
        while (run-- > 0) out[n++] = {v, 0};
    }
    return n;
}

constexpr uint8_t kCodeLengthExtraBits[kCodeLengthSymbols] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7};

// Emits data[from, to) as stored blocks (3.2.4), non-final.
void put_stored(BitWriter& w, const uint8_t* data, size_t from, size_t to) {
    do {
        const size_t len = std::min(kMaxStoredBlock, to - from);
        w.reserve(len + 8);
        w.put(0, 3);  // BFINAL 0, BTYPE 00
        w.align();
        const uint32_t header = uint32_t(len) | uint32_t(~len & 0xffff) << 16;
        std::memcpy(w.base + w.pos, &header, 4);
        w.pos += 4;
        if (len > 0) std::memcpy(w.base + w.pos, data + from, len);
        w.pos += len;
        from += len;
    } while (from < to);
}

// One block over tokens that cover data[from, to): a dynamic Huffman block, or stored bytes
// when those are smaller.
void put_block(BitWriter& w, const uint32_t* tokens, size_t token_count, SymbolCounts& counts, const uint8_t* data,
               size_t from, size_t to) {
    uint32_t* const lit_freq = counts.literal_length;
    uint32_t dist_freq[kDistSymbols] = {};
    lit_freq[kEndOfBlock] = 1;
    for (int d = 0; d < kDistances; ++d) dist_freq[kDistanceCode[d]] = counts.distance[d];
    // Give code 0 a length even when no match uses it: some decoders refuse a block without
    // any distance code (png_huffman_lengths then adds a second, keeping the code complete).
    uint32_t dist_freq_coded[kDistSymbols];
    std::copy(dist_freq, dist_freq + kDistSymbols, dist_freq_coded);
    if (dist_freq_coded[0] == 0) dist_freq_coded[0] = 1;

    uint8_t lengths[kLitLenSymbols + kDistSymbols];
    uint8_t* lit_len = lengths;
    uint8_t* dist_len = lengths + kLitLenSymbols;
    png_huffman_lengths(lit_freq, kLitLenSymbols, kMaxBits, lit_len);
    png_huffman_lengths(dist_freq_coded, kDistSymbols, kMaxBits, dist_len);
    int hlit = kLitLenSymbols, hdist = kDistSymbols;
    while (hlit > 257 && lit_len[hlit - 1] == 0) --hlit;
    while (hdist > 1 && dist_len[hdist - 1] == 0) --hdist;
    // The two sequences back to back, as 3.2.7 sends them.
    uint8_t sequence[kLitLenSymbols + kDistSymbols];
    std::copy(lit_len, lit_len + hlit, sequence);
    std::copy(dist_len, dist_len + hdist, sequence + hlit);
    CodeLengthSymbol cl_symbols[kLitLenSymbols + kDistSymbols];
    const int cl_count = code_length_symbols(sequence, hlit + hdist, cl_symbols);
    uint32_t cl_freq[kCodeLengthSymbols] = {};
    for (int i = 0; i < cl_count; ++i) ++cl_freq[cl_symbols[i].symbol];
    uint8_t cl_len[kCodeLengthSymbols];
    png_huffman_lengths(cl_freq, kCodeLengthSymbols, kMaxCodeLengthBits, cl_len);
    int hclen = kCodeLengthSymbols;
    while (hclen > 4 && cl_len[kCodeLengthOrder[hclen - 1]] == 0) --hclen;

    // The block's exact size in bits, to choose between it and stored blocks.
    uint64_t bits = 3 + 5 + 5 + 4 + 3 * uint64_t(hclen);
    for (int i = 0; i < cl_count; ++i) bits += cl_len[cl_symbols[i].symbol] + kCodeLengthExtraBits[cl_symbols[i].symbol];
    for (int s = 0; s < kLitLenSymbols; ++s) bits += uint64_t(lit_freq[s]) * lit_len[s];
    for (int code = 0; code < 29; ++code) bits += uint64_t(lit_freq[257 + code]) * kLengthExtra[code];
    for (int s = 0; s < kDistSymbols; ++s) bits += uint64_t(dist_freq[s]) * dist_len[s];  // no extra bits at 1 or 3
    const size_t stored_blocks = std::max<size_t>(1, (to - from + kMaxStoredBlock - 1) / kMaxStoredBlock);
    const uint64_t stored_bits = uint64_t(to - from) * 8 + stored_blocks * (5 * 8 + 7);
    if (stored_bits < bits) {
        put_stored(w, data, from, to);
        return;
    }

    w.reserve(size_t(bits / 8) + 16);
    uint16_t lit_code[kLitLenSymbols], dist_code[kDistSymbols], cl_code[kCodeLengthSymbols];
    canonical_codes(lit_len, kLitLenSymbols, lit_code);
    canonical_codes(dist_len, kDistSymbols, dist_code);
    canonical_codes(cl_len, kCodeLengthSymbols, cl_code);

    w.put(2 << 1, 3);  // BFINAL 0, BTYPE 10 (dynamic Huffman codes)
    w.put(uint64_t(hlit - 257) | uint64_t(hdist - 1) << 5 | uint64_t(hclen - 4) << 10, 14);
    for (int i = 0; i < hclen; ++i) w.put(cl_len[kCodeLengthOrder[i]], 3);
    for (int i = 0; i < cl_count; ++i) {
        const CodeLengthSymbol& c = cl_symbols[i];
        w.put(cl_code[c.symbol] | uint64_t(c.extra) << cl_len[c.symbol], cl_len[c.symbol] + kCodeLengthExtraBits[c.symbol]);
    }

    // Every match's bits (length code, its extra bits, distance code) as one put, by length.
    uint64_t match_bits[kDistances][kMaxMatch + 1];  // up to 15 + 5 + 15 bits
    uint8_t match_nbits[kDistances][kMaxMatch + 1];
    for (int d = 0; d < kDistances; ++d) {
        const int dc = kDistanceCode[d];
        for (size_t len = kMinMatch; len <= kMaxMatch; ++len) {
            const int sym = kLengths.symbol[len];
            const int nl = lit_len[sym], ne = kLengths.extra_bits[len];
            match_bits[d][len] = uint64_t(lit_code[sym]) | uint64_t(kLengths.extra_value[len]) << nl |
                                 uint64_t(dist_code[dc]) << (nl + ne);
            match_nbits[d][len] = uint8_t(nl + ne + dist_len[dc]);
        }
    }
    BitWriter local = w;  // in registers for the loop (w's fields would go through memory)
    for (size_t t = 0; t < token_count; ++t) {
        const uint32_t token = tokens[t];
        if (token & kMatchFlag) {
            const uint32_t d = (token >> 16) & 0x7fff, len = token & 0xffff;
            local.put(match_bits[d][len], match_nbits[d][len]);
        } else {
            local.put(lit_code[token], lit_len[token]);
        }
    }
    local.put(lit_code[kEndOfBlock], lit_len[kEndOfBlock]);
    w = local;
}

}  // namespace

void png_huffman_lengths(const uint32_t* freq, int count, int max_bits, uint8_t* lengths) {
    struct Leaf {
        uint32_t freq;
        uint16_t symbol;
    };
    std::array<Leaf, kLitLenSymbols> leaves;
    int m = 0;
    for (int s = 0; s < count; ++s) {
        lengths[s] = 0;
        if (freq[s] > 0) leaves[size_t(m++)] = {freq[s], uint16_t(s)};
    }
    if (m == 0) return;
    if (m == 1) {  // one symbol still needs a one-bit code, and a partner keeps the code complete
        lengths[leaves[0].symbol] = 1;
        lengths[leaves[0].symbol == 0 ? 1 : 0] = 1;
        return;
    }
    std::sort(leaves.begin(), leaves.begin() + m,
              [](const Leaf& a, const Leaf& b) { return a.freq != b.freq ? a.freq < b.freq : a.symbol < b.symbol; });

    // Huffman's algorithm with two queues: the sorted leaves, and the internal nodes, which are
    // made in order of weight. Nodes 0..m-1 are the leaves, m..2m-2 the internal nodes.
    std::array<uint64_t, 2 * kLitLenSymbols> weight;
    std::array<int, 2 * kLitLenSymbols> parent;
    for (int i = 0; i < m; ++i) weight[size_t(i)] = leaves[size_t(i)].freq;
    int next_leaf = 0, next_inner = m;
    auto take = [&](int made) {
        if (next_leaf < m && (next_inner >= made || weight[size_t(next_leaf)] <= weight[size_t(next_inner)]))
            return next_leaf++;
        return next_inner++;
    };
    for (int node = m; node < 2 * m - 1; ++node) {
        const int a = take(node), b = take(node);
        weight[size_t(node)] = weight[size_t(a)] + weight[size_t(b)];
        parent[size_t(a)] = parent[size_t(b)] = node;
    }
    // Depths, from the root down (a parent is made after its children).
    std::array<int, 2 * kLitLenSymbols> depth;
    depth[size_t(2 * m - 2)] = 0;
    int bl_count[kMaxBits + 1] = {};
    for (int node = 2 * m - 3; node >= 0; --node) {
        depth[size_t(node)] = depth[size_t(parent[size_t(node)])] + 1;
        if (node < m) ++bl_count[std::min(depth[size_t(node)], max_bits)];
    }
    // Codes longer than max_bits were cut to max_bits: the Kraft sum is now above 1. Take it back
    // down one unit at a time: a leaf leaves the bottom level, and a shorter leaf moves down one
    // level beside it, which makes room for both there (the sum drops by exactly one unit).
    uint64_t kraft = 0;
    for (int len = 1; len <= max_bits; ++len) kraft += uint64_t(bl_count[len]) << (max_bits - len);
    while (kraft > (uint64_t(1) << max_bits)) {
        --bl_count[max_bits];
        for (int len = max_bits - 1; len > 0; --len) {
            if (bl_count[len] > 0) {
                --bl_count[len];
                bl_count[len + 1] += 2;
                break;
            }
        }
        --kraft;
    }
    // The rarest symbols get the longest codes.
    int leaf = 0;
    for (int len = max_bits; len >= 1; --len)
        for (int k = 0; k < bl_count[len]; ++k) lengths[leaves[size_t(leaf++)].symbol] = uint8_t(len);
}

void png_deflate_segment(const uint8_t* data, size_t n, std::vector<uint8_t>* out) {
    BitWriter w{out, out->size()};
    // Kept per thread: a fresh 128 KiB buffer per segment is a fresh mapping from the kernel
    // (glibc maps blocks that size) and page faults on every use.
    thread_local std::vector<uint32_t> tokens(kPngDeflateBlockTokens);
    size_t at = 0;
    while (at < n) {
        size_t token_count = 0;
        SymbolCounts counts;
        const size_t end = tokenise(data, at, n, tokens.data(), tokens.size(), &token_count, &counts);
        put_block(w, tokens.data(), token_count, counts, data, at, end);
        at = end;
    }
    // The empty stored block of a sync flush: the stream stops on a byte boundary, unfinished.
    put_stored(w, data, n, n);
    out->resize(w.pos);
}

}  // namespace ms
