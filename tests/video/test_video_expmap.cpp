// test_video_expmap.cpp: the exponential map (compute/video/expmap.h) against the direct method.
//
// Expmap frames of a straight dive are compared with the same views rendered directly (FP64 or
// the deep CPU path, colour, box filter) at the same supersampling. The metric is the absolute
// difference per channel (R, G, B) in 8-bit levels: its mean and its 99th percentile, pixel for
// pixel, and again over 4x4 block means of both frames. Each test states the thresholds it
// holds (Limits). What differs by design is the prefilter: the expmap averages each sample's
// footprint (trilinear mip lookup) where the direct frame takes one point, so where the view
// has detail finer than a pixel (the e50 location's filaments at 96x54) the direct frame
// aliases and single pixels differ a lot, while their block means agree; on a smooth dive the
// frames agree pixel for pixel. Misplaced geometry, a seam, a wrong mip level or the DE in the
// wrong units moves whole areas and fails both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "compute/fractal/colour/palette.h"
#include "compute/video/expmap.h"
#include "compute/video/expmap_share.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/video/expmap_test_util.h"

namespace ms {
namespace {

constexpr int kBlock = 4;

// The thresholds a test holds (levels of 8 bits, per channel).
struct Limits {
    double mean = 0.0;  // pixel for pixel
    int p99 = 0;
    double block_mean = 0.0;  // kBlock x kBlock means
    int block_p99 = 0;
};

struct DiveCheck {
    double worst_mean = 0.0;  // pixel for pixel
    int worst_p99 = 0;
    double worst_block_mean = 0.0;  // kBlock x kBlock means
    int worst_block_p99 = 0;
};

// Renders every frame of the plan with the expmap and compares every `stride`th with direct.
DiveCheck check_dive(const std::vector<View>& plan, int k, int stride, const char* name,
                     ExpmapStats* stats_out = nullptr) {
    const PaletteTable palette = make_palette_table(load_palette(plan.front().palette));
    ExpmapOptions options;
    options.supersample = k;
    ExpmapRenderer expmap(plan, palette, options);
    ReferenceCache cache;
    DiveCheck check;
    const int w = plan.front().width, h = plan.front().height;
    std::vector<uint8_t> frame(size_t(w) * h * 4);
    for (size_t i = 0; i < plan.size(); ++i) {
        expmap.render(int64_t(i), frame.data());
        if (i % size_t(stride) != 0 && i + 1 != plan.size()) continue;
        const std::vector<uint8_t> direct = test::direct_frame(plan[i], k, palette, &cache);
        const test::FrameError e = test::frame_error(frame, direct, w, h);
        int bw = 0, bh = 0;
        const std::vector<uint8_t> frame_blocks = test::block_means(frame, w, h, kBlock, &bw, &bh);
        const std::vector<uint8_t> direct_blocks = test::block_means(direct, w, h, kBlock, &bw, &bh);
        const test::FrameError b = test::frame_error(frame_blocks, direct_blocks, bw, bh);
        std::printf(
            "%s frame %zu (zoom %s): pixels: mean %.2f, p99 %d, max %d; %dx%d blocks: mean %.2f, p99 %d, "
            "max %d\n",
            name, i, plan[i].zoom.text().c_str(), e.mean, e.p99, e.max, kBlock, kBlock, b.mean, b.p99, b.max);
        check.worst_mean = std::max(check.worst_mean, e.mean);
        check.worst_p99 = std::max(check.worst_p99, e.p99);
        check.worst_block_mean = std::max(check.worst_block_mean, b.mean);
        check.worst_block_p99 = std::max(check.worst_block_p99, b.p99);
    }
    const ExpmapStats& s = expmap.stats();
    const double direct_samples = double(plan.size()) * w * h * k * k;
    std::printf("%s: %d strips of %dx%d, %lld strip + %lld flat samples; direct %.0f: ratio %.2f\n", name, s.strips,
                expmap.layout().columns, expmap.layout().rows_per_octave, (long long)s.strip_samples,
                (long long)s.flat_samples, direct_samples, direct_samples / double(s.strip_samples + s.flat_samples));
    if (stats_out) *stats_out = s;
    return check;
}

void expect_within(const DiveCheck& check, const Limits& limits) {
    EXPECT_LE(check.worst_mean, limits.mean);
    EXPECT_LE(check.worst_p99, limits.p99);
    EXPECT_LE(check.worst_block_mean, limits.block_mean);
    EXPECT_LE(check.worst_block_p99, limits.block_p99);
}

TEST(Expmap, ShallowDiveMatchesDirectSupersampled) {
    // 1 to 1e6 (20 doublings), 4 frames a doubling, 5,000 iterations, 2x2 samples a pixel.
    DeepLocation location = test::load_location("e50");
    location.max_iterations = 5000;
    const std::vector<View> plan = test::straight_dive(location, 0.0, 6.0, 81, 96, 54);
    expect_within(check_dive(plan, 2, 10, "shallow"), Limits{20.0, 120, 6.0, 28});
}

TEST(Expmap, DeepDiveMatchesDirect) {
    // 1e48 to 1e50 (6.6 doublings). The palette cycles once every 2,000 iterations (density
    // 0.05): at the palette's default, neighbouring pixels there differ by more than a cycle and
    // a 96x54 direct frame is noise.
    const DeepLocation location = test::load_location("e50");
    std::vector<View> plan = test::straight_dive(location, 48.0, 50.0, 15, 96, 54);
    for (View& v : plan) v.palette_density = 0.05;
    expect_within(check_dive(plan, 1, 7, "deep"), Limits{40.0, 200, 11.0, 44});
}

TEST(Expmap, DistanceEstimateInOutputPixels) {
    // The DE layer's band is in output pixels at every depth of the dive.
    const DeepLocation location = test::load_location("e50");
    std::vector<View> plan = test::straight_dive(location, 20.0, 22.0, 14, 96, 54);
    for (View& v : plan) {
        v.colouring.distance_estimation = true;
        v.colouring.de_band_px = 2.0;
    }
    expect_within(check_dive(plan, 1, 6, "de"), Limits{14.0, 56, 4.0, 16});
}

TEST(Expmap, SmoothDiveMatchesPixelForPixel) {
    // Into the exterior beside the main cardioid (0.4 + 0.4i), the palette cycling fast: steep
    // colour gradients and no detail below the pixel, so the frames must agree pixel for pixel
    // (a geometry error of a fraction of a pixel shows).
    DeepLocation location;
    location.center_re = "0.4";
    location.center_im = "0.4";
    location.max_iterations = 1000;
    std::vector<View> plan = test::straight_dive(location, 2.3, 5.0, 37, 96, 54);
    for (View& v : plan) v.palette_density = 40.0;
    expect_within(check_dive(plan, 1, 5, "smooth"), Limits{1.0, 16, 0.5, 4});
}

TEST(Expmap, NoSeamBetweenStrips) {
    // Where one strip's last row meets the next strip's first (a circle in the frame), the frame
    // is no further from the direct frame than elsewhere at that radius: the pixels within 1.5
    // pixels of the circle against those 3 to 6 pixels from it, on the smooth dive where the
    // frames otherwise agree to a fraction of a level.
    DeepLocation location;
    location.center_re = "0.4";
    location.center_im = "0.4";
    location.max_iterations = 1000;
    std::vector<View> plan = test::straight_dive(location, 2.3, 3.3, 15, 96, 54);
    for (View& v : plan) v.palette_density = 40.0;
    const PaletteTable palette = make_palette_table(load_palette(plan.front().palette));
    ExpmapRenderer expmap(plan, palette);
    ReferenceCache cache;
    const int w = 96, h = 54;
    std::vector<uint8_t> frame(size_t(w) * h * 4);
    int checked = 0;
    for (size_t i = 0; i < plan.size(); ++i) {
        expmap.render(int64_t(i), frame.data());
        const ExpmapLayout& layout = expmap.layout();
        const double log2_step = std::log2(4.0 / h) - plan[i].zoom.log10() * 3.321928094887362;
        const std::vector<uint8_t> direct = test::direct_frame(plan[i], 1, palette, &cache);
        for (int octave = 1; octave < layout.octaves; ++octave) {
            // The boundary between strips octave - 1 and octave, in this frame's pixels.
            const double r = std::exp2(layout.log2_top_radius - octave - log2_step);
            if (r < 8.0 || r > 24.0) continue;
            auto distance = [&](int x, int y) {
                return std::abs(std::hypot(x + 0.5 - 0.5 * w, y + 0.5 - 0.5 * h) - r);
            };
            const test::FrameError at = test::frame_error(frame, direct, w, h,
                                                          [&](int x, int y) { return distance(x, y) < 1.5; });
            const test::FrameError off = test::frame_error(
                frame, direct, w, h, [&](int x, int y) { return distance(x, y) >= 3.0 && distance(x, y) < 6.0; });
            std::printf("frame %zu, strip boundary at %.1f px: mean %.3f (max %d) there, %.3f (max %d) around\n", i, r,
                        at.mean, at.max, off.mean, off.max);
            EXPECT_LE(at.mean, 2.0 * off.mean + 0.25) << "frame " << i << ", boundary at " << r << " px";
            EXPECT_LE(at.max, off.max + 2) << "frame " << i << ", boundary at " << r << " px";
            ++checked;
        }
    }
    EXPECT_GE(checked, 8);
}

TEST(Expmap, FewerSamplesThanDirect) {
    // 30 frames a doubling (the 1 s a doubling at 30 fps): the strips take several
    // times fewer samples than the frames.
    DeepLocation location = test::load_location("e50");
    location.max_iterations = 2000;
    const std::vector<View> plan = test::straight_dive(location, 0.0, 3.0, 301, 96, 54);
    const PaletteTable palette = make_palette_table(load_palette(plan.front().palette));
    ExpmapRenderer expmap(plan, palette);
    std::vector<uint8_t> frame(size_t(96) * 54 * 4);
    for (size_t i = 0; i < plan.size(); ++i) expmap.render(int64_t(i), frame.data());
    const ExpmapStats& s = expmap.stats();
    const double ratio = double(plan.size()) * 96 * 54 / double(s.strip_samples + s.flat_samples);
    std::printf("samples: direct/expmap = %.2f (%d strips)\n", ratio, s.strips);
    EXPECT_GT(ratio, 5.0);
    // The estimate --method=auto can use, before rendering anything.
    EXPECT_NEAR(expmap_sample_ratio(plan, 1), ratio, 0.01 * ratio);
}

TEST(Expmap, RenderersSharingStripsRenderEachOnce) {
    // Two renderers on threads of their own take the segments (12 frames, 0.4 of a doubling)
    // in turn, as a video's renderers do one by one: between them they render each strip once
    // (some ahead of their frames, while the other renders one they wait for), copy the rest
    // from each other, and every frame has the bytes one renderer gives it.
    DeepLocation location = test::load_location("e50");
    location.max_iterations = 2000;
    const std::vector<View> plan = test::straight_dive(location, 0.0, 4.5, 120, 64, 36);
    const PaletteTable palette = make_palette_table(load_palette(plan.front().palette));
    const size_t bytes = size_t(64) * 36 * 4;
    ExpmapRenderer alone(plan, palette);
    std::vector<std::vector<uint8_t>> expected(plan.size(), std::vector<uint8_t>(bytes));
    for (size_t i = 0; i < plan.size(); ++i) alone.render(int64_t(i), expected[i].data());

    ExpmapOptions options;
    options.strip_share = std::make_shared<ExpmapStripShare>();
    auto first = std::make_unique<ExpmapRenderer>(plan, palette, options);
    auto second = std::make_unique<ExpmapRenderer>(plan, palette, options);
    constexpr int64_t kSegmentFrames = 12;
    std::vector<std::vector<uint8_t>> frames(plan.size(), std::vector<uint8_t>(bytes));
    auto render_turns = [&](ExpmapRenderer& renderer, int64_t turn) {
        for (int64_t segment = turn; segment * kSegmentFrames < int64_t(plan.size()); segment += 2)
            for (int64_t k = segment * kSegmentFrames;
                 k < std::min<int64_t>((segment + 1) * kSegmentFrames, int64_t(plan.size())); ++k)
                renderer.render(k, frames[size_t(k)].data());
    };
    std::thread other([&] { render_turns(*second, 1); });
    render_turns(*first, 0);
    other.join();
    for (size_t i = 0; i < plan.size(); ++i) EXPECT_EQ(frames[i], expected[i]) << "frame " << i;
    const ExpmapStats& a = first->stats();
    const ExpmapStats& b = second->stats();
    std::printf("one renderer: %d strips; two: %d + %d rendered, %d + %d taken (%.1f + %.1f ms waiting and copying)\n",
                alone.stats().strips, a.strips, b.strips, a.strips_taken, b.strips_taken, a.strips_taken_ms,
                b.strips_taken_ms);
    // Which renderer renders which strip depends on the threads' timing; that each is rendered
    // once does not.
    EXPECT_EQ(a.strips + b.strips, alone.stats().strips);
    EXPECT_GT(a.strips_taken + b.strips_taken, 0);
    // The share keeps only what a renderer's frames still read, and nothing once both are gone.
    EXPECT_LT(options.strip_share->strips_held(), size_t(alone.stats().strips));
    first.reset();
    second.reset();
    EXPECT_EQ(options.strip_share->strips_held(), 0u);
}

TEST(Expmap, RefusesWhatItCannotRender) {
    const DeepLocation location = test::load_location("e50");
    std::vector<View> plan = test::straight_dive(location, 0.0, 1.0, 3, 32, 18);
    EXPECT_EQ(expmap_plan_problem(plan), "");
    EXPECT_NE(expmap_plan_problem({}), "");
    std::vector<View> moved = plan;
    moved[1].center_re = "0.25";
    EXPECT_NE(expmap_plan_problem(moved), "");
    std::vector<View> histogram = plan;
    for (View& v : histogram) v.colouring.base = ColourBase::Histogram;
    EXPECT_NE(expmap_plan_problem(histogram), "");
    const PaletteTable palette = make_palette_table(load_palette("classic"));
    EXPECT_THROW(ExpmapRenderer(histogram, palette), std::invalid_argument);
}

}  // namespace
}  // namespace ms
