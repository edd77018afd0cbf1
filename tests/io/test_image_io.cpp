// test_image_io.cpp: PNG and .npy files round-trip (pixels, the view in the tEXt chunk, the
// .npy header and values), a PNG without our chunk is refused with a clear error, and a failed
// or abandoned write leaves neither a partial file nor a clobbered one. The parallel PNG encoder
// gives zlib-valid streams across its segments. Output paths: symbolic links are written
// through, devices, FIFOs and other extensions refused, a signal or a full disk leaves no
// temporary file. Readers refuse lengths their file cannot hold before allocating them
// (inputs a fuzzer found).
#include <gtest/gtest.h>

#include <zlib.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <omp.h>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/view/view_record.h"
#include "compute/io/image_io.h"
#include "compute/io/png_encode.h"

namespace fs = std::filesystem;

namespace {

// A fresh directory per test, removed afterwards.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "mandelscope-io-XXXXXX").string();
        path = ::mkdtemp(pattern.data());
    }
    ~TempDir() { fs::remove_all(path); }
};

std::vector<uint8_t> test_pattern(int width, int height) {
    std::vector<uint8_t> rgba(size_t(width) * height * 4);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            uint8_t* p = &rgba[(size_t(y) * width + x) * 4];
            p[0] = uint8_t(x * 7 + y), p[1] = uint8_t(y * 13), p[2] = uint8_t((x ^ y) * 3), p[3] = 255;
        }
    return rgba;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

size_t entries(const fs::path& dir) {
    return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

// A smooth picture with bands and noise, like a rendered frame: every filter type has rows to win.
std::vector<uint8_t> frame_like_pattern(int width, int height) {
    std::vector<uint8_t> rgba(size_t(width) * height * 4);
    uint32_t noise = 12345;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            uint8_t* p = &rgba[(size_t(y) * width + x) * 4];
            noise = noise * 1664525u + 1013904223u;
            const bool noisy = (x / 64 + y / 48) % 5 == 0;
            p[0] = uint8_t(x / 3 + y / 5 + (noisy ? noise >> 28 : 0));
            p[1] = uint8_t((x * y) >> 9);
            p[2] = uint8_t(y < height / 3 ? 40 : x);
            p[3] = 255;
        }
    return rgba;
}

ms::ViewRecord test_record() {
    ms::ViewRecord record;
    record.view.center_re = "-0.743643887037158704752191506114774";  // more digits than a double holds
    record.view.center_im = "0.131825904205311970493132056385139";
    record.view.zoom = 1.5e7;
    record.view.width = 37;
    record.view.height = 23;
    record.view.max_iterations = 4321;
    record.view.palette = "ocean";
    record.view.palette_offset = 0.25;
    record.view.palette_density = 3.5;
    record.precision = ms::Precision::Fp64;
    record.supersample = 3;
    return record;
}

void expect_same_record(const ms::ViewRecord& a, const ms::ViewRecord& b) {
    EXPECT_EQ(a.view.center_re, b.view.center_re);  // the text, verbatim
    EXPECT_EQ(a.view.center_im, b.view.center_im);
    EXPECT_EQ(a.view.zoom, b.view.zoom);
    EXPECT_EQ(a.view.width, b.view.width);
    EXPECT_EQ(a.view.height, b.view.height);
    EXPECT_EQ(a.view.max_iterations, b.view.max_iterations);
    EXPECT_EQ(a.view.palette, b.view.palette);
    EXPECT_EQ(a.view.palette_offset, b.view.palette_offset);
    EXPECT_EQ(a.view.palette_density, b.view.palette_density);
    EXPECT_EQ(a.precision, b.precision);
    EXPECT_EQ(a.supersample, b.supersample);
}

TEST(ImageIo, PngRoundTripsPixelsAndView) {
    TempDir dir;
    const int w = 37, h = 23;
    auto rgba = test_pattern(w, h);
    auto record = test_record();
    fs::path path = dir.path / "view.png";
    ms::write_png(path, rgba.data(), w, h, ms::view_to_json(record));
    auto image = ms::read_png(path);
    EXPECT_EQ(image.width, w);
    EXPECT_EQ(image.height, h);
    EXPECT_EQ(image.rgba, rgba);
    expect_same_record(ms::read_png_view(path), record);
    // Only the final file is left behind.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(ImageIo, StreamedPngMatchesTheWholeImageWriter) {
    TempDir dir;
    const int w = 301, h = 77;  // written in uneven bands
    auto rgba = test_pattern(w, h);
    auto record = test_record();
    fs::path path = dir.path / "streamed.png";
    {
        ms::PngStreamWriter writer(path, w, h, ms::view_to_json(record));
        for (int y = 0; y < h;) {
            int rows = std::min(h - y, 1 + y % 9);
            writer.write_rows(rgba.data() + size_t(y) * w * 4, rows);
            y += rows;
        }
        writer.finish();
    }
    auto image = ms::read_png(path);
    EXPECT_EQ(image.width, w);
    EXPECT_EQ(image.height, h);
    EXPECT_EQ(image.rgba, rgba);
    expect_same_record(ms::read_png_view(path), record);
}

// Rows streamed in calls of part_rows() and then one call of the rest make write_png's file byte
// for byte (a deep render on several devices streams its rows so as its bands land). On one
// thread, so that a part is a few MB; the image has two parts and a half.
TEST(ImageIo, StreamedInPartsIsWritePngByteForByte) {
    TempDir dir;
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const int w = 2048;
    int part = 0;
    {
        ms::PngStreamWriter probe(dir.path / "probe.png", w, 1 << 16, "");
        part = probe.part_rows();
    }
    const int h = 2 * part + part / 2 + 7;
    auto rgba = test_pattern(w, h);
    ms::write_png(dir.path / "whole.png", rgba.data(), w, h, "metadata");
    ms::PngStreamWriter writer(dir.path / "parts.png", w, h, "metadata");
    ASSERT_EQ(writer.part_rows(), part);
    int y = 0;
    for (; h - y >= 2 * part; y += part) writer.write_rows(rgba.data() + size_t(y) * w * 4, part);
    writer.write_rows(rgba.data() + size_t(y) * w * 4, h - y);
    writer.finish();
    omp_set_num_threads(threads);
    EXPECT_EQ(read_file(dir.path / "whole.png"), read_file(dir.path / "parts.png"));
}

// The writer thread writes batch k while batch k+1 is encoded, and each IDAT chunk's CRC-32 is
// combined from the pieces' own CRCs (image_io.cpp, write_idat). stb_image does not check CRCs,
// so this walks the chunks and checks every one with zlib; noise makes the stream longer than
// one 8 MiB chunk, in several batches and across rows written in uneven calls.
TEST(ImageIo, StreamedPngChunksCarryValidCrcs) {
    TempDir dir;
    const int w = 2048, h = 1600;
    std::vector<uint8_t> rgba(size_t(w) * h * 4);
    std::mt19937 rng(5);
    for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = (i & 3) == 3 ? 255 : uint8_t(rng());
    const fs::path path = dir.path / "noise.png";
    ms::PngStreamWriter writer(path, w, h, "");
    for (int y = 0; y < h;) {
        const int rows = std::min(h - y, 1 + (y * 7) % 500);
        writer.write_rows(rgba.data() + size_t(y) * w * 4, rows);
        y += rows;
    }
    writer.finish();
    const std::string file = read_file(path);
    EXPECT_EQ(writer.timings().file_bytes, file.size());
    EXPECT_EQ(writer.timings().raw_bytes, uint64_t(w) * h * 3);
    size_t at = 8, idat_chunks = 0, idat_bytes = 0;
    bool ended = false;
    while (at + 12 <= file.size()) {
        const auto* p = reinterpret_cast<const uint8_t*>(file.data() + at);
        const uint32_t length = uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
        ASSERT_LE(at + 12 + length, file.size());
        const std::string type = file.substr(at + 4, 4);
        const uint8_t* q = p + 8 + length;
        const uint32_t stored = uint32_t(q[0]) << 24 | uint32_t(q[1]) << 16 | uint32_t(q[2]) << 8 | q[3];
        EXPECT_EQ(stored, uint32_t(crc32(0, p + 4, 4 + length))) << "chunk " << type << " at byte " << at;
        if (type == "IDAT") ++idat_chunks, idat_bytes += length;
        at += 12 + length;
        if (type == "IEND") ended = true;
    }
    EXPECT_TRUE(ended);
    EXPECT_EQ(at, file.size());
    EXPECT_GE(idat_chunks, 2u);  // past 8 MiB: the chunks are cut between pieces
    EXPECT_EQ(idat_bytes, writer.timings().compressed_bytes);
    EXPECT_EQ(ms::read_png(path).rgba, rgba);
}

TEST(ImageIo, PngWithoutOurChunkIsAClearError) {
    TempDir dir;
    auto rgba = test_pattern(8, 8);
    fs::path path = dir.path / "plain.png";
    ms::write_png(path, rgba.data(), 8, 8, "");
    EXPECT_EQ(ms::read_png(path).rgba, rgba);
    std::string text;
    EXPECT_FALSE(ms::read_png_text(path, ms::kMetadataKey, &text));
    try {
        ms::read_png_view(path);
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("carries no Mandelscope view"), std::string::npos) << e.what();
    }
    // Not a PNG at all.
    fs::path junk = dir.path / "junk.png";
    std::ofstream(junk) << "not a png";
    EXPECT_THROW(ms::read_png_view(junk), std::runtime_error);
    EXPECT_THROW(ms::read_png(junk), std::runtime_error);
}

TEST(ImageIo, CorruptViewJsonIsRefused) {
    EXPECT_THROW(ms::view_from_json("{\"center_re\": \"1\"}"), std::runtime_error);
    EXPECT_THROW(ms::view_from_json("not json"), std::runtime_error);
    auto record = test_record();
    record.view.max_iterations = 0;
    EXPECT_THROW(ms::view_from_json(ms::view_to_json(record)), std::runtime_error);
}

TEST(ImageIo, NpyHeaderAndValuesReadBack) {
    TempDir dir;
    const int64_t h = 5, w = 7;
    std::vector<float> values(size_t(h * w));
    for (size_t i = 0; i < values.size(); ++i) values[i] = i % 3 == 0 ? -1.0f : float(i) * 0.25f;
    fs::path path = dir.path / "mu.npy";
    ms::write_npy_f32(path, values.data(), h, w);

    // The header, byte for byte as numpy.save writes it.
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_GE(bytes.size(), 10u);
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
    size_t header_length = uint8_t(bytes[8]) | size_t(uint8_t(bytes[9])) << 8;
    EXPECT_EQ((10 + header_length) % 64, 0u);
    std::string header = bytes.substr(10, header_length);
    EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (5, 7), }", 0), 0u) << header;
    EXPECT_EQ(header.back(), '\n');
    EXPECT_EQ(bytes.size(), 10 + header_length + values.size() * 4);

    auto array = ms::read_npy_f32(path);
    EXPECT_EQ(array.height, h);
    EXPECT_EQ(array.width, w);
    EXPECT_EQ(array.values, values);
}

TEST(ImageIo, AbandonedWriteLeavesNothingAndKeepsTheOldFile) {
    TempDir dir;
    fs::path path = dir.path / "keep.npy";
    std::ofstream(path) << "precious";
    {
        ms::NpyStreamWriter writer(path, 4, 4);
        float row[4] = {1, 2, 3, 4};
        writer.write_rows(row, 1);
        // Destroyed without finish(): as if rendering had failed half-way.
    }
    std::ifstream in(path);
    std::string content;
    in >> content;
    EXPECT_EQ(content, "precious");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()), 1);
}

TEST(ImageIo, UnwritablePathsAreRefusedBeforeAnyWork) {
    TempDir dir;
    EXPECT_FALSE(ms::check_writable(dir.path / "no-such-dir" / "x.png").empty());
    EXPECT_FALSE(ms::check_writable(dir.path).empty());  // a directory
    EXPECT_TRUE(ms::check_writable(dir.path / "fine.png").empty());
    EXPECT_THROW(ms::AtomicFile(dir.path / "no-such-dir" / "x.png"), std::runtime_error);
}

// --- The parallel encoder ----------------------------------------------------------------------

TEST(PngEncode, SegmentsJoinIntoOneValidZlibStream) {
    // Wide enough that one call is cut into several deflate segments; zlib's own inflate then
    // checks the joined stream and its combined Adler-32, and the filters undo to the pixels.
    const int w = 1500, h = 700;
    ASSERT_GT(size_t(h) * (size_t(w) * 3 + 1), 2 * ms::kPngSegmentBytes);
    auto rgba = frame_like_pattern(w, h);
    ms::PngEncoder encoder(w);
    std::vector<uint8_t> stream;
    encoder.encode_rows(rgba.data(), 333, &stream);                            // two calls: the row above the
    encoder.encode_rows(rgba.data() + size_t(333) * w * 4, h - 333, &stream);  // second comes from the first
    encoder.finish(&stream);
    std::vector<uint8_t> filtered(size_t(h) * (size_t(w) * 3 + 1) + 1);
    uLongf length = uLongf(filtered.size());
    ASSERT_EQ(uncompress(filtered.data(), &length, stream.data(), uLong(stream.size())), Z_OK);
    ASSERT_EQ(length, size_t(h) * (size_t(w) * 3 + 1));
    const uint64_t* counts = encoder.filter_counts();
    EXPECT_EQ(counts[0] + counts[1] + counts[2] + counts[3] + counts[4], uint64_t(h));
    // Each row is what the scalar reference filter makes of it with the row above.
    std::vector<uint8_t> zeros(size_t(w) * 4, 0), row(size_t(w) * 3 + 1);
    for (int y = 0; y < h; ++y) {
        const uint8_t* above = y == 0 ? zeros.data() : rgba.data() + size_t(y - 1) * w * 4;
        ms::png_filter_row_reference(rgba.data() + size_t(y) * w * 4, above, w, row.data());
        ASSERT_EQ(0, std::memcmp(row.data(), filtered.data() + size_t(y) * row.size(), row.size())) << "row " << y;
    }
}

// The vectorised filter (Up, with alpha dropped in the same pass) equals the scalar one byte
// for byte, on every SIMD target this machine runs, for widths that leave a tail of every length
// after the whole vectors (and the one vector through a buffer), for random bytes (differences
// that wrap) and random alphas (which must not leak into the RGB). Each row is filtered into a
// buffer with guard bytes after it: the vector stores must not write past the row's end.
TEST(PngEncode, SimdFilterEqualsTheReferenceOnEveryTarget) {
    std::mt19937 random(16);
    std::vector<int> widths = {1, 2, 3, 4, 5, 16, 33, 64, 1000, 3840};
    for (int w = 6; w < 40; ++w) widths.push_back(w);
    for (const std::string& target : ms::direct_cpu_simd_targets()) {
        ASSERT_TRUE(ms::direct_cpu_use_simd_target(target));
        for (int w : widths) {
            constexpr size_t kGuard = 80;
            std::vector<uint8_t> rgba(size_t(w) * 4), above(size_t(w) * 4);
            std::vector<uint8_t> got(size_t(w) * 3 + 1 + kGuard), expected(size_t(w) * 3 + 1);
            for (int trial = 0; trial < 4; ++trial) {
                for (auto& v : rgba) v = uint8_t(random());
                for (auto& v : above) v = uint8_t(trial == 3 ? 0 : random());  // trial 3: the first row
                std::fill(got.begin(), got.end(), uint8_t(0xa5));
                ms::png_filter_row_reference(rgba.data(), above.data(), w, expected.data());
                ms::png_filter_row(rgba.data(), above.data(), w, got.data());
                ASSERT_TRUE(std::equal(expected.begin(), expected.end(), got.begin()))
                    << target << ", width " << w << ", trial " << trial;
                for (size_t k = expected.size(); k < got.size(); ++k)
                    ASSERT_EQ(got[k], 0xa5)
                        << target << ", width " << w << ": wrote " << k - expected.size() << " bytes past the row";
            }
        }
    }
    ASSERT_TRUE(ms::direct_cpu_use_simd_target(""));
}

TEST(PngEncode, LargeImageRoundTripsThroughTheWholeImageWriter) {
    TempDir dir;
    const int w = 1280, h = 960;
    auto rgba = frame_like_pattern(w, h);
    fs::path path = dir.path / "large.png";
    ms::write_png(path, rgba.data(), w, h, ms::view_to_json(test_record()));
    auto image = ms::read_png(path);
    EXPECT_EQ(image.width, w);
    EXPECT_EQ(image.height, h);
    EXPECT_TRUE(image.rgba == rgba);
    expect_same_record(ms::read_png_view(path), test_record());
}

// --- Output paths -------------------------------------------------------------------------------

TEST(OutputPaths, SymbolicLinksAreWrittenThroughToTheirTarget) {
    TempDir dir;
    auto rgba = test_pattern(8, 8);
    write_file(dir.path / "real.png", "old");
    fs::create_symlink("real.png", dir.path / "link.png");
    ms::write_png(dir.path / "link.png", rgba.data(), 8, 8, "");
    EXPECT_TRUE(fs::is_symlink(dir.path / "link.png"));
    EXPECT_EQ(ms::read_png(dir.path / "real.png").rgba, rgba);
    // A dangling link: the file it names is created, and the link stays.
    fs::create_symlink("sub/new.png", dir.path / "dangling.png");
    fs::create_directory(dir.path / "sub");
    ms::write_png(dir.path / "dangling.png", rgba.data(), 8, 8, "");
    EXPECT_TRUE(fs::is_symlink(dir.path / "dangling.png"));
    EXPECT_EQ(ms::read_png(dir.path / "sub" / "new.png").rgba, rgba);
    EXPECT_EQ(entries(dir.path), 4u);  // real, link, dangling, sub: no temporary file
    // A loop of links is a sentence, not a hang.
    fs::create_symlink("loop-b.png", dir.path / "loop-a.png");
    fs::create_symlink("loop-a.png", dir.path / "loop-b.png");
    EXPECT_NE(ms::check_writable(dir.path / "loop-a.png").find("loop"), std::string::npos);
}

TEST(OutputPaths, DevicesFifosAndDirectoriesAreRefused) {
    TempDir dir;
    auto rgba = test_pattern(8, 8);
    // `render -o /dev/full` as root must not replace the device node with a PNG.
    for (const char* device : {"/dev/null", "/dev/full"}) {
        if (!fs::exists(device)) continue;
        std::string problem = ms::check_writable(device);
        EXPECT_NE(problem.find("a device"), std::string::npos) << problem;
        EXPECT_THROW(ms::AtomicFile{fs::path(device)}, std::runtime_error);
        EXPECT_TRUE(fs::is_character_file(device));
        fs::create_symlink(device, dir.path / (fs::path(device).filename().string() + ".png"));
        problem = ms::check_writable(dir.path / (fs::path(device).filename().string() + ".png"));
        EXPECT_NE(problem.find("a link to"), std::string::npos) << problem;
    }
    ASSERT_EQ(::mkfifo((dir.path / "fifo.png").c_str(), 0644), 0);
    std::string problem = ms::check_writable(dir.path / "fifo.png");
    EXPECT_NE(problem.find("FIFO"), std::string::npos) << problem;
    EXPECT_THROW(ms::write_png(dir.path / "fifo.png", rgba.data(), 8, 8, ""), std::runtime_error);
    EXPECT_TRUE(fs::is_fifo(dir.path / "fifo.png"));
    fs::create_directory(dir.path / "folder.png");
    EXPECT_NE(ms::check_writable(dir.path / "folder.png").find("is a directory"), std::string::npos);
    // /proc: root passes access(W_OK) there, but no file can be created.
    if (fs::is_directory("/proc")) {
        EXPECT_FALSE(ms::check_writable("/proc/a.png").empty());
    }
}

TEST(OutputPaths, PngWritersRefuseOtherExtensions) {
    TempDir dir;
    auto rgba = test_pattern(8, 8);
    std::string problem = ms::check_writable(dir.path / "picture.jpg", ".png");
    EXPECT_NE(problem.find("must end in .png"), std::string::npos) << problem;
    EXPECT_TRUE(ms::check_writable(dir.path / "PICTURE.PNG", ".png").empty());
    EXPECT_THROW(ms::write_png(dir.path / "picture.jpg", rgba.data(), 8, 8, ""), std::runtime_error);
    EXPECT_EQ(entries(dir.path), 0u);
}

// Runs `body` in a child process and returns its exit status (or 1000 + a signal that killed it).
template <typename Body>
int in_child(Body body) {
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        body();
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

TEST(OutputPaths, SignalsRemoveTheTemporaryFileAndExitWith128PlusTheSignal) {
    for (int signal_number : {SIGINT, SIGTERM}) {
        TempDir dir;
        write_file(dir.path / "keep.png", "precious");
        const int status = in_child([&] {
            ms::install_output_cleanup_on_signals();
            ms::PngStreamWriter writer(dir.path / "keep.png", 64, 64, "");
            ms::NpyStreamWriter raw(dir.path / "raw.npy", 4, 4);
            auto rgba = test_pattern(64, 32);
            writer.write_rows(rgba.data(), 32);
            std::raise(signal_number);  // as a Ctrl+C or `kill` half-way through
            ::_exit(99);
        });
        EXPECT_EQ(status, 128 + signal_number);
        EXPECT_EQ(read_file(dir.path / "keep.png"), "precious");
        EXPECT_EQ(entries(dir.path), 1u) << "a temporary file was left behind";
    }
}

TEST(OutputPaths, AFullDiskLeavesNoTemporaryFile) {
    // RLIMIT_FSIZE makes write() fail as a full disk would (EFBIG instead of ENOSPC). The image
    // is one deflate segment: a forked child must not start an OpenMP team its parent had.
    TempDir dir;
    const int status = in_child([&] {
        std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit{4096, 4096};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        auto rgba = frame_like_pattern(400, 300);
        try {
            ms::write_png(dir.path / "big.png", rgba.data(), 400, 300, "");
        } catch (const std::runtime_error& e) {
            ::_exit(std::strstr(e.what(), "big.png") ? 3 : 4);  // the sentence names the file
        }
        ::_exit(5);
    });
    EXPECT_EQ(status, 3);
    EXPECT_EQ(entries(dir.path), 0u);
}

// --- Readers bound what they allocate ------------------------------------------------------------

std::string be32(uint32_t v) { return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)}; }
const std::string kSignature("\x89PNG\r\n\x1a\n", 8);

TEST(ReaderBounds, PngTextLengthBeyondTheFileIsRefusedUnread) {
    TempDir dir;
    // The fuzzer's input: a signature and a tEXt chunk header declaring 2^31 bytes, 16 bytes in
    // all. A careless reader allocates 2 GiB before reading.
    write_file(dir.path / "text.png", kSignature + be32(0x80000000u) + "tEXt");
    std::string text;
    try {
        ms::read_png_text(dir.path / "text.png", ms::kMetadataKey, &text);
        FAIL() << "accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("corrupt or truncated"), std::string::npos) << e.what();
    }
    write_file(dir.path / "text2.png", kSignature + be32(1000) + "tEXt" + "mandelscope-view");
    EXPECT_THROW(ms::read_png_text(dir.path / "text2.png", ms::kMetadataKey, &text), std::runtime_error);
    // A directory is a sentence too.
    EXPECT_THROW(ms::read_png_text(dir.path, ms::kMetadataKey, &text), std::runtime_error);
}

TEST(ReaderBounds, PngDimensionsBeyondTheFileAreRefusedBeforeDecoding) {
    TempDir dir;
    std::string ihdr = be32(1u << 24) + be32(1u << 24) + std::string("\x08\x06\x00\x00\x00", 5);
    std::string chunk = be32(13) + "IHDR" + ihdr;
    uLong crc = crc32(0, reinterpret_cast<const Bytef*>(chunk.data() + 4), uInt(chunk.size() - 4));
    write_file(dir.path / "huge.png", kSignature + chunk + be32(uint32_t(crc)));
    try {
        ms::read_png(dir.path / "huge.png");
        FAIL() << "accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("more than its"), std::string::npos) << e.what();
    }
}

std::string npy_with_shape(const std::string& shape) {
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    dict.append((64 - (10 + dict.size() + 1) % 64) % 64, ' ');
    dict.push_back('\n');
    return std::string("\x93NUMPY\x01\x00", 8) + char(dict.size() & 0xff) + char(dict.size() >> 8) + dict;
}

TEST(ReaderBounds, NpyShapesAreCheckedAgainstTheFileAndForOverflow) {
    TempDir dir;
    const fs::path path = dir.path / "a.npy";
    auto error_of = [&](const std::string& bytes) -> std::string {
        write_file(path, bytes);
        try {
            ms::read_npy_f32(path);
        } catch (const std::runtime_error& e) {
            return e.what();
        } catch (const std::exception& e) {
            return std::string("escaped: ") + e.what();  // std::length_error and friends
        }
        return "";
    };
    // A header alone asking for 8.4 GB.
    EXPECT_NE(error_of(npy_with_shape("(46000, 46000)")).find("shorter than its shape"), std::string::npos);
    // height * width overflowing int64, and each beyond the cap.
    EXPECT_NE(error_of(npy_with_shape("(4294967296, 4294967296)")).find("declares"), std::string::npos);
    EXPECT_NE(error_of(npy_with_shape("(9223372036854775807, 2)")).find("declares"), std::string::npos);
    EXPECT_NE(error_of(npy_with_shape("(99999999999999999999999, 1)")).find("declares"), std::string::npos);
    EXPECT_NE(error_of(npy_with_shape("(-1, 4)")).find("two-dimensional"), std::string::npos);
    // A header length past the end of the file.
    std::string cut = npy_with_shape("(1, 1)");
    EXPECT_NE(error_of(cut.substr(0, 20)).find("truncated"), std::string::npos);
    // Right: 2 x 3 floats.
    std::string good = npy_with_shape("(2, 3)") + std::string(24, '\0');
    EXPECT_EQ(error_of(good), "");
}

}  // namespace
