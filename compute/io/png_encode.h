// png_encode.h: the image data of a PNG (the zlib stream that its IDAT chunks carry), filtered
// and deflated on every core. compute/io/image_io.cpp wraps it in chunks and files.
//
// How it goes parallel (pigz's scheme): the rows are cut into segments of about
// kPngSegmentBytes. Each segment is filtered and deflated on its own (raw deflate, ended with a
// sync flush so that it stops on a byte boundary with no final block), and the segments are
// concatenated into one zlib stream behind one header; their Adler-32 checksums are combined
// with adler32_combine. A segment starts with an empty history window (our deflater looks back
// only 3 bytes anyway; zlib's loses a fraction of a percent at these segment sizes).
//
// Deflate: our own encoder (png_deflate.h), specialised for filtered rows, by default: faster
// than zlib's run-length strategy (Z_RLE) on the Up-filtered frames, and smaller (Z_RLE finds
// no matches at distance 3); see docs/performance.md. Z_RLE is the reference and fallback
// (PngDeflater::zlib); it is itself faster than level 4 with Z_FILTERED, at about its size.
//
// Filter: Up on every row (smaller than Paeth on our frames, and a byte subtraction:
// png_filter.cpp says why), applied straight to the RGBA rows with alpha dropped in the same
// pass (the frames are opaque, so the PNG is RGB, colour type 2); vectorised, as are the
// Adler-32 (png_adler32) and the pieces' CRC-32 (png_crc32).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ms {

inline constexpr size_t kPngSegmentBytes = size_t(1) << 20;  // filtered bytes per deflate segment
inline constexpr int kPngDeflateLevel = 1;  // zlib level; with Z_RLE the level changes nothing but speed

// Bytes deflated elsewhere that are not in host memory as a whole: the GPU encoder
// (png_encode_cuda.h) hands the PNG writer's thread its compressed bytes through this, copying
// them from the device into a few small pinned buffers as they are written (pinning memory for
// all of them cost as long as writing them to the disk).
class PngByteReader {
public:
    virtual ~PngByteReader() = default;
    // The stream's next bytes, in order: at least one and at most `wanted` of them, *got bytes
    // at the returned pointer, which stays valid until the next call. Throws with a sentence
    // on failure or past the end.
    virtual const uint8_t* read(size_t wanted, size_t* got) = 0;
};

// One call's share of the zlib stream, as it came off the cores: piece k is segment k's deflate
// output (the first call also has the 2-byte zlib header before them, finish() the trailer), with
// the CRC-32 of that piece alone, computed on the core that deflated it. The PNG writer
// (image_io.cpp) writes the pieces as IDAT chunks straight from here, combining the chunks' CRCs
// with crc32_combine: no serial pass over the compressed bytes (a serial CRC-32 and a copy into one
// buffer would be a large share of a 16k CUDA export's writing). The buffers are reused
// from call to call (a fresh megabyte per segment costs page faults every time).
struct PngStreamPieces {
    std::vector<std::vector<uint8_t>> bytes;  // only the first `count` are this call's
    // Where borrowed[k] is set, piece k's bytes are there instead (borrowed_size[k] of them), in
    // memory that stays valid until they are written (rows deflated elsewhere, in host memory:
    // PngEncoder::append_deflated), which is not copied.
    std::vector<const uint8_t*> borrowed;
    std::vector<size_t> borrowed_size;
    // Where streamed[k] is set, piece k's borrowed_size[k] bytes are the next ones `reader` gives
    // (rows deflated on the GPU): such pieces are read once, in order, when they are written.
    std::vector<uint8_t> streamed;
    PngByteReader* reader = nullptr;
    std::vector<uint32_t> crc;
    size_t count = 0;
    const uint8_t* data(size_t k) const { return borrowed[k] ? borrowed[k] : bytes[k].data(); }  // not streamed
    size_t size(size_t k) const { return borrowed[k] || streamed[k] ? borrowed_size[k] : bytes[k].size(); }
    size_t total_bytes() const;
    // Pieces [first, end) through write(pointer, n), in order. Consecutive streamed pieces are
    // read as one run, a span of the reader at a time: a few large writes, not one per piece.
    template <class Write>
    void write_pieces(size_t first, size_t end, Write write) const {
        for (size_t k = first; k < end;) {
            if (!streamed[k]) {
                write(data(k), size(k));
                ++k;
                continue;
            }
            size_t run = 0;
            for (; k < end && streamed[k]; ++k) run += borrowed_size[k];
            for (size_t left = run; left > 0;) {
                size_t got = 0;
                const uint8_t* p = reader->read(left,
                                                &got);  // (not inside write's arguments: their order is unspecified)
                write(p, got);
                left -= got;
            }
        }
    }
    void append_to(std::vector<uint8_t>* out) const;  // the pieces back to back
};

// Which deflate encoder compresses the segments.
enum class PngDeflater {
    fast,  // png_deflate.h: run and pixel matches, one Huffman table per 64K symbols
    zlib,  // zlib, Z_RLE: the reference (slower, and larger files on our frames)
};

// Rows deflated elsewhere (the GPU encoder, png_encode_cuda.h) in encode_rows's format: the
// rows cut into segments as png_rows_per_segment says, each segment's raw deflate ending with a
// sync flush, back to back, with the Adler-32 of each segment's filtered bytes. The bytes are in
// host memory at `bytes`, which the pieces made from them borrow (it must stay valid until they
// are written), or, with `bytes` null, they come from `reader` as they are written.
struct PngDeflatedRows {
    int rows = 0;
    size_t segments = 0;
    const uint8_t* bytes = nullptr;
    PngByteReader* reader = nullptr;          // where the bytes come from when `bytes` is null
    const uint32_t* segment_bytes = nullptr;  // each segment's deflate, in bytes
    const uint32_t* segment_adler = nullptr;
    const uint32_t* segment_crc =
        nullptr;  // each segment's CRC-32 (of its deflate), or null: computed here from `bytes`
    const uint8_t* last_row_rgba = nullptr;  // the last row's RGBA (host), the next row's Up predictor
};

// Rows per segment when `rows` rows of `width` pixels are encoded in one call: about
// kPngSegmentBytes of filtered bytes, at least one row.
int png_rows_per_segment(int width, int rows);

class PngEncoder {
public:
    explicit PngEncoder(int width, PngDeflater deflater = PngDeflater::fast);
    // Filters and deflates `rows` rows of RGBA8 (width * 4 bytes each, alpha ignored) on every
    // core and appends the resulting bytes of the zlib stream to *out. The first call also
    // writes the zlib header. Memory: the rows' filtered bytes and their compressed copy.
    void encode_rows(const uint8_t* rgba, int rows, std::vector<uint8_t>* out);
    // The same, leaving the bytes as pieces in *pieces (replacing what it held).
    void encode_rows(const uint8_t* rgba, int rows, PngStreamPieces* pieces);
    // Appends the final (empty) deflate block and the Adler-32 of everything: the stream is done.
    void finish(std::vector<uint8_t>* out);
    void finish(PngStreamPieces* pieces);
    // Rows deflated elsewhere, as the next part of the stream: their segments become the pieces,
    // borrowing rows.bytes or streamed from rows.reader (the first call's also has the zlib
    // header), their CRC-32s taken from rows.segment_crc or computed on every core, and their
    // Adler-32s join the stream's. The CPU may encode the rows after them.
    void append_deflated(const PngDeflatedRows& rows, PngStreamPieces* pieces);

    // How the rows so far were filtered: counts of filter types 0..4 (for tests and benchmarks).
    const uint64_t* filter_counts() const { return filter_counts_; }

private:
    int width_ = 0;
    PngDeflater deflater_ = PngDeflater::fast;
    bool started_ = false;
    uint32_t adler_ = 1;
    std::vector<uint8_t> previous_;               // the last row written (RGBA as given), the Up predictor
    std::vector<std::vector<uint8_t>> filtered_;  // per thread of the team: a segment's filtered bytes
    uint64_t filter_counts_[5] = {0, 0, 0, 0, 0};
};

// One row of RGBA8 pixels filtered for an RGB PNG (alpha dropped): out[0] is the filter type
// (2, Up), out[1..3*width] the bytes. `above_rgba` is the row above, RGBA8 too (all zero for the
// first row). Vectorised (png_filter.cpp); the _reference is the scalar version it equals byte
// for byte.
void png_filter_row(const uint8_t* rgba, const uint8_t* above_rgba, int width, uint8_t* out);
void png_filter_row_reference(const uint8_t* rgba, const uint8_t* above_rgba, int width, uint8_t* out);
// The Adler-32 of data[0, n) continuing from `adler` (1 to start), vectorised (png_filter.cpp);
// equal to zlib's adler32, its reference.
uint32_t png_adler32(uint32_t adler, const uint8_t* data, size_t n);
// The CRC-32 of data[0, n) continuing from `crc` (0 to start), by carry-less multiplication
// where the CPU has it (png_filter.cpp); equal to zlib's crc32, its reference.
uint32_t png_crc32(uint32_t crc, const uint8_t* data, size_t n);

}  // namespace ms
