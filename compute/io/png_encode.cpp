// png_encode.cpp: PNG row filters and pigz-style parallel deflate (see png_encode.h).
#include "compute/io/png_encode.h"

#include "compute/io/png_deflate.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ms {

namespace {

constexpr int kBpp = 3;  // RGB, 8 bits a channel
// Run-length matches only (distance 1: the byte, or the pixel's channel, repeated), the
// strategy that suits Paeth-filtered smooth gradients, whose residuals are runs of small
// values: on the default 4K frame it gave 2,067,074 bytes at 250 ms a core, against 2,064,291
// bytes and 530 ms for level 4 with Z_FILTERED (README, "Writing PNGs").
constexpr int kPngDeflateStrategy = Z_RLE;

// The Paeth filter of the PNG specification, section 9.2, on one row of `n` bytes: the scalar
// reference of png_filter.cpp's vectorised one.
inline uint8_t paeth(int a, int b, int c) {
    const int p = a + b - c, pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p, pc = p > c ? p - c : c - p;
    return uint8_t(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

void filter_paeth(const uint8_t* row, const uint8_t* up, size_t n, uint8_t* out) {
    for (size_t i = 0; i < kBpp; ++i) out[i] = uint8_t(row[i] - up[i]);  // a = c = 0: predicts b
    for (size_t i = kBpp; i < n; ++i) out[i] = uint8_t(row[i] - paeth(row[i - kBpp], up[i], up[i - kBpp]));
}

void put_be32(std::vector<uint8_t>* out, uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out->push_back(uint8_t(v >> shift));
}

// One segment's output: raw deflate ending in a sync flush, and the Adler-32 of its input.
struct Segment {
    std::vector<uint8_t> deflated;
    uint32_t adler = 1;
    size_t filtered_bytes = 0;
    uint64_t filter_counts[5] = {0, 0, 0, 0, 0};
    const char* error = nullptr;
};

void encode_segment(const uint8_t* rgba, const uint8_t* previous_rgb, int width, int rows, PngDeflater deflater,
                    Segment* seg) {
    const size_t n = size_t(width) * kBpp, stride = n + 1;
    // Scratch kept per thread: a fresh megabyte per segment costs page faults every time.
    thread_local std::vector<uint8_t> filtered;
    filtered.resize(stride * size_t(rows));
    std::vector<uint8_t> above(previous_rgb, previous_rgb + n), current(n);
    for (int r = 0; r < rows; ++r) {
        png_rgba_to_rgb(rgba + size_t(r) * width * 4, width, current.data());
        uint8_t* out = filtered.data() + size_t(r) * stride;
        png_filter_row(current.data(), above.data(), width, out);
        ++seg->filter_counts[out[0]];
        above.swap(current);
    }
    seg->filtered_bytes = filtered.size();
    seg->adler = png_adler32(1, filtered.data(), filtered.size());
    if (deflater == PngDeflater::fast) {
        // Deflated into a buffer kept per thread (a new vector would be zeroed and faulted in
        // as it grows), then copied out at its final size.
        thread_local std::vector<uint8_t> deflated;
        deflated.clear();
        png_deflate_segment(filtered.data(), filtered.size(), &deflated);
        seg->deflated.assign(deflated.begin(), deflated.end());
        return;
    }

    z_stream zs{};
    if (deflateInit2(&zs, kPngDeflateLevel, Z_DEFLATED, -15, 8, kPngDeflateStrategy) != Z_OK) {
        seg->error = "zlib could not start a deflate stream (out of memory?)";
        return;
    }
    seg->deflated.resize(deflateBound(&zs, uLong(filtered.size())) + 64);
    zs.next_in = filtered.data();
    zs.avail_in = uInt(filtered.size());
    size_t produced = 0;
    for (;;) {
        zs.next_out = seg->deflated.data() + produced;
        zs.avail_out = uInt(seg->deflated.size() - produced);
        const int status = deflate(&zs, Z_SYNC_FLUSH);
        produced = seg->deflated.size() - zs.avail_out;
        if (status != Z_OK && status != Z_BUF_ERROR) {
            seg->error = "zlib failed while compressing";
            break;
        }
        if (zs.avail_out != 0) break;  // all input consumed and flushed
        seg->deflated.resize(seg->deflated.size() * 2);
    }
    seg->deflated.resize(produced);
    deflateEnd(&zs);
}

}  // namespace

void png_filter_row_reference(const uint8_t* rgb, const uint8_t* previous, int width, uint8_t* out) {
    out[0] = 4;
    filter_paeth(rgb, previous, size_t(width) * kBpp, out + 1);
}

PngEncoder::PngEncoder(int width, PngDeflater deflater)
    : width_(width), deflater_(deflater), previous_(size_t(width) * kBpp, 0) {
    if (width <= 0) throw std::invalid_argument("PngEncoder: width must be positive");
}

void PngEncoder::encode_rows(const uint8_t* rgba, int rows, std::vector<uint8_t>* out) {
    if (!started_) {
        out->push_back(0x78);  // deflate, 32 KiB window
        out->push_back(0x01);  // FLEVEL 0 ("fastest"), check bits: 0x7801 is a multiple of 31
        started_ = true;
    }
    if (rows <= 0) return;
    const size_t row_bytes = size_t(width_) * kBpp + 1;
    const int rows_per_segment = int(std::clamp<size_t>(kPngSegmentBytes / row_bytes, 1, size_t(rows)));
    const int segments = (rows + rows_per_segment - 1) / rows_per_segment;
    std::vector<Segment> parts(static_cast<size_t>(segments));
    // The row above each segment's first row, as RGB.
    std::vector<uint8_t> above(size_t(segments) * width_ * kBpp);
    std::memcpy(above.data(), previous_.data(), previous_.size());
    for (int s = 1; s < segments; ++s)
        png_rgba_to_rgb(rgba + (size_t(s) * rows_per_segment - 1) * width_ * 4, width_, above.data() + size_t(s) * width_ * kBpp);

    // (No thread team for a single segment: small images, and a forked child, stay on this thread.)
#pragma omp parallel for schedule(dynamic, 1) if (segments > 1)
    for (int s = 0; s < segments; ++s) {
        const int first = s * rows_per_segment, count = std::min(rows_per_segment, rows - first);
        try {
            encode_segment(rgba + size_t(first) * width_ * 4, above.data() + size_t(s) * width_ * kBpp, width_, count,
                           deflater_, &parts[size_t(s)]);
        } catch (const std::bad_alloc&) {
            parts[size_t(s)].error = "out of memory while compressing";
        }
    }
    size_t total = 0;
    for (const Segment& seg : parts) {
        if (seg.error) throw std::runtime_error(seg.error);
        total += seg.deflated.size();
    }
    out->reserve(out->size() + total);
    for (const Segment& seg : parts) {
        out->insert(out->end(), seg.deflated.begin(), seg.deflated.end());
        adler_ = uint32_t(adler32_combine(adler_, seg.adler, z_off_t(seg.filtered_bytes)));
        for (int t = 0; t < 5; ++t) filter_counts_[t] += seg.filter_counts[t];
    }
    png_rgba_to_rgb(rgba + size_t(rows - 1) * width_ * 4, width_, previous_.data());
}

void PngEncoder::finish(std::vector<uint8_t>* out) {
    if (!started_) encode_rows(nullptr, 0, out);
    // An empty final block with fixed Huffman codes: BFINAL=1, BTYPE=01, end-of-block (7 zero
    // bits), padded to the byte.
    out->push_back(0x03);
    out->push_back(0x00);
    put_be32(out, adler_);
}

}  // namespace ms
