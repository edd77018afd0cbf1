// deep_truth.h: the brute-force truth of the deep-zoom tests and their bar, shared by
// test_deep_render.cpp (the deep path itself) and test_view_deep.cpp (the View that `render`
// hands it). Truth: deep_cpu_reference iterates every pixel in MPFR at two precisions (the
// reference precision + 32 bits, and + 96); pixels whose escape count differs between the two
// are chaotic at that depth and are not counted. Of the rest, at least 99% must agree exactly
// with the deep path and 99.5% within one iteration, and the stable pixels must be at least 90%
// of the frame (expect_agreement says why).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "compute/fractal/deep/deep_cpu.h"

namespace ms {

struct Agreement {
    int pixels = 0, stable = 0, exact = 0, within_one = 0;
};

struct Truth {
    DeepFrame frame, frame_more;  // at two precisions
};

inline Truth brute_force(const DeepLocation& location, int width, int height) {
    Truth t;
    t.frame = deep_cpu_reference(location, width, height, 0);
    t.frame_more = deep_cpu_reference(location, width, height, t.frame.stats.precision_bits + 64);
    return t;
}

inline Agreement compare_with_truth(const DeepFrame& deep, const Truth& t) {
    const DeepFrame& truth = t.frame;
    const DeepFrame& truth_more = t.frame_more;
    Agreement a;
    int shown = 0;
    for (size_t i = 0; i < truth.escape_count.size(); ++i) {
        ++a.pixels;
        if (truth.escape_count[i] != truth_more.escape_count[i]) continue;
        ++a.stable;
        int64_t d = deep.escape_count[i], t = truth.escape_count[i];
        if (d == t) ++a.exact;
        if (d == t || (d >= 0 && t >= 0 && std::llabs(d - t) <= 1)) ++a.within_one;
        else if (shown++ < 5)
            std::printf("  pixel (%zu, %zu): deep %lld, truth %lld\n", i % size_t(deep.width), i / size_t(deep.width),
                        (long long)d, (long long)t);
    }
    std::printf(
        "  %d pixels, %d stable, %d exact, %d within one; deep path: %s, %llu iterations, "
        "%.1f%% by BLA, %llu rebases\n",
        a.pixels, a.stable, a.exact, a.within_one, deep_number_type_name(deep.stats.number_type),
        (unsigned long long)deep.stats.iterations,
        100.0 * double(deep.stats.bla_iterations) / double(deep.stats.iterations),
        (unsigned long long)deep.stats.rebases);
    return a;
}

inline void expect_agreement(const Agreement& a) {
    // "Stable" means "known" only where the brute force has settled on nearly the whole frame. In
    // a chaotic frame, pixels agree between the two precisions by chance too, most often both
    // inside while the exact orbit escapes. In the Burning Ship's hull, against the
    // brute force 400 bits above the reference's precision (test_deep_family's
    // DISABLED_BurningShipHullPrecision): 1,000 iterations at 1e20, 170 of 336 pixels stable and
    // 35 of those wrong; at 1e60, 244 stable and 21 wrong; 800 iterations at 1e60, 311 stable
    // and none wrong.
    ASSERT_GE(a.stable, 0.9 * a.pixels)
        << "the brute force has not settled on this frame (too few stable pixels for the comparison to mean much)";
    EXPECT_GE(a.exact, 0.99 * a.stable);
    EXPECT_GE(a.within_one, 0.995 * a.stable);
}

}  // namespace ms
