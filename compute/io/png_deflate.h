// png_deflate.h: a deflate encoder (RFC 1951) specialised for PNG's filtered rows, in the spirit
// of fpng: faster than zlib's run-length strategy on our frames, and smaller (see
// docs/performance.md).
// png_encode.cpp calls it once per segment; zlib stays beside it as the reference and fallback
// (PngDeflater::zlib).
//
// What it does, and why that is enough:
// - Matches only at fixed short distances: 1 (a byte repeated) and 3 (the pixel to the left,
//   RGB). A filtered smooth frame is mostly runs of small residuals, which these find; there
//   is no hash table and no search, only vector compares at two places (png_deflate.cpp).
// - Greedy parsing: at each byte the longer of the two matches (at least 3 bytes) or a literal.
// - Dynamic Huffman blocks of at most kPngDeflateBlockTokens symbols each: count the symbols,
//   build length-limited canonical codes (15 bits, 7 for the code-length code), then emit
//   through a 64-bit bit buffer. A block that would be larger than storing goes out stored
//   (png_deflate_blocks.h).
// - The output ends byte-aligned with an empty stored block and no BFINAL, as zlib's
//   Z_SYNC_FLUSH ends: segments deflated on different threads concatenate into one stream, and
//   a segment never refers to bytes before its start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ms {

// Symbols per Huffman block: smaller blocks follow the statistics of the frame's regions more
// closely at the cost of one more header (about 60-80 bytes) each, and of building its codes
// (see docs/performance.md): against 32K symbols, 64K gives files of the same size and
// deflates a little faster. 65535 is the most one stored block holds, so a block of
// literals that goes out stored is one stored block.
inline constexpr size_t kPngDeflateBlockTokens = 65535;

// Appends the raw deflate of data[0, n) to *out: non-final blocks, then an empty stored block
// (00 00 ff ff), so the output ends on a byte boundary and the stream is not finished.
void png_deflate_segment(const uint8_t* data, size_t n, std::vector<uint8_t>* out);

// Length-limited Huffman code lengths for `count` symbols with the given frequencies (the
// deflate rules: symbols of frequency 0 get length 0; at least two symbols get a code when any
// symbol occurs, so that the code is complete). Exposed for the tests, which check the Kraft
// sum and the limit.
void png_huffman_lengths(const uint32_t* freq, int count, int max_bits, uint8_t* lengths);

}  // namespace ms
