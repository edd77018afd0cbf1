// test_colouring_family.cpp: the colouring's orbit features (orbit_features.h: distance
// estimate, stripes, period interior) for every formula of formula.h and every Julia set, on the
// CPU (test_colouring.cpp has the Mandelbrot set's parameter plane):
//   * the fast path (SIMD, every core) matches the reference bit for bit, and its mu is the
//     smooth reference's, for each formula on its parameter plane and on a Julia set;
//   * the CUDA persistent kernel's blocked orbit (BlockedOrbit) does too, run here on the CPU;
//   * the distance estimate bounds the distance to the nearest interior pixel within the Koebe
//     factor 2 for a Multibrot and for a (connected) Julia set, and the Burning Ship's and the
//     Tricorn's Jacobian estimate falls towards their sets;
//   * symmetry: a Julia set of real c, the Mandelbrot set and the Tricorn are symmetric about
//     the real axis (features included), the Burning Ship is not;
//   * the features are accepted for every formula on the direct kernels; past FP64 the distance
//     estimate is refused (and dropped by the window) for all but the Mandelbrot set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/view/formula.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/maths/escape.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/fractal/view/view.h"
#include "tests/validate.h"

namespace {

// A Julia parameter per formula, each a connected Julia set with interior (c in the parameter
// plane's set, found on its smooth frame), so that every feature has pixels to work on.
struct JuliaC {
    const char* re;
    const char* im;
};
JuliaC julia_c(ms::Formula formula) {
    switch (formula) {
    case ms::Formula::Mandelbrot: return {"-0.1226", "0.7449"};  // Douady's rabbit
    case ms::Formula::BurningShip: return {"-0.5", "-0.3"};
    case ms::Formula::Tricorn: return {"-0.2", "0.1"};
    default: return {"0.2", "0.3"};
    }
}

ms::View family_view(ms::Formula formula, bool julia, int width, int height, int iterations) {
    ms::View v;
    v.formula = formula;
    v.julia = julia;
    if (julia) {
        v.julia_re = julia_c(formula).re;
        v.julia_im = julia_c(formula).im;
    }
    const ms::FormulaFrame frame = ms::formula_default_frame(formula, julia);
    v.center_re = frame.center_re;
    v.center_im = frame.center_im;
    v.zoom = frame.zoom;
    v.width = width;
    v.height = height;
    v.max_iterations = iterations;
    v.colouring.stripe_density = 5;
    return v;
}

std::string name_of(const ms::View& v) {
    return std::string(ms::formula_name(v.formula)) + (v.julia ? " Julia c = " + v.julia_re + "," + v.julia_im : "");
}

struct Features {
    std::vector<float> mu, distance, stripe, period;
    explicit Features(size_t n) : mu(n), distance(n), stripe(n), period(n) {}
    ms::OrbitFeatureOutputs outputs() { return {distance.data(), stripe.data(), period.data()}; }
};

// The CUDA persistent kernel's loop (BlockedOrbit), pixel by pixel, for formula F.
template <ms::Formula F, typename T>
ms::FrameStats blocked_orbit_frame_of(const ms::View& view, const ms::Shortcuts& shortcuts, Features* out) {
    constexpr unsigned kAll = ms::kAllFeatures;
    const ms::PixelGrid grid = ms::make_pixel_grid(view);
    const int interval = ms::periodicity_interval(int(view.max_iterations));
    const T julia_r = view.julia ? T(ms::julia_re_value(view)) : T(0);
    const T julia_i = view.julia ? T(ms::julia_im_value(view)) : T(0);
    ms::FrameStats stats;
    for (int y = 0; y < view.height; ++y) {
        for (int x = 0; x < view.width; ++x) {
            const size_t i = size_t(y) * view.width + x;
            const T pr = T(grid.re(x)), pi = T(grid.im(y));
            float* d = &out->distance[i];
            float* st = &out->stripe[i];
            float* pe = &out->period[i];
            if (F == ms::Formula::Mandelbrot && !view.julia && shortcuts.cardioid_bulb &&
                ms::in_cardioid_or_period2_bulb(double(pr), double(pi))) {
                ms::finish_interior<kAll>(ms::shortcut_period(double(pr), double(pi)), d, st, pe);
                out->mu[i] = ms::kInteriorMu;
                continue;
            }
            ms::BlockedOrbit<T, kAll, F> orbit;
            if (view.julia) orbit.start(pr, pi, julia_r, julia_i, true, view.colouring.stripe_density, interval);
            else orbit.start(T(0), T(0), pr, pi, false, view.colouring.stripe_density, interval);
            ms::OrbitState state = ms::OrbitState::Running;
            while (state == ms::OrbitState::Running)
                state = orbit.run_block(int(view.max_iterations), shortcuts.periodicity, interval);
            out->mu[i] = orbit.finish(state, grid.step, d, st, pe);
            stats.iterations += uint64_t(orbit.k);
            stats.escaped_pixels += state == ms::OrbitState::Escaped ? 1u : 0u;
        }
    }
    return stats;
}

template <typename T>
ms::FrameStats blocked_orbit_frame(const ms::View& view, const ms::Shortcuts& shortcuts, Features* out) {
    switch (view.formula) {
    case ms::Formula::Mandelbrot: return blocked_orbit_frame_of<ms::Formula::Mandelbrot, T>(view, shortcuts, out);
    case ms::Formula::Multibrot3: return blocked_orbit_frame_of<ms::Formula::Multibrot3, T>(view, shortcuts, out);
    case ms::Formula::Multibrot4: return blocked_orbit_frame_of<ms::Formula::Multibrot4, T>(view, shortcuts, out);
    case ms::Formula::Multibrot5: return blocked_orbit_frame_of<ms::Formula::Multibrot5, T>(view, shortcuts, out);
    case ms::Formula::Multibrot6: return blocked_orbit_frame_of<ms::Formula::Multibrot6, T>(view, shortcuts, out);
    case ms::Formula::Multibrot7: return blocked_orbit_frame_of<ms::Formula::Multibrot7, T>(view, shortcuts, out);
    case ms::Formula::Multibrot8: return blocked_orbit_frame_of<ms::Formula::Multibrot8, T>(view, shortcuts, out);
    case ms::Formula::BurningShip: return blocked_orbit_frame_of<ms::Formula::BurningShip, T>(view, shortcuts, out);
    case ms::Formula::Tricorn: return blocked_orbit_frame_of<ms::Formula::Tricorn, T>(view, shortcuts, out);
    }
    return {};
}

size_t count_if_positive(const std::vector<float>& v) {
    return size_t(std::count_if(v.begin(), v.end(), [](float x) { return x > 0.0f; }));
}

}  // namespace

TEST(ColouringFamily, FastFeaturesMatchTheReference) {
    for (const std::string& target : ms::direct_cpu_simd_targets()) {
        ASSERT_TRUE(ms::direct_cpu_use_simd_target(target));
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
            for (ms::Formula formula : ms::kAllFormulas) {
                for (bool julia : {false, true}) {
                    const ms::View view = family_view(formula, julia, 72, 40, 400);
                    SCOPED_TRACE(target + " " + ms::precision_name(precision) + " " + name_of(view));
                    const size_t n = size_t(view.width) * view.height;
                    Features ref(n), fast(n);
                    const auto a = ms::direct_features_cpu_reference(view, precision, {}, {}, ref.mu.data(),
                                                                     ref.outputs());
                    const auto b = ms::direct_features_cpu(view, precision, {}, {}, fast.mu.data(), fast.outputs());
                    EXPECT_EQ(a.iterations, b.iterations);
                    EXPECT_EQ(a.escaped_pixels, b.escaped_pixels);
                    EXPECT_GT(a.escaped_pixels, n / 4);
                    EXPECT_LT(a.escaped_pixels, n);  // some interior: the period has work
                    EXPECT_EQ(ms::test::validate_result("mu", ref.mu.data(), fast.mu.data(), n, 0.0, 0.0, view.width)
                                  .mismatches,
                              0u);
                    EXPECT_EQ(ms::test::validate_result("distance", ref.distance.data(), fast.distance.data(), n, 0.0,
                                                        0.0, view.width)
                                  .mismatches,
                              0u);
                    EXPECT_EQ(ms::test::validate_result("stripe", ref.stripe.data(), fast.stripe.data(), n, 0.0, 0.0,
                                                        view.width)
                                  .mismatches,
                              0u);
                    EXPECT_EQ(ms::test::validate_result("period", ref.period.data(), fast.period.data(), n, 0.0, 0.0,
                                                        view.width)
                                  .mismatches,
                              0u);
                    // mu is the smooth kernels' exactly: the features ride along.
                    std::vector<float> smooth(n);
                    const auto s = ms::direct_cpu_reference(view, precision, {}, {}, smooth.data());
                    EXPECT_EQ(s.iterations, a.iterations);
                    EXPECT_EQ(
                        ms::test::validate_result("mu vs smooth", smooth.data(), ref.mu.data(), n, 0.0, 0.0, view.width)
                            .mismatches,
                        0u);
                    // Something was computed.
                    EXPECT_GT(count_if_positive(ref.distance), n / 4);
                    EXPECT_GT(*std::max_element(ref.stripe.begin(), ref.stripe.end()), 0.5f);
                    EXPECT_GT(count_if_positive(ref.period), 0u);
                }
            }
        }
    }
    ms::direct_cpu_use_simd_target("");
}

TEST(ColouringFamily, CudaKernelsBlockedOrbitMatchesTheReference) {
    for (ms::Shortcuts shortcuts : {ms::Shortcuts{}, ms::Shortcuts{false, false}}) {
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
            for (ms::Formula formula : ms::kAllFormulas) {
                for (bool julia : {false, true}) {
                    // 403 iterations: not a multiple of the block, so the last steps go one by one.
                    const ms::View view = family_view(formula, julia, 48, 27, 403);
                    SCOPED_TRACE(std::string(ms::precision_name(precision)) + " " + name_of(view) + " shortcuts " +
                                 (shortcuts.periodicity ? "on" : "off"));
                    const size_t n = size_t(view.width) * view.height;
                    Features ref(n), blocked(n);
                    const auto a = ms::direct_features_cpu_reference(view, precision, shortcuts, {}, ref.mu.data(),
                                                                     ref.outputs());
                    const auto b = precision == ms::Precision::Fp32
                                       ? blocked_orbit_frame<float>(view, shortcuts, &blocked)
                                       : blocked_orbit_frame<double>(view, shortcuts, &blocked);
                    EXPECT_EQ(a.iterations, b.iterations);
                    EXPECT_EQ(a.escaped_pixels, b.escaped_pixels);
                    EXPECT_EQ(ms::test::validate_result("mu", ref.mu.data(), blocked.mu.data(), n, 0.0, 0.0, view.width)
                                  .mismatches,
                              0u);
                    EXPECT_EQ(ms::test::validate_result("distance", ref.distance.data(), blocked.distance.data(), n,
                                                        0.0, 0.0, view.width)
                                  .mismatches,
                              0u);
                    EXPECT_EQ(ms::test::validate_result("stripe", ref.stripe.data(), blocked.stripe.data(), n, 0.0, 0.0,
                                                        view.width)
                                  .mismatches,
                              0u);
                    EXPECT_EQ(ms::test::validate_result("period", ref.period.data(), blocked.period.data(), n, 0.0, 0.0,
                                                        view.width)
                                  .mismatches,
                              0u);
                }
            }
        }
    }
}

// For a holomorphic map and a connected set (orbit_features.h): est / 2 < dist < 2 est near the
// set, whatever the degree, so est < 2 dist <= 2 D with D the distance to the nearest interior
// pixel (which lies in the set, up to the iteration limit's few false interiors on the boundary
// itself). Checked on the escaped pixels within 12 pixels of the interior: est <= 2 D on every
// one; and where the interior dominates the frame, median D / est lies between 0.5 and 4 (the
// estimate is not merely small). As test_colouring does for the Mandelbrot set.
TEST(ColouringFamily, DistanceEstimateBoundsTheDistanceForAMultibrotAndAJuliaSet) {
    ms::View multibrot3 = family_view(ms::Formula::Multibrot3, false, 120, 90, 2000);
    multibrot3.zoom = 1.2;
    ms::View multibrot5 = family_view(ms::Formula::Multibrot5, false, 120, 90, 2000);
    multibrot5.center_re = "0.55";
    multibrot5.center_im = "0.4";
    multibrot5.zoom = 4.0;  // a boundary stretch between two of the set's lobes
    ms::View rabbit = family_view(ms::Formula::Mandelbrot, true, 120, 90, 2000);
    ms::View julia3 = family_view(ms::Formula::Multibrot3, true, 120, 90, 2000);
    for (const ms::View& view : {multibrot3, multibrot5, rabbit, julia3}) {
        SCOPED_TRACE(name_of(view));
        const size_t n = size_t(view.width) * view.height;
        Features f(n);
        ms::direct_features_cpu(view, ms::Precision::Fp64, {}, {}, f.mu.data(), {f.distance.data(), nullptr, nullptr});
        std::vector<std::pair<int, int>> interior;
        for (int y = 0; y < view.height; ++y)
            for (int x = 0; x < view.width; ++x)
                if (f.mu[size_t(y) * view.width + x] < 0.0f) interior.push_back({x, y});
        ASSERT_GT(interior.size(), 10u);
        std::vector<double> ratios;
        size_t checked = 0, violations = 0;
        for (int y = 0; y < view.height; ++y)
            for (int x = 0; x < view.width; ++x) {
                const size_t i = size_t(y) * view.width + x;
                if (f.mu[i] < 0.0f) continue;
                double best = 1e300;
                for (auto [ix, iy] : interior) best = std::min(best, std::hypot(double(ix - x), double(iy - y)));
                if (best > 12.0) continue;
                const double est = f.distance[i];
                ++checked;
                if (est > 2.0 * best) {
                    if (violations < 5)
                        std::printf("  (%d, %d): estimate %.3f px, nearest interior pixel %.3f px\n", x, y, est, best);
                    ++violations;
                }
                if (est > 0.0) ratios.push_back(best / est);
            }
        ASSERT_GT(checked, 100u);
        std::sort(ratios.begin(), ratios.end());
        const double median = ratios[ratios.size() / 2];
        std::printf("%s: %zu pixels checked, %zu above 2 D, median D / estimate %.2f\n", name_of(view).c_str(), checked,
                    violations, median);
        EXPECT_EQ(violations, 0u);
        EXPECT_GT(median, 0.5);
        EXPECT_LT(median, 4.0);
    }
}

// The Burning Ship's and the Tricorn's estimate (the Jacobian's, no proven bound) still measures
// closeness to the set: the pixels next to the interior have far smaller estimates than those
// far from it, on the parameter plane and on a Julia set (0, an overflowed derivative, only
// on the boundary).
TEST(ColouringFamily, JacobianDistanceEstimateFallsTowardsTheSet) {
    for (ms::Formula formula : {ms::Formula::BurningShip, ms::Formula::Tricorn}) {
        for (bool julia : {false, true}) {
            const ms::View view = family_view(formula, julia, 120, 68, 1000);
            SCOPED_TRACE(name_of(view));
            const size_t n = size_t(view.width) * view.height;
            Features f(n);
            ms::direct_features_cpu(view, ms::Precision::Fp64, {}, {}, f.mu.data(),
                                    {f.distance.data(), nullptr, nullptr});
            std::vector<std::pair<int, int>> interior;
            for (int y = 0; y < view.height; ++y)
                for (int x = 0; x < view.width; ++x)
                    if (f.mu[size_t(y) * view.width + x] < 0.0f) interior.push_back({x, y});
            ASSERT_GT(interior.size(), 10u);
            std::vector<double> near, far;
            for (int y = 0; y < view.height; ++y)
                for (int x = 0; x < view.width; ++x) {
                    const size_t i = size_t(y) * view.width + x;
                    if (f.mu[i] < 0.0f) continue;
                    double best = 1e300;
                    for (auto [ix, iy] : interior) best = std::min(best, std::hypot(double(ix - x), double(iy - y)));
                    // 0 only where the derivative overflowed: on the set's boundary, within a few
                    // pixels of its interior (a filament between the pixels holds no interior pixel).
                    if (f.distance[i] <= 0.0f) {
                        EXPECT_LE(best, 5.0) << x << "," << y;
                    }
                    if (best <= 1.5) near.push_back(f.distance[i]);
                    else if (best >= 15.0) far.push_back(f.distance[i]);
                }
            ASSERT_GT(near.size(), 20u);
            ASSERT_GT(far.size(), 20u);
            std::sort(near.begin(), near.end());
            std::sort(far.begin(), far.end());
            const double near_median = near[near.size() / 2], far_median = far[far.size() / 2];
            std::printf("%s: median estimate %.3f px next to the interior, %.3f px 15+ px from it\n",
                        name_of(view).c_str(), near_median, far_median);
            EXPECT_LT(near_median, 2.0);
            EXPECT_GT(far_median, 4.0 * near_median);
        }
    }
}

// f(conj z) = conj f(z) for z^2 + c with real c and for the Mandelbrot and Tricorn parameter
// planes (c -> conj c), so the frame centred on the real axis is its own mirror image, features
// included (the stripe's sin(s arg z) changes sign: s -> 1 - s). The Burning Ship's |.| breaks it.
TEST(ColouringFamily, SymmetricSetsGiveMirroredFeatures) {
    struct Case {
        ms::Formula formula;
        bool julia;
        const char* c_re;
        bool symmetric;
    };
    for (const Case& k :
         {Case{ms::Formula::Mandelbrot, false, "", true}, Case{ms::Formula::Tricorn, false, "", true},
          Case{ms::Formula::Mandelbrot, true, "-1", true}, Case{ms::Formula::Multibrot4, true, "0.3", true},
          Case{ms::Formula::BurningShip, false, "", false}}) {
        ms::View view = family_view(k.formula, k.julia, 64, 48, 600);
        view.center_im = "0";
        if (k.julia) {
            view.julia_re = k.c_re;
            view.julia_im = "0";
        }
        SCOPED_TRACE(name_of(view));
        const size_t n = size_t(view.width) * view.height;
        Features f(n);
        ms::direct_features_cpu(view, ms::Precision::Fp64, {}, {}, f.mu.data(), f.outputs());
        size_t mu_differ = 0, feature_differ = 0;
        for (int y = 0; y < view.height / 2; ++y)
            for (int x = 0; x < view.width; ++x) {
                const size_t i = size_t(y) * view.width + x, j = size_t(view.height - 1 - y) * view.width + x;
                mu_differ += f.mu[i] != f.mu[j];
                feature_differ += f.distance[i] != f.distance[j] || f.period[i] != f.period[j];
                const double stripe_sum = f.mu[i] >= 0.0f ? double(f.stripe[i]) + double(f.stripe[j]) : 1.0;
                feature_differ += std::fabs(stripe_sum - 1.0) > 1e-6;
            }
        if (k.symmetric) {
            EXPECT_EQ(mu_differ, 0u);
            EXPECT_EQ(feature_differ, 0u);
        } else {
            EXPECT_GT(mu_differ, n / 10);
        }
    }
}

// The direct kernels give every feature for every formula and Julia set; past FP64 the stripes
// and the period interior are nobody's (BLA): refused with a sentence and dropped by the window,
// while the distance estimate is every formula's and Julia set's there too (kept).
TEST(ColouringFamily, FeaturesForEveryFormulaTheDeepDistanceToo) {
    ms::View view;
    view.colouring.base = ms::ColourBase::Stripe;
    view.colouring.distance_estimation = true;
    view.colouring.slopes = true;
    view.colouring.interior = ms::InteriorColour::Period;
    for (ms::Formula formula : ms::kAllFormulas)
        for (bool julia : {false, true}) {
            ms::View other = view;
            other.formula = formula;
            other.julia = julia;
            EXPECT_EQ(ms::validate_view(other), "") << ms::formula_name(formula);
        }
    ms::View deep_ok;
    deep_ok.colouring.distance_estimation = true;
    deep_ok.colouring.slopes = true;
    for (ms::Formula formula : ms::kAllFormulas)
        for (bool julia : {false, true}) {
            ms::View other = deep_ok;
            other.formula = formula;
            other.julia = julia;
            EXPECT_EQ(ms::deep_view_colouring_problem(other), "") << ms::formula_name(formula);
            EXPECT_FALSE(ms::drop_deep_unavailable_view_colouring(&other)) << ms::formula_name(formula);
            EXPECT_TRUE(other.colouring.distance_estimation);
            EXPECT_TRUE(other.colouring.slopes);
        }
    ms::View family_stripes = view;  // the stripes refused for a Julia set of the Burning Ship too
    family_stripes.formula = ms::Formula::BurningShip;
    family_stripes.julia = true;
    EXPECT_NE(ms::deep_view_colouring_problem(family_stripes).find("stripe"), std::string::npos);
    ms::View stripes = view;  // Mandelbrot: stripes and the period go, DE stays
    EXPECT_TRUE(ms::drop_deep_unavailable_view_colouring(&stripes));
    EXPECT_EQ(stripes.colouring.base, ms::ColourBase::Smooth);
    EXPECT_EQ(stripes.colouring.interior, ms::InteriorColour::Flat);
    EXPECT_TRUE(stripes.colouring.distance_estimation);
}
