// deep_distance_truth.h: the deep distance estimate against the MPFR brute force's, shared by
// test_deep_colouring.cpp (the Mandelbrot set) and test_deep_family_distance.cpp (the other
// formulas and Julia sets). The truth: deep_cpu_reference with the derivative iterated in MPFR
// beside every pixel, at two precisions (the reference's + 32 bits and + 96); a pixel counts
// where both escape at the same count, their estimates agree to 1e-6, and the deep path's count
// is theirs (counts are test_deep_render's and test_deep_family's subject).
// Tolerance: BLA skips drop terms below kBlaDefaultEpsilon relative to the kept ones, in the
// derivative as in the delta, and double rounds at 1e-16 a step; at least 99% of the pixels must
// be within 1e-3 of the truth, relatively, and all within 1e-2.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"

namespace ms::test {

// min_compared: the share of the frame that must be compared for the test to mean something
// (a boundary frame of a parameter plane has many interior pixels, which have no estimate).
// with_bla: BLA must skip some iterations (false where no skip is valid: the Burning Ship's real
// axis, whose Y = 0).
inline void expect_distance_matches_mpfr(const DeepLocation& location, int width, int height, DeepNumberType expected,
                                         double min_compared = 0.5, bool with_bla = true) {
    DeepRenderOptions options;
    options.distance = true;
    const DeepFrame deep = deep_cpu(location, width, height, options);
    ASSERT_EQ(deep.stats.number_type, expected);
    if (with_bla) {
        ASSERT_GT(deep.stats.bla_iterations, 0u);
    }
    ASSERT_EQ(deep.distance.size(), deep.mu.size());
    const DeepFrame truth = deep_cpu_reference(location, width, height, 0, true);
    const DeepFrame more = deep_cpu_reference(location, width, height, truth.stats.precision_bits + 64, true);
    int compared = 0, within_1e3 = 0, within_1e2 = 0;
    double worst = 0.0;
    std::vector<double> errors;
    for (size_t i = 0; i < deep.mu.size(); ++i) {
        if (truth.escape_count[i] < 0 || truth.escape_count[i] != more.escape_count[i]) continue;
        if (std::fabs(truth.distance[i] - more.distance[i]) > 1e-6 * more.distance[i]) continue;
        if (deep.escape_count[i] != truth.escape_count[i]) continue;
        ASSERT_GT(truth.distance[i], 0.0f);
        const double error = std::fabs(double(deep.distance[i]) - truth.distance[i]) / truth.distance[i];
        ++compared;
        within_1e3 += error <= 1e-3;
        within_1e2 += error <= 1e-2;
        if (error > 1e-2 && within_1e2 + 5 > compared)
            std::printf("  pixel (%zu, %zu): deep DE %.6g px, MPFR %.6g px\n", i % size_t(width), i / size_t(width),
                        double(deep.distance[i]), double(truth.distance[i]));
        worst = std::max(worst, error);
        errors.push_back(error);
    }
    ASSERT_GT(compared, min_compared * width * height)
        << "too few stable escaped pixels for the comparison to mean much";
    std::sort(errors.begin(), errors.end());
    std::printf(
        "  %dx%d %s: %d pixels compared, median relative error %.2g, worst %.2g; DE from %.3g to %.3g px; "
        "%.1f%% of the iterations by BLA\n",
        width, height, deep_number_type_name(deep.stats.number_type), compared, errors[errors.size() / 2], worst,
        double(*std::min_element(deep.distance.begin(), deep.distance.end())),
        double(*std::max_element(deep.distance.begin(), deep.distance.end())),
        100.0 * double(deep.stats.bla_iterations) / double(deep.stats.iterations));
    EXPECT_GE(within_1e3, 0.99 * compared);
    EXPECT_EQ(within_1e2, compared);
}

}  // namespace ms::test
