// test_deep_family_distance.cpp: the deep distance estimate of the formula family (Multibrot,
// Tricorn, Burning Ship, Julia sets; deep_derivative.h), as test_deep_colouring.cpp holds the
// Mandelbrot set's:
//   * against the MPFR brute force (deep_distance_truth.h: the derivative iterated in MPFR beside
//     every pixel, two precisions, stable escaped pixels only; 99% within 1e-3 relative and all
//     within 1e-2) at 1e20 and 1e50 with double deltas and at 1e320 with FloatExp deltas;
//   * the DE loop leaves each formula's escape counts and mu exactly as the smooth loop gives
//     them, and its double and FloatExp estimates agree;
//   * BLA on and off give the same estimates (the skip's A D + B spacing against the steps);
//   * at a shallow view the deep estimate is the direct FP64 path's (orbit_features.h, whose
//     derivative, formula_derivative_step, is written separately and tested against the
//     distance to the set in test_colouring_family): the same Jacobians, signs and scales;
//   * CUDA: each formula's DE kernel gives the CPU's counts and estimates (skips without CUDA).
// Locations: deep_family_locations.h's, on the boundary of each set, found by bisection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/direct/direct_features.h"
#include "compute/fractal/view/view.h"
#include "tests/fractal/deep/deep_distance_truth.h"
#include "tests/fractal/deep/deep_family_locations.h"
#include "tests/validate.h"

using namespace ms;
using namespace ms::test;

namespace {

void check(const FamilyCase& c, int steps, const char* zoom, int width, int height, DeepNumberType type,
           int64_t iterations = kFamilyIterations, bool with_bla = true) {
    std::printf("%s at %s, %lld iterations:\n", c.name, zoom, (long long)iterations);
    // A third of the frame at least: a boundary frame of a parameter plane is partly interior.
    expect_distance_matches_mpfr(boundary_location(c, steps, iterations, zoom), width, height, type, 0.3, with_bla);
}

}  // namespace

TEST(DeepFamilyDistance, Multibrot3MatchesMpfr) {
    check(kMultibrot3, kSteps1e60, "1E20", 24, 14, DeepNumberType::Double);
}

TEST(DeepFamilyDistance, TricornMatchesMpfr) { check(kTricorn, kSteps1e60, "1E20", 24, 14, DeepNumberType::Double); }

TEST(DeepFamilyDistance, BurningShipMatchesMpfr) {
    check(kBurningShip, kSteps1e60, "1E20", 24, 14, DeepNumberType::Double);
}

TEST(DeepFamilyDistance, JuliaSetsMatchMpfr) {
    check(kJuliaMultibrot3, kSteps1e60, "1E50", 24, 14, DeepNumberType::Double);
    check(kJuliaBurningShip, kSteps1e60, "1E50", 24, 14, DeepNumberType::Double);
}

// Past 1e308: FloatExp deltas and derivatives, a holomorphic Julia set with BLA and the Burning
// Ship's Jacobian at its tip (on the real axis, where no skip is valid, so every step and its fold
// is iterated), and the Tricorn's tip with its 2x2 skips. 1,500 iterations: neighbours 1e-320
// apart part after about 1,100 (log2 1e320).
TEST(DeepFamilyDistance, JuliaPastDoubleRangeWithFloatExp) {
    check(kJuliaMultibrot3, kSteps1e320, "1E320", 8, 5, DeepNumberType::FloatExp, 1500);
}

TEST(DeepFamilyDistance, BurningShipPastDoubleRangeWithFloatExp) {
    check(kBurningShipTip, kSteps1e320, "1E320", 8, 5, DeepNumberType::FloatExp, 1500, false);
}

TEST(DeepFamilyDistance, TricornPastDoubleRangeWithFloatExp) {
    check(kTricornTip, kSteps1e320, "1E320", 8, 5, DeepNumberType::FloatExp, 1500);
}

// The derivative rides beside the pixel: for every formula and Julia set the DE loop's counts
// and mu are the smooth loop's bit for bit, the double and FloatExp estimates agree, and BLA
// on and off give the same estimates (within what the skips' dropped terms allow).
TEST(DeepFamilyDistance, LeavesCountsAsTheSmoothLoopAndAgreesAcrossTypesAndBla) {
    for (const FamilyCase* c :
         {&kMultibrot3, &kMultibrot5, &kTricorn, &kBurningShip, &kJuliaRabbit, &kJuliaMultibrot3, &kJuliaBurningShip}) {
        const DeepLocation location = boundary_location(*c, kSteps1e60, kFamilyIterations, "1E20");
        DeepRenderOptions plain, with_de, floatexp, no_bla;
        with_de.distance = floatexp.distance = no_bla.distance = true;
        floatexp.number_type = DeepNumberType::FloatExp;
        no_bla.use_bla = false;
        const DeepFrame a = deep_cpu(location, 32, 18, plain);
        const DeepFrame b = deep_cpu(location, 32, 18, with_de);
        const DeepFrame f = deep_cpu(location, 32, 18, floatexp);
        const DeepFrame n = deep_cpu(location, 32, 18, no_bla);
        ASSERT_EQ(b.stats.number_type, DeepNumberType::Double);
        EXPECT_TRUE(a.distance.empty());
        EXPECT_EQ(a.escape_count, b.escape_count) << c->name;
        EXPECT_EQ(a.mu, b.mu) << c->name;
        EXPECT_EQ(a.escape_count, n.escape_count) << c->name;
        int escaped = 0;
        for (int64_t k : b.escape_count) escaped += k >= 0;
        EXPECT_GT(escaped, 32 * 18 / 4) << c->name << ": too few escaped pixels to compare";
        std::printf("%s: %d escaped pixels, %.1f%% of the iterations by BLA\n", c->name, escaped,
                    100.0 * double(b.stats.bla_iterations) / double(b.stats.iterations));
        auto types = validate_result("DE double vs FloatExp", b.distance.data(), f.distance.data(), b.distance.size(),
                                     0.0, 1e-6, 32);
        auto bla = validate_result("DE BLA on vs off", n.distance.data(), b.distance.data(), b.distance.size(), 0.0,
                                   1e-6, 32);
        EXPECT_EQ(types.mismatches, 0u) << c->name;
        EXPECT_EQ(bla.mismatches, 0u) << c->name;
    }
}

// At a shallow view (zoom 1,000, where FP64 resolves the pixels) the deep path, forced, gives the
// direct FP64 path's estimate: two separately written derivatives (deep_derivative.h against
// formula_step-inl.h) and two ways of iterating (perturbation with BLA against z itself) agree on
// every pixel both paths escape at the same count, up to the orbits' own rounding.
TEST(DeepFamilyDistance, MatchesTheDirectPathAtAShallowView) {
    for (const FamilyCase* c :
         {&kMultibrot3, &kMultibrot5, &kTricorn, &kBurningShip, &kJuliaRabbit, &kJuliaMultibrot3, &kJuliaBurningShip}) {
        const DeepLocation location = boundary_location(*c, kSteps1e60, kFamilyIterations, "1E3");
        View view;
        view.center_re = location.center_re.substr(0, 40);  // a double's worth of digits, and then some
        view.center_im = location.center_im.substr(0, 40);
        view.zoom = 1000.0;
        view.width = 48;
        view.height = 27;
        view.max_iterations = kFamilyIterations;
        view.formula = c->formula;
        view.julia = c->julia;
        view.julia_re = c->julia_re;
        view.julia_im = c->julia_im;
        const size_t n = size_t(view.width) * size_t(view.height);
        std::vector<float> mu(n), direct(n);
        direct_features_cpu_reference(view, Precision::Fp64, Shortcuts{}, full_rect(view), mu.data(),
                                      OrbitFeatureOutputs{direct.data(), nullptr, nullptr});
        DeepRenderOptions options;
        options.distance = true;
        options.number_type = DeepNumberType::Double;
        const DeepFrame deep = deep_cpu(deep_location(view), view.width, view.height, options);
        std::vector<double> errors;
        for (size_t i = 0; i < n; ++i) {
            if (mu[i] < 0.0f || deep.mu[i] < 0.0 || std::fabs(double(mu[i]) - deep.mu[i]) > 1e-3) continue;
            ASSERT_GT(direct[i], 0.0f) << c->name;
            errors.push_back(std::fabs(double(deep.distance[i]) - direct[i]) / direct[i]);
        }
        ASSERT_GT(errors.size(), n / 4) << c->name << ": too few pixels escaped alike";
        std::sort(errors.begin(), errors.end());
        const double within = double(std::upper_bound(errors.begin(), errors.end(), 1e-4) - errors.begin());
        std::printf("%s: %zu pixels, median relative difference %.2g, 95th percentile %.2g, worst %.2g\n", c->name,
                    errors.size(), errors[errors.size() / 2], errors[errors.size() * 95 / 100], errors.back());
        EXPECT_GE(within, 0.95 * double(errors.size())) << c->name;
    }
}

// CUDA: each formula's DE kernel (double and FloatExp) gives the CPU's counts exactly and its
// estimate to 1e-6 relative (device log; the derivative's arithmetic is the same IEEE
// operations, compiled without FMA contraction on both).
TEST(DeepFamilyDistanceCuda, MatchesTheCpu) {
    SKIP_WITHOUT_CUDA();
    DeepRenderOptions double_de, floatexp_de;
    double_de.distance = floatexp_de.distance = true;
    floatexp_de.number_type = DeepNumberType::FloatExp;
    struct Case {
        const FamilyCase* c;
        const char* zoom;
        const DeepRenderOptions* options;
        DeepNumberType type;
    };
    for (const Case& k : {Case{&kMultibrot3, "1E20", &double_de, DeepNumberType::Double},
                          Case{&kMultibrot5, "1E20", &double_de, DeepNumberType::Double},
                          Case{&kTricorn, "1E20", &double_de, DeepNumberType::Double},
                          Case{&kBurningShip, "1E20", &double_de, DeepNumberType::Double},
                          Case{&kBurningShipHull, "1E20", &double_de, DeepNumberType::Double},
                          Case{&kJuliaRabbit, "1E20", &double_de, DeepNumberType::Double},
                          Case{&kJuliaMultibrot3, "1E50", &double_de, DeepNumberType::Double},
                          Case{&kJuliaBurningShip, "1E50", &double_de, DeepNumberType::Double},
                          Case{&kMultibrot4Tip, "1E60", &floatexp_de, DeepNumberType::FloatExp},
                          Case{&kTricornTip, "1E60", &floatexp_de, DeepNumberType::FloatExp},
                          Case{&kBurningShipTip, "1E60", &floatexp_de, DeepNumberType::FloatExp},
                          Case{&kJuliaBurningShip, "1E60", &floatexp_de, DeepNumberType::FloatExp}}) {
        const int64_t iterations = k.c == &kBurningShipHull ? kBurningShipHullIterations1e20 : kFamilyIterations;
        const DeepLocation location = boundary_location(*k.c, kSteps1e60, iterations, k.zoom);
        std::printf("%s at %s (%s)\n", k.c->name, k.zoom, deep_number_type_name(k.type));
        const DeepFrame cpu = deep_cpu(location, 96, 54, *k.options);
        const DeepFrame gpu = deep_cuda(location, 96, 54, *k.options);
        EXPECT_EQ(cpu.stats.number_type, k.type);
        EXPECT_EQ(gpu.stats.number_type, k.type);
        ASSERT_EQ(gpu.distance.size(), cpu.distance.size());
        auto counts = validate_result("escape count", cpu.escape_count.data(), gpu.escape_count.data(),
                                      cpu.escape_count.size(), 0.0, 0.0, 96);
        auto de = validate_result("DE", cpu.distance.data(), gpu.distance.data(), cpu.distance.size(), 0.0, 1e-6, 96);
        EXPECT_EQ(counts.mismatches, 0u) << k.c->name;
        EXPECT_EQ(de.mismatches, 0u) << k.c->name;
        EXPECT_EQ(gpu.stats.bla_iterations, cpu.stats.bla_iterations) << k.c->name;
        std::printf("  cpu pixels %.1f ms, cuda kernel %.2f ms\n", cpu.stats.pixels_ms, gpu.stats.pixels_ms);
    }
}
