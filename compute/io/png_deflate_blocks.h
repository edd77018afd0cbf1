// png_deflate_blocks.h: the scalar half of png_deflate.h's encoder, shared by its SIMD targets:
// the bit writer, the length symbols, and one block's header (dynamic Huffman codes built from
// the block's symbol counts, or stored bytes when those are smaller). png_deflate.cpp parses
// the bytes and emits the symbols through the codes made here, once per SIMD target; this part
// runs once a block (every 64K symbols) and needs no SIMD. Section numbers refer to RFC 1951.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ms::deflate {

inline constexpr int kLitLenSymbols = 286;  // 0..255 literals, 256 end of block, 257..285 lengths
inline constexpr int kDistSymbols = 30;
inline constexpr int kEndOfBlock = 256;
inline constexpr size_t kMinMatch = 3, kMaxMatch = 258;

// The distances searched, and their distance codes (3.2.5: distances 1 and 3 are codes 0 and 2,
// with no extra bits). Filtered RGB repeats a byte or a pixel.
inline constexpr int kDistances = 2;
inline constexpr uint32_t kDistance[kDistances] = {1, 3};

// 3.2.5: the length codes 257..285, their first length and extra bits.
inline constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                             31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
inline constexpr uint8_t kLengthExtraBits[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

// Match length (3..258) -> its length symbol (257..285), extra bits and their value.
struct LengthTable {
    uint16_t symbol[kMaxMatch + 1] = {};
    uint8_t extra_bits[kMaxMatch + 1] = {};
    uint16_t extra_value[kMaxMatch + 1] = {};
    constexpr LengthTable() {
        for (int code = 0; code < 29; ++code) {
            const int span = code == 28 ? 1 : 1 << kLengthExtraBits[code];
            for (int k = 0; k < span; ++k) {
                const int length = kLengthBase[code] + k;
                if (length > int(kMaxMatch)) break;
                symbol[length] = uint16_t(257 + code);
                extra_bits[length] = kLengthExtraBits[code];
                extra_value[length] = uint16_t(k);
            }
        }
    }
};
inline constexpr LengthTable kLengths;

// How often each literal/length symbol and each distance occurs in a block.
struct SymbolCounts {
    uint32_t literal_length[kLitLenSymbols] = {};
    uint32_t distance[kDistances] = {};  // by index into kDistance
};

// LSB-first bit packing (3.1.1) into a byte vector with a 64-bit buffer; fewer than 8 bits wait
// between calls. The hot loops copy pos/buffer/count into locals (registers) and write them back.
struct BitWriter {
    std::vector<uint8_t>* out;
    size_t pos = 0;  // bytes complete
    uint64_t buffer = 0;
    unsigned count = 0;       // bits waiting in `buffer`, < 8 between puts
    uint8_t* base = nullptr;  // out->data(), as of the last reserve

    // Room for `bytes` more bytes, plus the slack of the 8-byte stores.
    void reserve(size_t bytes);
    // Up to 56 bits at once.
    void put(uint64_t bits, unsigned n) {
        buffer |= bits << count;
        count += n;
        std::memcpy(base + pos, &buffer, 8);
        pos += count >> 3;
        buffer >>= count & ~7u;
        count &= 7;
    }
};

// The tokens of a parsed block, one uint16_t each: a literal byte (0..255), the end of the block,
// or a match of 3..258 bytes at distance index 0 or 1 (distance 1 or 3).
inline constexpr uint16_t kEndOfBlockToken = 256;
inline constexpr int kTokenSymbols = 257 + kDistances * 256;
inline constexpr uint16_t match_token(size_t length, int distance_index) {
    return uint16_t(257 + distance_index * 256 + int(length - kMinMatch));
}

// One dynamic block's codes, as the emit loop wants them: for each token, all of its bits (a
// match's length code, its extra bits and the distance code) as one string, shifted up 8, with
// their count in the low 8 bits; and the most bits any token of the block takes (at most 15 + 5
// + 1: the distance code has only two symbols, so one bit), which says how many tokens fit in
// the 64-bit buffer between stores.
struct BlockCodes {
    uint64_t token[kTokenSymbols];
    unsigned max_token_bits = 0;
};

// Starts the block that covers data[from, to) with these symbol counts (the end-of-block symbol
// is added here): writes its dynamic Huffman header, fills *codes and reserves room for all of its
// symbols, and returns true; or, when the bytes stored are smaller, writes them as stored blocks
// and returns false (the block is then complete).
bool begin_block(BitWriter& w, SymbolCounts& counts, const uint8_t* data, size_t from, size_t to, BlockCodes* codes);

// Writes data[from, to) as stored blocks (3.2.4), non-final; from == to gives the empty one
// that ends a sync flush.
void put_stored(BitWriter& w, const uint8_t* data, size_t from, size_t to);

}  // namespace ms::deflate
