// test_deep_lanes.cpp: deep_cpu's SIMD row loop (deep_cpu_lanes.h) against the one-pixel loop it
// replaces (deep_iterate_pixel, deep_perturbation.h): the same escape count and the same smooth
// value, bit for bit, on every pixel, and the same counters (steps, skips, rebases), at the 1e50
// location (rust-fractal-core's e50, Kalles Fraktaler 2's 1e50 benchmark), at its centre seen
// from 1e20, at the glitch location glitch_test_3 (4.1e158) and with BLA off. The MPFR truth is
// test_deep_render's business: deep_cpu runs this loop there. Also deep_cuda's form of the loop
// (kPacked), run on the CPU, against the one-pixel loop.
#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cpu_lanes.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/deep/deep_perturbation.h"
#include "compute/io/assets.h"

using namespace ms;

namespace {

DeepLocation load(const std::string& name, const char* zoom = nullptr) {
    DeepLocation location;
    const std::string path = (find_data_dir("assets") / "locations").string() + "/" + name + ".kfr";
    EXPECT_EQ(read_kfr(path, &location), "");
    if (zoom) {
        EXPECT_EQ(parse_deep_zoom(zoom, &location.zoom), "");
    }
    return location;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Renders the frame's rows both ways (as deep_cpu's render_pixels samples them) and compares.
// layout: with the table's lane layout (BlaTable::lane_points), which the AVX-512 loop takes where
// the CPU has AVX-512 (else the Highway loop runs either way).
void check_lanes(const DeepLocation& location, int width, int height, bool use_bla, bool layout = false) {
    SCOPED_TRACE("lanes target " + std::string(deep_lanes_target()) + (layout ? " with the lane layout" : ""));
    DeepRenderOptions options;
    options.use_bla = use_bla;
    DeepFrame frame;
    const DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    ASSERT_TRUE(setup.orbit);
    ASSERT_TRUE(setup.orbit->fits_double());
    std::shared_ptr<const BlaTable<double, DeepComplex<double>>> table, critical;
    ASSERT_TRUE((deep_frame_bla<double, DeepComplex<double>>(setup, options, &table, &critical, &frame.stats)));
    const BlaView<double, DeepComplex<double>> bla = bla_view(table.get());
    EXPECT_EQ(bla.levels > 0, use_bla);
    const double spacing = fe_to_double(setup.spacing);
    const DeepComplex<double> offset{fe_to_double(setup.offset.re), fe_to_double(setup.offset.im)};
    const DeepComplex<double>* Z = setup.orbit->z.data();
    const int64_t last = setup.orbit->last_index();

    DeepPixelCounters one, lanes;
    int differ = 0, pixels = 0;
    std::vector<double> dc_re(static_cast<size_t>(width)), dc_im(static_cast<size_t>(width)),
        mu(static_cast<size_t>(width));
    std::vector<int64_t> count(static_cast<size_t>(width));
    for (int y = 0; y < height; ++y) {
        const double dy = -(y + 0.5 - 0.5 * height) * spacing;
        for (int x = 0; x < width; ++x) {
            dc_re[size_t(x)] = offset.re + (x + 0.5 - 0.5 * width) * spacing;
            dc_im[size_t(x)] = offset.im + dy;
        }
        DeepLanesRow row;
        row.orbit = Z;
        row.last_index = last;
        row.bla = &bla;
        row.bla_r2 = table ? table->r2.data() : nullptr;
        if (layout && table) {
            row.lane_points = table->lane_points.data();
            row.lane_chain = table->lane_chain.data();
        }
        row.dc_re = dc_re.data();
        row.dc_im = dc_im.data();
        row.count = width;
        row.max_iterations = location.max_iterations;
        row.escape_count = count.data();
        row.mu = mu.data();
        deep_lanes_row(row, &lanes);
        for (int x = 0; x < width; ++x, ++pixels) {
            double expected_mu = 0.0;
            const int64_t expected = deep_iterate_pixel<double, true>(
                Z, last, bla, {dc_re[size_t(x)], dc_im[size_t(x)]}, location.max_iterations, &expected_mu, one);
            if (expected != count[size_t(x)] || !same_bits(expected_mu, mu[size_t(x)])) {
                if (differ++ < 5)
                    ADD_FAILURE() << "pixel (" << x << ", " << y << "): one-pixel loop " << expected << " mu "
                                  << expected_mu << ", lanes " << count[size_t(x)] << " mu " << mu[size_t(x)];
            }
        }
    }
    EXPECT_EQ(differ, 0) << "of " << pixels << " pixels";
    EXPECT_EQ(lanes.iterations, one.iterations);
    EXPECT_EQ(lanes.bla_iterations, one.bla_iterations);
    EXPECT_EQ(lanes.bla_skips, one.bla_skips);
    EXPECT_EQ(lanes.steps, one.steps);
    EXPECT_EQ(lanes.rebases, one.rebases);
    EXPECT_EQ(lanes.escaped, one.escaped);
    EXPECT_GT(one.escaped, 0u);
    if (use_bla) {
        EXPECT_GT(one.bla_skips, 0u);
    }
}

// The loop as deep_cuda runs it (kPacked: the orbit beside level 0's radii, skips found by
// bla_lookup_batched in the table's compact radii; kResume: in pieces of a step budget), here on
// the CPU, against the one-pixel loop: the same escape count, mu and counters on every pixel. deep_cuda's own test compares the GPU's
// frames with deep_cpu's where a device exists; this one runs everywhere.
template <typename T>
void check_packed(const DeepLocation& location, int width, int height, DeepNumberType type) {
    DeepRenderOptions options;
    options.number_type = type;
    DeepFrame frame;
    const DeepFrameSetup setup = deep_frame_setup(location, width, height, options, &frame);
    ASSERT_TRUE(setup.orbit);
    std::shared_ptr<const BlaTable<T, DeepComplex<T>>> table, critical;
    ASSERT_TRUE((deep_frame_bla<T, DeepComplex<T>>(setup, options, &table, &critical, &frame.stats)));
    ASSERT_TRUE(table);
    const BlaView<T, DeepComplex<T>> bla = bla_view(table.get());
    BlaView<T, DeepComplex<T>> packed_bla = bla;
    packed_bla.r2 = table->r2.data();
    const DeepComplex<T>* Z = deep_orbit_data<T>(*setup.orbit);
    const int64_t last = setup.orbit->last_index();
    std::vector<DeepOrbitPoint<T>> points(static_cast<size_t>(last + 1));
    for (int64_t m = 0; m <= last; ++m) points[size_t(m)] = deep_orbit_point(Z, bla, m);
    const T spacing = deep_from_floatexp<T>(setup.spacing);
    const DeepComplex<T> offset{deep_from_floatexp<T>(setup.offset.re), deep_from_floatexp<T>(setup.offset.im)};
    DeepPixelCounters one, packed, resumed;
    int differ = 0, suspensions = 0;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const T dy = deep_from_double<T>(-(y + 0.5 - 0.5 * height)) * spacing;
            const T dx = deep_from_double<T>(x + 0.5 - 0.5 * width) * spacing;
            const DeepComplex<T> dc{offset.re + dx, offset.im + dy};
            double expected_mu = 0.0, packed_mu = 0.0;
            const int64_t expected = deep_iterate_pixel<T, true>(Z, last, bla, dc, location.max_iterations,
                                                                 &expected_mu, one);
            const int64_t k = deep_iterate_pixel<T, true, Formula::Mandelbrot, false, false, false, true>(
                nullptr, last, packed_bla, dc, location.max_iterations, &packed_mu, packed, nullptr, 0, nullptr, {},
                nullptr, points.data());
            // And in pieces of at most 50 steps, as deep_cuda's passes run it.
            DeepPixelResume<T> state;
            double resumed_mu = 0.0;
            int64_t r = kDeepPixelSuspended;
            while (r == kDeepPixelSuspended) {
                r = deep_iterate_pixel<T, true, Formula::Mandelbrot, false, false, false, true, true>(
                    nullptr, last, packed_bla, dc, location.max_iterations, &resumed_mu, resumed, nullptr, 0, nullptr,
                    {}, nullptr, points.data(), nullptr, &state, 50);
                suspensions += r == kDeepPixelSuspended;
            }
            if (k != expected || !same_bits(expected_mu, packed_mu) || r != expected ||
                !same_bits(expected_mu, resumed_mu)) {
                if (differ++ < 5)
                    ADD_FAILURE() << "pixel (" << x << ", " << y << "): one-pixel loop " << expected << " mu "
                                  << expected_mu << ", packed " << k << " mu " << packed_mu << ", resumed " << r
                                  << " mu " << resumed_mu;
            }
        }
    EXPECT_EQ(differ, 0) << "of " << width * height << " pixels";
    for (const DeepPixelCounters* c : {&packed, &resumed}) {
        EXPECT_EQ(c->iterations, one.iterations);
        EXPECT_EQ(c->bla_iterations, one.bla_iterations);
        EXPECT_EQ(c->bla_skips, one.bla_skips);
        EXPECT_EQ(c->steps, one.steps);
        EXPECT_EQ(c->rebases, one.rebases);
        EXPECT_EQ(c->escaped, one.escaped);
    }
    EXPECT_GT(suspensions, width * height);
    EXPECT_GT(one.bla_skips, 0u);
    EXPECT_GT(one.rebases, 0u);
}

}  // namespace

TEST(DeepLanes, PackedLoopMatchesOnePixelLoop) {
    check_packed<double>(load("e50", "1e20"), 23, 13, DeepNumberType::Double);
    check_packed<double>(load("glitch_test_3"), 17, 11, DeepNumberType::Double);
    check_packed<double>(load("e227"), 6, 4, DeepNumberType::Double);
    check_packed<FloatExp>(load("e533"), 9, 5, DeepNumberType::FloatExp);
}

TEST(DeepLanes, MatchesOnePixelLoopAtE50) { check_lanes(load("e50"), 29, 17, true); }

TEST(DeepLanes, MatchesOnePixelLoopAtE20) { check_lanes(load("e50", "1e20"), 37, 21, true); }

TEST(DeepLanes, MatchesOnePixelLoopAtGlitchLocation) { check_lanes(load("glitch_test_3"), 24, 14, true); }

TEST(DeepLanes, LaneLayoutMatchesOnePixelLoopAtE50) { check_lanes(load("e50"), 29, 17, true, true); }

TEST(DeepLanes, LaneLayoutMatchesOnePixelLoopAtE20) { check_lanes(load("e50", "1e20"), 37, 21, true, true); }

TEST(DeepLanes, LaneLayoutMatchesOnePixelLoopAtGlitchLocation) {
    check_lanes(load("glitch_test_3"), 24, 14, true, true);
}

// Few iterations: lanes reach the limit inside skips' reach (the skip lengths capped).
TEST(DeepLanes, LaneLayoutMatchesOnePixelLoopNearTheLimit) {
    DeepLocation location = load("e50");
    location.max_iterations = 262000;
    check_lanes(location, 41, 9, true, true);
}

TEST(DeepLanes, MatchesOnePixelLoopWithoutBla) {
    DeepLocation location = load("e50", "1e20");
    location.max_iterations = 20000;
    check_lanes(location, 19, 11, false);
}

// The fused multiply-adds (deep_perturbation.h) are Highway's MulAdd only where the target has
// FMA; on SSE4 the lanes take std::fma lane by lane, and still give the one-pixel loop's bits.
TEST(DeepLanes, MatchOnATargetWithoutFma) {
    if (!(hwy::SupportedTargets() & HWY_SSE4)) GTEST_SKIP() << "this CPU has no SSE4 target to fall back to";
    // The CPU's own targets again when the test ends, also through a failed assertion.
    struct Restore {
        ~Restore() { hwy::SetSupportedTargetsForTest(0); }
    } restore;
    hwy::SetSupportedTargetsForTest(HWY_SSE4);
    EXPECT_STREQ(deep_lanes_target(), "SSE4");
    check_lanes(load("e50", "1e20"), 37, 21, true);
}

// deep_cpu uses the lanes for this case: its frame is the one-pixel loop's (every row's pixels
// above) and BLA on and off agree there as test_deep_render asks.
TEST(DeepLanes, DeepCpuUsesThem) {
    const DeepLocation location = load("e50", "1e20");
    DeepRenderOptions options;
    options.threads = 2;
    const DeepFrame frame = deep_cpu(location, 37, 21, options);
    DeepPixelCounters one;
    std::shared_ptr<const BlaTable<double, DeepComplex<double>>> table, critical;
    DeepFrame scratch;
    const DeepFrameSetup setup = deep_frame_setup(location, 37, 21, options, &scratch);
    ASSERT_TRUE((deep_frame_bla<double, DeepComplex<double>>(setup, options, &table, &critical, &scratch.stats)));
    const BlaView<double, DeepComplex<double>> bla = bla_view(table.get());
    const double spacing = fe_to_double(setup.spacing);
    int differ = 0;
    for (int y = 0; y < 21; ++y)
        for (int x = 0; x < 37; ++x) {
            double mu = 0.0;
            const DeepComplex<double> dc{fe_to_double(setup.offset.re) + (x + 0.5 - 0.5 * 37) * spacing,
                                         fe_to_double(setup.offset.im) + -(y + 0.5 - 0.5 * 21) * spacing};
            const int64_t k = deep_iterate_pixel<double, true>(setup.orbit->z.data(), setup.orbit->last_index(), bla,
                                                               dc, location.max_iterations, &mu, one);
            const size_t i = size_t(y) * 37 + size_t(x);
            differ += k != frame.escape_count[i] || !same_bits(mu, frame.mu[i]);
        }
    EXPECT_EQ(differ, 0);
    EXPECT_EQ(frame.stats.perturbation_steps, one.steps);
    EXPECT_EQ(frame.stats.bla_skips, one.bla_skips);
}
