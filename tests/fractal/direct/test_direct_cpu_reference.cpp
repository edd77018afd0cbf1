// test_direct_cpu_reference.cpp: the CPU reference against facts known independently of it:
// escape counts worked out by hand, points proven interior, and shortcuts that must not change
// the picture.
#include <gtest/gtest.h>

#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/maths/escape.h"

namespace {

// Renders the single pixel whose centre is exactly c (a 1x1 view samples its centre).
float reference_at(const char* re, const char* im, int max_iterations, ms::Precision precision,
                   ms::Shortcuts shortcuts = {}) {
    ms::View view;
    view.center_re = re;
    view.center_im = im;
    view.width = view.height = 1;
    view.max_iterations = max_iterations;
    float mu = 0.0f;
    ms::direct_cpu_reference(view, precision, shortcuts, {}, &mu);
    return mu;
}

TEST(DirectCpuReference, EscapeCountsWorkedOutByHand) {
    // c = 1: z = 1, 2, 5, 26, 677 -> |z_5| > 256.
    EXPECT_EQ(ms::mandelbrot_escape_count(reference_at("1", "0", 100, ms::Precision::Fp64)), 5);
    // c = 0.5: 0.5, 0.75, 1.0625, 1.6289, 3.1533, 10.443, 109.55, 12001.9 -> k = 8.
    EXPECT_EQ(ms::mandelbrot_escape_count(reference_at("0.5", "0", 100, ms::Precision::Fp64)), 8);
    EXPECT_EQ(ms::mandelbrot_escape_count(reference_at("0.5", "0", 100, ms::Precision::Fp32)), 8);
    // c = 2i: 2i, -4+2i, 12-14i, -52-334i -> |z_4| = 338 > 256.
    EXPECT_EQ(ms::mandelbrot_escape_count(reference_at("0", "2", 100, ms::Precision::Fp64)), 4);
}

TEST(DirectCpuReference, SmoothValueMatchesFormula) {
    // c = 1: z_5 = 677, mu = 5 + 1 - log2(ln 677).
    float mu = reference_at("1", "0", 100, ms::Precision::Fp64);
    EXPECT_NEAR(mu, 6.0 - std::log2(std::log(677.0)), 1e-5);
}

TEST(DirectCpuReference, KnownInteriorPoints) {
    for (bool shortcuts : {false, true}) {
        ms::Shortcuts s{shortcuts, shortcuts};
        EXPECT_EQ(reference_at("0", "0", 500, ms::Precision::Fp64, s), ms::kInteriorMu);       // cardioid centre
        EXPECT_EQ(reference_at("-1", "0", 500, ms::Precision::Fp64, s), ms::kInteriorMu);      // period-2 bulb
        EXPECT_EQ(reference_at("-0.1", "0.8", 500, ms::Precision::Fp64, s), ms::kInteriorMu);  // period-3 bulb
        EXPECT_EQ(reference_at("0", "1", 500, ms::Precision::Fp64, s), ms::kInteriorMu);       // i: preperiodic
        EXPECT_EQ(reference_at("-2", "0", 500, ms::Precision::Fp64, s), ms::kInteriorMu);      // tip: z stays 2
    }
}

TEST(DirectCpuReference, ShortcutsSaveWorkOnlyWhereTheyApply) {
    ms::View view;
    view.width = 64;
    view.height = 48;
    view.max_iterations = 500;
    std::vector<float> plain(64 * 48), fast(64 * 48);
    auto off = ms::direct_cpu_reference(view, ms::Precision::Fp64, {false, false}, {}, plain.data());
    auto on = ms::direct_cpu_reference(view, ms::Precision::Fp64, {true, true}, {}, fast.data());
    EXPECT_EQ(plain, fast);  // bit for bit the same picture
    EXPECT_LT(on.iterations, off.iterations / 2);
    EXPECT_EQ(on.escaped_pixels, off.escaped_pixels);
}

TEST(DirectCpuReference, CardioidTestAgreesWithIteration) {
    // Points the closed form calls interior must not escape in 2000 iterations.
    for (double x = -0.8; x <= 0.4; x += 0.05)
        for (double y = -0.7; y <= 0.7; y += 0.05)
            if (ms::in_cardioid_or_period2_bulb(x, y)) {
                std::string re = std::to_string(x), im = std::to_string(y);
                EXPECT_EQ(reference_at(re.c_str(), im.c_str(), 2000, ms::Precision::Fp64, {false, false}),
                          ms::kInteriorMu)
                    << x << ", " << y;
            }
}

}  // namespace
