// test_render_png_stream.cpp: the window's PNG side without a window (render/frame/png_stream.h,
// render/frame/export_image.h, parse_center_text from render/ui/panels.h): the view survives a write
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

#include "compute/fractal/view/view_record.h"
#include "compute/io/image_io.h"
#include "render/frame/export_image.h"
#include "render/frame/png_stream.h"
#include "render/ui/panels.h"

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
    PngImage image = read_png(path);  // stb_image: an independent decoder
    *width = image.width;
    *height = image.height;
    std::vector<uint8_t> rgb;
    for (size_t i = 0; i < image.rgba.size(); i += 4)
        rgb.insert(rgb.end(), {image.rgba[i], image.rgba[i + 1], image.rgba[i + 2]});
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

// Names of the files in `dir`, sorted: a finished or abandoned write leaves no temporary.
std::vector<std::string> files_in(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
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
    EXPECT_EQ(files_in(dir), (std::vector<std::string>{"a.png"}));  // no temporary left
    int w = 0, h = 0;
    std::vector<uint8_t> rgb = decode_rgb(path, &w, &h);
    ASSERT_EQ(w, 7);
    ASSERT_EQ(h, 5);
    EXPECT_EQ(rgb[(3 * 7 + 6) * 3 + 0], 60);  // pixel (6, 3)
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
    ASSERT_TRUE(
        write_png_streamed(dir / "other.png", 7, 5, v, 5, [](int, int, uint8_t*, std::string*) { return true; }).ok);
    std::string bytes = read_file(dir / "other.png");
    size_t at = bytes.find(kMetadataKey);
    ASSERT_NE(at, std::string::npos);
    bytes[at] = 'X';  // "Xandelscope-view", with the chunk's CRC made right again
    {
        size_t chunk = at - 8;  // length (4 bytes), "tEXt", keyword...
        uint32_t n = uint32_t(uint8_t(bytes[chunk])) << 24 | uint32_t(uint8_t(bytes[chunk + 1])) << 16 |
                     uint32_t(uint8_t(bytes[chunk + 2])) << 8 | uint8_t(bytes[chunk + 3]);
        uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(bytes.data() + chunk + 4), uInt(n + 4));
        for (int i = 0; i < 4; ++i) bytes[chunk + 8 + n + i] = char((crc >> (24 - 8 * i)) & 0xff);
    }
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
    PngWriteResult r = write_png_streamed(path, 7, 5, v, 1,
                                          [](int first, int, uint8_t*, std::string*) { return first < 1; });
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
    EXPECT_EQ(files_in(dir), (std::vector<std::string>{"keep.png"}));  // no temporary left
    // Unwritable: a folder that does not exist.
    r = write_png_streamed(dir / "no" / "such.png", 7, 5, v, 1, [](int, int, uint8_t*, std::string*) { return true; });
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("does not exist"), std::string::npos) << r.error;
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
