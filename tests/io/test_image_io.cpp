// test_image_io.cpp: PNG and .npy files round-trip (pixels, the view in the tEXt chunk, the
// .npy header and values), a PNG without our chunk is refused with a clear error, and a failed
// or abandoned write leaves neither a partial file nor a clobbered one.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "compute/fractal/view_record.h"
#include "compute/io/image_io.h"

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

}  // namespace
