// test_video_keyframes.cpp: the keyframe file (compute/video/keyframes.h, docs/keyframes.md):
// what the writer writes the parser reads back to the same keyframes (deep centres and zooms
// included), comments, blank lines and CRLF are accepted, and each bad file is refused with one
// sentence that names its line; files are written whole or not at all.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "compute/video/keyframes.h"

using namespace ms;

namespace {

// A centre of 600 digits, as a view at zoom ~1e590 carries.
std::string deep_centre(const char* lead) {
    std::string text = lead;
    for (int i = 0; i < 600; ++i) text += char('0' + (i * 7 + 3) % 10);
    return text;
}

std::vector<Keyframe> sample_keyframes() {
    std::vector<Keyframe> k(3);
    k[0].time_s = 0.0;
    k[0].center_re = "-0.75";
    k[0].center_im = "0";
    k[0].zoom = ViewZoom(1.0);
    k[0].max_iterations = 1000;
    k[1].time_s = 12.5;
    k[1].center_re = "-0.743643887037158704752191506114774";
    k[1].center_im = "0.131825904205311970493132056385139";
    k[1].zoom = ViewZoom(kDefaultZoom * 1e10);
    k[1].palette_offset = 0.1;
    k[1].max_iterations = 4000;
    k[2].time_s = 1.0 / 3.0 + 40.0;
    k[2].center_re = deep_centre("-1.7490000");
    k[2].center_im = deep_centre("0.0000000");
    EXPECT_EQ(ViewZoom::parse("4.00000000000E533", &k[2].zoom), "");
    k[2].palette_offset = -2.75;
    k[2].max_iterations = 12345678901;
    return k;
}

void expect_same(const std::vector<Keyframe>& a, const std::vector<Keyframe>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
        SCOPED_TRACE("keyframe " + std::to_string(i));
        EXPECT_EQ(a[i].time_s, b[i].time_s);
        EXPECT_EQ(a[i].center_re, b[i].center_re);
        EXPECT_EQ(a[i].center_im, b[i].center_im);
        EXPECT_TRUE(a[i].zoom == b[i].zoom) << a[i].zoom.text() << " vs " << b[i].zoom.text();
        EXPECT_EQ(a[i].palette_offset, b[i].palette_offset);
        EXPECT_EQ(a[i].max_iterations, b[i].max_iterations);
    }
}

std::string parse_error(const std::string& text) {
    std::vector<Keyframe> k;
    return parse_keyframes(text, &k);
}

const char* kHeader = "mandelscope-keyframes 1\n";

}  // namespace

TEST(Keyframes, FormatThenParseGivesTheSameKeyframes) {
    const std::vector<Keyframe> k = sample_keyframes();
    const std::string text = format_keyframes(k);
    std::vector<Keyframe> back;
    ASSERT_EQ(parse_keyframes(text, &back), "");
    expect_same(k, back);
    EXPECT_EQ(format_keyframes(back), text);  // and the text is stable
}

TEST(Keyframes, ReadsCommentsBlankLinesTabsAndCrlf) {
    const std::string text =
        "# a zoom video\r\n"
        "\r\n"
        "  mandelscope-keyframes 1   # version\r\n"
        "0\t-0.5 0 2.3703703703703702 0 1000\r\n"
        "   # the dive\r\n"
        "2.5  -0.5  0  1e+50  0.5  50000  # deep\r\n";
    std::vector<Keyframe> k;
    ASSERT_EQ(parse_keyframes(text, &k), "");
    ASSERT_EQ(k.size(), 2u);
    EXPECT_EQ(k[0].zoom.value(), kDefaultZoom);
    EXPECT_EQ(k[1].time_s, 2.5);
    EXPECT_EQ(k[1].zoom.value(), 1e50);
    EXPECT_EQ(k[1].palette_offset, 0.5);
    EXPECT_EQ(k[1].max_iterations, 50000);
}

TEST(Keyframes, BadFilesAreRefusedWithOneSentenceNamingTheLine) {
    struct Case {
        std::string text;
        std::string expected;  // a part of the sentence
    };
    const std::vector<Case> cases = {
        {"", "has no header line"},
        {"# only a comment\n", "has no header line"},
        {"0 -0.5 0 1 0 1000\n", "Line 1 of the keyframe file: it should be the header"},
        {"mandelscope-keyframes 2\n", "Line 1 of the keyframe file: the file is in version 2"},
        {"mandelscope-keyframes one\n", "Line 1 of the keyframe file: the header should be"},
        {std::string(kHeader) + "0 -0.5 0 1 0\n", "Line 2 of the keyframe file: it has 5 fields where a keyframe has 6"},
        {std::string(kHeader) + "0 -0.5 0 1 0 1000 7\n", "Line 2 of the keyframe file: it has 7 fields"},
        {std::string(kHeader) + "zero -0.5 0 1 0 1000\n", "Line 2 of the keyframe file: the time 'zero' is not"},
        {std::string(kHeader) + "-1 -0.5 0 1 0 1000\n", "Line 2 of the keyframe file: the time must be"},
        {std::string(kHeader) + "0 -0.5 0 1 0 1000\n\n0 -0.5 0 2 0 1000\n",
         "Line 4 of the keyframe file: the time 0 s does not come after the previous keyframe's 0 s"},
        {std::string(kHeader) + "0 0x10 0 1 0 1000\n", "Line 2 of the keyframe file: the centre's real part"},
        {std::string(kHeader) + "0 -0.5 i 1 0 1000\n", "Line 2 of the keyframe file: the centre's imaginary part"},
        {std::string(kHeader) + "0 -0.5 0 big 0 1000\n", "Line 2 of the keyframe file: the zoom \"big\""},
        {std::string(kHeader) + "0 -0.5 0 1e-5 0 1000\n", "Line 2 of the keyframe file: the zoom 1e-05 is outside"},
        {std::string(kHeader) + "0 -0.5 0 1 nan 1000\n", "Line 2 of the keyframe file: the palette offset"},
        {std::string(kHeader) + "0 -0.5 0 1 0 0\n", "Line 2 of the keyframe file: the iteration count must be"},
        {std::string(kHeader) + "0 -0.5 0 1 0 1.5\n", "Line 2 of the keyframe file: the iteration count \"1.5\""},
        {std::string(kHeader) + "0 -0.5 0 1 0 1000\n", "has 1 keyframe; a path needs at least two"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.text);
        const std::string error = parse_error(c.text);
        EXPECT_NE(error.find(c.expected), std::string::npos) << error;
        EXPECT_EQ(error.back(), '.') << error;              // one sentence
        EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    }
}

TEST(Keyframes, WritesWholeFilesAndReadsThemBack) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "test_keyframes";
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "path.keyframes").string();
    const std::vector<Keyframe> k = sample_keyframes();
    ASSERT_EQ(write_keyframes(path, k), "");
    std::vector<Keyframe> back;
    ASSERT_EQ(read_keyframes(path, &back), "");
    expect_same(k, back);
    EXPECT_FALSE(std::filesystem::exists(path + ".part"));

    // Refused before anything is written: one keyframe is no path.
    const std::string single = (dir / "single.keyframes").string();
    std::filesystem::remove(single);
    const std::string error = write_keyframes(single, {k[0]});
    EXPECT_NE(error.find("at least two keyframes"), std::string::npos) << error;
    EXPECT_FALSE(std::filesystem::exists(single));

    // Times out of order are refused by the writer as by the reader.
    std::vector<Keyframe> swapped = {k[1], k[0]};
    EXPECT_NE(write_keyframes(single, swapped).find("Keyframe 2: the time 0 s does not come after"),
              std::string::npos);

    // A missing file is named in the sentence.
    const std::string missing = (dir / "missing.keyframes").string();
    std::filesystem::remove(missing);
    const std::string read_error = read_keyframes(missing, &back);
    EXPECT_EQ(read_error.rfind("Cannot read the keyframe file " + missing, 0), 0u) << read_error;
    std::filesystem::remove_all(dir);
}

TEST(Keyframes, AKeyframeIsTheViewsCamera) {
    View view;
    view.center_re = "-1.25";
    view.center_im = "0.125";
    view.zoom = ViewZoom(300.0);
    view.palette_offset = 0.3;
    view.max_iterations = 777;
    view.width = 64;
    view.palette = "fire";
    const Keyframe k = keyframe_from_view(view, 4.0);
    EXPECT_EQ(k.time_s, 4.0);
    View base;
    base.width = 64;
    base.palette = "fire";
    const View back = view_at_keyframe(base, k);
    EXPECT_EQ(back.center_re, view.center_re);
    EXPECT_EQ(back.center_im, view.center_im);
    EXPECT_TRUE(back.zoom == view.zoom);
    EXPECT_EQ(back.palette_offset, view.palette_offset);
    EXPECT_EQ(back.max_iterations, view.max_iterations);
    EXPECT_EQ(back.palette, "fire");
}
