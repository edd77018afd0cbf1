// test_png_encode_cuda.cpp: the GPU's PNG encoder (compute/io/png_encode_cuda.h).
// On the host, everywhere: its emulation (the same phases, one thread after another) gives raw
// deflate that zlib inflates back to every byte, on fractal frames, random bytes (stored blocks),
// runs, tiny inputs (fewer bytes than threads), odd widths, one row and several segments; its
// Adler-32s are zlib's, and so are its segments' CRC-32s (a part per thread, joined by the CRCs'
// algebra); a PNG written through PngStreamWriter::write_deflated_rows decodes to the image,
// also when the bytes are read in small spans (PngByteReader, as the GPU's staging gives them);
// and on a 4K frame its file is within 0.5% of the CPU encoder's.
// On a GPU (skipped here with the reason): the device's bytes, sizes, Adler-32s and CRC-32s
// equal the emulation's byte for byte, read through its staging buffers over spans, and the
// PNG it writes decodes to the image.
#include <gtest/gtest.h>
#include <zlib.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/colour/palette.h"
#include "compute/io/image_io.h"
#include "compute/io/png_deflate_parallel.h"
#include "compute/io/png_encode.h"
#include "compute/io/png_encode_cuda.h"
#include "tests/validate.h"

namespace fs = std::filesystem;

namespace {

// Raw-inflates `stream` (non-final blocks, to which an empty final block is added) with zlib.
bool inflate_raw(std::vector<uint8_t> stream, size_t expected_size, std::vector<uint8_t>* out, std::string* why) {
    stream.push_back(0x03);  // BFINAL 1, fixed codes, end of block
    stream.push_back(0x00);
    z_stream zs{};
    if (inflateInit2(&zs, -15) != Z_OK) {
        *why = "inflateInit2 failed";
        return false;
    }
    out->assign(expected_size + 16, 0);
    zs.next_in = stream.data();
    zs.avail_in = uInt(stream.size());
    zs.next_out = out->data();
    zs.avail_out = uInt(out->size());
    const int status = inflate(&zs, Z_FINISH);
    out->resize(zs.total_out);
    if (status != Z_STREAM_END) *why = std::string("inflate: ") + (zs.msg ? zs.msg : std::to_string(status));
    const bool consumed_all = zs.avail_in == 0;
    inflateEnd(&zs);
    if (status == Z_STREAM_END && !consumed_all) *why = "bytes left after the final block";
    return status == Z_STREAM_END && consumed_all;
}

// One segment through the emulation: zlib inflates it to `data`, it ends with a sync flush,
// its Adler-32 is zlib's. Returns its size.
size_t expect_segment_round_trip(const std::vector<uint8_t>& data, const std::string& what) {
    std::vector<uint8_t> stream;
    uint32_t adler = 0;
    ms::png_deflate_segment_emulated(data.data(), data.size(), &stream, &adler);
    EXPECT_GE(stream.size(), 5u) << what;
    if (stream.size() < 5) return 0;
    EXPECT_EQ(0, std::memcmp(stream.data() + stream.size() - 4, "\x00\x00\xff\xff", 4)) << what;
    EXPECT_EQ(adler, uint32_t(adler32(1, data.data(), uInt(data.size())))) << what;
    // Never larger than storing the bytes (5 bytes a stored block, and the sync flush's 5).
    EXPECT_LE(stream.size(), data.size() + 5 * ((data.size() + 65534) / 65535) + 5 + 1) << what;
    std::vector<uint8_t> back;
    std::string why;
    EXPECT_TRUE(inflate_raw(stream, data.size(), &back, &why)) << what << ": " << why;
    EXPECT_EQ(back.size(), data.size()) << what;
    for (size_t i = 0; i < std::min(back.size(), data.size()); ++i) {
        if (back[i] != data[i]) {
            ADD_FAILURE() << what << ": first difference at byte " << i << " of " << data.size();
            break;
        }
    }
    return stream.size();
}

std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng, int alphabet = 256) {
    std::vector<uint8_t> v(n);
    std::uniform_int_distribution<int> byte(0, alphabet - 1);
    for (auto& b : v) b = uint8_t(byte(rng));
    return v;
}

// A fractal frame as RGBA (the default view, or its seahorse valley, on the fast CPU path).
std::vector<uint8_t> fractal_rgba(int width, int height, bool seahorse = false) {
    ms::View view;
    view.width = width;
    view.height = height;
    if (seahorse) {
        view.center_re = "-0.745";
        view.center_im = "0.11";
        view.zoom = 60.0;
    }
    std::vector<float> mu(size_t(width) * height);
    ms::direct_cpu(view, ms::Precision::Fp64, {}, {}, mu.data());
    std::vector<uint8_t> rgba(mu.size() * 4);
    ms::colourize(mu.data(), int64_t(mu.size()), ms::make_palette_table(ms::load_palette(view.palette)), view,
                  rgba.data());
    return rgba;
}

// The Up-filtered RGB rows of an image (the reference filter), as the zlib stream carries them.
std::vector<uint8_t> filtered_rows(const std::vector<uint8_t>& rgba, int width, int height) {
    const size_t stride = size_t(width) * 3 + 1;
    std::vector<uint8_t> zero(size_t(width) * 4, 0), filtered(stride * size_t(height));
    for (int r = 0; r < height; ++r)
        ms::png_filter_row_reference(rgba.data() + size_t(r) * width * 4,
                                     r == 0 ? zero.data() : rgba.data() + size_t(r - 1) * width * 4, width,
                                     filtered.data() + size_t(r) * stride);
    return filtered;
}

// Rows through png_encode_rows_emulated, joined into one zlib stream as the PNG writer joins
// them; zlib's uncompress gives back the filtered rows (and checks the Adler-32).
void expect_rows_round_trip(const std::vector<uint8_t>& rgba, int width, int height, const std::string& what) {
    std::vector<uint8_t> zero(size_t(width) * 4, 0), bytes;
    std::vector<uint32_t> sizes, adlers;
    ms::png_encode_rows_emulated(rgba.data(), zero.data(), width, height, &bytes, &sizes, &adlers);
    const int per_segment = ms::png_rows_per_segment(width, height);
    ASSERT_EQ(sizes.size(), size_t((height + per_segment - 1) / per_segment)) << what;
    size_t total = 0;
    for (uint32_t s : sizes) total += s;
    ASSERT_EQ(total, bytes.size()) << what;

    ms::PngEncoder encoder(width);
    ms::PngDeflatedRows rows;
    rows.rows = height;
    rows.segments = sizes.size();
    rows.bytes = bytes.data();
    rows.segment_bytes = sizes.data();
    rows.segment_adler = adlers.data();
    rows.last_row_rgba = rgba.data() + size_t(height - 1) * width * 4;
    ms::PngStreamPieces pieces;
    std::vector<uint8_t> stream;
    encoder.append_deflated(rows, &pieces);
    pieces.append_to(&stream);
    for (size_t k = 0; k < pieces.count; ++k)
        EXPECT_EQ(pieces.crc[k], uint32_t(crc32(0, pieces.data(k), uInt(pieces.size(k))))) << what;
    encoder.finish(&pieces);
    pieces.append_to(&stream);

    const std::vector<uint8_t> expected = filtered_rows(rgba, width, height);
    std::vector<uint8_t> back(expected.size() + 16);
    uLongf length = uLongf(back.size());
    ASSERT_EQ(uncompress(back.data(), &length, stream.data(), uLong(stream.size())), Z_OK) << what;
    ASSERT_EQ(length, expected.size()) << what;
    for (size_t i = 0; i < expected.size(); ++i)
        ASSERT_EQ(back[i], expected[i]) << what << ": first difference at byte " << i;
}

// Bytes handed out as the GPU encoder's reader hands them: at most `span` at a time, in order,
// and the pointer given only until the next call (the span is copied into a buffer of its own,
// so a writer that kept an old pointer would see the next span's bytes).
struct SpanReader final : ms::PngByteReader {
    const std::vector<uint8_t>& bytes;
    size_t span, at = 0;
    std::vector<uint8_t> buffer;
    SpanReader(const std::vector<uint8_t>& b, size_t s) : bytes(b), span(s) {}
    const uint8_t* read(size_t wanted, size_t* got) override {
        if (wanted == 0 || at >= bytes.size()) throw std::runtime_error("read past the end");
        // Spans end where the GPU's do: at multiples of `span` from the start.
        *got = std::min(wanted, span - at % span);
        *got = std::min(*got, bytes.size() - at);
        buffer.assign(bytes.begin() + ptrdiff_t(at), bytes.begin() + ptrdiff_t(at + *got));
        at += *got;
        return buffer.data();
    }
};

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("ms_png_encode_cuda_" + std::to_string(::getpid()));
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST(PngDeflateEmulated, RandomBytesGoOutStoredAndRoundTrip) {
    std::mt19937 rng(7);
    for (size_t n : {size_t(65535), size_t(65536), size_t(200000), size_t(1) << 20}) {
        const auto data = random_bytes(n, rng);
        const size_t size = expect_segment_round_trip(data, "random " + std::to_string(n));
        EXPECT_EQ(size, n + 5 * ((n + 65534) / 65535) + 5) << "stored blocks exactly, n = " << n;
    }
}

TEST(PngDeflateEmulated, RunsAndSmallAlphabetsCompress) {
    std::mt19937 rng(11);
    const std::vector<uint8_t> zeros(1 << 20, 0);
    EXPECT_LT(expect_segment_round_trip(zeros, "a megabyte of zeros"), size_t(20000));
    std::vector<uint8_t> pixels(300001);
    for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = uint8_t("\x10\x80\xf0"[i % 3]);
    EXPECT_LT(expect_segment_round_trip(pixels, "one pixel repeated"), size_t(10000));
    const auto small = random_bytes(500000, rng, 4);
    EXPECT_LT(expect_segment_round_trip(small, "four symbols"), small.size() / 3);
}

TEST(PngDeflateEmulated, TinyInputsWithFewerBytesThanThreads) {
    std::mt19937 rng(3);
    for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(4), size_t(7), size_t(100), size_t(255), size_t(256),
                     size_t(257), size_t(1000), size_t(4099)}) {
        expect_segment_round_trip(random_bytes(n, rng, 3), "tiny " + std::to_string(n));
        expect_segment_round_trip(std::vector<uint8_t>(n, 9), "tiny run " + std::to_string(n));
    }
}

TEST(PngEncodeEmulated, FractalFramesOddWidthsOneRowAndSegments) {
    expect_rows_round_trip(fractal_rgba(640, 360), 640, 360, "640x360 (one segment)");
    expect_rows_round_trip(fractal_rgba(1023, 700, true), 1023, 700, "1023x700 seahorse (several segments)");
    expect_rows_round_trip(fractal_rgba(3, 5), 3, 5, "3x5");
    expect_rows_round_trip(fractal_rgba(1, 1), 1, 1, "1x1");
    expect_rows_round_trip(fractal_rgba(4097, 1), 4097, 1, "one row of 4097");
    expect_rows_round_trip(fractal_rgba(1, 3000), 1, 3000, "one pixel wide");
    // A row of more than kPngSegmentBytes: one row a segment.
    expect_rows_round_trip(fractal_rgba(400000, 3), 400000, 3, "rows wider than a segment");
    std::mt19937 rng(5);
    expect_rows_round_trip(random_bytes(size_t(301) * 1200 * 4, rng), 301, 1200, "random pixels");
}

// The CRC-32 pieces (png_deflate_parallel.h, 6.): the product and shift against zlib's
// crc32_combine on random CRCs and lengths, and a segment's CRC taken in 256 parts equal to zlib's
// crc32 for every size from a few bytes (most parts empty) to several megabytes.
TEST(PngDeflateEmulated, SegmentCrcTakenInPartsIsZlibs) {
    using namespace ms::pdeflate;
    std::mt19937 rng(17);
    for (int round = 0; round < 300; ++round) {
        const uint32_t a = uint32_t(rng()), b = uint32_t(rng());
        const uint64_t length = round < 100 ? uint64_t(round) : uint64_t(rng()) % (uint64_t(1) << (round % 34));
        EXPECT_EQ(crc32_shift(a, length) ^ b, uint32_t(crc32_combine(a, b, z_off_t(length))))
            << "round " << round << ", length " << length;
    }
    for (size_t n : {size_t(1), size_t(5), size_t(255), size_t(256), size_t(257), size_t(4099), size_t(65536),
                     size_t(1000003), size_t(5) << 20}) {
        const auto data = random_bytes(n, rng);
        EXPECT_EQ(ms::png_segment_crc_emulated(data.data(), n), uint32_t(crc32(0, data.data(), uInt(n))))
            << n << " bytes";
    }
    // And as png_encode_rows_emulated gives them, for its own segments.
    const auto rgba = fractal_rgba(1023, 700, true);
    std::vector<uint8_t> zero(size_t(1023) * 4, 0), bytes;
    std::vector<uint32_t> sizes, adlers, crcs;
    ms::png_encode_rows_emulated(rgba.data(), zero.data(), 1023, 700, &bytes, &sizes, &adlers, &crcs);
    ASSERT_EQ(crcs.size(), sizes.size());
    size_t at = 0;
    for (size_t s = 0; s < sizes.size(); at += sizes[s++])
        EXPECT_EQ(crcs[s], uint32_t(crc32(0, bytes.data() + at, uInt(sizes[s])))) << "segment " << s;
}

// The GPU sorts the literal/length leaves by rank, one symbol a thread (huffman_leaf_rank), where
// the host sorts them by radix: the codes must be the same, for skewed, flat and sparse counts.
TEST(PngDeflateEmulated, RankSortedLeavesGiveTheRadixSortsCodes) {
    using namespace ms::pdeflate;
    std::mt19937 rng(13);
    for (int round = 0; round < 200; ++round) {
        uint32_t lit[kLitLenSymbols] = {}, dist[kDistSymbols] = {};
        const int kind = round % 4;
        for (int s = 0; s < kLitLenSymbols; ++s) {
            const uint32_t r = uint32_t(rng());
            lit[s] = kind == 0   ? r % 7                               // many ties
                     : kind == 1 ? (r % 3 == 0 ? 0 : r % 1000000)      // wide range
                     : kind == 2 ? (s % 97 == 0 ? r % 50 : 0)          // sparse
                                 : (s < 20 ? 1u << (r % 20) : r % 2);  // skewed past 15 bits
        }
        dist[0] = rng() % 1000;
        dist[2] = rng() % 1000;
        auto radix = std::make_unique<BlockPlan>(), ranked = std::make_unique<BlockPlan>();
        auto scratch = std::make_unique<HuffmanScratch>();
        uint32_t lit_a[kLitLenSymbols], lit_b[kLitLenSymbols];
        std::copy(lit, lit + kLitLenSymbols, lit_a);
        std::copy(lit, lit + kLitLenSymbols, lit_b);
        plan_block(lit_a, dist, 1 << 20, *radix, *scratch);
        lit_b[kEndOfBlock] = 1;
        std::vector<uint64_t> sorted(kLitLenSymbols);
        int leaves = 0;
        for (int s = 0; s < kLitLenSymbols; ++s) {
            if (lit_b[s] == 0) continue;
            sorted[size_t(huffman_leaf_rank(lit_b, kLitLenSymbols, s))] = uint64_t(lit_b[s]) << 16 | uint64_t(s);
            ++leaves;
        }
        plan_block(lit_b, dist, 1 << 20, *ranked, *scratch, sorted.data(), leaves);
        ASSERT_EQ(0, std::memcmp(radix->lit_len, ranked->lit_len, sizeof radix->lit_len)) << "round " << round;
        ASSERT_EQ(radix->total_bits, ranked->total_bits) << "round " << round;
    }
}

// The stream writer takes the emulation's rows as the GPU's: the PNG decodes to the image,
// and CPU-encoded rows can follow them (the fallback after a GPU failure).
TEST(PngEncodeEmulated, StreamWriterWritesDeflatedRowsThenCpuRows) {
    TempDir dir;
    const int width = 777, height = 900, split = 600;
    const auto rgba = fractal_rgba(width, height, true);
    // The bytes in host memory, then read through a reader in spans of 4099 and 100000 bytes
    // (pieces cut across spans, and spans holding several pieces).
    for (size_t span : {size_t(0), size_t(4099), size_t(100000)}) {
        const std::string what = span == 0 ? "bytes in memory" : "bytes read in spans of " + std::to_string(span);
        const fs::path path = dir.path / "mixed.png";
        std::vector<uint8_t> zero(size_t(width) * 4, 0), bytes;
        std::vector<uint32_t> sizes, adlers, crcs;
        ms::png_encode_rows_emulated(rgba.data(), zero.data(), width, split, &bytes, &sizes, &adlers, &crcs);
        SpanReader reader(bytes, std::max<size_t>(span, 1));
        {
            ms::PngStreamWriter writer(path, width, height, "");
            ms::PngDeflatedRows rows;
            rows.rows = split;
            rows.segments = sizes.size();
            rows.bytes = span == 0 ? bytes.data() : nullptr;
            rows.reader = span == 0 ? nullptr : &reader;
            rows.segment_bytes = sizes.data();
            rows.segment_adler = adlers.data();
            rows.segment_crc = span == 0 ? nullptr : crcs.data();
            rows.last_row_rgba = rgba.data() + size_t(split - 1) * width * 4;
            writer.write_deflated_rows(rows, 0.0);
            writer.write_rows(rgba.data() + size_t(split) * width * 4, height - split);
            writer.finish();
            EXPECT_TRUE(writer.timings().gpu_encoded) << what;
        }
        if (span > 0) {
            EXPECT_EQ(reader.at, bytes.size()) << what << ": every byte read once";
        }
        ms::PngImage image;
        ASSERT_NO_THROW(image = ms::read_png(path)) << what;
        ASSERT_EQ(image.width, width) << what;
        ASSERT_EQ(image.height, height) << what;
        for (size_t i = 0; i < rgba.size(); ++i)
            ASSERT_EQ(image.rgba[i], rgba[i]) << what << ": first difference at byte " << i;
    }
}

// One Huffman block per segment and a few bytes lost at each thread's border: on a 4K frame the
// file stays within 0.5% of the CPU encoder's (one block per 64K symbols).
TEST(PngEncodeEmulated, SizeWithinHalfAPercentOfTheCpuEncoderAt4K) {
    const int width = 3840, height = 2160;
    for (bool seahorse : {false, true}) {
        const auto rgba = fractal_rgba(width, height, seahorse);
        std::vector<uint8_t> zero(size_t(width) * 4, 0), bytes, cpu;
        std::vector<uint32_t> sizes, adlers;
        ms::png_encode_rows_emulated(rgba.data(), zero.data(), width, height, &bytes, &sizes, &adlers);
        ms::PngEncoder encoder(width);
        encoder.encode_rows(rgba.data(), height, &cpu);
        const double ratio = double(bytes.size() + 2) / double(cpu.size());
        std::printf("4K %s frame: GPU encoder (emulated) %zu bytes, CPU encoder %zu bytes: %.4fx\n",
                    seahorse ? "seahorse" : "default", bytes.size() + 2, cpu.size(), ratio);
        EXPECT_LT(ratio, 1.005) << (seahorse ? "seahorse" : "default");
    }
}

// --- On the GPU --------------------------------------------------------------------------

// The device's output equals the emulation's, byte for byte, over several calls (the Up filter
// reaching across them), and zlib inflates it to the rows.
TEST(PngEncodeCuda, BytesEqualTheEmulationAndInflateToTheImage) {
    SKIP_WITHOUT_CUDA();
    struct Case {
        int width, height, calls;
        int kind;  // 0 fractal, 1 seahorse, 2 random
    };
    // 3000x2000 random pixels go out stored: 18 MB, several of the staging buffers' 4 MiB spans.
    const Case cases[] = {{1920, 1080, 1, 0}, {1023, 2000, 3, 1}, {301, 1200, 2, 2}, {1, 3000, 2, 0},
                          {4097, 3, 3, 1},    {3, 5, 1, 0},       {400000, 4, 2, 0}, {3000, 2000, 2, 2}};
    std::mt19937 rng(9);
    for (const Case& c : cases) {
        const std::string what = std::to_string(c.width) + "x" + std::to_string(c.height) + " in " +
                                 std::to_string(c.calls) + " calls";
        const auto rgba = c.kind == 2 ? random_bytes(size_t(c.width) * c.height * 4, rng)
                                      : fractal_rgba(c.width, c.height, c.kind == 1);
        ms::PngCudaEncoder gpu(c.width);
        ms::PngEncoder stream_encoder(c.width);
        ms::PngStreamPieces pieces;
        std::vector<uint8_t> stream, zero(size_t(c.width) * 4, 0);
        int at = 0;
        for (int call = 0; call < c.calls; ++call) {
            const int rows = (c.height - at) / (c.calls - call);
            const uint8_t* part = rgba.data() + size_t(at) * c.width * 4;
            const size_t bytes = size_t(rows) * c.width * 4;
            const ms::PngCudaEncoded& out = gpu.encode_rows_device(gpu.upload_rows(call % 2, part, bytes), rows);
            std::vector<uint8_t> want;
            std::vector<uint32_t> sizes, adlers, crcs;
            ms::png_encode_rows_emulated(part, at == 0 ? zero.data() : part - size_t(c.width) * 4, c.width, rows, &want,
                                         &sizes, &adlers, &crcs);
            ASSERT_EQ(out.rows.segments, sizes.size()) << what;
            ASSERT_EQ(out.rows.bytes, nullptr) << what << ": the bytes come through the reader";
            const std::string at_call = what + ", call " + std::to_string(call);
            ASSERT_EQ(ms::test::validate_result((at_call + ": segment sizes").c_str(), sizes.data(),
                                                out.rows.segment_bytes, sizes.size(), 0.0)
                          .mismatches,
                      0u);
            EXPECT_EQ(ms::test::validate_result((at_call + ": segment Adler-32s").c_str(), adlers.data(),
                                                out.rows.segment_adler, adlers.size(), 0.0)
                          .mismatches,
                      0u);
            EXPECT_EQ(ms::test::validate_result((at_call + ": segment CRC-32s").c_str(), crcs.data(),
                                                out.rows.segment_crc, crcs.size(), 0.0)
                          .mismatches,
                      0u);
            ASSERT_EQ(0, std::memcmp(out.rows.last_row_rgba, part + bytes - size_t(c.width) * 4, size_t(c.width) * 4));
            // The bytes, read through the staging buffers as the PNG writer reads them.
            const size_t before = stream.size() +
                                  (call == 0 ? 2 : 0);  // the first call's pieces start with the zlib header
            stream_encoder.append_deflated(out.rows, &pieces);
            pieces.append_to(&stream);
            ASSERT_EQ(stream.size() - before, want.size()) << at_call;
            EXPECT_EQ(ms::test::validate_result((at_call + ": deflated bytes").c_str(), want.data(),
                                                stream.data() + before, want.size(), 0.0)
                          .mismatches,
                      0u);
            at += rows;
        }
        const ms::PngCudaCopyStats copied = gpu.copy_stats();
        EXPECT_EQ(copied.bytes, stream.size() - 2) << what << ": every byte read once through the staging buffers";
        stream_encoder.finish(&pieces);
        pieces.append_to(&stream);
        const std::vector<uint8_t> expected = filtered_rows(rgba, c.width, c.height);
        std::vector<uint8_t> back(expected.size() + 16);
        uLongf length = uLongf(back.size());
        ASSERT_EQ(uncompress(back.data(), &length, stream.data(), uLong(stream.size())), Z_OK) << what;
        ASSERT_EQ(length, expected.size()) << what;
        EXPECT_EQ(0, std::memcmp(back.data(), expected.data(), expected.size())) << what;
    }
}

// The bytes of a call may be left unread: the next calls' are still read whole and right, and
// reading the bytes of the call before last is refused with a sentence, not a crash.
TEST(PngEncodeCuda, UnreadCallsDoNotStopTheNextOnes) {
    SKIP_WITHOUT_CUDA();
    const int width = 1500, height = 3000;
    const auto rgba = fractal_rgba(width, height, true);
    ms::PngCudaEncoder gpu(width);
    std::vector<uint8_t> above(size_t(width) * 4, 0);
    ms::PngByteReader* first_reader = nullptr;
    for (int call = 0; call < 3; ++call) {
        const int rows = height / 3;
        const uint8_t* part = rgba.data() + size_t(call) * rows * width * 4;
        const ms::PngCudaEncoded& out = gpu.encode_rows_device(
            gpu.upload_rows(call % 2, part, size_t(rows) * width * 4), rows);
        std::vector<uint8_t> want;
        std::vector<uint32_t> sizes, adlers;
        ms::png_encode_rows_emulated(part, call == 0 ? above.data() : part - size_t(width) * 4, width, rows, &want,
                                     &sizes, &adlers);
        if (call == 0) {  // read a little of it, then leave it
            first_reader = out.rows.reader;
            size_t got = 0;
            const uint8_t* p = out.rows.reader->read(100, &got);
            ASSERT_GE(got, 1u);
            EXPECT_EQ(0, std::memcmp(p, want.data(), got));
            continue;
        }
        std::vector<uint8_t> bytes;
        for (size_t got = 0; bytes.size() < want.size();) {
            const uint8_t* p = out.rows.reader->read(want.size() - bytes.size(), &got);
            bytes.insert(bytes.end(), p, p + got);
        }
        EXPECT_EQ(ms::test::validate_result(("call " + std::to_string(call)).c_str(), want.data(), bytes.data(),
                                            want.size(), 0.0)
                      .mismatches,
                  0u);
        if (call == 2) {  // call 0's reader now holds call 2's bytes, all read: no more to give
            size_t got = 0;
            EXPECT_THROW(first_reader->read(1, &got), std::runtime_error);
        }
    }
}
