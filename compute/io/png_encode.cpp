// png_encode.cpp: PNG row filters and pigz-style parallel deflate (see png_encode.h).
#include "compute/io/png_encode.h"

#include "compute/io/png_deflate.h"

#include <omp.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ms {

namespace {

constexpr int kBpp = 3;  // RGB, 8 bits a channel
// Run-length matches only (distance 1: the byte, or the pixel's channel, repeated), the
// strategy that suits filtered smooth gradients, whose residuals are runs of small
// values: files about as small as level 4 with Z_FILTERED, in about half the time (see
// docs/performance.md).
constexpr int kPngDeflateStrategy = Z_RLE;

// One segment's output: raw deflate ending in a sync flush (into a reused piece buffer), the
// Adler-32 of its input and the CRC-32 of its output.
struct Segment {
    std::vector<uint8_t>* deflated = nullptr;
    uint32_t adler = 1;
    uint32_t crc = 0;
    size_t filtered_bytes = 0;
    uint64_t filter_counts[5] = {0, 0, 0, 0, 0};
    const char* error = nullptr;
};

void encode_segment(const uint8_t* rgba, const uint8_t* above_rgba, int width, int rows, PngDeflater deflater,
                    std::vector<uint8_t>& filtered, Segment* seg) {
    const size_t stride = size_t(width) * kBpp + 1;
    filtered.resize(stride * size_t(rows));
    for (int r = 0; r < rows; ++r) {
        const uint8_t* row = rgba + size_t(r) * width * 4;
        uint8_t* out = filtered.data() + size_t(r) * stride;
        png_filter_row(row, above_rgba, width, out);
        ++seg->filter_counts[out[0]];
        above_rgba = row;
    }
    seg->filtered_bytes = filtered.size();
    seg->adler = png_adler32(1, filtered.data(), filtered.size());
    if (deflater == PngDeflater::fast) {
        // Straight into the piece's buffer, which keeps its capacity from call to call.
        seg->deflated->clear();
        png_deflate_segment(filtered.data(), filtered.size(), seg->deflated);
        seg->crc = png_crc32(0, seg->deflated->data(), seg->deflated->size());
        return;
    }

    z_stream zs{};
    if (deflateInit2(&zs, kPngDeflateLevel, Z_DEFLATED, -15, 8, kPngDeflateStrategy) != Z_OK) {
        seg->error = "zlib could not start a deflate stream (out of memory?)";
        return;
    }
    std::vector<uint8_t>& out = *seg->deflated;
    out.resize(deflateBound(&zs, uLong(filtered.size())) + 64);
    zs.next_in = filtered.data();
    zs.avail_in = uInt(filtered.size());
    size_t produced = 0;
    for (;;) {
        zs.next_out = out.data() + produced;
        zs.avail_out = uInt(out.size() - produced);
        const int status = deflate(&zs, Z_SYNC_FLUSH);
        produced = out.size() - zs.avail_out;
        if (status != Z_OK && status != Z_BUF_ERROR) {
            seg->error = "zlib failed while compressing";
            break;
        }
        if (zs.avail_out != 0) break;  // all input consumed and flushed
        out.resize(out.size() * 2);
    }
    out.resize(produced);
    deflateEnd(&zs);
    seg->crc = png_crc32(0, out.data(), out.size());
}

}  // namespace

void png_filter_row_reference(const uint8_t* rgba, const uint8_t* above_rgba, int width, uint8_t* out) {
    out[0] = 2;  // Up (PNG specification, section 9.2): each byte less the one above it
    for (size_t x = 0; x < size_t(width); ++x)
        for (size_t c = 0; c < kBpp; ++c) out[1 + kBpp * x + c] = uint8_t(rgba[4 * x + c] - above_rgba[4 * x + c]);
}

PngEncoder::PngEncoder(int width, PngDeflater deflater)
    : width_(width), deflater_(deflater), previous_(size_t(width) * 4, 0) {
    if (width <= 0) throw std::invalid_argument("PngEncoder: width must be positive");
}

size_t PngStreamPieces::total_bytes() const {
    size_t total = 0;
    for (size_t k = 0; k < count; ++k) total += size(k);
    return total;
}

void PngStreamPieces::append_to(std::vector<uint8_t>* out) const {
    out->reserve(out->size() + total_bytes());
    write_pieces(0, count, [out](const uint8_t* p, size_t n) { out->insert(out->end(), p, p + n); });
}

namespace {

// Makes room for `count` pieces, keeping the buffers (and their capacity) already there.
void prepare_pieces(PngStreamPieces* pieces, size_t count) {
    if (pieces->bytes.size() < count) pieces->bytes.resize(count);
    pieces->crc.resize(std::max(pieces->crc.size(), count));
    pieces->borrowed.resize(std::max(pieces->borrowed.size(), count));
    pieces->borrowed_size.resize(std::max(pieces->borrowed_size.size(), count));
    pieces->streamed.resize(std::max(pieces->streamed.size(), count));
    std::fill(pieces->borrowed.begin(), pieces->borrowed.begin() + ptrdiff_t(count), nullptr);
    std::fill(pieces->streamed.begin(), pieces->streamed.begin() + ptrdiff_t(count), uint8_t(0));
    pieces->reader = nullptr;
    pieces->count = count;
}

// A small piece of stream that needs no core of its own (the zlib header, the trailer).
void set_piece(PngStreamPieces* pieces, size_t k, const uint8_t* data, size_t n) {
    pieces->bytes[k].assign(data, data + n);
    pieces->crc[k] = png_crc32(0, data, n);
}

}  // namespace

int png_rows_per_segment(int width, int rows) {
    const size_t row_bytes = size_t(width) * kBpp + 1;
    return int(std::clamp<size_t>(kPngSegmentBytes / row_bytes, 1, size_t(std::max(rows, 1))));
}

void PngEncoder::append_deflated(const PngDeflatedRows& rows, PngStreamPieces* pieces) {
    static constexpr uint8_t kZlibHeader[2] = {0x78, 0x01};  // as encode_rows writes it
    const int rows_per_segment = png_rows_per_segment(width_, rows.rows);
    if (rows.rows <= 0 || rows.segments != size_t((rows.rows + rows_per_segment - 1) / rows_per_segment))
        throw std::runtime_error("internal error: deflated rows cut into the wrong segments");
    if (!rows.bytes && !(rows.reader && rows.segment_crc))
        throw std::runtime_error(
            "internal error: deflated rows without their bytes, or streamed without their CRC-32s");
    const size_t first_piece = started_ ? 0 : 1;
    prepare_pieces(pieces, first_piece + rows.segments);
    if (!started_) set_piece(pieces, 0, kZlibHeader, 2);
    started_ = true;
    std::vector<size_t> offset(rows.segments + 1, 0);
    for (size_t s = 0; s < rows.segments; ++s) offset[s + 1] = offset[s] + rows.segment_bytes[s];
    // Borrowed, not copied (a copy into the pieces' buffers, fresh pages on the first bands, would
    // be a large share of the GPU path's encode), or streamed from the reader.
    const int segments = int(rows.segments);
    pieces->reader = rows.bytes ? nullptr : rows.reader;
    for (size_t s = 0; s < rows.segments; ++s) {
        pieces->borrowed[first_piece + s] = rows.bytes ? rows.bytes + offset[s] : nullptr;
        pieces->streamed[first_piece + s] = rows.bytes ? 0 : 1;
        pieces->borrowed_size[first_piece + s] = rows.segment_bytes[s];
    }
    if (rows.segment_crc) {
        std::copy(rows.segment_crc, rows.segment_crc + rows.segments, pieces->crc.begin() + ptrdiff_t(first_piece));
    } else {
        // The CRC-32s on every core.
#pragma omp parallel for schedule(dynamic, 4) if (segments > 1)
        for (int s = 0; s < segments; ++s)
            pieces->crc[first_piece + size_t(s)] = png_crc32(0, rows.bytes + offset[size_t(s)], rows.segment_bytes[s]);
    }
    const size_t row_bytes = size_t(width_) * kBpp + 1;
    for (size_t s = 0; s < rows.segments; ++s) {
        const size_t count = size_t(std::min(rows_per_segment, rows.rows - int(s) * rows_per_segment));
        adler_ = uint32_t(adler32_combine(adler_, rows.segment_adler[s], z_off_t(count * row_bytes)));
    }
    filter_counts_[2] += uint64_t(rows.rows);  // Up on every row, as png_filter_row
    std::memcpy(previous_.data(), rows.last_row_rgba, previous_.size());
}

void PngEncoder::encode_rows(const uint8_t* rgba, int rows, std::vector<uint8_t>* out) {
    PngStreamPieces pieces;
    encode_rows(rgba, rows, &pieces);
    pieces.append_to(out);
}

void PngEncoder::encode_rows(const uint8_t* rgba, int rows, PngStreamPieces* pieces) {
    // deflate, 32 KiB window; FLEVEL 0 ("fastest"), check bits: 0x7801 is a multiple of 31.
    static constexpr uint8_t kZlibHeader[2] = {0x78, 0x01};
    const size_t first_piece = started_ ? 0 : 1;
    if (rows <= 0) {
        prepare_pieces(pieces, first_piece);
        if (!started_) set_piece(pieces, 0, kZlibHeader, 2);
        started_ = true;
        return;
    }
    const int rows_per_segment = png_rows_per_segment(width_, rows);
    const int segments = (rows + rows_per_segment - 1) / rows_per_segment;
    prepare_pieces(pieces, first_piece + size_t(segments));
    if (!started_) set_piece(pieces, 0, kZlibHeader, 2);
    started_ = true;
    std::vector<Segment> parts(static_cast<size_t>(segments));
    for (int s = 0; s < segments; ++s) parts[size_t(s)].deflated = &pieces->bytes[first_piece + size_t(s)];

    // The filtered bytes' scratch, one per thread of the team, kept from call to call (a fresh
    // megabyte per segment costs page faults every time) and freed with the encoder: as
    // thread_local buffers they would outlive every export in the window's thread pools and
    // grow with the widest export so far, a creep a soak run shows.
    if (filtered_.size() < size_t(omp_get_max_threads())) filtered_.resize(size_t(omp_get_max_threads()));

        // (No thread team for a single segment: small images, and a forked child, stay on this thread.)
#pragma omp parallel for schedule(dynamic, 1) if (segments > 1)
    for (int s = 0; s < segments; ++s) {
        const int first = s * rows_per_segment, count = std::min(rows_per_segment, rows - first);
        try {
            // The row above a segment's first row: the previous call's last, or the rows' own.
            const uint8_t* above = first == 0 ? previous_.data() : rgba + (size_t(first) - 1) * width_ * 4;
            encode_segment(rgba + size_t(first) * width_ * 4, above, width_, count, deflater_,
                           filtered_[size_t(omp_get_thread_num()) % filtered_.size()], &parts[size_t(s)]);
        } catch (const std::bad_alloc&) {
            parts[size_t(s)].error = "out of memory while compressing";
        }
    }
    for (size_t s = 0; s < parts.size(); ++s) {
        const Segment& seg = parts[s];
        if (seg.error) throw std::runtime_error(seg.error);
        pieces->crc[first_piece + s] = seg.crc;
        adler_ = uint32_t(adler32_combine(adler_, seg.adler, z_off_t(seg.filtered_bytes)));
        for (int t = 0; t < 5; ++t) filter_counts_[t] += seg.filter_counts[t];
    }
    std::memcpy(previous_.data(), rgba + size_t(rows - 1) * width_ * 4, previous_.size());
}

void PngEncoder::finish(std::vector<uint8_t>* out) {
    PngStreamPieces pieces;
    finish(&pieces);
    pieces.append_to(out);
}

void PngEncoder::finish(PngStreamPieces* pieces) {
    PngStreamPieces head;
    if (!started_) encode_rows(nullptr, 0, &head);
    // An empty final block with fixed Huffman codes (BFINAL=1, BTYPE=01, end-of-block: 7 zero
    // bits, padded to the byte), then the Adler-32 of everything, big-endian.
    uint8_t tail[6] = {0x03, 0x00, uint8_t(adler_ >> 24), uint8_t(adler_ >> 16), uint8_t(adler_ >> 8), uint8_t(adler_)};
    prepare_pieces(pieces, head.count + 1);
    for (size_t k = 0; k < head.count; ++k) set_piece(pieces, k, head.data(k), head.size(k));
    set_piece(pieces, head.count, tail, sizeof tail);
}

}  // namespace ms
