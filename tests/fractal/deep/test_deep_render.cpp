// test_deep_render.cpp: the CPU deep path (MPFR reference, perturbation with rebasing, BLA,
// double and FloatExp deltas) against the brute-force MPFR truth at depths 1e20 to 1e1000, and
// the pipeline's promises: BLA on and off agree, the reference cache is reused where it may be
// and not where it may not, a prefetched reference serves its frame, a cancelled reference
// leaves nothing in the cache.
//
// Truth: deep_cpu_reference iterates every pixel in MPFR at two precisions (the reference
// precision + 32 bits, and + 96); pixels whose escape count differs between the two are chaotic
// at that depth and are not counted. Of the rest, at least 99% must agree exactly with the deep
// path and 99.5% within one iteration (deep_truth.h's bar).
//
// Locations (public; the .kfr files in assets/locations/ say where each comes from):
//   e50, glitch_test_3, e113, e1000: rust-fractal-core's locations/ folder
//     (github.com/rust-fractal/rust-fractal-core, locations/e50.toml, glitch_test_3.toml,
//     e113.toml, e1000.toml); e50 and e113 are Kalles Fraktaler 2's benchmark locations
//     (1e50 and 5e113 in the kf2 benchmark set). glitch_test_3 is one of rust-fractal's tests
//     of glitch handling: plain perturbation without rebasing gets a third of it wrong
//     (checked below).
//   1e20 and 1e300 are the e50 and e1000 centres seen from further out (same public points,
//     shallower zoom), so that the brute force stays affordable in CI.
// Image sizes are small (8x5 to 32x18) because the brute force costs about a microsecond per
// pixel-iteration at these precisions and the deep pixels run 3,000 to 70,000 iterations.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/view/kfr.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/deep_truth.h"

using namespace ms;

namespace {

DeepLocation load(const std::string& name, const char* zoom = nullptr) {
    DeepLocation location;
    std::string path = (find_data_dir("assets") / "locations").string() + "/" + name + ".kfr";
    std::string error = read_kfr(path, &location);
    EXPECT_EQ(error, "");
    if (zoom) {
        EXPECT_EQ(parse_deep_zoom(zoom, &location.zoom), "");
    }
    return location;
}

void check_location(const DeepLocation& location, int width, int height, DeepNumberType expected_type) {
    DeepFrame deep = deep_cpu(location, width, height);
    EXPECT_EQ(deep.stats.number_type, expected_type);
    EXPECT_GT(deep.stats.bla_iterations, 0u);
    expect_agreement(compare_with_truth(deep, brute_force(location, width, height)));
}

int count_differences(const DeepFrame& a, const DeepFrame& b) {
    int n = 0;
    for (size_t i = 0; i < a.escape_count.size(); ++i) n += a.escape_count[i] != b.escape_count[i];
    return n;
}

}  // namespace

TEST(DeepCpu, MatchesMpfrAt1e20) { check_location(load("e50", "1E20"), 32, 18, DeepNumberType::Double); }

TEST(DeepCpu, MatchesMpfrAt1e50) { check_location(load("e50"), 8, 5, DeepNumberType::Double); }

TEST(DeepCpu, MatchesMpfrAt5e113) { check_location(load("e113"), 12, 7, DeepNumberType::Double); }

TEST(DeepCpu, MatchesMpfrAt1e280WithDoubleDeltas) {
    check_location(load("e1000", "1E280"), 16, 9, DeepNumberType::Double);
}

TEST(DeepCpu, MatchesMpfrAt1e300WithFloatExpDeltas) {
    check_location(load("e1000", "1E300"), 24, 14, DeepNumberType::FloatExp);
}

TEST(DeepCpu, MatchesMpfrAt1e1000) { check_location(load("e1000"), 8, 5, DeepNumberType::FloatExp); }

// glitch_test_3 (4.1e158): plain perturbation without rebasing gets a third of the frame
// wrong (the classic glitch); with rebasing the same frame meets the bar.
TEST(DeepCpu, MatchesMpfrAtGlitchLocation4e158OnlyWithRebasing) {
    DeepLocation location = load("glitch_test_3");
    Truth truth = brute_force(location, 16, 9);
    DeepFrame rebasing = deep_cpu(location, 16, 9);
    expect_agreement(compare_with_truth(rebasing, truth));
    DeepRenderOptions plain_options;
    plain_options.rebase = false;
    plain_options.use_bla = false;
    DeepFrame plain = deep_cpu(location, 16, 9, plain_options);
    Agreement wrong = compare_with_truth(plain, truth);
    EXPECT_LT(wrong.exact, 0.9 * wrong.stable);
}

// Double and FloatExp deltas compute the same frame where both can (1e100).
TEST(DeepCpu, DoubleAndFloatExpAgree) {
    DeepLocation location = load("e113");
    DeepRenderOptions options;
    options.number_type = DeepNumberType::Double;
    DeepFrame d = deep_cpu(location, 24, 14, options);
    options.number_type = DeepNumberType::FloatExp;
    DeepFrame f = deep_cpu(location, 24, 14, options);
    EXPECT_EQ(f.stats.number_type, DeepNumberType::FloatExp);
    EXPECT_LE(count_differences(d, f), 24 * 14 / 100);
}

// BLA changes the work, not the picture.
TEST(DeepCpu, BlaOnAndOffAgree) {
    for (const char* name : {"glitch_test_3", "e113", "e1000"}) {
        DeepLocation location = load(name);
        DeepRenderOptions on, off;
        off.use_bla = false;
        DeepFrame a = deep_cpu(location, 32, 18, on);
        DeepFrame b = deep_cpu(location, 32, 18, off);
        EXPECT_GT(a.stats.bla_iterations, a.stats.iterations / 2) << name;
        EXPECT_EQ(b.stats.bla_iterations, 0u);
        EXPECT_LT(a.stats.perturbation_steps, b.stats.perturbation_steps / 2) << name;
        EXPECT_LE(count_differences(a, b), 32 * 18 / 200) << name;
        // Smooth values agree too where the counts do.
        for (size_t i = 0; i < a.mu.size(); ++i)
            if (a.escape_count[i] == b.escape_count[i] && a.escape_count[i] >= 0) {
                EXPECT_NEAR(a.mu[i], b.mu[i], 1e-3) << name << " pixel " << i;
            }
    }
}

TEST(DeepCpu, ReferenceCacheIsReusedWhereItMayBe) {
    ReferenceCache cache;
    DeepRenderOptions options;
    options.cache = &cache;
    DeepLocation location = load("e113");
    DeepFrame first = deep_cpu(location, 24, 14, options);
    EXPECT_FALSE(first.stats.reference_cached);
    EXPECT_EQ(cache.size(), 1u);

    // The same view again, and at another image width.
    DeepFrame again = deep_cpu(location, 24, 14, options);
    EXPECT_TRUE(again.stats.reference_cached);
    EXPECT_EQ(again.stats.reference_ms, 0.0);
    EXPECT_EQ(count_differences(first, again), 0);
    EXPECT_TRUE(deep_cpu(location, 30, 14, options).stats.reference_cached);

    // Zoomed out 1000x: the deeper orbit serves.
    DeepLocation shallower = location;
    shallower.zoom.exponent10 -= 3;
    EXPECT_TRUE(deep_cpu(shallower, 24, 14, options).stats.reference_cached);

    // Panned by a few pixels: the old reference point is still in the image; the frame
    // computed from it matches a frame computed from a fresh reference at the new centre.
    // The pixel spacing at 5e113 and 14 rows is 4 / (5e113 * 14) = 5.7e-115: adding 2 to the
    // centre's 114th decimal moves it by 2e-114, 3.5 pixels (the digit is at most 7: no carry).
    DeepLocation panned = location;
    {
        std::string& re = panned.center_re;
        size_t digit = re.find('.') + 114;
        ASSERT_LT(digit, re.size());
        ASSERT_LE(re[digit], '7');
        re[digit] = char(re[digit] + 2);
    }
    DeepFrame panned_cached = deep_cpu(panned, 24, 14, options);
    EXPECT_TRUE(panned_cached.stats.reference_cached);
    DeepFrame panned_fresh = deep_cpu(panned, 24, 14, DeepRenderOptions{});
    EXPECT_FALSE(panned_fresh.stats.reference_cached);
    EXPECT_LE(count_differences(panned_cached, panned_fresh), 24 * 14 / 100);

    // Not reused: far deeper (the precision falls short), more iterations than the orbit ran
    // (it did not escape), or a point outside the image.
    DeepLocation deeper = location;
    deeper.zoom.exponent10 += 40;
    EXPECT_FALSE(deep_cpu(deeper, 8, 5, options).stats.reference_cached);
    DeepLocation far = location;
    far.center_im = "0.1";
    ReferenceCache fresh;
    options.cache = &fresh;
    deep_cpu(location, 8, 5, options);
    EXPECT_FALSE(deep_cpu(far, 8, 5, options).stats.reference_cached);
}

// The BLA table is kept with its orbit (deep_reference.h: find_bla): the same frame again uses
// it, a frame whose largest |dc| is larger builds its own, and a frame whose largest |dc| is
// within kBlaReuseSlack below a kept table's uses that one, with the same escape counts as its
// own table gives (the smaller radii only skip less).
TEST(DeepCpu, BlaTableIsKeptWithTheReference) {
    ReferenceCache cache;
    DeepRenderOptions options;
    options.cache = &cache;
    const DeepLocation location = load("e113");
    const DeepFrame first = deep_cpu(location, 24, 14, options);
    EXPECT_FALSE(first.stats.bla_cached);
    EXPECT_GT(first.stats.bla_levels, 0);
    const DeepFrame again = deep_cpu(location, 24, 14, options);
    EXPECT_TRUE(again.stats.reference_cached);
    EXPECT_TRUE(again.stats.bla_cached);
    EXPECT_EQ(again.stats.bla_ms, 0.0);
    EXPECT_EQ(again.stats.bla_levels, first.stats.bla_levels);
    EXPECT_EQ(count_differences(first, again), 0);
    EXPECT_EQ(again.stats.bla_iterations, first.stats.bla_iterations);

    // The zoom fixes the frame's height, so a wider image reaches farther from the centre:
    // 48x14's corners 1.8x as far as 24x14's, past the slack: a table of its own. Then 36x14
    // (0.77x as far as 48x14): the 48x14 table serves, built for a larger |dc|, and its escape
    // counts are those of a table of its own.
    const DeepFrame big = deep_cpu(location, 48, 14, options);
    EXPECT_FALSE(big.stats.bla_cached);
    const DeepFrame mid = deep_cpu(location, 36, 14, options);
    EXPECT_TRUE(mid.stats.bla_cached);
    const DeepFrame mid_own = deep_cpu(location, 36, 14, DeepRenderOptions{});
    EXPECT_FALSE(mid_own.stats.bla_cached);
    EXPECT_EQ(count_differences(mid, mid_own), 0);
    EXPECT_LE(mid.stats.bla_iterations, mid_own.stats.bla_iterations);

    // Without BLA nothing is built or kept; a cleared cache forgets the tables.
    DeepRenderOptions no_bla = options;
    no_bla.use_bla = false;
    EXPECT_EQ(deep_cpu(location, 24, 14, no_bla).stats.bla_levels, 0);
    cache.clear();
    EXPECT_FALSE(deep_cpu(location, 24, 14, options).stats.bla_cached);
}

// A command's ReferencePrefetch computes the frame's orbit beside its other start-up work: the
// frame then finds that orbit in the cache, and its pixels are those of a frame that computed
// its own. Destroyed before wait(), it stops the orbit and leaves nothing in the cache.
TEST(DeepCpu, PrefetchedReferenceServesTheFrame) {
    const DeepLocation location = load("e113");
    DeepRenderOptions options;
    const DeepFrame own = deep_cpu(location, 24, 14, options);
    ReferenceCache cache;
    options.cache = &cache;
    std::shared_ptr<const ReferenceOrbit> orbit;
    {
        ReferencePrefetch prefetch(&cache, location, 24, 14, deep_reference_control(options));
        orbit = prefetch.wait();
    }
    ASSERT_TRUE(orbit);
    EXPECT_EQ(cache.size(), 1u);
    EXPECT_EQ(orbit->last_index(), own.stats.reference_iterations);
    const DeepFrame frame = deep_cpu(location, 24, 14, options);
    EXPECT_TRUE(frame.stats.reference_cached);
    EXPECT_EQ(frame.reference, orbit);
    EXPECT_EQ(count_differences(own, frame), 0);

    // Abandoned at once (bad input after the prefetch started): cancelled, nothing kept.
    ReferenceCache abandoned;
    { ReferencePrefetch prefetch(&abandoned, load("e1000"), 1024, 576, deep_reference_control(DeepRenderOptions{})); }
    EXPECT_EQ(abandoned.size(), 0u);
}

TEST(DeepCpu, ReferenceCacheNeedsEnoughIterations) {
    ReferenceCache cache;
    DeepRenderOptions options;
    options.cache = &cache;
    // At 1e20 the centre of e50 does not escape within 2,000 iterations: the orbit is
    // max_iterations long and cannot serve a frame that asks for more.
    DeepLocation location = load("e50", "1E20");
    location.max_iterations = 2000;
    DeepFrame first = deep_cpu(location, 8, 5, options);
    EXPECT_EQ(first.stats.reference_iterations, 2000);
    location.max_iterations = 1500;
    EXPECT_TRUE(deep_cpu(location, 8, 5, options).stats.reference_cached);
    location.max_iterations = 3000;
    EXPECT_FALSE(deep_cpu(location, 8, 5, options).stats.reference_cached);
}

TEST(DeepCpu, CancelledReferenceLeavesNothingInTheCache) {
    ReferenceCache cache;
    std::atomic<bool> cancel{false};
    DeepRenderOptions options;
    options.cache = &cache;
    options.cancel = &cancel;
    int64_t progress_calls = 0;
    options.reference_progress = [&](int64_t done, int64_t total) {
        ++progress_calls;
        EXPECT_LE(done, total);
        if (done >= 8192) cancel = true;  // part-way through the orbit
    };
    // glitch_test_3: its orbit stops at period 23,652 (glitch_test's at 7,327, before the cancel).
    DeepLocation location = load("glitch_test_3");
    DeepFrame frame = deep_cpu(location, 8, 5, options);
    EXPECT_TRUE(frame.stats.cancelled);
    EXPECT_GE(progress_calls, 2);
    EXPECT_EQ(cache.size(), 0u);
    // Straight to the orbit too.
    cancel = false;
    ReferenceControl control;
    control.cancel = &cancel;
    control.progress = [&](int64_t done, int64_t) {
        if (done >= 4096) cancel = true;
    };
    EXPECT_EQ(compute_reference_orbit(location.center_re, location.center_im, 600, 100000, control), nullptr);
    // Uncancelled, the same frame completes and is cached.
    cancel = false;
    options.reference_progress = nullptr;
    DeepFrame done = deep_cpu(location, 8, 5, options);
    EXPECT_FALSE(done.stats.cancelled);
    EXPECT_EQ(cache.size(), 1u);
}

TEST(DeepCpu, ColourKeepsTheFractionAtHighCounts) {
    PaletteTable palette;
    palette.rgba.resize(kPaletteTableSize);
    for (int i = 0; i < kPaletteTableSize; ++i)
        palette.rgba[size_t(i)] = 0xff000000u | uint32_t(i & 0xff) | uint32_t((i >> 2) & 0xff) << 8;
    // 1e7 + 0.25 and 1e7 + 0.75: 50 table entries apart at density 10 (float would merge them).
    const double mu[] = {1e7 + 0.25, 1e7 + 0.75, -1.0, 0.5};
    uint8_t rgba[16];
    colourize_deep(mu, 4, palette, 10.0, 0.0, rgba);
    uint32_t c[4];
    std::memcpy(c, rgba, 16);
    EXPECT_NE(c[0], c[1]);
    EXPECT_EQ(c[2], palette.interior_rgba);
    const double scale = 10.0 / 100.0 * kPaletteTableSize;
    EXPECT_EQ(c[0], palette_lookup(palette.rgba.data(), std::fmod(mu[0] * scale, kPaletteTableSize)));
    EXPECT_EQ(c[3], palette_lookup(palette.rgba.data(), 0.5 * scale));
}

TEST(DeepCpu, BadLocationThrowsOneSentence) {
    DeepLocation location;
    location.max_iterations = 0;
    try {
        deep_cpu(location, 8, 5);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        std::string s = e.what();
        EXPECT_EQ(s.back(), '.');
    }
}
