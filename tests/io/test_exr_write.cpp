// test_exr_write.cpp: compute/io/exr_write.h writes Kalles Fraktaler's EXR layout and reads it
// back: N (escape count + IterationsBias, 0xFFFFFFFF inside), NF (the smooth fraction), DEX and
// DEY, the Iterations and IterationsBias attributes and the KF location text; N0 and N1 past
// 2^32 iterations.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <vector>

#include "compute/fractal/maths/escape.h"
#include "compute/io/exr_write.h"

namespace ms {
namespace {

std::filesystem::path temp_path(const char* name) {
    return std::filesystem::temp_directory_path() / (std::string("mandelscope_test_") + name);
}

TEST(ExrWrite, SmallFrameRoundTrips) {
    const int w = 5, h = 3;
    std::vector<int64_t> n(size_t(w) * h);
    std::vector<double> mu(n.size());
    std::vector<float> de(n.size());
    for (size_t i = 0; i < n.size(); ++i) {
        // mu = n + 1 - log2(ln|z|) with |z| from just past 256 up to 256^2.
        const double ln_z = std::log(256.0) * (1.0 + double(i) / double(n.size()));
        n[i] = int64_t(i * 7 + 3);
        mu[i] = double(n[i]) + 1.0 - std::log2(ln_z);
        de[i] = 0.25f * float(i);
    }
    n[4] = -1;  // inside
    mu[4] = -1.0;
    ExrFrame frame;
    frame.width = w;
    frame.height = h;
    frame.escape_count = n.data();
    frame.mu = mu.data();
    frame.distance = de.data();
    frame.max_iterations = 1000;
    frame.kfr_text = "Re: -0.75\r\nIm: 0\r\nZoom: 1\r\nIterations: 1000\r\n";
    const auto path = temp_path("frame.exr");
    ASSERT_EQ(write_exr(path.string(), frame), "");
    ExrRawImage back;
    ASSERT_EQ(read_exr(path.string(), &back), "");
    EXPECT_EQ(back.width, w);
    EXPECT_EQ(back.height, h);
    EXPECT_EQ(back.max_iterations, 1000);
    EXPECT_EQ(back.bias, kExrIterationsBias);
    EXPECT_EQ(back.kfr_text, frame.kfr_text);
    ASSERT_EQ(back.escape_count.size(), n.size());
    ASSERT_EQ(back.dex.size(), n.size());
    for (size_t i = 0; i < n.size(); ++i) {
        EXPECT_EQ(back.escape_count[i], n[i]) << i;
        if (n[i] < 0) {
            EXPECT_EQ(back.nf[i], 0.0f);
            EXPECT_EQ(back.dex[i], 0.0f);
            continue;
        }
        // KF's continuous count N + NF is mu shifted by log2(ln 256) (its fraction counts from
        // the bailout): NF in [0, 1).
        EXPECT_GE(back.nf[i], 0.0f);
        EXPECT_LT(back.nf[i], 1.0f);
        EXPECT_NEAR(double(back.escape_count[i]) + back.nf[i], mu[i] + kLog2LnBailout, 1e-5) << i;
        EXPECT_EQ(back.dex[i], de[i]);
        EXPECT_EQ(back.dey[i], 0.0f);
    }
    std::filesystem::remove(path);
}

TEST(ExrWrite, SmoothFractionCountsFromTheBailout) {
    // NF = mu + log2(ln 256) - n: 0 at |z| = 256^2 (mu - n = 1 - log2(2 ln 256)), just below 1
    // at |z| = 256.
    const double at_square = 1.0 - std::log2(2.0 * std::log(256.0));
    EXPECT_NEAR(exr_smooth_fraction(10, 10.0 + at_square + 1e-9), 0.0, 1e-6);
    EXPECT_NEAR(exr_smooth_fraction(10, 10.0 + 1.0 - std::log2(std::log(256.0)) - 1e-9), 1.0, 1e-6);
    EXPECT_LT(exr_smooth_fraction(10, 10.0 + 1.0 - std::log2(std::log(256.0))), 1.0f);
    EXPECT_EQ(exr_smooth_fraction(-1, -1.0), 0.0f);
    EXPECT_DOUBLE_EQ(std::log2(std::log(256.0)), kLog2LnBailout);
}

TEST(ExrWrite, WithoutDistanceNoDeChannels) {
    std::vector<int64_t> n = {1, 2};
    std::vector<double> mu = {1.5, 2.5};
    ExrFrame frame{2, 1, n.data(), mu.data(), nullptr, 100, ""};
    const auto path = temp_path("plain.exr");
    ASSERT_EQ(write_exr(path.string(), frame), "");
    ExrRawImage back;
    ASSERT_EQ(read_exr(path.string(), &back), "");
    EXPECT_TRUE(back.dex.empty());
    EXPECT_EQ(back.escape_count, n);
    std::filesystem::remove(path);
}

TEST(ExrWrite, PastTwoToThe32IterationsSplitsN) {
    // KF's N0 and N1: the biased count's low and high words.
    const int64_t big = (int64_t(1) << 33) + 5;
    std::vector<int64_t> n = {big, -1};
    std::vector<double> mu = {double(big) + 0.25, -1.0};
    ExrFrame frame{2, 1, n.data(), mu.data(), nullptr, int64_t(1) << 34, ""};
    const auto path = temp_path("big.exr");
    ASSERT_EQ(write_exr(path.string(), frame), "");
    ExrRawImage back;
    ASSERT_EQ(read_exr(path.string(), &back), "");
    EXPECT_EQ(back.max_iterations, int64_t(1) << 34);
    EXPECT_EQ(back.escape_count, n);
    std::filesystem::remove(path);
}

TEST(ExrWrite, UnwritablePathGivesASentence) {
    std::vector<int64_t> n = {1};
    std::vector<double> mu = {1.5};
    ExrFrame frame{1, 1, n.data(), mu.data(), nullptr, 10, ""};
    const std::string error = write_exr("/nonexistent-folder/frame.exr", frame);
    EXPECT_NE(error, "");
    EXPECT_EQ(error.back(), '.');
}

}  // namespace
}  // namespace ms
