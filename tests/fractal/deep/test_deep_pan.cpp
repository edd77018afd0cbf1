// test_deep_pan.cpp: deep frames rendered in parts, and panned by whole pixels from the frame
// before (compute/fractal/deep/deep_pan.h, options.region of deep_cpu.h).
//   - A region of a frame (deep_cpu with options.region) equals the full frame's pixels there,
//     bit for bit (counts and mu), at 1e50 (double deltas) and 1E1000 (FloatExp), for the
//     Mandelbrot set and the Burning Ship (BLA with 2x2 matrices); CUDA the same (skipped
//     without a device).
//   - A frame panned by whole pixels, assembled from the last frame's pixels moved and the
//     exposed strips rendered as regions, against a full render of the panned view with the
//     same reference: the strips equal it bit for bit, and the escape counts equal it on at
//     least 99.9% of the stable pixels. The moved pixels' dc differs from the full render's by
//     the centre's rounding (below 1e-4 pixel) and the last bits of the offset, and at e50 with
//     its 263,010 iterations a fifth of the pixels change their count when the view moves by
//     1e-4 pixel (6% at 1e-6: the picture is chaotic there, as the MPFR truth of
//     test_deep_render.cpp finds too). Stable: the count is the same in full renders of the
//     panned view moved by 1e-4 pixel either way. At 1e50 and 1E1000, a horizontal and a
//     diagonal pan.
//   - deep_pan_shift says a pan is whole only when it is, and not across a zoom or a change of
//     iterations; deep_pan_strips covers exactly the pixels the old frame does not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/deep_navigation.h"
#include "compute/fractal/deep/deep_pan.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/deep_family_locations.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/validate.h"

using namespace ms;
using ms::test::load_location;

namespace {

// `location` moved by (dx, dy) pixels (x right, y down), as the window's drag moves it
// (view_math.cpp: move_center_by_pixels).
DeepLocation moved(const DeepLocation& location, double dx, double dy, int height) {
    DeepLocation out = location;
    const int64_t digits = deep_center_fraction_digits(location.zoom, height);
    out.center_re = deep_offset_decimal(location.center_re, dx, location.zoom, height, digits);
    out.center_im = deep_offset_decimal(location.center_im, -dy, location.zoom, height, digits);
    return out;
}

// The step of the centres' texts (deep_center_fraction_digits: a ten-thousandth of a pixel).
constexpr double kDeepCenterStep = 1e-4;

using Renderer = DeepFrame (*)(const DeepLocation&, int, int, const DeepRenderOptions&);

// Regions of several shapes (a column at the left edge, a row at the bottom, a block inside,
// one pixel) against the full frame, counts and mu bit for bit.
void expect_regions_equal_full_frame(Renderer render, const DeepLocation& location, int width, int height) {
    ReferenceCache cache;
    DeepRenderOptions options;
    options.cache = &cache;
    const DeepFrame full = render(location, width, height, options);
    ASSERT_FALSE(full.stats.cancelled);
    ASSERT_GT(full.stats.escaped_pixels, 0u);
    const DeepPixelRect regions[] = {
        {0, 0, 3, height}, {0, height - 2, width, 2}, {17, 9, 30, 20}, {width - 1, 5, 1, 1}};
    for (const DeepPixelRect& r : regions) {
        options.region = r;
        const DeepFrame part = render(location, width, height, options);
        ASSERT_EQ(part.width, r.width);
        ASSERT_EQ(part.height, r.height);
        ASSERT_EQ(part.escape_count.size(), size_t(r.width) * r.height);
        EXPECT_EQ(part.reference, full.reference);
        EXPECT_EQ(part.stats.number_type, full.stats.number_type);
        std::vector<int64_t> counts;
        std::vector<double> mu;
        for (int y = r.y; y < r.y + r.height; ++y)
            for (int x = r.x; x < r.x + r.width; ++x) {
                counts.push_back(full.escape_count[size_t(y) * width + x]);
                mu.push_back(full.mu[size_t(y) * width + x]);
            }
        SCOPED_TRACE("region " + std::to_string(r.x) + "," + std::to_string(r.y) + " " + std::to_string(r.width) + "x" +
                     std::to_string(r.height));
        EXPECT_EQ(test::validate_result("escape count", counts.data(), part.escape_count.data(), counts.size(), 0.0,
                                        0.0, r.width)
                      .mismatches,
                  0u);
        EXPECT_EQ(test::validate_result("mu", mu.data(), part.mu.data(), mu.size(), 0.0, 0.0, r.width).mismatches, 0u);
    }
}

DeepFrame cpu(const DeepLocation& l, int w, int h, const DeepRenderOptions& o) { return deep_cpu(l, w, h, o); }
DeepFrame cuda(const DeepLocation& l, int w, int h, const DeepRenderOptions& o) { return deep_cuda(l, w, h, o); }

// The frame at `from` panned by (dx, dy) whole pixels, assembled as the window's worker does,
// against a full render of the panned view with the same reference orbit.
void expect_pan_matches_full_render(const DeepLocation& from, int width, int height, int dx, int dy) {
    ReferenceCache cache;
    DeepRenderOptions options;
    options.cache = &cache;
    const DeepFrame before = deep_cpu(from, width, height, options);
    const DeepLocation to = moved(from, dx, dy, height);
    int shift_x = 0, shift_y = 0;
    ASSERT_TRUE(deep_pan_shift(from, to, width, height, &shift_x, &shift_y));
    EXPECT_EQ(shift_x, dx);
    EXPECT_EQ(shift_y, dy);

    DeepFrame assembled = before;
    const int64_t reused = deep_pan_move(&assembled, shift_x, shift_y);
    EXPECT_EQ(reused, int64_t(width - std::abs(dx)) * (height - std::abs(dy)));
    DeepPixelRect strips[2];
    const int count = deep_pan_strips(width, height, shift_x, shift_y, strips);
    EXPECT_EQ(count, (dx != 0) + (dy != 0));
    int64_t strip_pixels = 0;
    std::vector<DeepFrame> parts;
    for (int i = 0; i < count; ++i) {
        options.region = strips[i];
        parts.push_back(deep_cpu(to, width, height, options));
        ASSERT_EQ(parts.back().reference, before.reference) << "the pan should keep the reference orbit";
        deep_pan_place(parts.back(), &assembled);
        strip_pixels += int64_t(strips[i].width) * strips[i].height;
    }
    EXPECT_EQ(reused + strip_pixels, int64_t(width) * height);

    options.region = {};
    const DeepFrame full = deep_cpu(to, width, height, options);
    ASSERT_EQ(full.reference, before.reference);
    // The strips: the full render's pixels bit for bit.
    for (const DeepFrame& part : parts) {
        const DeepPixelRect r = part.region;
        for (int y = r.y; y < r.y + r.height; ++y)
            for (int x = r.x; x < r.x + r.width; ++x) {
                const size_t i = size_t(y) * width + x;
                ASSERT_EQ(assembled.escape_count[i], full.escape_count[i]) << "strip pixel " << x << "," << y;
                ASSERT_EQ(assembled.mu[i], full.mu[i]) << "strip pixel " << x << "," << y;
            }
    }
    // The moved pixels sample the panned view's points up to the centre's rounding (below
    // kDeepCenterStep): stable pixels are those whose escape count does not change when the
    // panned view moves by that step either way; at least 99.9% of them must be exact.
    const DeepFrame plus = deep_cpu(moved(to, kDeepCenterStep, kDeepCenterStep, height), width, height, options);
    const DeepFrame minus = deep_cpu(moved(to, -kDeepCenterStep, -kDeepCenterStep, height), width, height, options);
    size_t stable = 0, exact = 0, exact_all = 0;
    for (size_t i = 0; i < full.escape_count.size(); ++i) {
        exact_all += assembled.escape_count[i] == full.escape_count[i];
        if (plus.escape_count[i] != full.escape_count[i] || minus.escape_count[i] != full.escape_count[i]) continue;
        ++stable;
        exact += assembled.escape_count[i] == full.escape_count[i];
    }
    const double share = stable ? double(exact) / double(stable) : 0.0;
    std::printf(
        "  pan (%d, %d) at %dx%d: %lld pixels reused, %lld computed; %.1f%% of pixels stable, escape counts "
        "exact on %.3f%% of those (%.1f%% of all)\n",
        dx, dy, width, height, (long long)reused, (long long)strip_pixels,
        100.0 * double(stable) / double(full.escape_count.size()), 100.0 * share,
        100.0 * double(exact_all) / double(full.escape_count.size()));
    EXPECT_GE(stable, full.escape_count.size() / 2) << "too few stable pixels for the comparison to say much";
    EXPECT_GE(share, 0.999);
}

}  // namespace

TEST(DeepRegion, EqualsTheFullFrameAt1e50) { expect_regions_equal_full_frame(cpu, load_location("e50"), 96, 54); }

TEST(DeepRegion, EqualsTheFullFrameWithFloatExpAt1e1000) {
    const DeepLocation location = load_location("e1000");
    expect_regions_equal_full_frame(cpu, location, 96, 54);
}

TEST(DeepRegion, EqualsTheFullFrameForTheBurningShip) {
    // A point on the ship's boundary (found by bisection, deep_family_locations.h), at 1E20.
    expect_regions_equal_full_frame(cpu, test::boundary_location(test::kBurningShip, 90, 1000, "1E20"), 96, 54);
}

TEST(DeepRegion, RefusesARegionOutsideTheImage) {
    const DeepLocation location = load_location("e50");
    DeepRenderOptions options;
    for (DeepPixelRect r : {DeepPixelRect{-1, 0, 4, 4}, DeepPixelRect{40, 0, 9, 4}, DeepPixelRect{0, 20, 4, 5},
                            DeepPixelRect{0, 0, 0, 4}}) {
        options.region = r;
        try {
            deep_cpu(location, 48, 24, options);
            ADD_FAILURE() << "region " << r.x << "," << r.y << " " << r.width << "x" << r.height << " was accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find("inside the 48x24 image"), std::string::npos) << e.what();
        }
    }
}

TEST(DeepRegion, CudaEqualsTheFullFrame) {
    SKIP_WITHOUT_CUDA();
    expect_regions_equal_full_frame(cuda, load_location("e50"), 96, 54);
    expect_regions_equal_full_frame(cuda, load_location("e1000"), 96, 54);
}

TEST(DeepPan, AssembledFrameMatchesAFullRenderAt1e50) {
    const DeepLocation location = load_location("e50");
    expect_pan_matches_full_render(location, 96, 54, 3, 0);
    expect_pan_matches_full_render(location, 96, 54, -5, 2);
}

TEST(DeepPan, AssembledFrameMatchesAFullRenderWithFloatExpAt1e1000) {
    const DeepLocation location = load_location("e1000");
    expect_pan_matches_full_render(location, 96, 54, -2, 0);
    expect_pan_matches_full_render(location, 96, 54, 4, -3);
}

TEST(DeepPan, ShiftIsWholePixelsOnly) {
    const DeepLocation from = load_location("e50");
    int sx = 99, sy = 99;
    EXPECT_TRUE(deep_pan_shift(from, from, 96, 54, &sx, &sy));
    EXPECT_EQ(sx, 0);
    EXPECT_EQ(sy, 0);
    EXPECT_TRUE(deep_pan_shift(from, moved(from, 7, -4, 54), 96, 54, &sx, &sy));
    EXPECT_EQ(sx, 7);
    EXPECT_EQ(sy, -4);
    // Two pans in a row from the same place: measured from the first, as the worker does.
    EXPECT_TRUE(deep_pan_shift(from, moved(moved(from, 7, -4, 54), -2, 1, 54), 96, 54, &sx, &sy));
    EXPECT_EQ(sx, 5);
    EXPECT_EQ(sy, -3);
    EXPECT_FALSE(deep_pan_shift(from, moved(from, 2.5, 0, 54), 96, 54, &sx, &sy));
    EXPECT_FALSE(deep_pan_shift(from, moved(from, 0, 0.01, 54), 96, 54, &sx, &sy));
    // At another height the same texts are other pixels apart: 7 pixels of 54 rows are 7 * 55/54 of 55.
    EXPECT_FALSE(deep_pan_shift(from, moved(from, 7, 0, 54), 96, 55, &sx, &sy));
    DeepLocation zoomed = from;
    zoomed.zoom = deep_zoom_scaled(from.zoom, 1.5);
    EXPECT_FALSE(deep_pan_shift(from, zoomed, 96, 54, &sx, &sy));
    DeepLocation more = from;
    more.max_iterations += 100;
    EXPECT_FALSE(deep_pan_shift(from, more, 96, 54, &sx, &sy));
    DeepLocation other = from;
    other.formula = Formula::Tricorn;
    EXPECT_FALSE(deep_pan_shift(from, other, 96, 54, &sx, &sy));
}

TEST(DeepPan, StripsCoverExactlyTheExposedPixels) {
    const int width = 20, height = 12;
    for (int sx : {-25, -20, -3, 0, 1, 7, 19, 20}) {
        for (int sy : {-12, -4, 0, 2, 11, 30}) {
            if (sx == 0 && sy == 0) continue;
            DeepPixelRect strips[2];
            const int n = deep_pan_strips(width, height, sx, sy, strips);
            ASSERT_GE(n, 1);
            ASSERT_LE(n, 2);
            std::vector<int> covered(size_t(width) * height, 0);
            for (int i = 0; i < n; ++i) {
                const DeepPixelRect r = strips[i];
                ASSERT_FALSE(r.empty());
                for (int y = r.y; y < r.y + r.height; ++y)
                    for (int x = r.x; x < r.x + r.width; ++x) ++covered[size_t(y) * width + x];
            }
            for (int y = 0; y < height; ++y)
                for (int x = 0; x < width; ++x) {
                    const bool old_covers = x + sx >= 0 && x + sx < width && y + sy >= 0 && y + sy < height;
                    ASSERT_EQ(covered[size_t(y) * width + x], old_covers ? 0 : 1)
                        << "shift " << sx << "," << sy << " pixel " << x << "," << y;
                }
        }
    }
}

// In place, every direction: the pixels the old frame covers moved, the rest -1; and the RGBA
// sibling the same.
TEST(DeepPan, MoveTakesThePixelsTheOldFrameCovers) {
    const int width = 7, height = 5;
    DeepFrame from;
    from.width = width;
    from.height = height;
    std::vector<uint8_t> rgba_from;
    for (int i = 0; i < width * height; ++i) {
        from.escape_count.push_back(100 + i);
        from.mu.push_back(0.5 + i);
        for (int c = 0; c < 4; ++c) rgba_from.push_back(uint8_t(4 * i + c));
    }
    for (int sx : {-8, -3, -1, 0, 2, 6, 7}) {
        for (int sy : {-5, -2, 0, 1, 4}) {
            DeepFrame to = from;
            std::vector<uint8_t> rgba = rgba_from;
            const int64_t kept = deep_pan_move(&to, sx, sy);
            deep_pan_move_rgba(rgba.data(), width, height, sx, sy);
            int64_t covered_count = 0;
            for (int y = 0; y < height; ++y)
                for (int x = 0; x < width; ++x) {
                    const bool covered = x + sx >= 0 && x + sx < width && y + sy >= 0 && y + sy < height;
                    covered_count += covered;
                    const size_t i = size_t(y) * width + x;
                    const int source = (y + sy) * width + (x + sx);
                    ASSERT_EQ(to.escape_count[i], covered ? 100 + source : -1)
                        << sx << "," << sy << " at " << x << "," << y;
                    ASSERT_EQ(to.mu[i], covered ? 0.5 + source : -1.0);
                    if (covered) {
                        ASSERT_EQ(rgba[4 * i + 1], uint8_t(4 * source + 1));
                    }
                }
            EXPECT_EQ(kept, covered_count);
        }
    }
    // A frame that keeps mu alone (the window's) moves it the same way.
    DeepFrame mu_only = from;
    mu_only.escape_count.clear();
    EXPECT_EQ(deep_pan_move(&mu_only, -2, 1), int64_t(width - 2) * (height - 1));
    EXPECT_TRUE(mu_only.escape_count.empty());
    EXPECT_EQ(mu_only.mu[size_t(0) * width + 2], 0.5 + 1 * width + 0);
    EXPECT_EQ(mu_only.mu[0], -1.0);
}
