// png_deflate_blocks.cpp: block headers for png_deflate.h's encoder (see png_deflate_blocks.h):
// the block's codes and header come from png_deflate_parallel.h (length-limited Huffman codes,
// their canonical form, the code-length code that sends them), which the GPU encoder shares;
// here they become the emit loop's table, and stored blocks are written. Written from RFC 1951;
// section numbers refer to it.
#include "compute/io/png_deflate_blocks.h"

#include <algorithm>

#include "compute/io/png_deflate.h"
#include "compute/io/png_deflate_parallel.h"

namespace ms::deflate {

namespace {

constexpr size_t kMaxStoredBlock = 65535;
constexpr int kDistanceCode[kDistances] = {0, 2};  // the codes of distances 1 and 3

}  // namespace

void BitWriter::reserve(size_t bytes) {
    if (out->size() < pos + bytes + 16) out->resize(std::max(pos + bytes + 16, out->size() + out->size() / 2));
    base = out->data();
}

void put_stored(BitWriter& w, const uint8_t* data, size_t from, size_t to) {
    do {
        const size_t len = std::min(kMaxStoredBlock, to - from);
        w.reserve(len + 8);
        w.put(0, 3);                             // BFINAL 0, BTYPE 00
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
    // The codes, the header and the choice of stored blocks are the GPU encoder's too
    // (png_deflate_parallel.h), so that both build the same blocks from the same counts.
    uint32_t dist_freq[pdeflate::kDistSymbols] = {};
    for (int d = 0; d < kDistances; ++d) dist_freq[kDistanceCode[d]] = counts.distance[d];
    pdeflate::BlockPlan plan;
    pdeflate::HuffmanScratch scratch;
    pdeflate::plan_block(counts.literal_length, dist_freq, to - from, plan, scratch);
    if (plan.stored) {
        put_stored(w, data, from, to);
        return false;
    }
    w.reserve(size_t(plan.total_bits / 8) + 16);
    pdeflate::write_header(plan, w);
    const uint8_t* const lit_len = plan.lit_len;
    const uint8_t* const dist_len = plan.dist_len;
    const uint16_t* const lit_code = plan.lit_code;
    const uint16_t* const dist_code = plan.dist_code;

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
    pdeflate::HuffmanScratch scratch;
    pdeflate::huffman_lengths(freq, count, max_bits, lengths, scratch);
}

}  // namespace ms
