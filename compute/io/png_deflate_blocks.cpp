// png_deflate_blocks.cpp: block headers for png_deflate.h's encoder (see png_deflate_blocks.h):
// length-limited Huffman codes from a block's counts, their canonical form, the code-length
// code that sends them, and stored blocks. Written from RFC 1951; section numbers refer to it.
#include "compute/io/png_deflate_blocks.h"

#include <algorithm>
#include <array>

#include "compute/io/png_deflate.h"

namespace ms::deflate {

namespace {

constexpr int kCodeLengthSymbols = 19;
constexpr int kMaxBits = 15;           // longest literal/length or distance code (3.2.7)
constexpr int kMaxCodeLengthBits = 7;  // longest code of the code-length alphabet
constexpr size_t kMaxStoredBlock = 65535;
constexpr int kDistanceCode[kDistances] = {0, 2};  // the codes of distances 1 and 3

// 3.2.7: the order in which the code-length code's lengths are sent.
constexpr uint8_t kCodeLengthOrder[kCodeLengthSymbols] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
constexpr uint8_t kCodeLengthExtraBits[kCodeLengthSymbols] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7};

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
        // The code's `len` bits reversed: all 16 bits swapped in halves, then shifted down (a
        // bit-at-a-time loop here was a tenth of the encoder's time per block).
        uint32_t c = next_code[len]++;
        c = (c & 0x5555u) << 1 | (c >> 1 & 0x5555u);
        c = (c & 0x3333u) << 2 | (c >> 2 & 0x3333u);
        c = (c & 0x0f0fu) << 4 | (c >> 4 & 0x0f0fu);
        c = (c & 0x00ffu) << 8 | (c >> 8 & 0x00ffu);
        codes[s] = uint16_t(c >> (16 - len));
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

}  // namespace

void BitWriter::reserve(size_t bytes) {
    if (out->size() < pos + bytes + 16) out->resize(std::max(pos + bytes + 16, out->size() + out->size() / 2));
    base = out->data();
}

void put_stored(BitWriter& w, const uint8_t* data, size_t from, size_t to) {
    do {
        const size_t len = std::min(kMaxStoredBlock, to - from);
        w.reserve(len + 8);
        w.put(0, 3);  // BFINAL 0, BTYPE 00
        if (w.count > 0) w.put(0, 8 - w.count);  // to the byte
        const uint32_t header = uint32_t(len) | uint32_t(~len & 0xffff) << 16;
        std::memcpy(w.base + w.pos, &header, 4);
        w.pos += 4;
        if (len > 0) std::memcpy(w.base + w.pos, data + from, len);
        w.pos += len;
        from += len;
    } while (from < to);
}

bool begin_block(BitWriter& w, SymbolCounts& counts, const uint8_t* data, size_t from, size_t to, BlockCodes* codes) {
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
    for (int code = 0; code < 29; ++code) bits += uint64_t(lit_freq[257 + code]) * kLengthExtraBits[code];
    for (int s = 0; s < kDistSymbols; ++s) bits += uint64_t(dist_freq[s]) * dist_len[s];  // no extra bits at 1 or 3
    const size_t stored_blocks = std::max<size_t>(1, (to - from + kMaxStoredBlock - 1) / kMaxStoredBlock);
    const uint64_t stored_bits = uint64_t(to - from) * 8 + stored_blocks * (5 * 8 + 7);
    if (stored_bits < bits) {
        put_stored(w, data, from, to);
        return false;
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

    codes->max_token_bits = 0;
    for (int s = 0; s <= kEndOfBlock; ++s) {
        codes->token[s] = uint64_t(lit_code[s]) << 8 | lit_len[s];
        codes->max_token_bits = std::max<unsigned>(codes->max_token_bits, lit_len[s]);
    }
    for (int d = 0; d < kDistances; ++d) {
        const int dc = kDistanceCode[d];
        for (size_t len = kMinMatch; len <= kMaxMatch; ++len) {
            const int sym = kLengths.symbol[len];
            const int nl = lit_len[sym], ne = kLengths.extra_bits[len];
            const uint64_t bits = uint64_t(lit_code[sym]) | uint64_t(kLengths.extra_value[len]) << nl |
                                  uint64_t(dist_code[dc]) << (nl + ne);
            const unsigned n = unsigned(nl + ne + dist_len[dc]);
            codes->token[match_token(len, d)] = bits << 8 | n;
            if (nl > 0 && dist_len[dc] > 0) codes->max_token_bits = std::max(codes->max_token_bits, n);  // it can occur
        }
    }
    return true;
}

}  // namespace ms::deflate

namespace ms {

void png_huffman_lengths(const uint32_t* freq, int count, int max_bits, uint8_t* lengths) {
    // Each leaf as frequency << 16 | symbol, made in symbol order.
    std::array<uint64_t, deflate::kLitLenSymbols> leaves;
    int m = 0;
    for (int s = 0; s < count; ++s) {
        lengths[s] = 0;
        if (freq[s] > 0) leaves[size_t(m++)] = uint64_t(freq[s]) << 16 | uint64_t(s);
    }
    auto symbol = [&](int leaf) { return int(leaves[size_t(leaf)] & 0xffff); };
    if (m == 0) return;
    if (m == 1) {  // one symbol still needs a one-bit code, and a partner keeps the code complete
        lengths[symbol(0)] = 1;
        lengths[symbol(0) == 0 ? 1 : 0] = 1;
        return;
    }
    // By frequency, least first: a radix sort on its bytes (two passes for a block's counts),
    // stable, so equal frequencies stay in symbol order. std::sort's comparisons were a tenth of
    // the encoder's mispredicted branches.
    uint32_t max_freq = 0;
    for (int i = 0; i < m; ++i) max_freq = std::max(max_freq, uint32_t(leaves[size_t(i)] >> 16));
    std::array<uint64_t, deflate::kLitLenSymbols> sorted;
    for (int shift = 16; shift < 48 && (max_freq >> (shift - 16)) != 0; shift += 8) {
        int start[257] = {};
        for (int i = 0; i < m; ++i) ++start[((leaves[size_t(i)] >> shift) & 0xff) + 1];
        for (int b = 0; b < 256; ++b) start[b + 1] += start[b];
        for (int i = 0; i < m; ++i) sorted[size_t(start[(leaves[size_t(i)] >> shift) & 0xff]++)] = leaves[size_t(i)];
        std::copy(sorted.begin(), sorted.begin() + m, leaves.begin());
    }

    // Huffman's algorithm with two queues: the sorted leaves, and the internal nodes, which are
    // made in order of weight. Nodes 0..m-1 are the leaves, m..2m-2 the internal nodes.
    std::array<uint64_t, 2 * deflate::kLitLenSymbols> weight;
    std::array<int, 2 * deflate::kLitLenSymbols> parent;
    for (int i = 0; i < m; ++i) weight[size_t(i)] = leaves[size_t(i)] >> 16;
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
    std::array<int, 2 * deflate::kLitLenSymbols> depth;
    depth[size_t(2 * m - 2)] = 0;
    int bl_count[16] = {};  // max_bits <= 15, the longest code deflate allows (3.2.7)
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
        for (int k = 0; k < bl_count[len]; ++k) lengths[symbol(leaf++)] = uint8_t(len);
}

}  // namespace ms
