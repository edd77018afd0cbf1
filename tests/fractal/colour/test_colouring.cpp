// test_colouring.cpp: the colouring layers (colouring.h, orbit_features.h,
// coloured_frame.h) on the CPU:
//   * the fast orbit-features path matches the reference (mu, distance, stripe, period) bit for
//     bit on every SIMD target, and its mu is the smooth reference's;
//   * the CUDA features kernel's blocked orbit (BlockedOrbit: blocks of 4 steps, one escape test
//     each) gives the reference's mu, features and iterations bit for bit, run here on the CPU;
//   * every method's fast coloured frame matches its reference frame;
//   * the distance estimate bounds the distance to the nearest interior pixel (brute force)
//     within the factor the theory gives;
//   * histogram equalisation spreads the escaped pixels evenly over the palette;
//   * the settings round trip through the view JSON (the PNG tEXt); old JSON reads as default;
//   * bad method lists and one-stop palettes are refused with a sentence.
// The other formulas and the Julia sets: test_colouring_family.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/colour/pixel_colour.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view_record.h"
#include "tests/validate.h"

namespace {

ms::View test_view(const char* re, const char* im, double zoom, int width, int height, int iterations) {
    ms::View v;
    v.center_re = re;
    v.center_im = im;
    v.zoom = zoom;
    v.width = width;
    v.height = height;
    v.max_iterations = iterations;
    return v;
}

// Several views: the full set, seahorse valley, a boundary spot with long orbits.
std::vector<ms::View> test_views() {
    return {test_view("-0.5", "0", ms::kDefaultZoom, 160, 90, 500), test_view("-0.745", "0.113", 60.0, 128, 96, 2000),
            test_view("-0.1011", "0.9563", 400.0, 96, 96, 3000)};
}

struct Features {
    std::vector<float> mu, distance, stripe, period;
    explicit Features(size_t n) : mu(n), distance(n), stripe(n), period(n) {}
    ms::OrbitFeatureOutputs outputs() { return {distance.data(), stripe.data(), period.data()}; }
};

ms::PaletteTable classic() { return ms::make_palette_table(ms::load_palette("classic")); }

}  // namespace

TEST(Colouring, FastFeaturesMatchTheReference) {
    // On every SIMD target this machine runs (direct_cpu_use_simd_target steers Highway's
    // choice for the features path too).
    for (const std::string& target : ms::direct_cpu_simd_targets()) {
        ASSERT_TRUE(ms::direct_cpu_use_simd_target(target));
        SCOPED_TRACE(target);
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
            for (ms::View view : test_views()) {
                view.colouring.stripe_density = 7;
                const size_t n = size_t(view.width) * view.height;
                Features ref(n), fast(n);
                const auto a = ms::direct_features_cpu_reference(view, precision, {}, {}, ref.mu.data(), ref.outputs());
                const auto b = ms::direct_features_cpu(view, precision, {}, {}, fast.mu.data(), fast.outputs());
                EXPECT_EQ(a.iterations, b.iterations);
                EXPECT_EQ(a.escaped_pixels, b.escaped_pixels);
                EXPECT_EQ(
                    ms::test::validate_result("mu", ref.mu.data(), fast.mu.data(), n, 0.0, 0.0, view.width).mismatches,
                    0u);
                EXPECT_EQ(ms::test::validate_result("distance", ref.distance.data(), fast.distance.data(), n, 0.0, 1e-6,
                                                    view.width)
                              .mismatches,
                          0u);
                EXPECT_EQ(
                    ms::test::validate_result("stripe", ref.stripe.data(), fast.stripe.data(), n, 1e-6, 0.0, view.width)
                        .mismatches,
                    0u);
                EXPECT_EQ(
                    ms::test::validate_result("period", ref.period.data(), fast.period.data(), n, 0.0, 0.0, view.width)
                        .mismatches,
                    0u);
                // The smooth value is the smooth kernels' exactly: the features ride along.
                std::vector<float> smooth(n);
                const auto s = ms::direct_cpu_reference(view, precision, {}, {}, smooth.data());
                EXPECT_EQ(s.iterations, a.iterations);
                EXPECT_EQ(
                    ms::test::validate_result("mu vs smooth", smooth.data(), ref.mu.data(), n, 0.0, 0.0, view.width)
                        .mismatches,
                    0u);
                // Something was computed: stripes vary, periods include the cardioid's 1.
                EXPECT_GT(*std::max_element(ref.stripe.begin(), ref.stripe.end()), 0.5f);
                EXPECT_GT(*std::max_element(ref.distance.begin(), ref.distance.end()), 1.0f);
            }
        }
    }
    ms::direct_cpu_use_simd_target("");
}

// The persistent CUDA features kernel iterates with BlockedOrbit (orbit_features.h); the same
// struct runs here, pixel by pixel, with the kernel's cardioid/bulb shortcut, so the blocks, their
// redo on an escape and the periodicity schedule are checked against the reference where the
// tests can always run. (On the GPU only the stripe term differs, computed in float: that is
// test_colouring_cuda's to check.) The iteration limits include ones that are not a multiple of
// the block, so the last steps go one by one.
template <typename T>
ms::FrameStats blocked_orbit_frame(const ms::View& view, const ms::Shortcuts& shortcuts, Features* out) {
    constexpr unsigned kAll = ms::kAllFeatures;
    const ms::PixelGrid grid{ms::center_re_value(view), ms::center_im_value(view), ms::pixel_step(view),
                             0.5 * view.width, 0.5 * view.height};
    const int interval = ms::periodicity_interval(int(view.max_iterations));
    ms::FrameStats stats;
    for (int y = 0; y < view.height; ++y) {
        for (int x = 0; x < view.width; ++x) {
            const size_t i = size_t(y) * view.width + x;
            const T cr = T(grid.re(x)), ci = T(grid.im(y));
            float* d = &out->distance[i];
            float* st = &out->stripe[i];
            float* pe = &out->period[i];
            if (shortcuts.cardioid_bulb && ms::in_cardioid_or_period2_bulb(double(cr), double(ci))) {
                ms::finish_interior<kAll>(ms::shortcut_period(double(cr), double(ci)), d, st, pe);
                out->mu[i] = ms::kInteriorMu;
                continue;
            }
            ms::BlockedOrbit<T, kAll> orbit;
            orbit.start(T(0), T(0), cr, ci, false, view.colouring.stripe_density, interval);
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

// The GPU's stripe term (stripe_sin_fast: lead * Q(cos 2t), a cubic whatever s is) is sin(s t):
// for every density up to 8, at angles all round the circle and radii from 1e-6 to the bailout,
// computed in float as the kernels do (1 / |z| exact here, where the GPU's rsqrtf is within 2 ulp),
// against sin(s atan2) in double and against the CPU's stripe_power_im. Past 8 the GPU takes
// stripe_power_im itself.
TEST(Colouring, StripePolynomialIsSinOfSTimesTheAngle) {
    double worst = 0.0;
    for (int s = 1; s <= 8; ++s) {
        const ms::StripePolynomial poly = ms::stripe_polynomial(s);
        ASSERT_TRUE(poly.fast);
        EXPECT_EQ(poly.odd, s % 2 == 1);
        for (double radius : {1e-6, 0.3, 1.0, 2.0, 255.0}) {
            for (int a = 0; a < 3600; ++a) {
                const double t = 2.0 * M_PI * (a + 0.37) / 3600.0;
                const float fr = float(radius * std::cos(t)), fi = float(radius * std::sin(t));
                const double exact_t = std::atan2(double(fi), double(fr));
                const float inv = float(1.0 / std::sqrt(double(fr) * fr + double(fi) * fi));
                const double got = ms::stripe_sin_fast(fr * fr - fi * fi, (fr + fr) * fi, fi, inv, poly);
                const double want = std::sin(s * exact_t);
                const double cpu = ms::stripe_power_im(double(fr) * inv, double(fi) * inv, s);
                worst = std::max(worst, std::fabs(got - want));
                ASSERT_NEAR(got, want, 4e-6) << "s = " << s << ", t = " << t << ", |z| = " << radius;
                ASSERT_NEAR(got, cpu, 4e-6) << "s = " << s << ", t = " << t << ", |z| = " << radius;
            }
        }
    }
    std::printf("worst |stripe_sin_fast - sin(s t)| for s = 1..8: %.3g\n", worst);
    for (int s : {0, 9, 16, 64}) EXPECT_FALSE(ms::stripe_polynomial(s).fast) << s;  // stripe_power_im's
}

// The CUDA kernels' scaled derivative in blocks of 32 steps (mandelbrot_scaled_derivative_step:
// E = D / 2^j, 4 operations) gives formula_derivative_step's bits at every block end and at the
// escape, on the parameter plane and on a Julia set, in FP32 and FP64, while the derivative stays
// far above the smallest normal number (interior orbits of a Julia set shrink it towards 0; their
// distance is never used).
template <typename T>
void check_scaled_derivative(bool julia, int* compared) {
    const T tiny = sizeof(T) == 4 ? T(1e-25) : T(1e-290);
    for (int iy = 0; iy < 40; ++iy) {
        for (int ix = 0; ix < 60; ++ix) {
            const T pr = T(-2.2 + 3.0 * ix / 60.0), pi = T(-1.3 + 2.6 * iy / 40.0);
            const T cr = julia ? T(-0.8) : pr, ci = julia ? T(0.156) : pi;
            T zr = julia ? pr : T(0), zi = julia ? pi : T(0);
            T dr = julia ? T(1) : T(0), di = 0, unused_r = 0, unused_i = 0;
            const T one = julia ? T(0) : T(1);
            bool done = false;
            for (int block = 0; block < 32 && !done; ++block) {
                T er = dr, ei = di;
                for (int j = 0; j < 32 && !done; ++j) {
                    ms::formula_derivative_step<ms::Formula::Mandelbrot>(zr, zi, dr, di, unused_r, unused_i, one, T(2),
                                                                         ms::ScalarDerivativeOps{});
                    const T h = julia ? T(0) : T(1.0 / double(1ull << (j + 1)));
                    ms::mandelbrot_scaled_derivative_step(zr, zi, er, ei, h, ms::ScalarDerivativeOps{});
                    ms::formula_step<ms::Formula::Mandelbrot>(zr, zi, zr * zr, zi * zi, cr, ci, ms::ScalarAbs{});
                    if (!(std::fabs(dr) + std::fabs(di) > tiny)) {
                        done = true;  // past what the scaling promises (an interior orbit)
                        break;
                    }
                    const bool escaped = zr * zr + zi * zi > T(65536);
                    if (escaped || j == 31) {
                        const T scale = T(double(1ull << (j + 1)));
                        ASSERT_EQ(er * scale, dr) << "c = " << pr << "," << pi << ", block " << block << ", step " << j;
                        ASSERT_EQ(ei * scale, di) << "c = " << pr << "," << pi << ", block " << block << ", step " << j;
                        ASSERT_EQ(std::signbit(er * scale), std::signbit(dr));
                        ++*compared;
                        done = escaped;
                    }
                }
            }
        }
    }
}

TEST(Colouring, ScaledMandelbrotDerivativeHasThePlainStepsBits) {
    for (bool julia : {false, true}) {
        int compared_float = 0, compared_double = 0;
        check_scaled_derivative<float>(julia, &compared_float);
        check_scaled_derivative<double>(julia, &compared_double);
        std::printf("%s: %d FP32 and %d FP64 block ends and escapes compared\n",
                    julia ? "Julia set" : "parameter plane", compared_float, compared_double);
        EXPECT_GT(compared_float, 3000);
        EXPECT_GT(compared_double, 3000);
    }
}

TEST(Colouring, CudaKernelsBlockedOrbitMatchesTheReference) {
    std::vector<ms::View> views = test_views();
    views.push_back(test_view("-0.745", "0.113", 60.0, 64, 48, 1003));  // 1003 = 4 * 250 + 3
    views.push_back(test_view("-0.5", "0", ms::kDefaultZoom, 48, 27, 7));
    for (ms::Shortcuts shortcuts : {ms::Shortcuts{}, ms::Shortcuts{false, false}}) {
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
            for (ms::View view : views) {
                view.colouring.stripe_density = 6;
                SCOPED_TRACE(std::string(ms::precision_name(precision)) + " " + view.center_re + "," + view.center_im +
                             " " + std::to_string(view.max_iterations) + " iterations, shortcuts " +
                             (shortcuts.cardioid_bulb ? "on" : "off"));
                const size_t n = size_t(view.width) * view.height;
                Features ref(n), blocked(n);
                const auto a = ms::direct_features_cpu_reference(view, precision, shortcuts, {}, ref.mu.data(),
                                                                 ref.outputs());
                const auto b = precision == ms::Precision::Fp32
                                   ? blocked_orbit_frame<float>(view, shortcuts, &blocked)
                                   : blocked_orbit_frame<double>(view, shortcuts, &blocked);
                EXPECT_EQ(a.iterations, b.iterations);
                EXPECT_EQ(a.escaped_pixels, b.escaped_pixels);
                EXPECT_GT(a.escaped_pixels, 0u);
                EXPECT_EQ(ms::test::validate_result("mu", ref.mu.data(), blocked.mu.data(), n, 0.0, 0.0, view.width)
                              .mismatches,
                          0u);
                EXPECT_EQ(ms::test::validate_result("distance", ref.distance.data(), blocked.distance.data(), n, 0.0,
                                                    0.0, view.width)
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

TEST(Colouring, EveryMethodsFastFrameMatchesItsReference) {
    const ms::PaletteTable table = classic();
    const char* methods[] = {"smooth",       "histogram",          "stripe",         "smooth,de",
                             "smooth,slope", "histogram,de,slope", "stripe,de,slope"};
    for (const char* method : methods) {
        for (ms::InteriorColour interior : {ms::InteriorColour::Flat, ms::InteriorColour::Period}) {
            ms::View view = test_views()[1];
            ASSERT_EQ(ms::parse_colouring_methods(method, &view.colouring), "");
            view.colouring.interior = interior;
            const size_t n = size_t(view.width) * view.height;
            std::vector<float> mu_ref(n), mu_fast(n);
            std::vector<uint8_t> ref(n * 4), fast(n * 4);
            ms::render_coloured_cpu(view, ms::Precision::Fp64, {}, table, {}, 1.0, mu_ref.data(), ref.data(), {}, true);
            ms::render_coloured_cpu(view, ms::Precision::Fp64, {}, table, {}, 1.0, mu_fast.data(), fast.data(), {},
                                    false);
            SCOPED_TRACE(std::string(method) + " interior " + ms::interior_colour_name(interior));
            // The orbit-feature methods run the same scalar arithmetic on both sides: equal
            // bytes. Histogram and slope colour the smooth kernels' mu, whose SIMD path takes
            // its logs in float (a few ulps from the reference's, direct_cpu.cpp): a
            // channel may move by one where a value sits on a rounding edge.
            EXPECT_EQ(ms::test::validate_result("rgba within 1", ref.data(), fast.data(), n * 4, 1.0).mismatches, 0u);
            EXPECT_LE(ms::test::validate_result("rgba", ref.data(), fast.data(), n * 4, 0.0).mismatches, n * 4 / 1000);
        }
    }
}

TEST(Colouring, LayersChangeThePicture) {
    // Each layer does something: the frame differs from the plain one on many pixels.
    const ms::PaletteTable table = classic();
    ms::View plain = test_views()[1];
    const size_t n = size_t(plain.width) * plain.height;
    std::vector<float> mu(n);
    std::vector<uint8_t> base(n * 4), other(n * 4);
    ms::render_coloured_cpu(plain, ms::Precision::Fp64, {}, table, {}, 1.0, mu.data(), base.data());
    for (const char* method : {"histogram", "stripe", "smooth,de", "smooth,slope"}) {
        ms::View view = plain;
        ASSERT_EQ(ms::parse_colouring_methods(method, &view.colouring), "");
        ms::render_coloured_cpu(view, ms::Precision::Fp64, {}, table, {}, 1.0, mu.data(), other.data());
        size_t differ = 0;
        for (size_t i = 0; i < n; ++i) differ += std::memcmp(&base[i * 4], &other[i * 4], 4) != 0;
        EXPECT_GT(differ, n / 10) << method;
    }
}

// For c outside the set, with G the Green's function and est = G / |G'| = |z| ln|z| / |dz/dc|,
// est / 2 < dist(c, M) when G is small (Koebe), so est < 2 dist <= 2 D, where D is the distance
// to the nearest interior pixel (interior pixels lie in the set, up to the iteration limit's
// few false interiors on the boundary itself). Checked on the pixels within 12 pixels of the
// interior, where G is small: est <= 2 D on every one.
// The other way D can be far larger than est: the set's filaments pass between the pixels and
// hold no interior pixel, and seeing them is what the estimate is for. So the other direction
// is checked where the interior dominates (the full view: median D / est between 0.5 and 4),
// and on the zoomed views the test asks that the estimate finds filaments: pixels within half
// a pixel of the set by the estimate and more than 4 pixels from any interior pixel.
TEST(Colouring, DistanceEstimateBoundsTheDistanceToTheNearestInteriorPixel) {
    struct Case {
        ms::View view;
        bool interior_dominates;
    };
    for (const Case& k : {Case{test_view("-0.5", "0", 1.5, 120, 90, 2000), true},
                          Case{test_view("-0.745", "0.113", 60.0, 120, 90, 4000), false},
                          Case{test_view("0.2825", "0.0097", 500.0, 100, 100, 4000), false}}) {
        const ms::View& view = k.view;
        const size_t n = size_t(view.width) * view.height;
        Features f(n);
        ms::direct_features_cpu(view, ms::Precision::Fp64, {}, {}, f.mu.data(), {f.distance.data(), nullptr, nullptr});
        std::vector<std::pair<int, int>> interior;
        for (int y = 0; y < view.height; ++y)
            for (int x = 0; x < view.width; ++x)
                if (f.mu[size_t(y) * view.width + x] < 0.0f) interior.push_back({x, y});
        ASSERT_GT(interior.size(), 10u) << view.center_re;
        std::vector<double> ratios;
        size_t checked = 0, violations = 0, filaments = 0;
        for (int y = 0; y < view.height; ++y)
            for (int x = 0; x < view.width; ++x) {
                const size_t i = size_t(y) * view.width + x;
                if (f.mu[i] < 0.0f) continue;
                double best = 1e300;
                for (auto [ix, iy] : interior) best = std::min(best, std::hypot(double(ix - x), double(iy - y)));
                const double est = f.distance[i];
                if (est < 0.5 && best > 4.0) ++filaments;
                if (best > 12.0) continue;
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
        std::printf("%s,%s: %zu pixels checked, %zu above 2 D, median D / estimate %.2f, %zu filament pixels\n",
                    view.center_re.c_str(), view.center_im.c_str(), checked, violations, median, filaments);
        EXPECT_EQ(violations, 0u);
        if (k.interior_dominates) {
            EXPECT_GT(median, 0.5);
            EXPECT_LT(median, 4.0);
        } else {
            EXPECT_GT(filaments, 20u);
        }
    }
}

TEST(Colouring, HistogramSpreadsTheEscapedPixelsEvenly) {
    // At any depth: the full view and a deep-ish boundary view, whose mu values crowd into a
    // narrow range that the smooth base would show as one or two colours.
    for (ms::View view : {test_view("-0.5", "0", ms::kDefaultZoom, 320, 180, 1000),
                          test_view("-0.743643887037151", "0.131825904205330", 1e9, 200, 150, 20000)}) {
        const size_t n = size_t(view.width) * view.height;
        std::vector<float> mu(n);
        ms::direct_cpu(view, ms::Precision::Fp64, {}, {}, mu.data());
        const ms::HistogramCdf h = ms::histogram_cdf(mu.data(), int64_t(n), view.max_iterations);
        int deciles[10] = {};
        size_t escaped = 0;
        for (float m : mu) {
            if (m < 0.0f) continue;
            ++escaped;
            const float rank = ms::histogram_rank(h.cdf.data(), h.bins_per_log2, m);
            ASSERT_GE(rank, 0.0f);
            ASSERT_LE(rank, 1.0f);
            deciles[std::min(9, int(rank * 10.0f))]++;
        }
        ASSERT_GT(escaped, n / 4);
        for (int d = 0; d < 10; ++d) {
            const double share = double(deciles[d]) / escaped;
            std::printf("%s decile %d: %.3f\n", view.center_re.c_str(), d, share);
            EXPECT_NEAR(share, 0.1, 0.02) << "decile " << d;
        }
    }
}

TEST(Colouring, SettingsRoundTripThroughTheViewJson) {
    ms::ViewRecord record;
    record.view.width = 64;
    record.view.height = 36;
    ms::Colouring& c = record.view.colouring;
    ASSERT_EQ(ms::parse_colouring_methods("stripe,de,slope", &c), "");
    c.stripe_density = 9;
    c.de_band_px = 3.25;
    c.slope_angle_deg = -123.456789012345;
    c.slope_strength = 0.1 + 0.2;  // not a short decimal: must come back bit for bit
    c.interior = ms::InteriorColour::Period;
    const ms::ViewRecord back = ms::view_from_json(ms::view_to_json(record));
    EXPECT_TRUE(back.view.colouring == c);
    EXPECT_EQ(ms::colouring_methods_text(back.view.colouring), "stripe,de,slope");
    // A JSON without a colouring object reads as the default colouring.
    const ms::ViewRecord old = ms::view_from_json(
        R"({"center_re":"-0.5","center_im":"0","zoom":2.0,"width":64,"height":36,"iterations":500,)"
        R"("palette":"classic","offset":0.0,"density":1.0,"precision":"fp64","supersample":1})");
    EXPECT_TRUE(old.view.colouring == ms::Colouring{});
    // A colouring object with a bad method or a missing key is refused with a sentence.
    std::string json = ms::view_to_json(record);
    std::string bad = json;
    bad.replace(bad.find("stripe,de,slope"), 15, "stripe,glow");
    EXPECT_THROW(ms::view_from_json(bad), std::runtime_error);
    bad = json;
    bad.replace(bad.find("\"interior\":\"period\""), 19, "\"interior\":\"x\"");
    EXPECT_THROW(ms::view_from_json(bad), std::runtime_error);
    bad = json;
    bad.replace(bad.find("\"stripe_density\":9"), 18, "\"stripe_density\":99");
    EXPECT_THROW(ms::view_from_json(bad), std::runtime_error);
}

TEST(Colouring, MethodListsAreParsedStrictly) {
    ms::Colouring c;
    EXPECT_EQ(ms::parse_colouring_methods("histogram,slope,de", &c), "");
    EXPECT_EQ(c.base, ms::ColourBase::Histogram);
    EXPECT_TRUE(c.slopes && c.distance_estimation);
    EXPECT_EQ(ms::colouring_methods_text(c), "histogram,de,slope");
    EXPECT_EQ(ms::parse_colouring_methods("de", &c), "");  // a layer alone keeps the smooth base
    EXPECT_EQ(c.base, ms::ColourBase::Smooth);
    for (const char* bad : {"", "glow", "smooth,stripe", "de,de", "smooth,", ",de", "smooth de"}) {
        const ms::Colouring before = c;
        const std::string problem = ms::parse_colouring_methods(bad, &c);
        EXPECT_FALSE(problem.empty()) << bad;
        EXPECT_EQ(problem.find('\n'), std::string::npos);
        EXPECT_TRUE(c == before) << "a refused list leaves the settings alone: " << bad;
    }
    ms::InteriorColour interior = ms::InteriorColour::Flat;
    EXPECT_EQ(ms::parse_interior_colour("period", &interior), "");
    EXPECT_EQ(interior, ms::InteriorColour::Period);
    EXPECT_NE(ms::parse_interior_colour("black", &interior), "");
    ms::Colouring out_of_range;
    out_of_range.stripe_density = 0;
    EXPECT_NE(ms::validate_colouring(out_of_range), "");
    out_of_range = {};
    out_of_range.de_band_px = 0.0;
    EXPECT_NE(ms::validate_colouring(out_of_range), "");
    EXPECT_EQ(ms::validate_colouring(ms::Colouring{}), "");
}

TEST(Colouring, APaletteNeedsTwoStops) {
    std::istringstream one("0.0 10 20 30\n");
    try {
        ms::parse_palette(one, "one.txt", "one");
        FAIL() << "a one-stop palette was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("only one colour stop"), std::string::npos) << e.what();
    }
    std::istringstream two("0.0 10 20 30\n0.5 200 100 0\n");
    EXPECT_EQ(ms::parse_palette(two, "two.txt", "two").stops.size(), 2u);
}

TEST(Colouring, InteriorPeriodFindsTheCardioidAndTheBulbs) {
    // Centres of the main cardioid (period 1), the period-2 bulb, and the period-3 bulb on top
    // of the cardioid at -0.1226 + 0.7449i; the shortcut off for the last so that it iterates.
    struct Case {
        const char* re;
        const char* im;
        float period;
        bool shortcut;
    };
    for (const Case& k : {Case{"-0.1", "0", 1.0f, true}, Case{"-1", "0", 2.0f, true}, Case{"-0.1", "0", 1.0f, false},
                          Case{"-1", "0", 2.0f, false}, Case{"-0.1226", "0.7449", 3.0f, false}}) {
        ms::View view = test_view(k.re, k.im, 1e4, 2, 2, 5000);
        float mu[4], period[4];
        ms::Shortcuts shortcuts;
        shortcuts.cardioid_bulb = k.shortcut;
        ms::direct_features_cpu_reference(view, ms::Precision::Fp64, shortcuts, {}, mu, {nullptr, nullptr, period});
        for (int i = 0; i < 4; ++i) {
            EXPECT_LT(mu[i], 0.0f) << k.re;
            EXPECT_EQ(period[i], k.period) << k.re << "," << k.im;
        }
    }
}
