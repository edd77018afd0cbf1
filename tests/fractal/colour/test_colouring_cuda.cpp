// test_colouring_cuda.cpp: the colouring layers on CUDA (direct_cuda_features.cu) against
// the CPU reference (coloured_frame.h): the orbit features kernel's mu, distance, stripe and
// period, the smooth kernels' distance instantiation (direct_distance_cuda: the `de` frame's
// path), and every method's coloured frame, for the Mandelbrot set and for every formula and
// Julia set. Skips with the reason where no CUDA device exists.
//
// Tolerances (the features kernels, and the smooth kernels' distance instantiation, which
// carries the same derivative): the features kernel runs orbit_point_features(), the reference's arithmetic,
// compiled with --fmad=false, so escape counts match. An escaped pixel's mu, distance and stripe
// are finished in float with the hardware's log2 and reciprocal square root (orbit_features.h's
// finish_escaped_fast, as the smooth kernels' fast_smooth_mu): about 1e-6 absolute on mu, which
// near mu = 0 (a Julia set's pixels that escape at once) is more than 1e-5 relative. So mu is
// compared within 1e-5 absolute plus 1e-5 relative, the distance within a relative 1e-5,
// stripes with 1e-5, periods exactly, and colours
// within 1 per channel except on 0.1% of the channels (a value on a rounding edge; slopes
// amplify mu's last-bit differences). The smooth-only frames are direct_cuda's, tested in
// test_direct_cuda.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/view/formula.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/fractal/colour/palette.h"
#include "tests/validate.h"

#if MANDELSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

ms::View seahorse() {
    ms::View v;
    v.center_re = "-0.745";
    v.center_im = "0.113";
    v.zoom = 60.0;
    v.width = 320;
    v.height = 240;
    v.max_iterations = 3000;
    return v;
}

#if MANDELSCOPE_HAVE_CUDA
// The features kernel's mu, distance, stripe and period for `view` against the CPU reference.
void expect_features_match(const ms::View& view, ms::Precision precision, bool persistent) {
    const size_t n = size_t(view.width) * view.height;
    std::vector<float> mu(n), distance(n), stripe(n), period(n);
    const auto ref = ms::direct_features_cpu_reference(view, precision, {}, {}, mu.data(),
                                                       {distance.data(), stripe.data(), period.data()});
    float *d_mu = nullptr, *d_distance = nullptr, *d_stripe = nullptr, *d_period = nullptr;
    for (float** p : {&d_mu, &d_distance, &d_stripe, &d_period})
        ASSERT_EQ(cudaMalloc(p, n * sizeof(float)), cudaSuccess);
    const auto got = ms::direct_features_cuda(view, precision, {}, {}, d_mu, {d_distance, d_stripe, d_period},
                                              persistent);
    std::vector<float> g_mu(n), g_distance(n), g_stripe(n), g_period(n);
    cudaMemcpy(g_mu.data(), d_mu, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(g_distance.data(), d_distance, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(g_stripe.data(), d_stripe, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(g_period.data(), d_period, n * 4, cudaMemcpyDeviceToHost);
    for (float* p : {d_mu, d_distance, d_stripe, d_period}) cudaFree(p);
    EXPECT_EQ(ref.iterations, got.iterations);
    EXPECT_EQ(ref.escaped_pixels, got.escaped_pixels);
    EXPECT_EQ(ms::test::validate_result("mu", mu.data(), g_mu.data(), n, 1e-5, 1e-5, view.width).mismatches, 0u);
    EXPECT_EQ(
        ms::test::validate_result("distance", distance.data(), g_distance.data(), n, 1e-6, 1e-5, view.width).mismatches,
        0u);
    EXPECT_EQ(ms::test::validate_result("stripe", stripe.data(), g_stripe.data(), n, 1e-5, 0.0, view.width).mismatches,
              0u);
    EXPECT_EQ(ms::test::validate_result("period", period.data(), g_period.data(), n, 0.0, 0.0, view.width).mismatches,
              0u);
}

// The smooth kernels' distance instantiation (direct_distance_cuda) for `view`: mu and the
// statistics exactly direct_cuda's (the same kernels, the derivative only added), the distance
// against the CPU reference's within the features kernels' tolerance (the same float finish).
void expect_distance_matches(const ms::View& view, ms::Precision precision) {
    const size_t n = size_t(view.width) * view.height;
    std::vector<float> mu(n), distance(n), smooth_mu(n), g_mu(n), g_distance(n);
    ms::direct_features_cpu_reference(view, precision, {}, {}, mu.data(), {distance.data(), nullptr, nullptr});
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    const auto smooth = ms::direct_cuda_to_host(view, precision, {}, table, {}, nullptr, smooth_mu.data());
    float *d_mu = nullptr, *d_distance = nullptr;
    ASSERT_EQ(cudaMalloc(&d_mu, n * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_distance, n * sizeof(float)), cudaSuccess);
    const auto got = ms::direct_distance_cuda(view, precision, {}, {}, d_mu, d_distance);
    cudaMemcpy(g_mu.data(), d_mu, n * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(g_distance.data(), d_distance, n * 4, cudaMemcpyDeviceToHost);
    cudaFree(d_mu);
    cudaFree(d_distance);
    EXPECT_EQ(smooth.iterations, got.iterations);
    EXPECT_EQ(smooth.escaped_pixels, got.escaped_pixels);
    EXPECT_EQ(
        ms::test::validate_result("mu against direct_cuda", smooth_mu.data(), g_mu.data(), n, 0.0, 0.0, view.width)
            .mismatches,
        0u);
    EXPECT_EQ(ms::test::validate_result("mu against the reference", mu.data(), g_mu.data(), n, 1e-5, 1e-5, view.width)
                  .mismatches,
              0u);
    EXPECT_EQ(
        ms::test::validate_result("distance", distance.data(), g_distance.data(), n, 1e-6, 1e-5, view.width).mismatches,
        0u);
}

// render_coloured_cuda's frame (and mu) for `view` against render_coloured_cpu's.
void expect_frame_matches(const ms::View& view, ms::Precision precision, const ms::PaletteTable& table) {
    const size_t n = size_t(view.width) * view.height;
    std::vector<float> mu(n), g_mu(n);
    std::vector<uint8_t> ref(n * 4), got(n * 4);
    ms::render_coloured_cpu(view, precision, {}, table, {}, 1.0, mu.data(), ref.data(), {}, true);
    ms::render_coloured_cuda_to_host(view, precision, {}, table, {}, 1.0, got.data(), g_mu.data());
    EXPECT_EQ(ms::test::validate_result("mu", mu.data(), g_mu.data(), n, 1e-5, 1e-5, view.width).mismatches, 0u);
    EXPECT_EQ(
        ms::test::validate_result("rgba within 1", ref.data(), got.data(), n * 4, 1.0, 0.0, view.width * 4).mismatches,
        0u);
    EXPECT_LE(ms::test::validate_result("rgba", ref.data(), got.data(), n * 4, 0.0, 0.0, view.width * 4).mismatches,
              n * 4 / 1000);
}
#endif

}  // namespace

#if MANDELSCOPE_HAVE_CUDA
TEST(ColouringCuda, FeaturesKernelMatchesTheReference) {
    SKIP_WITHOUT_CUDA();
    // Both kernels: the persistent one (the default) and the one-thread-per-pixel yardstick.
    for (bool persistent : {true, false})
        for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
            ms::View view = seahorse();
            view.colouring.stripe_density = 6;
            SCOPED_TRACE(std::string(ms::precision_name(precision)) +
                         (persistent ? " persistent" : " one thread per pixel"));
            expect_features_match(view, precision, persistent);
        }
}

TEST(ColouringCuda, EveryMethodsFrameMatchesTheCpuReference) {
    SKIP_WITHOUT_CUDA();
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    // The seahorse frame has many orbits longer than the escaped-only pipeline's short pass (its
    // late list); the full view has mostly short ones and the cardioid. Flat interiors take that
    // pipeline (smooth kernels, then the escaped orbits again with the features); the period
    // interior takes the features kernel over every pixel.
    ms::View full;
    full.width = 320;
    full.height = 240;
    full.max_iterations = 1000;
    for (const ms::View& base : {seahorse(), full})
        for (ms::Precision precision : {ms::Precision::Fp64, ms::Precision::Fp32})
            for (const char* method :
                 {"histogram", "stripe", "smooth,de", "smooth,slope", "histogram,de,slope", "stripe,de,slope"}) {
                for (ms::InteriorColour interior : {ms::InteriorColour::Flat, ms::InteriorColour::Period}) {
                    ms::View view = base;
                    ASSERT_EQ(ms::parse_colouring_methods(method, &view.colouring), "");
                    view.colouring.interior = interior;
                    SCOPED_TRACE(std::string(method) + " interior " + ms::interior_colour_name(interior) + " " +
                                 ms::precision_name(precision) + " centre " + view.center_re);
                    expect_frame_matches(view, precision, table);
                }
            }
}

// The escaped pass takes the stripes' form as a compile-time parameter for densities up to 8
// (odd and even: kFeatureStripeFixed, orbit_features.h) and decides per step above: every density
// of both forms and two of the general one, alone and with the distance, on the seahorse (long
// orbits, so the late list's kernel too) and a Julia set, in both precisions. The stripe base maps
// the stripe value onto a whole palette cycle, so a wrong term shows in the colours.
TEST(ColouringCuda, StripeFramesMatchTheCpuReferenceForEveryDensity) {
    SKIP_WITHOUT_CUDA();
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    ms::View julia = seahorse();
    julia.julia = true;
    julia.julia_re = "-0.7269";
    julia.julia_im = "0.1889";
    julia.center_re = "0";
    julia.center_im = "0";
    julia.zoom = 1.0;
    for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64})
        for (const ms::View& base : {seahorse(), julia})
            for (int density : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12})
                for (const char* method : {"stripe", "stripe,de"}) {
                    ms::View view = base;
                    view.width = 160;
                    view.height = 120;
                    ASSERT_EQ(ms::parse_colouring_methods(method, &view.colouring), "");
                    view.colouring.stripe_density = density;
                    SCOPED_TRACE(std::string(method) + " density " + std::to_string(density) + " " +
                                 ms::precision_name(precision) + (view.julia ? " Julia" : " seahorse"));
                    expect_frame_matches(view, precision, table);
                }
}

namespace {

// Formula `formula`'s default frame at 192x108 and 600 iterations, on its parameter plane or on
// the Julia set of a c inside its set.
ms::View formula_view(ms::Formula formula, bool julia) {
    ms::View view;
    view.formula = formula;
    view.julia = julia;
    view.julia_re = formula == ms::Formula::BurningShip ? "-0.5" : formula == ms::Formula::Tricorn ? "-0.2" : "-0.1226";
    view.julia_im = formula == ms::Formula::BurningShip ? "-0.3" : formula == ms::Formula::Tricorn ? "0.1" : "0.7449";
    const ms::FormulaFrame frame = ms::formula_default_frame(formula, julia);
    view.center_re = frame.center_re;
    view.center_im = frame.center_im;
    view.zoom = frame.zoom;
    view.width = 192;
    view.height = 108;
    view.max_iterations = 600;
    return view;
}

}  // namespace

// Every formula of formula.h, on its parameter plane and on a Julia set (z_0 = the pixel, the
// derivative by z_0): both features kernels against the CPU reference, with the tolerances above.
TEST(ColouringCuda, FeaturesKernelMatchesTheReferenceForEveryFormulaAndJuliaSet) {
    SKIP_WITHOUT_CUDA();
    for (ms::Formula formula : ms::kAllFormulas)
        for (bool julia : {false, true})
            for (bool persistent : {true, false})
                for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
                    ms::View view = formula_view(formula, julia);
                    view.colouring.stripe_density = 5;
                    SCOPED_TRACE(std::string(ms::formula_name(formula)) + (julia ? " Julia " : " ") +
                                 ms::precision_name(precision) +
                                 (persistent ? " persistent" : " one thread per pixel"));
                    expect_features_match(view, precision, persistent);
                }
}

// The coloured frame (the escaped-only pipeline for flat interiors, the features kernel over every
// pixel for the period interior) for a Multibrot, the Burning Ship and a Julia set.
TEST(ColouringCuda, FamilyFramesMatchTheCpuReference) {
    SKIP_WITHOUT_CUDA();
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    for (ms::Formula formula : {ms::Formula::Multibrot4, ms::Formula::BurningShip, ms::Formula::Tricorn})
        for (bool julia : {false, true})
            for (const char* method : {"stripe,de", "smooth,de,slope"})
                for (ms::InteriorColour interior : {ms::InteriorColour::Flat, ms::InteriorColour::Period}) {
                    ms::View view = formula_view(formula, julia);
                    view.julia_re = formula == ms::Formula::Multibrot4 ? "0.2" : "-0.2";
                    view.julia_im = formula == ms::Formula::Multibrot4 ? "0.3" : "0.1";
                    view.width = 320;
                    view.height = 180;
                    view.max_iterations = 800;
                    ASSERT_EQ(ms::parse_colouring_methods(method, &view.colouring), "");
                    view.colouring.interior = interior;
                    SCOPED_TRACE(std::string(ms::formula_name(formula)) + (julia ? " Julia " : " ") + method +
                                 " interior " + ms::interior_colour_name(interior));
                    expect_frame_matches(view, ms::Precision::Fp64, table);
                }
}

// The distance carried by the smooth kernels (the `de` frame's path): pixels that escape in the
// tile pass and in the survivors pass (the seahorse's 3,000 iterations), a frame with no
// survivors pass (50 iterations, under the tile pass's 64), and every formula on its parameter
// plane and a Julia set, both precisions.
TEST(ColouringCuda, DistanceInTheSmoothKernelsMatchesTheReference) {
    SKIP_WITHOUT_CUDA();
    ms::View full;
    full.width = 320;
    full.height = 240;
    full.max_iterations = 1000;
    ms::View short_orbits = full;
    short_orbits.max_iterations = 50;
    for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
        for (const ms::View& view : {seahorse(), full, short_orbits}) {
            SCOPED_TRACE(std::string(ms::precision_name(precision)) + " centre " + view.center_re + " " +
                         std::to_string(view.max_iterations) + " iterations");
            expect_distance_matches(view, precision);
        }
        for (ms::Formula formula : ms::kAllFormulas)
            for (bool julia : {false, true}) {
                const ms::View view = formula_view(formula, julia);
                SCOPED_TRACE(std::string(ms::formula_name(formula)) + (julia ? " Julia " : " ") +
                             ms::precision_name(precision));
                expect_distance_matches(view, precision);
            }
    }
}

TEST(ColouringCuda, LayersWriteIntoTheCallersDeviceBuffer) {
    // The window's path: render_coloured_cuda into device memory it owns, mu included.
    SKIP_WITHOUT_CUDA();
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    ms::View view = seahorse();
    ASSERT_EQ(ms::parse_colouring_methods("histogram,de,slope", &view.colouring), "");
    const size_t n = size_t(view.width) * view.height;
    uint8_t* d_rgba = nullptr;
    float* d_mu = nullptr;
    ASSERT_EQ(cudaMalloc(&d_rgba, n * 4), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_mu, n * 4), cudaSuccess);
    ms::render_coloured_cuda(view, ms::Precision::Fp64, {}, table, {}, 1.0, d_rgba, d_mu);
    std::vector<uint8_t> got(n * 4), host(n * 4);
    cudaMemcpy(got.data(), d_rgba, n * 4, cudaMemcpyDeviceToHost);
    cudaFree(d_rgba);
    cudaFree(d_mu);
    ms::render_coloured_cuda_to_host(view, ms::Precision::Fp64, {}, table, {}, 1.0, host.data(), nullptr);
    EXPECT_EQ(ms::test::validate_result("rgba", host.data(), got.data(), n * 4, 0.0).mismatches, 0u);
}
#endif

#if MANDELSCOPE_HAVE_CUDA
// The features kernels report the precision they run, as the smooth kernels and the CPU paths
// do: past FP64's resolution they still run FP64, and say so, never a deep precision.
TEST(ColouringCuda, FeaturesReportThePrecisionTheyRun) {
    std::string reason;
    if (!ms::cuda_available(&reason)) GTEST_SKIP() << "no usable CUDA device: " << reason;
    ms::View view = seahorse();
    view.width = 37;
    view.height = 23;
    view.max_iterations = 500;
    view.zoom = 1.0e15;
    ASSERT_FALSE(ms::fp64_resolves(view));
    const size_t n = size_t(view.width) * view.height;
    float *d_mu = nullptr, *d_distance = nullptr;
    ASSERT_EQ(cudaMalloc(&d_mu, n * sizeof(float)), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&d_distance, n * sizeof(float)), cudaSuccess);
    for (ms::Precision requested : {ms::Precision::Auto, ms::Precision::DeepDouble, ms::Precision::DeepFloatExp}) {
        const ms::FrameStats stats = ms::direct_features_cuda(view, requested, {}, {}, d_mu,
                                                              {d_distance, nullptr, nullptr});
        EXPECT_EQ(std::string(ms::precision_name(stats.precision)), "fp64") << ms::precision_name(requested);
    }
    cudaFree(d_mu);
    cudaFree(d_distance);
}
#endif

TEST(ColouringCuda, SaysWhyWhenNoDeviceCanRunIt) {
    std::string reason;
    if (ms::cuda_available(&reason)) GTEST_SKIP() << "a CUDA device is present";
    ms::View view = seahorse();
    view.colouring.distance_estimation = true;
    std::vector<uint8_t> rgba(size_t(view.width) * view.height * 4);
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    try {
        ms::render_coloured_cuda_to_host(view, ms::Precision::Fp64, {}, table, {}, 1.0, rgba.data(), nullptr);
        FAIL() << "rendered without a device";
    } catch (const std::exception& e) {
        EXPECT_FALSE(std::string(e.what()).empty());
        std::printf("without a device: %s\n", e.what());
    }
}
