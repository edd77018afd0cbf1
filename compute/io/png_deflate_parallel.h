// png_deflate_parallel.h: the phases of the GPU's deflate (png_encode_cuda.cu), written once as
// __host__ __device__ functions so that the host emulation (png_deflate_parallel.cpp) runs the
// very same code for every "thread" in turn. The CPU encoder shares the Huffman builder and the
// header's pieces (png_deflate_blocks.cpp calls them), so both encoders build the same codes.
//
// One segment (png_encode.h: kPngSegmentBytes of filtered rows, raw deflate ending with a sync
// flush) is one CUDA block of kPngDeflateThreads threads:
// 0. masks: all threads, a 32-bit word each in turn: bit k says byte k of the segment equals the
//    byte 1 (or 3) before it.
// 1. parse: thread t takes bytes [t*n/T, (t+1)*n/T) of the segment (T up to kPngDeflateThreads,
//    fewer for small segments) and parses them greedily with png_deflate.cpp's rules (matches at
//    distance 1 and 3, at least 3 bytes, the longer wins, the one at distance 1 on a tie) on
//    the masks, storing each token at its byte position in a scratch buffer. A match may look back into the
//    previous thread's bytes (the decoder has them) and its last token may run into the next
//    thread's; after a barrier each thread walks the next one's tokens from its start and parses
//    on until both stand on the same byte (usually at once), which joins the two parses with no
//    token cut short in most cases. The Adler-32 sums of each part are taken beside.
// 2. count and plan: each thread walks its tokens into the block's histogram; thread 0 makes
//    one dynamic Huffman block for the whole segment (deflate has no limit on a block's length),
//    or stored blocks when those are smaller: the same rule as the CPU's.
// 3. bits and scan: each thread adds up its tokens' bits; an exclusive scan over the threads
//    gives each its bit offset behind the header.
// 4. emit: each thread writes its bits into the zeroed output; the 32-bit words it shares with
//    its neighbours (its first and last) are or-ed in (atomicOr on the device), the others stored.
// 5. end (the last thread): the end-of-block code and the sync flush's empty stored block.
// Then the compaction kernel puts the segments back to back and takes each one's CRC-32 (6. below).
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define MS_HD __host__ __device__
#else
#define MS_HD
#endif

namespace ms::pdeflate {

inline constexpr int kPngDeflateThreads =
    256;  // threads (sub-chunks) per segment: more, smaller sub-chunks make larger files than the CPU's
inline constexpr int kLitLenSymbols = 286, kDistSymbols = 30, kCodeLengthSymbols = 19;
inline constexpr int kEndOfBlock = 256;
inline constexpr int kMaxBits = 15, kMaxCodeLengthBits = 7;
inline constexpr uint32_t kMinMatch = 3, kMaxMatch = 258;
inline constexpr uint32_t kMaxStoredBlock = 65535;
// Tokens as png_deflate_blocks.h has them: 0..255 a literal, 257 + d*256 + (length-3) a match at
// distance index d (distance 1 or 3).
inline constexpr int kTokenSymbols = 257 + 2 * 256;
inline constexpr uint32_t kAdlerModulus = 65521;

template <class T>
MS_HD inline T min_of(T a, T b) {
    return b < a ? b : a;
}
template <class T>
MS_HD inline T max_of(T a, T b) {
    return a < b ? b : a;
}

// --- Huffman codes (shared with the CPU encoder) -------------------------------------------

// Working memory of huffman_lengths: on the device it lives in shared memory (a thread's stack
// of this size would be reserved for every resident thread).
struct HuffmanScratch {
    uint64_t leaves[kLitLenSymbols];
    uint64_t sorted[kLitLenSymbols];
    uint64_t weight[2 * kLitLenSymbols];
    uint16_t parent[2 * kLitLenSymbols];
    uint16_t depth[2 * kLitLenSymbols];
    int start[257];
};

// Length-limited Huffman code lengths (png_deflate.h's png_huffman_lengths is this): symbols of
// frequency 0 get length 0; one symbol alone gets a partner so that the code is complete.
MS_HD inline void huffman_lengths_sorted(int m, int max_bits, uint8_t* lengths, HuffmanScratch& w);

// Where symbol s's leaf (frequency << 16 | symbol) goes when the leaves of nonzero frequency are
// sorted by it: the number of leaves below it. One symbol per thread sorts them in parallel, in
// the order huffman_lengths' stable radix sort gives.
MS_HD inline int huffman_leaf_rank(const uint32_t* freq, int count, int s) {
    const uint64_t key = uint64_t(freq[s]) << 16 | uint64_t(s);
    int rank = 0;
    for (int j = 0; j < count; ++j) rank += freq[j] > 0 && (uint64_t(freq[j]) << 16 | uint64_t(j)) < key;
    return rank;
}

MS_HD inline void huffman_lengths(const uint32_t* freq, int count, int max_bits, uint8_t* lengths, HuffmanScratch& w) {
    // Each leaf as frequency << 16 | symbol, made in symbol order.
    int m = 0;
    for (int s = 0; s < count; ++s) {
        lengths[s] = 0;
        if (freq[s] > 0) w.leaves[m++] = uint64_t(freq[s]) << 16 | uint64_t(s);
    }
    if (m == 0) return;
    if (m == 1) {  // one symbol still needs a one-bit code, and a partner keeps the code complete
        const int s = int(w.leaves[0] & 0xffff);
        lengths[s] = 1;
        lengths[s == 0 ? 1 : 0] = 1;
        return;
    }
    // By frequency, least first: a stable radix sort on its bytes, so equal frequencies stay in
    // symbol order (a comparison sort's branches would mispredict often).
    uint32_t max_freq = 0;
    for (int i = 0; i < m; ++i) max_freq = max_of(max_freq, uint32_t(w.leaves[i] >> 16));
    for (int shift = 16; shift < 48 && (max_freq >> (shift - 16)) != 0; shift += 8) {
        for (int b = 0; b < 257; ++b) w.start[b] = 0;
        for (int i = 0; i < m; ++i) ++w.start[((w.leaves[i] >> shift) & 0xff) + 1];
        for (int b = 0; b < 256; ++b) w.start[b + 1] += w.start[b];
        for (int i = 0; i < m; ++i) w.sorted[w.start[(w.leaves[i] >> shift) & 0xff]++] = w.leaves[i];
        for (int i = 0; i < m; ++i) w.leaves[i] = w.sorted[i];
    }
    huffman_lengths_sorted(m, max_bits, lengths, w);
}

// The rest of huffman_lengths, from its m >= 2 leaves sorted by frequency (then symbol) in
// w.leaves. The GPU sorts the literal/length leaves with all its threads (huffman_leaf_rank)
// and comes in here.
MS_HD inline void huffman_lengths_sorted(int m, int max_bits, uint8_t* lengths, HuffmanScratch& w) {
    // Huffman's algorithm with two queues: the sorted leaves, and the internal nodes, which are
    // made in order of weight. Nodes 0..m-1 are the leaves, m..2m-2 the internal nodes.
    for (int i = 0; i < m; ++i) w.weight[i] = w.leaves[i] >> 16;
    int next_leaf = 0, next_inner = m;
    for (int node = m; node < 2 * m - 1; ++node) {
        int pick[2];
        for (int k = 0; k < 2; ++k) {
            if (next_leaf < m && (next_inner >= node || w.weight[next_leaf] <= w.weight[next_inner]))
                pick[k] = next_leaf++;
            else pick[k] = next_inner++;
        }
        w.weight[node] = w.weight[pick[0]] + w.weight[pick[1]];
        w.parent[pick[0]] = w.parent[pick[1]] = uint16_t(node);
    }
    // Depths, from the root down (a parent is made after its children).
    w.depth[2 * m - 2] = 0;
    int bl_count[16] = {};  // max_bits <= 15, the longest code deflate allows (3.2.7)
    for (int node = 2 * m - 3; node >= 0; --node) {
        w.depth[node] = uint16_t(w.depth[w.parent[node]] + 1);
        if (node < m) ++bl_count[min_of(int(w.depth[node]), max_bits)];
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
        for (int k = 0; k < bl_count[len]; ++k) lengths[w.leaves[leaf++] & 0xffff] = uint8_t(len);
}

// Canonical codes from lengths (3.2.2), bit-reversed for LSB-first packing.
MS_HD inline void canonical_codes(const uint8_t* lengths, int count, uint16_t* codes) {
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
        // bit-at-a-time loop would cost a visible share of the CPU encoder's time per block).
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
MS_HD inline int code_length_symbols(const uint8_t* lengths, int total, CodeLengthSymbol* out) {
    int n = 0;
    for (int i = 0; i < total;) {
        const uint8_t v = lengths[i];
        int run = 1;
        while (i + run < total && lengths[i + run] == v) ++run;
        i += run;
        if (v == 0) {
            while (run >= 11) {
                const int r = min_of(run, 138);
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
                const int r = min_of(run, 6);
                out[n++] = {16, uint8_t(r - 3)};
                run -= r;
            }
        }
        while (run-- > 0) out[n++] = {v, 0};
    }
    return n;
}

// --- Lengths and tokens ----------------------------------------------------------------------

// A match length (3..258) -> its length code (0..28, symbol 257 + code), extra bits and their
// value (3.2.5), by search: the GPU fills a table of every token's bits with it once a segment.
struct LengthCode {
    int code;
    int extra_bits;
    int extra_value;
};
MS_HD inline int length_base(int code) {
    constexpr uint16_t base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                   31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    return base[code];
}
MS_HD inline int length_extra_bits(int code) { return code < 8 || code == 28 ? 0 : (code - 4) / 4; }
MS_HD inline LengthCode length_code(uint32_t length) {
    int code = 28;
    while (uint32_t(length_base(code)) > length) --code;
    return {code, length_extra_bits(code), int(length) - length_base(code)};
}

MS_HD inline uint16_t match_token(uint32_t length, int distance_index) {
    return uint16_t(257 + distance_index * 256 + int(length - kMinMatch));
}

// --- Phase 1: parse ------------------------------------------------------------------------

// The phases read the bytes and tokens through `Items` (items[i]): a plain pointer on the host,
// a reader that loads 16 bytes at a time on the device (png_encode_cuda.cu: each thread walks its
// own sub-chunk, so a warp's byte loads touch 32 cache lines at once).

// The parse reads match masks, not bytes: bit k of word w of eq1 (eq3) says that byte 32w + k
// of the segment equals the byte 1 (3) before it. A match's start and length are then found with
// bit operations on 64 bytes at a time (as png_deflate.cpp does with vector compares), so a thread
// does work per token, not per byte, and the threads of a warp take far fewer divergent steps.
// The words past the segment's end are zero (mask_words leaves three of them).
MS_HD inline size_t mask_words(size_t n) { return (n + 31) / 32 + 3; }

// Phase 0 (all threads, a word each in turn): word w of both masks.
template <class Bytes>
MS_HD inline void mask_word(Bytes& seg, size_t n, size_t w, uint32_t* eq1, uint32_t* eq3) {
    uint32_t m1 = 0, m3 = 0;
    const size_t base = w * 32;
    if (base < n) {
        uint8_t b3 = base >= 3 ? seg[base - 3] : 0, b2 = base >= 2 ? seg[base - 2] : 0,
                b1 = base >= 1 ? seg[base - 1] : 0;
        for (unsigned k = 0; k < 32 && base + k < n; ++k) {
            const uint8_t c = seg[base + k];
            if (base + k >= 1 && c == b1) m1 |= 1u << k;
            if (base + k >= 3 && c == b3) m3 |= 1u << k;
            b3 = b2;
            b2 = b1;
            b1 = c;
        }
    }
    eq1[w] = m1;
    eq3[w] = m3;
}

MS_HD inline unsigned count_trailing_zeros64(uint64_t x) {  // x != 0
#if defined(__CUDA_ARCH__)
    return unsigned(__ffsll((long long)x) - 1);
#else
    return unsigned(__builtin_ctzll(x));
#endif
}

// Bits pos .. pos + 63 of a mask.
MS_HD inline uint64_t mask_bits64(const uint32_t* eq, size_t pos) {
    const size_t w = pos >> 5;
    const unsigned shift = unsigned(pos & 31);
    const uint64_t low = uint64_t(eq[w]) | uint64_t(eq[w + 1]) << 32;
    return shift ? low >> shift | uint64_t(eq[w + 2]) << (64 - shift) : low;
}

// How many set bits run from bit pos on, at most max: the match length at that distance.
MS_HD inline uint32_t mask_run(const uint32_t* eq, size_t pos, uint32_t max) {
    uint32_t k = 0;
    for (;;) {
        const uint64_t bits = mask_bits64(eq, pos + k);
        if (bits != ~uint64_t(0)) return min_of(max, k + count_trailing_zeros64(~bits));
        k += 64;
        if (k >= max) return max;
    }
}

// The greedy choice at seg[at] with matches of at most `max` bytes (max >= 1): the longer of the
// matches at distance 1 and 3 (at least 3 bytes; distance 1 on a tie), else the literal.
template <class Bytes>
MS_HD inline uint16_t greedy_token(Bytes& seg, const uint32_t* eq1, const uint32_t* eq3, size_t at, uint32_t max,
                                   uint32_t* length) {
    const uint32_t len1 = mask_run(eq1, at, max);
    const uint32_t len3 = len1 < max ? mask_run(eq3, at, max) : 0;
    if (len1 >= kMinMatch || len3 >= kMinMatch) {
        const bool far = len3 > len1;
        *length = far ? len3 : len1;
        return match_token(*length, far ? 1 : 0);
    }
    *length = 1;
    return seg[at];
}

// The bytes a token covers.
MS_HD inline uint32_t token_length(uint16_t token) {
    return token < 256 ? 1 : uint32_t((token - 257) & 255) + kMinMatch;
}

// A segment's threads: as many as give each at least kMinChunkBytes (so that joining two
// threads' parses, which reaches at most 2 * 258 bytes into the next thread's part, stays in it),
// at most kPngDeflateThreads. Thread t's part is [chunk_start(t), chunk_start(t + 1)); the others
// have none.
inline constexpr size_t kMinChunkBytes = 1024;
MS_HD inline int chunk_threads(size_t n) {
    return int(min_of<size_t>(kPngDeflateThreads, max_of<size_t>(1, n / kMinChunkBytes)));
}
MS_HD inline size_t chunk_start(size_t n, int t, int threads) {
    return t >= threads ? n : size_t(t) * n / size_t(threads);
}

// Phase 1a: greedy parse from seg[lo] until a token reaches hi or past it (never past n, the
// segment's end), each token stored at tokens[its position]. Returns where the last one ends.
// The next match's start is the first bit of three set in a row in either mask; the bytes before
// it are literals.
template <class Bytes>
MS_HD inline size_t parse_chunk(Bytes& seg, const uint32_t* eq1, const uint32_t* eq3, size_t lo, size_t hi, size_t n,
                                uint16_t* tokens) {
    size_t at = lo;
    while (at < hi) {
        const uint64_t w1 = mask_bits64(eq1, at), w3 = mask_bits64(eq3, at);
        // Bit k: a match of 3 or more starts at at + k (bits 0..61 are decided by this window).
        const uint64_t starts = ((w1 & w1 >> 1 & w1 >> 2) | (w3 & w3 >> 1 & w3 >> 2)) & (~uint64_t(0) >> 2);
        const size_t stop = min_of<size_t>(hi, at + (starts ? count_trailing_zeros64(starts) : 62));
        for (; at < stop; ++at) tokens[at] = seg[at];
        if (at >= hi || !starts) continue;
        uint32_t length;
        tokens[at] = greedy_token(seg, eq1, eq3, at, uint32_t(min_of<size_t>(kMaxMatch, n - at)), &length);
        at += length;
    }
    return at;
}

// Phase 1b, after a barrier: this thread's parse ended at `end`, a little into the next thread's
// part, whose parse began at next_lo. Walk the next thread's tokens (read through `read`) and
// parse on from `end` with matches cut to land on the walk's positions, until both stand at the
// same position: the next thread's tokens count from there. Mostly the two meet at once or after
// a token, so the parse is nearly the one a single thread would make.
template <class Bytes, class Tokens>
MS_HD inline size_t join_chunks(Bytes& seg, const uint32_t* eq1, const uint32_t* eq3, size_t next_lo, size_t end,
                                Tokens& read, uint16_t* tokens) {
    size_t p = next_lo, q = end;
    while (p != q) {
        if (p < q) {
            p += token_length(read[p]);
        } else {
            uint32_t length;
            tokens[q] = greedy_token(seg, eq1, eq3, q, uint32_t(min_of<size_t>(kMaxMatch, p - q)), &length);
            q += length;
        }
    }
    return p;
}

// Phases 2 to 4 visit a thread's tokens from its start (where the previous thread's parse met
// it) to its stop (where its own met the next thread's).
template <class Tokens, class Visit>
MS_HD inline void walk_tokens(Tokens& tokens, size_t from, size_t to, Visit visit) {
    for (size_t p = from; p < to;) {
        const uint16_t token = tokens[p];
        visit(token);
        p += token_length(token);
    }
}

// The Adler-32 sums of data[lo, hi) started from zero: a = sum of the bytes, b = sum of a after
// each byte, both mod 65521. adler_term and adler_from_terms join the parts into the whole's.
struct AdlerPart {
    uint32_t a, b;  // no initialisers: the GPU keeps these in shared memory
};
template <class Bytes>
MS_HD inline AdlerPart adler_part(Bytes& data, size_t lo, size_t hi) {
    // 32-bit sums, reduced every 5552 bytes: zlib's NMAX, the most bytes after which b cannot
    // pass 2^32 (64-bit sums cost two instructions an addition on the GPU).
    uint32_t a = 0, b = 0;
    for (size_t at = lo; at < hi;) {
        const size_t end = min_of<size_t>(hi, at + 5552);
        for (; at < end; ++at) {
            a += data[at];
            b += a;
        }
        a %= kAdlerModulus;
        b %= kAdlerModulus;
    }
    return {a, b};
}
// A part's share of the Adler-32 of the whole that it is a part of, with `after` bytes behind
// it: each of its bytes adds to b once more for every byte after the part, so its term is
// {a, b + a * after}. The whole's n bytes have a = 1 + the terms' a and b = n + the terms' b
// (the 1 that a starts from is added to b once a byte): adler_from_terms, given the sums of the
// terms (at most 2^16 of them, so the sums fit in 32 bits). Summed by a reduction on the GPU,
// where joining 256 parts one after another on one thread took its 64-bit divisions in series.
MS_HD inline AdlerPart adler_term(AdlerPart part, size_t after) {
    return {part.a, uint32_t((part.b + uint64_t(after % kAdlerModulus) * part.a) % kAdlerModulus)};
}
MS_HD inline uint32_t adler_from_terms(uint32_t a_sum, uint32_t b_sum, size_t n) {
    const uint32_t a = (1 + a_sum % kAdlerModulus) % kAdlerModulus;
    const uint32_t b = uint32_t((n % kAdlerModulus + b_sum % kAdlerModulus) % kAdlerModulus);
    return b << 16 | a;
}

// --- Phase 2: plan -------------------------------------------------------------------------

// Token symbol s's count folded into the block's literal/length and distance counts (distance
// codes 0 and 2 are distances 1 and 3) through add(counter, count).
template <class Add>
MS_HD inline void fold_token_count(int s, uint32_t count, uint32_t* lit_freq, uint32_t* dist_freq, Add add) {
    if (count == 0) return;
    if (s < 256) {
        add(&lit_freq[s], count);
        return;
    }
    if (s == kEndOfBlock) return;
    const LengthCode lc = length_code(uint32_t((s - 257) & 255) + kMinMatch);
    add(&lit_freq[257 + lc.code], count);
    add(&dist_freq[(s - 257) >> 8 == 0 ? 0 : 2], count);
}

// One segment's block: its codes and header, or "stored" when storing the bytes is smaller.
struct BlockPlan {
    uint8_t lit_len[kLitLenSymbols];
    uint8_t dist_len[kDistSymbols];
    uint8_t cl_len[kCodeLengthSymbols];
    uint16_t lit_code[kLitLenSymbols];
    uint16_t dist_code[kDistSymbols];
    uint16_t cl_code[kCodeLengthSymbols];
    CodeLengthSymbol cl_symbols[kLitLenSymbols + kDistSymbols];
    int cl_count, hlit, hdist, hclen;
    uint64_t header_bits;  // the block header, before the first symbol
    uint64_t total_bits;   // header, every symbol and the end of block
    bool stored;
};

// 3.2.7: the order in which the code-length code's lengths are sent, and their extra bits.
MS_HD inline int code_length_order(int i) {
    constexpr uint8_t order[kCodeLengthSymbols] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    return order[i];
}
MS_HD inline int code_length_extra_bits(int symbol) {
    return symbol == 16 ? 2 : symbol == 17 ? 3 : symbol == 18 ? 7 : 0;
}

// The stored form's size in bits, as the CPU encoder counts it (png_deflate_blocks.cpp).
MS_HD inline uint64_t stored_bits(size_t n) {
    const size_t blocks = max_of<size_t>(1, (n + kMaxStoredBlock - 1) / kMaxStoredBlock);
    return uint64_t(n) * 8 + blocks * (5 * 8 + 7);
}

// Builds the codes of a block with these literal/length counts (lit_freq[256], the end of the
// block, is set here) and distance counts (codes 0 and 2: distances 1 and 3), and decides
// between it and storing the block's n bytes.
// `lit_sorted` (may be null): the literal/length leaves already sorted by huffman_leaf_rank
// (lit_freq[256] set to 1 first), lit_leaves of them.
MS_HD inline void plan_block(uint32_t* lit_freq, const uint32_t* dist_freq, size_t n, BlockPlan& p, HuffmanScratch& w,
                             const uint64_t* lit_sorted = nullptr, int lit_leaves = 0) {
    lit_freq[kEndOfBlock] = 1;
    // Give code 0 a length even when no match uses it: some decoders refuse a block without any
    // distance code (huffman_lengths then adds a second, keeping the code complete).
    uint32_t dist_coded[kDistSymbols];
    for (int s = 0; s < kDistSymbols; ++s) dist_coded[s] = dist_freq[s];
    if (dist_coded[0] == 0) dist_coded[0] = 1;
    if (lit_sorted && lit_leaves >= 2) {
        for (int s = 0; s < kLitLenSymbols; ++s) p.lit_len[s] = 0;
        for (int i = 0; i < lit_leaves; ++i) w.leaves[i] = lit_sorted[i];
        huffman_lengths_sorted(lit_leaves, kMaxBits, p.lit_len, w);
    } else {
        huffman_lengths(lit_freq, kLitLenSymbols, kMaxBits, p.lit_len, w);
    }
    huffman_lengths(dist_coded, kDistSymbols, kMaxBits, p.dist_len, w);
    p.hlit = kLitLenSymbols;
    p.hdist = kDistSymbols;
    while (p.hlit > 257 && p.lit_len[p.hlit - 1] == 0) --p.hlit;
    while (p.hdist > 1 && p.dist_len[p.hdist - 1] == 0) --p.hdist;
    // The two sequences back to back, as 3.2.7 sends them.
    uint8_t sequence[kLitLenSymbols + kDistSymbols];
    for (int i = 0; i < p.hlit; ++i) sequence[i] = p.lit_len[i];
    for (int i = 0; i < p.hdist; ++i) sequence[p.hlit + i] = p.dist_len[i];
    p.cl_count = code_length_symbols(sequence, p.hlit + p.hdist, p.cl_symbols);
    uint32_t cl_freq[kCodeLengthSymbols] = {};
    for (int i = 0; i < p.cl_count; ++i) ++cl_freq[p.cl_symbols[i].symbol];
    huffman_lengths(cl_freq, kCodeLengthSymbols, kMaxCodeLengthBits, p.cl_len, w);
    p.hclen = kCodeLengthSymbols;
    while (p.hclen > 4 && p.cl_len[code_length_order(p.hclen - 1)] == 0) --p.hclen;

    uint64_t bits = 3 + 5 + 5 + 4 + 3 * uint64_t(p.hclen);
    for (int i = 0; i < p.cl_count; ++i)
        bits += p.cl_len[p.cl_symbols[i].symbol] + code_length_extra_bits(p.cl_symbols[i].symbol);
    p.header_bits = bits;
    for (int s = 0; s < kLitLenSymbols; ++s) bits += uint64_t(lit_freq[s]) * p.lit_len[s];
    for (int code = 0; code < 29; ++code) bits += uint64_t(lit_freq[257 + code]) * uint64_t(length_extra_bits(code));
    for (int s = 0; s < kDistSymbols; ++s) bits += uint64_t(dist_freq[s]) * p.dist_len[s];  // no extra bits at 1 or 3
    p.total_bits = bits;
    p.stored = stored_bits(n) < bits;
    if (p.stored) return;
    canonical_codes(p.lit_len, kLitLenSymbols, p.lit_code);
    canonical_codes(p.dist_len, kDistSymbols, p.dist_code);
    canonical_codes(p.cl_len, kCodeLengthSymbols, p.cl_code);
}

// Writes the dynamic block's header (3.2.7) through sink.put(bits, count), count <= 32.
template <class Sink>
MS_HD inline void write_header(const BlockPlan& p, Sink& sink) {
    sink.put(2 << 1, 3);  // BFINAL 0, BTYPE 10 (dynamic Huffman codes)
    sink.put(uint32_t(p.hlit - 257) | uint32_t(p.hdist - 1) << 5 | uint32_t(p.hclen - 4) << 10, 14);
    for (int i = 0; i < p.hclen; ++i) sink.put(p.cl_len[code_length_order(i)], 3);
    for (int i = 0; i < p.cl_count; ++i) {
        const CodeLengthSymbol& c = p.cl_symbols[i];
        sink.put(uint32_t(p.cl_code[c.symbol]) | uint32_t(c.extra) << p.cl_len[c.symbol],
                 unsigned(p.cl_len[c.symbol] + code_length_extra_bits(c.symbol)));
    }
}

// A token's bits (a literal's code; a match's length code, extra bits and distance code) as
// bits << 5 | count: at most 15 + 5 + 15 bits, 21 in practice (two distance codes, one bit each),
// which the table checks.
MS_HD inline uint32_t token_code(const BlockPlan& p, int token) {
    if (token <= kEndOfBlock) return uint32_t(p.lit_code[token]) << 5 | p.lit_len[token];
    const int d = (token - 257) >> 8;
    const uint32_t length = uint32_t((token - 257) & 255) + kMinMatch;
    const LengthCode lc = length_code(length);
    const int sym = 257 + lc.code, dc = d == 0 ? 0 : 2;  // distances 1 and 3 are codes 0 and 2
    const int nl = p.lit_len[sym], ne = lc.extra_bits, nd = p.dist_len[dc];
    const uint32_t bits = uint32_t(p.lit_code[sym]) | uint32_t(lc.extra_value) << nl |
                          uint32_t(p.dist_code[dc]) << (nl + ne);
    return bits << 5 | uint32_t(nl + ne + nd);
}

// --- Phases 3 to 5: count, emit, end ---------------------------------------------------------

// Or-s `value` into words[i]: atomicOr on the device, |= on the host.
MS_HD inline void or_word(uint32_t* words, size_t i, uint32_t value) {
#if defined(__CUDA_ARCH__)
    atomicOr(words + i, value);
#else
    words[i] |= value;
#endif
}

// LSB-first bits into 32-bit little-endian words from bit `offset` on. Words strictly inside
// [first, last] belong to this writer alone and are stored; `first` and `last` (shared with the
// neighbours) are or-ed. The output must be zero beforehand.
struct WordSink {
    uint32_t* words;
    size_t word;  // the word `acc` fills
    size_t first_shared, last_shared;
    uint64_t acc = 0;  // bits of `word` and beyond; its low `filled` bits are set
    unsigned filled = 0;
    bool wrote = false;  // any bits put (a writer with none writes nothing)

    MS_HD WordSink(uint32_t* w, uint64_t offset, uint64_t bits)
        : words(w), word(size_t(offset >> 5)), first_shared(size_t(offset >> 5)),
          last_shared(size_t((offset + (bits > 0 ? bits - 1 : 0)) >> 5)), filled(unsigned(offset & 31)) {}
    MS_HD void put(uint32_t bits, unsigned count) {
        acc |= uint64_t(bits) << filled;
        filled += count;
        wrote = true;
        if (filled >= 32) {
            store(uint32_t(acc));
            acc >>= 32;
            filled -= 32;
            ++word;
        }
    }
    MS_HD void flush() {
        if (wrote && filled > 0) store(uint32_t(acc));
    }
    MS_HD void store(uint32_t value) {
        if (word == first_shared || word == last_shared) or_word(words, word, value);
        else words[word] = value;
    }
};

// Or-s one byte into the words (the sync flush's ff ff).
MS_HD inline void or_byte(uint32_t* words, size_t byte, uint8_t value) {
    or_word(words, byte >> 2, uint32_t(value) << (8 * (byte & 3)));
}

// The bytes after the last symbol: the end of block is at bit `end_bits`; then 3 bits of an empty
// stored block, padding to the byte, and 00 00 ff ff. Returns the segment's size in bytes.
MS_HD inline size_t end_segment(uint32_t* words, uint64_t end_bits) {
    const size_t at = size_t((end_bits + 3 + 7) / 8);
    or_byte(words, at + 2, 0xff);
    or_byte(words, at + 3, 0xff);
    return at + 4;
}

// Stored blocks (3.2.4) of a segment's n bytes, the form taken when it is smaller: each block is
// 00 (BFINAL 0, BTYPE 00, padding), LEN, NLEN and up to 65535 bytes; then the sync flush's empty
// one. Byte i of the input goes to out[i + 5 * (i / 65535 + 1)].
MS_HD inline size_t stored_size(size_t n) { return n + 5 * ((n + kMaxStoredBlock - 1) / kMaxStoredBlock) + 5; }
MS_HD inline void stored_copy(const uint8_t* data, size_t lo, size_t hi, uint8_t* out) {
    for (size_t i = lo; i < hi; ++i) out[i + 5 * (i / kMaxStoredBlock + 1)] = data[i];
}
MS_HD inline void stored_headers(size_t n, uint8_t* out) {
    const size_t blocks = (n + kMaxStoredBlock - 1) / kMaxStoredBlock;
    for (size_t b = 0; b <= blocks; ++b) {  // the last one is the empty block of the sync flush
        const size_t at = b < blocks ? b * (kMaxStoredBlock + 5) : n + 5 * blocks;
        const uint32_t len = b < blocks ? uint32_t(min_of<size_t>(kMaxStoredBlock, n - b * kMaxStoredBlock)) : 0;
        out[at] = 0;
        out[at + 1] = uint8_t(len);
        out[at + 2] = uint8_t(len >> 8);
        out[at + 3] = uint8_t(~len);
        out[at + 4] = uint8_t(~len >> 8);
    }
}

// The room one segment's output needs: stored, or a dynamic block no larger (plus the sync
// flush and the rounding to words).
MS_HD inline size_t segment_slot_bytes(size_t n) { return (stored_size(n) + 16 + 15) & ~size_t(15); }

// --- 6. The CRC-32 of each segment's output (the compaction kernel) -------------------------
//
// The PNG writer needs each piece's CRC-32 (png_encode.h); computing it on the GPU, where the
// bytes are, saves the host a pass over them. Each thread takes the CRC of its own part of the
// segment's bytes, and the parts are joined by the algebra of CRCs: with CRC(A) and CRC(B) the
// CRC-32s (zlib's crc32, from 0) of two byte strings, CRC(A B) = CRC(A) * x^(8 |B|) + CRC(B),
// the product taken modulo the CRC's polynomial (zlib's crc32_combine is this). Over many parts
// that is the xor of CRC(part t) * x^(8 * the bytes after part t).
//
// Polynomials are 32-bit words in the CRC's reflected order: bit 31 is x^0, bit 0 is x^31.
inline constexpr uint32_t kCrcPolynomial = 0xedb88320u;  // x^32 + x^26 + ... + 1, reflected, without x^32

// Entry b of the byte-at-a-time table: b's 8 bits pushed through the register.
MS_HD inline uint32_t crc32_table_entry(uint32_t b) {
    uint32_t c = b;
    for (int k = 0; k < 8; ++k) c = c & 1 ? (c >> 1) ^ kCrcPolynomial : c >> 1;
    return c;
}

// The CRC-32 of data[lo, hi) (from 0, as zlib's crc32(0, ...)), a byte at a time with `table`
// (256 crc32_table_entry values; shared memory on the device).
template <class Bytes>
MS_HD inline uint32_t crc32_part(Bytes& data, size_t lo, size_t hi, const uint32_t* table) {
    uint32_t c = ~uint32_t(0);
    for (size_t i = lo; i < hi; ++i) c = table[(c ^ uint32_t(data[i])) & 0xff] ^ (c >> 8);
    return ~c;
}

// a * b modulo the polynomial: for each term x^i of a, b * x^i (b multiplied by x step by
// step: a shift towards bit 0, reduced when the x^31 term moves out).
MS_HD inline uint32_t crc32_multiply(uint32_t a, uint32_t b) {
    uint32_t product = 0;
    for (int i = 0; i < 32 && a != 0; ++i, a <<= 1) {
        if (a & 0x80000000u) product ^= b;
        b = b & 1 ? (b >> 1) ^ kCrcPolynomial : b >> 1;
    }
    return product;
}

// crc * x^(8 bytes) modulo the polynomial: the CRC of a part moved in front of `bytes` more
// bytes (square and multiply over the bits of 8 * bytes).
MS_HD inline uint32_t crc32_shift(uint32_t crc, uint64_t bytes) {
    uint32_t power = 0x00800000u;  // x^8
    for (; bytes != 0; bytes >>= 1) {
        if (bytes & 1) crc = crc32_multiply(crc, power);
        power = crc32_multiply(power, power);
    }
    return crc;
}

// Thread t's part of a segment's n output bytes for the CRC, of `threads`.
MS_HD inline size_t crc_part_start(size_t n, int t, int threads) { return size_t(t) * n / size_t(threads); }

}  // namespace ms::pdeflate
