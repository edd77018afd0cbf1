// test_render_png_stream.cpp: the window's PNG side without a window (render/png_stream.h,
// render/export_image.h, parse_center_text from render/panels.h): the view survives a write
// and read back; a PNG without a Mandelscope view, a non-PNG and a missing file are refused
// with a sentence; a cancelled or failing write leaves the file already on disk untouched and
// no partial file behind; strips arrive in order and the pixels land where they belong.
#include <gtest/gtest.h>

#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "render/export_image.h"
#include "render/panels.h"
#include "render/png_stream.h"

namespace ms {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
    fs::path dir = fs::temp_directory_path() / ("mandelscope_png_test_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir;
}

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Decodes our own PNGs (RGB, filter Sub on every row) back to RGB bytes.
std::vector<uint8_t> decode_rgb(const fs::path& path, int* width, int* height) {
    std::string file = read_file(path);
    size_t pos = 8;
    std::string idat;
    while (pos + 8 <= file.size()) {
        uint32_t n = uint32_t(uint8_t(file[pos])) << 24 | uint32_t(uint8_t(file[pos + 1])) << 16 |
                     uint32_t(uint8_t(file[pos + 2])) << 8 | uint8_t(file[pos + 3]);
        std::string type = file.substr(pos + 4, 4);
        if (type == "IHDR") {
            auto u32 = [&](size_t p) {
                return int(uint8_t(file[p])) << 24 | int(uint8_t(file[p + 1])) << 16 | int(uint8_t(file[p + 2])) << 8 |
                       int(uint8_t(file[p + 3]));
            };
            *width = u32(pos + 8);
            *height = u32(pos + 12);
        }
        if (type == "IDAT") idat += file.substr(pos + 8, n);
        pos += 12 + n;
    }
    uLongf size = uLongf(*height) * (1 + 3 * *width);
    std::vector<uint8_t> raw(size);
    EXPECT_EQ(uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), uLong(idat.size())), Z_OK);
    std::vector<uint8_t> rgb;
    for (int y = 0; y < *height; ++y) {
        const uint8_t* row = raw.data() + size_t(y) * (1 + 3 * *width);
        EXPECT_EQ(row[0], 1);  // filter Sub
        for (int i = 0; i < 3 * *width; ++i) rgb.push_back(uint8_t(row[1 + i] + (i >= 3 ? rgb[rgb.size() - 3] : 0)));
    }
    return rgb;
}

View sample_view() {
    View v;
    v.center_re = "-0.743643887037158704752191506114774";
    v.center_im = "0.131825904205311970493132056385139";
    v.zoom = 12345.5;
    v.width = 7;
    v.height = 5;
    v.max_iterations = 4321;
    v.palette = "fire";
    v.palette_offset = 0.25;
    v.palette_density = 3.5;
    return v;
}

TEST(PngStream, WritesPixelsAndTheViewAndReadsTheViewBack) {
    fs::path dir = temp_dir(), path = dir / "a.png";
    View v = sample_view();
    std::vector<int> first_rows;
    PngWriteResult r = write_png_streamed(path, 7, 5, v, 2, [&](int first, int rows, uint8_t* rgba, std::string*) {
        first_rows.push_back(first);
        for (int y = 0; y < rows; ++y)
            for (int x = 0; x < 7; ++x) {
                uint8_t* p = rgba + (size_t(y) * 7 + x) * 4;
                p[0] = uint8_t(10 * x), p[1] = uint8_t(40 * (first + y)), p[2] = uint8_t(x * (first + y)), p[3] = 255;
            }
        return true;
    });
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(first_rows, (std::vector<int>{0, 2, 4}));
    EXPECT_FALSE(fs::exists(dir / "a.png.partial"));
    int w = 0, h = 0;
    std::vector<uint8_t> rgb = decode_rgb(path, &w, &h);
    ASSERT_EQ(w, 7);
    ASSERT_EQ(h, 5);
    EXPECT_EQ(rgb[(3 * 7 + 6) * 3 + 0], 60);   // pixel (6, 3)
    EXPECT_EQ(rgb[(3 * 7 + 6) * 3 + 1], 120);
    EXPECT_EQ(rgb[(3 * 7 + 6) * 3 + 2], 18);

    std::string error;
    std::optional<View> back = read_png_view(path, &error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->center_re, v.center_re);  // every digit
    EXPECT_EQ(back->center_im, v.center_im);
    EXPECT_EQ(back->zoom, v.zoom);
    EXPECT_EQ(back->max_iterations, v.max_iterations);
    EXPECT_EQ(back->palette, "fire");
    EXPECT_EQ(back->palette_offset, 0.25);
    EXPECT_EQ(back->palette_density, 3.5);
    fs::remove_all(dir);
}

TEST(PngStream, RefusesFilesWithoutAView) {
    fs::path dir = temp_dir();
    std::string error;
    EXPECT_FALSE(read_png_view(dir / "missing.png", &error));
    EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
    std::ofstream(dir / "text.png") << "hello, not a PNG";
    EXPECT_FALSE(read_png_view(dir / "text.png", &error));
    EXPECT_NE(error.find("is not a PNG file"), std::string::npos) << error;
    // A real PNG whose tEXt chunk is someone else's: write one, then rename its keyword.
    View v = sample_view();
    ASSERT_TRUE(write_png_streamed(dir / "other.png", 7, 5, v, 5, [](int, int, uint8_t*, std::string*) { return true; }).ok);
    std::string bytes = read_file(dir / "other.png");
    size_t at = bytes.find(kPngViewKeyword);
    ASSERT_NE(at, std::string::npos);
    bytes[at] = 'X';  // "Xandelscope-view": the CRC no longer matters to a reader that skips it
    std::ofstream(dir / "other.png", std::ios::binary) << bytes;
    EXPECT_FALSE(read_png_view(dir / "other.png", &error));
    EXPECT_NE(error.find("has no Mandelscope view"), std::string::npos) << error;
    // A damaged view.
    EXPECT_THROW(view_from_png_text("{\"center_re\": 1}"), std::runtime_error);
    EXPECT_THROW(view_from_png_text("{\"center_re\":\"x\",\"center_im\":\"0\",\"zoom\":1,\"max_iterations\":5}"),
                 std::runtime_error);
    fs::remove_all(dir);
}

TEST(PngStream, CancelAndFailureLeaveTheOldFile) {
    fs::path dir = temp_dir(), path = dir / "keep.png";
    std::ofstream(path) << "precious";
    View v = sample_view();
    // Cancelled after the first strip.
    PngWriteResult r = write_png_streamed(path, 7, 5, v, 1, [](int first, int, uint8_t*, std::string*) { return first < 1; });
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.cancelled);
    // Failed with a reason.
    r = write_png_streamed(path, 7, 5, v, 1, [](int, int, uint8_t*, std::string* e) {
        *e = "the renderer broke";
        return false;
    });
    EXPECT_FALSE(r.cancelled);
    EXPECT_EQ(r.error, "the renderer broke");
    EXPECT_EQ(read_file(path), "precious");
    EXPECT_FALSE(fs::exists(dir / "keep.png.partial"));
    // Unwritable: a folder that does not exist.
    r = write_png_streamed(dir / "no" / "such.png", 7, 5, v, 1, [](int, int, uint8_t*, std::string*) { return true; });
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("No such file or directory"), std::string::npos) << r.error;
    fs::remove_all(dir);
}

TEST(ExportImage, SupersamplingAveragesAndSettingsAreChecked) {
    fs::path dir = temp_dir();
    ExportSettings s;
    s.path = dir / "x.png";
    s.width = 0;
    EXPECT_NE(validate_export_settings(s), "");
    s.width = s.height = 16;
    s.supersample = 5;
    EXPECT_NE(validate_export_settings(s), "");
    s.supersample = 3;
    EXPECT_EQ(validate_export_settings(s), "");
    // A view far outside the set: every sample escapes at once, and the export still comes
    // out with the view in it and the requested size.
    View v;
    v.center_re = "100";
    v.max_iterations = 10;
    PaletteTable palette = make_palette_table(load_palette("grayscale"));
    std::atomic<bool> cancel{false};
    double last_progress = 0.0;
    ExportResult r = export_view_png(v, palette, s, &cancel, [&](double p) { last_progress = p; });
    ASSERT_TRUE(r.ok) << r.message;
    EXPECT_EQ(last_progress, 1.0);
    std::string error;
    std::optional<View> back = read_png_view(s.path, &error);
    ASSERT_TRUE(back) << error;
    EXPECT_EQ(back->width, 16);
    EXPECT_EQ(back->center_re, "100");
    // Cancelled before it starts: nothing written.
    cancel = true;
    s.path = dir / "y.png";
    r = export_view_png(v, palette, s, &cancel, {});
    EXPECT_TRUE(r.cancelled);
    EXPECT_FALSE(fs::exists(s.path));
    fs::remove_all(dir);
}

TEST(CentreText, ParsesWhatThePanelCopies) {
    std::string re, im;
    EXPECT_EQ(parse_center_text("-0.75, 0.1", &re, &im), "");
    EXPECT_EQ(re, "-0.75");
    EXPECT_EQ(im, "0.1");
    EXPECT_EQ(parse_center_text("  1e-3\t-2 \n", &re, &im), "");
    EXPECT_EQ(re, "1e-3");
    EXPECT_EQ(im, "-2");
    EXPECT_EQ(parse_center_text("-0.743643887037158704752191506114774,0.1318259042053119704931", &re, &im), "");
    EXPECT_EQ(re, "-0.743643887037158704752191506114774");
    EXPECT_NE(parse_center_text("", &re, &im), "");
    EXPECT_NE(parse_center_text("1", &re, &im), "");
    EXPECT_NE(parse_center_text("1,2,3", &re, &im), "");
    EXPECT_NE(parse_center_text("1,x", &re, &im), "");
}

}  // namespace
}  // namespace ms
