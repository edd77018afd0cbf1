// png_encode_cuda.h: the PNG encoder on the GPU, for frames that are coloured there (render's
// banded CUDA path): the RGBA rows never leave the device; only the compressed bytes (about a
// seventeenth of the RGB on our frames) are copied to the host, which computes the chunks'
// CRC-32 and writes. The stream is the CPU encoder's (png_encode.h): the same segments, each a
// raw deflate piece ending with a sync flush, Up-filtered RGB; png_deflate_parallel.h has the
// scheme, one CUDA block per segment.
//
// png_deflate_segment_emulated and png_encode_rows_emulated run the GPU's phases on the host,
// one "thread" after another: the CPU reference the GPU's bytes must equal byte for byte
// (tests/io/test_png_encode_cuda.cpp). Without CUDA the encoder's constructor throws with the
// reason; the emulation is always built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "compute/io/png_encode.h"

namespace ms {

// The GPU encoder's output for one call, in host memory (pinned): the sizes, Adler-32s and last
// row valid until the next call, the compressed bytes until the call after it (the PNG writer
// writes them from there while the next rows are encoded).
struct PngCudaEncoded {
    PngDeflatedRows rows;     // what PngEncoder::append_deflated takes
    double filter_ms = 0;     // the filter kernel (CUDA events)
    double deflate_ms = 0;    // the deflate and compaction kernels (CUDA events)
    double copy_ms = 0;       // the compressed bytes to the host (CUDA events)
};

class PngCudaEncoder {
public:
    // Throws std::runtime_error with a sentence when CUDA is missing or memory runs out.
    explicit PngCudaEncoder(int width);
    ~PngCudaEncoder();
    PngCudaEncoder(const PngCudaEncoder&) = delete;
    PngCudaEncoder& operator=(const PngCudaEncoder&) = delete;

    // Filters (Up, against the previous call's last row; zero before the first call) and
    // deflates `rows` rows of RGBA8 in device memory (row pitch width * 4; alpha ignored), and
    // copies the compressed bytes to the host. Synchronous; the device rows must be complete
    // (the render calls that fill them are synchronous). Throws on a CUDA error.
    const PngCudaEncoded& encode_rows_device(const uint8_t* rgba_device, int rows);

    // Device memory for the caller's RGBA rows (two buffers, so that the next rows can be
    // computed while these are encoded), grown to `bytes` as needed and kept by the encoder.
    uint8_t* device_rows(int which, size_t bytes);
    // Copies rows from the host into device_rows(which, bytes): for rows made on the host (tests).
    uint8_t* upload_rows(int which, const uint8_t* rgba_host, size_t bytes);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The GPU's deflate of one segment's filtered bytes data[0, n), run on the host: the raw deflate
// (ending with a sync flush) appended to *out, and the Adler-32 of the bytes (from 1).
void png_deflate_segment_emulated(const uint8_t* data, size_t n, std::vector<uint8_t>* out, uint32_t* adler);

// PngCudaEncoder::encode_rows_device on the host: filters `rows` rows of RGBA8 against
// `above_rgba` (the row before them, all zero for the first), cuts them into the same segments
// and deflates each with png_deflate_segment_emulated. bytes, segment_bytes and segment_adler
// are what the GPU's PngDeflatedRows points to.
void png_encode_rows_emulated(const uint8_t* rgba, const uint8_t* above_rgba, int width, int rows,
                              std::vector<uint8_t>* bytes, std::vector<uint32_t>* segment_bytes,
                              std::vector<uint32_t>* segment_adler);

}  // namespace ms
