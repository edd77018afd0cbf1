// png_encode_cuda.h: the PNG encoder on the GPU, for frames that are coloured there (render's
// banded CUDA path): the RGBA rows never leave the device; only the compressed bytes (about a
// seventeenth of the RGB on our frames) come to the host, with each segment's Adler-32 and
// CRC-32, and the PNG writer's thread writes them. The stream is the CPU encoder's
// (png_encode.h): the same segments, each a raw deflate piece ending with a sync flush,
// Up-filtered RGB; png_deflate_parallel.h has the scheme, one CUDA block per segment.
//
// The compressed bytes stay on the device after a call: the writer's thread reads them through
// PngByteReader, which copies them span by span into two small pinned staging buffers (pinned
// once, on a helper thread, while the first call's kernels run) and copies the next span while
// the writer writes the current one. Pinning host memory for all of a 16k frame's 47 MB took as
// long as writing them to the disk.
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

// The GPU encoder's output for one call: the sizes, Adler-32s, CRC-32s and last row in host
// memory until the next call; the compressed bytes on the device, read through rows.reader
// (rows.bytes is null) in order by one thread at a time, until the call after next, and no
// longer once the next call's bytes are read (the PNG writer writes them while the next rows
// are encoded).
struct PngCudaEncoded {
    PngDeflatedRows rows;   // what PngEncoder::append_deflated takes
    double filter_ms = 0;   // the filter kernel (CUDA events)
    double deflate_ms = 0;  // the deflate kernel (CUDA events)
    double compact_ms = 0;  // the compaction and CRC-32 kernel, and the sizes' copy to the host (CUDA events)
};

// The compressed bytes' way to the host, over the encoder's life (read it when no thread is
// reading them any more).
struct PngCudaCopyStats {
    double staging_ms = 0;       // pinning the staging buffers, on a helper thread beside the first call's kernels
    double staging_wait_ms = 0;  // the first call waiting for that (0 when it was done before)
    double copy_ms = 0;          // the copies into the staging buffers (CUDA events, on their own stream)
    double copy_wait_ms = 0;     // the reading thread waiting for them
    uint64_t bytes = 0;          // read through the readers
    int spans = 0;               // copies made
    size_t staging_bytes = 0;    // the pinned staging memory
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
    // takes each segment's CRC-32; returns when the kernels are done, with the sizes in host
    // memory and the bytes to be read (PngCudaEncoded). The device rows must be complete (the
    // render calls that fill them are synchronous). Throws on a CUDA error.
    const PngCudaEncoded& encode_rows_device(const uint8_t* rgba_device, int rows);
    PngCudaCopyStats copy_stats() const;

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

// The CRC-32 of one segment's deflate output as the GPU's compaction kernel takes it: a part
// per thread, joined by the CRCs' algebra (png_deflate_parallel.h). Equal to zlib's crc32.
uint32_t png_segment_crc_emulated(const uint8_t* bytes, size_t n);

// PngCudaEncoder::encode_rows_device on the host: filters `rows` rows of RGBA8 against
// `above_rgba` (the row before them, all zero for the first), cuts them into the same segments
// and deflates each with png_deflate_segment_emulated. bytes, segment_bytes, segment_adler and
// segment_crc (when not null) are what the GPU's PngDeflatedRows gives.
void png_encode_rows_emulated(const uint8_t* rgba, const uint8_t* above_rgba, int width, int rows,
                              std::vector<uint8_t>* bytes, std::vector<uint32_t>* segment_bytes,
                              std::vector<uint32_t>* segment_adler, std::vector<uint32_t>* segment_crc = nullptr);

}  // namespace ms
