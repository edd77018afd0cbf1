// test_box_filter.cpp: supersampling's box filter (compute/fractal/colour/box_filter.h) on small
// hand-made images: each channel is the mean of its k x k samples rounded to the nearest
// integer, halves up (0.5 -> 1, 0.25 -> 0, 0.75 -> 1, 4/9 -> 0, 5/9 -> 1); a full 255 block
// stays 255; sample columns past out_width * k are ignored; each output row reads its own k
// sample rows; k = 1 copies.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "compute/fractal/colour/box_filter.h"

namespace ms {
namespace {

using Rgba = std::vector<uint8_t>;

// One sample's four channels, written at (x, y) of an RGBA image `width` samples wide.
void put(Rgba& image, int width, int x, int y, uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
    uint8_t* p = image.data() + (size_t(y) * width + x) * 4;
    p[0] = r;
    p[1] = g;
    p[2] = b;
    p[3] = a;
}

TEST(BoxFilter, TwoByTwoRoundsHalvesUp) {
    // 5 x 2 samples, k = 2, 2 output pixels: the fifth column is not part of any pixel.
    const int width = 5;
    Rgba samples(size_t(width) * 2 * 4, 99);
    // Pixel 0: R sums 2 (mean 0.5), G 1 (0.25), B 3 (0.75), A 4 x 255.
    put(samples, width, 0, 0, 0, 0, 0, 255);
    put(samples, width, 1, 0, 0, 0, 1, 255);
    put(samples, width, 0, 1, 0, 0, 1, 255);
    put(samples, width, 1, 1, 2, 1, 1, 255);
    // Pixel 1: R 42 (10.5), G 1019 (254.75), B 7 (1.75), A 1 (0.25).
    put(samples, width, 2, 0, 10, 254, 1, 0);
    put(samples, width, 3, 0, 11, 255, 2, 0);
    put(samples, width, 2, 1, 10, 255, 2, 0);
    put(samples, width, 3, 1, 11, 255, 2, 1);
    Rgba out(2 * 4, 0);
    box_filter_rgba(samples.data(), width, 2, 2, 1, out.data());
    EXPECT_EQ(out, (Rgba{1, 0, 1, 255, 11, 255, 2, 0}));
}

TEST(BoxFilter, ThreeByThreeRoundsToNearest) {
    // 3 x 3 samples, k = 3, one pixel: R has four 1s (4/9 -> 0), G five (5/9 -> 1), B all 255,
    // A eight 100s and one 104 (904/9 = 100.4 -> 100).
    Rgba samples(9 * 4, 0);
    for (int i = 0; i < 9; ++i) {
        uint8_t* p = samples.data() + i * 4;
        p[0] = i < 4 ? 1 : 0;
        p[1] = i < 5 ? 1 : 0;
        p[2] = 255;
        p[3] = i == 8 ? 104 : 100;
    }
    Rgba out(4, 0);
    box_filter_rgba(samples.data(), 3, 3, 1, 1, out.data());
    EXPECT_EQ(out, (Rgba{0, 1, 255, 100}));
}

TEST(BoxFilter, EachOutputRowReadsItsOwnSampleRows) {
    // 2 x 4 samples, k = 2: two output rows of one pixel, each block of one colour.
    Rgba samples(2 * 4 * 4, 0);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 2; ++x) put(samples, 2, x, y, y < 2 ? 10 : 200, y < 2 ? 20 : 100, 30, 40);
    Rgba out(2 * 4, 0);
    box_filter_rgba(samples.data(), 2, 2, 1, 2, out.data());
    EXPECT_EQ(out, (Rgba{10, 20, 30, 40, 200, 100, 30, 40}));
}

TEST(BoxFilter, OneSamplePerPixelCopies) {
    // k = 1 with a wider sample row: the first out_width pixels of each row are copied.
    Rgba samples(3 * 2 * 4);
    for (size_t i = 0; i < samples.size(); ++i) samples[i] = uint8_t(i);
    Rgba out(2 * 2 * 4, 0);
    box_filter_rgba(samples.data(), 3, 1, 2, 2, out.data());
    EXPECT_EQ(out, (Rgba{0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19}));
}

}  // namespace
}  // namespace ms
