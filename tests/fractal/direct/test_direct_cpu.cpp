// test_direct_cpu.cpp: the fast CPU path (direct_cpu: OpenMP + Highway SIMD) against
// the scalar reference of the same precision, through the shared validator. With the default
// unfused arithmetic the fast path performs the reference's IEEE operations in the same order,
// so the pictures (and even the iteration counts) must agree exactly; the comparison's tolerances
// (99.9% identical escape counts, smooth values within 1e-3) are checked as well, and are what the
// optional fused-multiply-add mode is held to.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "compute/fractal/direct/direct.h"
#include "compute/fractal/direct/direct_features.h"
#include "tests/validate.h"

namespace {

struct NamedView {
    const char* name;
    ms::View view;
};

ms::View make_view(const char* re, const char* im, double zoom, int width, int height, int iterations) {
    ms::View view;
    view.center_re = re;
    view.center_im = im;
    view.zoom = zoom;
    view.width = width;
    view.height = height;
    view.max_iterations = iterations;
    return view;
}

// Small sizes keep the single-threaded reference quick; odd widths exercise partial vectors.
std::vector<NamedView> test_views() {
    return {
        {"full view", make_view("-0.75", "0", 1.0, 203, 117, 500)},
        {"seahorse valley", make_view("-0.7436447860", "0.1318252536", 3000.0, 160, 90, 1000)},
        {"deep zoom 1e6", make_view("-0.743643887037151", "0.131825904205330", 1.0e6, 97, 61, 2000)},
        {"interior and bulbs", make_view("-0.6", "0.3", 2.5, 128, 96, 800)},
    };
}

struct Comparison {
    size_t count_mismatches = 0;  // pixels whose integer escape count differs
    double max_mu_error = 0.0;    // over the pixels whose escape counts agree
};

Comparison compare_frames(const char* what, const std::vector<float>& reference, const std::vector<float>& candidate,
                          int width) {
    std::vector<int> k_ref(reference.size()), k_got(candidate.size());
    for (size_t i = 0; i < reference.size(); ++i) {
        k_ref[i] = ms::mandelbrot_escape_count(reference[i]);
        k_got[i] = ms::mandelbrot_escape_count(candidate[i]);
    }
    Comparison c;
    c.count_mismatches = ms::test::validate_result((std::string(what) + " escape counts").c_str(), k_ref.data(),
                                                   k_got.data(), k_ref.size(), 0.0, 0.0, width)
                             .mismatches;
    for (size_t i = 0; i < reference.size(); ++i)
        if (k_ref[i] == k_got[i])
            c.max_mu_error = std::max(c.max_mu_error, double(std::fabs(reference[i] - candidate[i])));
    return c;
}

// Smooth values of the fast path against the reference's: mu = k + 1 - L with L = log2(ln|z|) in
// [2.47, 3.47], which the fast path evaluates in float (a few ulps of 3, about 2.4e-7 each), plus
// two ulps of mu itself for the rounding of the sum (an ulp is 6e-8 to 1.2e-7 of the value).
constexpr double kMuAbsoluteTolerance = 1e-6;
constexpr double kMuRelativeTolerance = 2.4e-7;

size_t pixels(const ms::View& v) { return size_t(v.width) * size_t(v.height); }

TEST(DirectCpu, MatchesReferenceOnEveryViewPrecisionAndShortcut) {
    for (const auto& [name, view] : test_views()) {
        for (ms::Precision precision : {ms::Precision::Fp64, ms::Precision::Fp32}) {
            for (bool shortcuts_on : {true, false}) {
                ms::Shortcuts shortcuts{shortcuts_on, shortcuts_on};
                std::vector<float> reference(pixels(view)), fast(pixels(view), 12345.0f);
                auto ref_stats = ms::direct_cpu_reference(view, precision, shortcuts, {}, reference.data());
                auto fast_stats = ms::direct_cpu(view, precision, shortcuts, {}, fast.data());
                std::string what = std::string(name) + " " + ms::precision_name(precision) +
                                   (shortcuts_on ? " shortcuts on" : " shortcuts off");
                SCOPED_TRACE(what);
                // The tolerances...
                Comparison c = compare_frames(what.c_str(), reference, fast, view.width);
                EXPECT_LE(double(c.count_mismatches), 0.001 * double(pixels(view)));
                EXPECT_LE(c.max_mu_error, 1e-3);
                // ...and what the unfused arithmetic promises: the same escape counts on every
                // pixel, the same work, and smooth values within a few float ulps (the fast path
                // takes its logs in float, the reference in double).
                EXPECT_EQ(c.count_mismatches, 0u);
                auto r = ms::test::validate_result(what.c_str(), reference.data(), fast.data(), reference.size(),
                                                   kMuAbsoluteTolerance, kMuRelativeTolerance, view.width);
                EXPECT_EQ(r.mismatches, 0u);
                EXPECT_EQ(fast_stats.iterations, ref_stats.iterations);
                EXPECT_EQ(fast_stats.escaped_pixels, ref_stats.escaped_pixels);
                EXPECT_EQ(fast_stats.precision, precision);
                EXPECT_FALSE(fast_stats.cancelled);
            }
        }
    }
}

TEST(DirectCpu, ShortcutsDoNotChangeThePicture) {
    ms::View view = make_view("-0.75", "0", 1.0, 320, 180, 1000);
    for (ms::Precision precision : {ms::Precision::Fp64, ms::Precision::Fp32}) {
        std::vector<float> off(pixels(view)), on(pixels(view)), cardioid_only(pixels(view));
        auto off_stats = ms::direct_cpu(view, precision, {false, false}, {}, off.data());
        auto on_stats = ms::direct_cpu(view, precision, {true, true}, {}, on.data());
        ms::direct_cpu(view, precision, {true, false}, {}, cardioid_only.data());
        EXPECT_EQ(off, on) << ms::precision_name(precision);
        EXPECT_EQ(off, cardioid_only) << ms::precision_name(precision);
        EXPECT_LT(on_stats.iterations, off_stats.iterations / 4);  // the shortcuts skip real work
        EXPECT_EQ(on_stats.escaped_pixels, off_stats.escaped_pixels);
    }
}

TEST(DirectCpu, EverySimdTargetComputesTheSameEscapeCounts) {
    const auto targets = ms::direct_cpu_simd_targets();
    ASSERT_FALSE(targets.empty());
    EXPECT_EQ(targets.front(), ms::direct_cpu_simd_target());
    std::printf("SIMD targets on this machine: ");
    for (const auto& t : targets) std::printf("%s ", t.c_str());
    std::printf("(using %s)\n", ms::direct_cpu_simd_target().c_str());
    ms::View view = make_view("-0.7436447860", "0.1318252536", 3000.0, 77, 41, 700);
    for (ms::Precision precision : {ms::Precision::Fp64, ms::Precision::Fp32}) {
        std::vector<float> best(pixels(view));
        ms::direct_cpu(view, precision, {}, {}, best.data());
        for (const auto& target : targets) {
            ASSERT_TRUE(ms::direct_cpu_use_simd_target(target));
            EXPECT_EQ(ms::direct_cpu_simd_target(), target);
            std::vector<float> frame(pixels(view));
            ms::direct_cpu(view, precision, {}, {}, frame.data());
            // The iteration is the same IEEE operations on every target; the float logs of the
            // smooth value may round differently where a target emulates fused multiply-adds.
            std::string what = target + " " + ms::precision_name(precision);
            EXPECT_EQ(compare_frames(what.c_str(), best, frame, view.width).count_mismatches, 0u) << what;
            EXPECT_EQ(ms::test::validate_result(what.c_str(), best.data(), frame.data(), frame.size(),
                                                kMuAbsoluteTolerance, kMuRelativeTolerance, view.width)
                          .mismatches,
                      0u)
                << what;
        }
        ASSERT_TRUE(ms::direct_cpu_use_simd_target(""));
    }
    EXPECT_FALSE(ms::direct_cpu_use_simd_target("NO-SUCH-TARGET"));
    EXPECT_EQ(ms::direct_cpu_simd_target(), targets.front());
}

TEST(DirectCpu, FusedMultiplyAddDiffersOnlyAlongTheBoundary) {
    // MulAdd rounds once: a last-bit difference in z grows along chaotic orbits near the
    // boundary until the escape moves by some iterations, and where the count still agrees
    // |z_k| (hence mu) can differ by up to one. Away from deep zooms this stays within the
    // comparison's tolerance; at a 1e6 zoom with 2000 iterations about 1% of the pixels move, which
    // is why the default path does not fuse. This test pins both facts down.
    for (const auto& [name, view] : test_views()) {
        std::vector<float> reference(pixels(view)), fused(pixels(view));
        ms::direct_cpu_reference(view, ms::Precision::Fp64, {}, {}, reference.data());
        ms::CpuRenderControl control;
        control.fused_multiply_add = true;
        ms::direct_cpu(view, ms::Precision::Fp64, {}, {}, fused.data(), control);
        Comparison c = compare_frames((std::string(name) + " fused").c_str(), reference, fused, view.width);
        if (std::string(name) == "full view") {
            EXPECT_LE(double(c.count_mismatches), 0.001 * double(pixels(view)));
            EXPECT_LE(c.max_mu_error, 1e-3);
        }
        EXPECT_LE(double(c.count_mismatches), 0.03 * double(pixels(view))) << name;
    }
}

TEST(DirectCpu, SubRectangleMatchesTheFullFrame) {
    ms::View view = make_view("-0.75", "0.1", 1.5, 150, 100, 400);
    std::vector<float> full(pixels(view));
    ms::direct_cpu(view, ms::Precision::Fp64, {}, {}, full.data());
    ms::PixelRect rect{37, 21, 45, 33};
    std::vector<float> part(size_t(rect.width) * rect.height);
    ms::direct_cpu(view, ms::Precision::Fp64, {}, rect, part.data());
    for (int y = 0; y < rect.height; ++y)
        for (int x = 0; x < rect.width; ++x)
            ASSERT_EQ(part[size_t(y) * rect.width + x], full[size_t(rect.y + y) * view.width + rect.x + x])
                << x << ", " << y;
}

TEST(DirectCpu, TinyAndOddSizes) {
    for (int width : {1, 2, 7, 9, 31, 65}) {
        ms::View view = make_view("-0.5", "0.5", 1.7, width, 3, 300);
        std::vector<float> reference(pixels(view)), fast(pixels(view));
        ms::direct_cpu_reference(view, ms::Precision::Fp32, {}, {}, reference.data());
        ms::direct_cpu(view, ms::Precision::Fp32, {}, {}, fast.data());
        const std::string what = "width " + std::to_string(width);
        EXPECT_EQ(compare_frames(what.c_str(), reference, fast, width).count_mismatches, 0u) << what;
        EXPECT_EQ(ms::test::validate_result(what.c_str(), reference.data(), fast.data(), fast.size(),
                                            kMuAbsoluteTolerance, kMuRelativeTolerance, width)
                      .mismatches,
                  0u)
            << what;
    }
}

TEST(DirectCpu, CancelStopsBetweenRowsAndProgressReports) {
    ms::View view = make_view("-0.75", "0", 1.0, 64, 200, 200);
    constexpr float kUntouched = 1234.5f;

    // Cancelled before it starts: nothing is rendered.
    std::atomic<bool> cancel{true};
    ms::CpuRenderControl control;
    control.cancel = &cancel;
    std::vector<float> frame(pixels(view), kUntouched);
    auto stats = ms::direct_cpu(view, ms::Precision::Fp64, {}, {}, frame.data(), control);
    EXPECT_TRUE(stats.cancelled);
    for (float mu : frame) ASSERT_EQ(mu, kUntouched);

    // Cancelled from the progress callback part-way: some rows stay untouched.
    cancel = false;
    std::atomic<int> calls{0};
    control.progress = [&](int done, int total) {
        EXPECT_EQ(total, view.height);
        EXPECT_LE(done, total);
        if (++calls >= 3) cancel = true;
    };
    stats = ms::direct_cpu(view, ms::Precision::Fp64, {}, {}, frame.data(), control);
    EXPECT_TRUE(stats.cancelled);
    size_t untouched = 0;
    for (float mu : frame) untouched += mu == kUntouched;
    EXPECT_GT(untouched, 0u);
    EXPECT_LT(untouched, frame.size());

    // Not cancelled: progress reaches every row.
    cancel = false;
    std::atomic<int> last{0};
    control.progress = [&](int done, int) {
        int seen = last.load();
        while (done > seen && !last.compare_exchange_weak(seen, done)) {
        }
    };
    stats = ms::direct_cpu(view, ms::Precision::Fp64, {}, {}, frame.data(), control);
    EXPECT_FALSE(stats.cancelled);
    EXPECT_EQ(last.load(), view.height);
}

}  // namespace

// Both CPU kernels, fast and reference, report the precision they run: Fp32 or Fp64. A view past
// FP64's resolution (where Auto means a deep path, which these kernels do not have) or a deep
// request runs in FP64 and says so, as its pixels show: they are the Fp64 request's, bit for bit.
TEST(DirectCpu, EveryKernelReportsThePrecisionItRuns) {
    const ms::View shallow = make_view("-0.75", "0", 1.0, 37, 23, 200);
    const ms::View past_fp64 = make_view("-0.743643887037151", "0.131825904205330", 1.0e15, 37, 23, 500);
    ASSERT_FALSE(ms::fp64_resolves(past_fp64));
    ASSERT_EQ(ms::resolve_precision(past_fp64, ms::Precision::Auto), ms::Precision::DeepDouble);
    struct Case {
        const ms::View& view;
        ms::Precision requested, runs;
    };
    const Case cases[] = {
        {shallow, ms::Precision::Auto, ms::Precision::Fp32},
        {past_fp64, ms::Precision::Auto, ms::Precision::Fp64},
        {past_fp64, ms::Precision::DeepDouble, ms::Precision::Fp64},
        {past_fp64, ms::Precision::DeepFloatExp, ms::Precision::Fp64},
    };
    auto name = [](ms::Precision p) { return std::string(ms::precision_name(p)); };
    for (const Case& c : cases) {
        SCOPED_TRACE(std::string("requested ") + ms::precision_name(c.requested) + ", zoom " +
                     std::to_string(c.view.zoom.value()));
        const size_t n = pixels(c.view);
        std::vector<float> mu(n), mu_as_run(n), distance(n), distance_as_run(n);
        const ms::OrbitFeatureOutputs outputs{distance.data(), nullptr, nullptr};
        const ms::OrbitFeatureOutputs outputs_as_run{distance_as_run.data(), nullptr, nullptr};

        EXPECT_EQ(name(ms::direct_cpu(c.view, c.requested, {}, {}, mu.data()).precision), name(c.runs));
        ms::direct_cpu(c.view, c.runs, {}, {}, mu_as_run.data());
        EXPECT_EQ(mu, mu_as_run);

        EXPECT_EQ(name(ms::direct_cpu_reference(c.view, c.requested, {}, {}, mu.data()).precision), name(c.runs));
        ms::direct_cpu_reference(c.view, c.runs, {}, {}, mu_as_run.data());
        EXPECT_EQ(mu, mu_as_run);

        EXPECT_EQ(name(ms::direct_features_cpu(c.view, c.requested, {}, {}, mu.data(), outputs).precision),
                  name(c.runs));
        ms::direct_features_cpu(c.view, c.runs, {}, {}, mu_as_run.data(), outputs_as_run);
        EXPECT_EQ(mu, mu_as_run);
        EXPECT_EQ(distance, distance_as_run);

        EXPECT_EQ(name(ms::direct_features_cpu_reference(c.view, c.requested, {}, {}, mu.data(), outputs).precision),
                  name(c.runs));
        ms::direct_features_cpu_reference(c.view, c.runs, {}, {}, mu_as_run.data(), outputs_as_run);
        EXPECT_EQ(mu, mu_as_run);
        EXPECT_EQ(distance, distance_as_run);
    }
}
