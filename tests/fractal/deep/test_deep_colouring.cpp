// test_deep_colouring.cpp: the colouring layers past FP64, on the deep path:
//   * the deep distance estimate (deep_perturbation.h's kDistance loop: dz/dc in pixels,
//     through perturbation steps, BLA skips and rebases) against the brute force's, dz/dc
//     iterated in MPFR beside every pixel (deep_cpu_reference; deep_distance_truth.h), at 1e20
//     and 1e280 (double deltas) and 1e300 (FloatExp deltas); the other formulas and Julia sets
//     are test_deep_family_distance.cpp's;
//   * the DE loop leaves escape counts and mu exactly as the smooth-only loop gives them;
//   * the deep colour pass (colour_frame_deep) gives colour_frame's pixels for the same smooth
//     values, also when they sit a million iterations up (its origin shift);
//   * the stripe base and the period interior are refused past FP64 with one sentence, and
//     the window's drop leaves the rest;
//   * CUDA: the DE kernel's estimate and counts are the CPU's (skips without CUDA).
// Locations: the e50 and e1000 centres of rust-fractal-core's locations/ folder (see
// test_deep_render.cpp and assets/locations/*.kfr for the sources), seen from 1e20, 1e280 and 1e300.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/deep_distance_truth.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/validate.h"

using namespace ms;
using ms::test::expect_distance_matches_mpfr;
using ms::test::load_location;

namespace {

PaletteTable classic() { return make_palette_table(load_palette("classic")); }

// A synthetic frame of smooth values: a few interior pixels, the rest from 0.3 up with
// structure in both directions, and a distance field.
struct SyntheticFrame {
    int width = 64, height = 40;
    std::vector<float> mu, distance;
    SyntheticFrame() : mu(size_t(width) * height), distance(size_t(width) * height) {
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const size_t i = size_t(y) * width + x;
                const double r = std::hypot(x - 40.0, y - 22.0);
                mu[i] = r < 4.0 ? -1.0f : float(0.3 + 20.0 / (0.2 * r) + 0.05 * x + 0.5 * std::sin(0.4 * y));
                distance[i] = r < 4.0 ? 0.0f : float(r - 4.0);
            }
        // The lowest escaped value at 0.3, as in a frame that reaches out of the set's
        // neighbourhood: the deep pass's origin is then 0.
        float lowest = 1e30f;
        for (float m : mu)
            if (m >= 0.0f) lowest = std::min(lowest, m);
        for (float& m : mu)
            if (m >= 0.0f) m = m - lowest + 0.3f;
    }
};

View synthetic_view(const char* methods) {
    View view;
    view.width = 64;
    view.height = 40;
    view.max_iterations = 5000;
    EXPECT_EQ(parse_colouring_methods(methods, &view.colouring), "");
    return view;
}

}  // namespace

TEST(DeepDistance, MatchesMpfrAt1e20) {
    expect_distance_matches_mpfr(load_location("e50", "1E20"), 32, 18, DeepNumberType::Double);
}

TEST(DeepDistance, MatchesMpfrAt1e50) {
    expect_distance_matches_mpfr(load_location("e50", "1E50"), 8, 5, DeepNumberType::Double);
}

TEST(DeepDistance, MatchesMpfrAt1e280WithDoubleDeltas) {
    expect_distance_matches_mpfr(load_location("e1000", "1E280"), 16, 9, DeepNumberType::Double);
}

TEST(DeepDistance, MatchesMpfrAt1e300WithFloatExpDeltas) {
    expect_distance_matches_mpfr(load_location("e1000", "1E300"), 24, 14, DeepNumberType::FloatExp);
}

// The derivative rides beside the pixel: the DE loop's counts and mu are the smooth loop's,
// bit for bit, with both number types, and the estimates of the two types agree as each agrees
// with the MPFR truth (deep_distance_truth.h): the double table skips from a higher level than the
// FloatExp one (bla_first_skip_level), so where one skips the other may step.
TEST(DeepDistance, LeavesCountsAndMuAsTheSmoothLoopGivesThem) {
    const DeepLocation location = load_location("e50", "1E20");
    DeepRenderOptions plain, with_de;
    with_de.distance = true;
    for (DeepNumberType type : {DeepNumberType::Double, DeepNumberType::FloatExp}) {
        plain.number_type = with_de.number_type = type;
        const DeepFrame a = deep_cpu(location, 48, 27, plain);
        const DeepFrame b = deep_cpu(location, 48, 27, with_de);
        EXPECT_TRUE(a.distance.empty());
        EXPECT_EQ(a.escape_count, b.escape_count);
        EXPECT_EQ(a.mu, b.mu);
        EXPECT_EQ(a.stats.bla_iterations, b.stats.bla_iterations);
    }
    plain.number_type = DeepNumberType::Double;
    with_de.number_type = DeepNumberType::FloatExp;
    DeepRenderOptions de_double = with_de;
    de_double.number_type = DeepNumberType::Double;
    const DeepFrame d = deep_cpu(location, 48, 27, de_double);
    const DeepFrame f = deep_cpu(location, 48, 27, with_de);
    const auto within_1e3 = test::validate_result("DE double vs FloatExp, 1e-3", d.distance.data(), f.distance.data(),
                                                  d.distance.size(), 0.0, 1e-3, 48);
    const auto within_1e2 = test::validate_result("DE double vs FloatExp, 1e-2", d.distance.data(), f.distance.data(),
                                                  d.distance.size(), 0.0, 1e-2, 48);
    EXPECT_LE(within_1e3.mismatches, d.distance.size() / 100);
    EXPECT_EQ(within_1e2.mismatches, 0u);
}

// Given the same smooth values, the deep colour pass gives the direct path's pixels: at the
// values themselves exactly, and a million iterations up (the deep path's origin shift keeps
// the differences that the slopes and the histogram see) exactly for those, within one step of
// a channel for the smooth base (its position is summed in a different order).
TEST(DeepColouring, SamePixelsAsTheDirectColourPass) {
    const SyntheticFrame s;
    const PaletteTable palette = classic();
    const size_t n = s.mu.size();
    for (const char* methods : {"histogram", "smooth,slope", "histogram,de,slope", "smooth,de"}) {
        const View view = synthetic_view(methods);
        std::vector<uint8_t> direct(n * 4), deep(n * 4), high(n * 4);
        colour_frame(s.mu.data(), FrameFeatures{s.distance.data(), nullptr, nullptr}, s.width, s.height, palette, view,
                     1.0, direct.data());
        std::vector<double> mu(s.mu.begin(), s.mu.end()), mu_high(n);
        for (size_t i = 0; i < n; ++i) mu_high[i] = s.mu[i] < 0.0f ? -1.0 : double(s.mu[i]) + 1.0e6;
        EXPECT_EQ(deep_mu_origin(mu.data(), int64_t(n)), 0.0);
        EXPECT_EQ(deep_mu_origin(mu_high.data(), int64_t(n)), 1.0e6);
        colour_frame_deep(mu.data(), s.distance.data(), s.width, s.height, palette, view, 1.0, deep.data());
        colour_frame_deep(mu_high.data(), s.distance.data(), s.width, s.height, palette, view, 1.0, high.data());
        EXPECT_EQ(direct, deep) << methods;
        const bool exact = view.colouring.base == ColourBase::Histogram;
        auto r = test::validate_result(methods, direct.data(), high.data(), direct.size(), exact ? 0.0 : 1.0);
        EXPECT_EQ(r.mismatches, 0u) << methods;
        // And the layers do something: not the plain palette's picture.
        View plain = view;
        plain.colouring = Colouring{};
        std::vector<uint8_t> flat(n * 4);
        colour_frame(s.mu.data(), {}, s.width, s.height, palette, plain, 1.0, flat.data());
        EXPECT_NE(flat, direct) << methods;
    }
}

// colour_deep_frame: a plain colouring is colourize_deep's picture; layers need the frame's
// distance when DE is on, and stripe/period are refused.
TEST(DeepColouring, DeepFrameColouringPicksItsPass) {
    DeepFrame frame;
    frame.width = 4;
    frame.height = 1;
    frame.mu = {-1.0, 3.25, 1.0e6 + 0.5, 7.0};
    const PaletteTable palette = classic();
    View view;
    view.width = 4;
    view.height = 1;
    std::vector<uint8_t> a(16), b(16);
    colour_deep_frame(frame, palette, view, 1.0, a.data());
    colourize_deep(frame.mu.data(), 4, palette, view.palette_density, view.palette_offset, b.data());
    EXPECT_EQ(a, b);
    ASSERT_EQ(parse_colouring_methods("smooth,de", &view.colouring), "");
    EXPECT_THROW(colour_deep_frame(frame, palette, view, 1.0, a.data()), std::invalid_argument);
    frame.distance = {0.0f, 0.5f, 3.0f, 1.0f};
    colour_deep_frame(frame, palette, view, 1.0, a.data());
    EXPECT_NE(a, b);  // the DE band darkens the pixels within 2 px of the boundary
    view.colouring.base = ColourBase::Stripe;
    EXPECT_THROW(colour_deep_frame(frame, palette, view, 1.0, a.data()), std::invalid_argument);
}

TEST(DeepColouring, StripesAndPeriodAreRefusedPastFp64) {
    Colouring c;
    EXPECT_EQ(deep_colouring_problem(c), "");
    ASSERT_EQ(parse_colouring_methods("histogram,de,slope", &c), "");
    EXPECT_EQ(deep_colouring_problem(c), "");
    EXPECT_FALSE(drop_deep_unavailable_colouring(&c));
    Colouring stripe = c;
    stripe.base = ColourBase::Stripe;
    const std::string why = deep_colouring_problem(stripe);
    EXPECT_NE(why.find("stripe"), std::string::npos) << why;
    EXPECT_EQ(std::count(why.begin(), why.end(), '.'), 0) << "one sentence, no full stop (the caller adds it)";
    Colouring period = c;
    period.interior = InteriorColour::Period;
    EXPECT_NE(deep_colouring_problem(period).find("period"), std::string::npos);
    // The window's drop keeps the layers that work at depth.
    stripe.interior = InteriorColour::Period;
    EXPECT_TRUE(drop_deep_unavailable_colouring(&stripe));
    EXPECT_EQ(stripe.base, ColourBase::Smooth);
    EXPECT_EQ(stripe.interior, InteriorColour::Flat);
    EXPECT_TRUE(stripe.distance_estimation);
    EXPECT_TRUE(stripe.slopes);
}

// CUDA: the DE kernels (double and FloatExp) give the CPU's counts exactly and its estimate
// to 1e-6 relative (device log; the derivative's arithmetic is the same IEEE operations).
TEST(DeepDistanceCuda, MatchesTheCpu) {
    SKIP_WITHOUT_CUDA();
    for (const auto& [name, zoom, type] :
         {std::tuple{"e50", "1E20", DeepNumberType::Double}, std::tuple{"e1000", "1E300", DeepNumberType::FloatExp}}) {
        const DeepLocation location = load_location(name, zoom);
        DeepRenderOptions options;
        options.distance = true;
        const DeepFrame cpu = deep_cpu(location, 96, 54, options);
        const DeepFrame gpu = deep_cuda(location, 96, 54, options);
        EXPECT_EQ(gpu.stats.number_type, type);
        ASSERT_EQ(gpu.distance.size(), cpu.distance.size());
        auto counts = test::validate_result("escape count", cpu.escape_count.data(), gpu.escape_count.data(),
                                            cpu.escape_count.size(), 0.0, 0.0, 96);
        auto de = test::validate_result("DE", cpu.distance.data(), gpu.distance.data(), cpu.distance.size(), 0.0, 1e-6,
                                        96);
        EXPECT_EQ(counts.mismatches, 0u);
        EXPECT_EQ(de.mismatches, 0u);
        std::printf("  %s: cpu pixels %.1f ms, cuda kernel %.2f ms\n", zoom, cpu.stats.pixels_ms, gpu.stats.pixels_ms);
    }
}
