// test_deep_family.cpp: the CPU deep path for the formula family (Multibrot, Tricorn, Burning
// Ship, Julia sets) against the MPFR brute force, as test_deep_render.cpp holds Mandelbrot's:
// the same truth (deep_truth.h: two brute-force precisions, only stable pixels counted) and the
// same bar (99% exact, 99.5% within one iteration); each test prints its counts.
// Locations: each on the boundary of its own set, found by bisection (deep_family_locations.h),
// at about 1e20 and 1e60, and past 1e308 (FloatExp deltas) for a Multibrot and the Burning Ship.
// Also: BLA on and off agree where the formula has BLA (Multibrot, Julia sets), and the
// reference cache never hands one formula's orbit to another.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_perturbation.h"
#include "tests/fractal/deep/deep_family_locations.h"
#include "tests/fractal/deep/deep_truth.h"

using namespace ms;
using namespace ms::test;

namespace {

void check(const FamilyCase& c, int steps, const char* zoom, int width, int height, DeepNumberType type,
           int64_t iterations = kFamilyIterations) {
    std::printf("%s at %s, %lld iterations:\n", c.name, zoom, (long long)iterations);
    const DeepLocation location = boundary_location(c, steps, iterations, zoom);
    DeepFrame deep = deep_cpu(location, width, height);
    EXPECT_EQ(deep.stats.number_type, type);
    EXPECT_GT(deep.stats.bla_levels, 0);
    const Truth truth = brute_force(location, width, height);
    // The picture must depend on the offsets: not one count (or all inside) everywhere.
    const auto [lowest, highest] = std::minmax_element(truth.frame.escape_count.begin(),
                                                       truth.frame.escape_count.end());
    std::printf("  truth: escape counts %lld to %lld (-1: inside)\n", (long long)*lowest, (long long)*highest);
    EXPECT_LT(*lowest, *highest) << "a uniform picture";
    expect_agreement(compare_with_truth(deep, truth));
}

// x rounded to T (double, long double or __float128) through three doubles (x's top 159 bits).
template <typename T>
T wide_from_mpfr(mpfr_srcptr x) {
    mpfr_t rest;
    mpfr_init2(rest, mpfr_get_prec(x));
    mpfr_set(rest, x, MPFR_RNDN);
    T sum = 0;
    for (int i = 0; i < 3; ++i) {
        const double part = mpfr_get_d(rest, MPFR_RNDN);
        sum += T(part);
        mpfr_sub_d(rest, rest, part, MPFR_RNDN);
    }
    mpfr_clear(rest);
    return sum;
}

// deep_perturbation.h's Burning Ship loop (the diffabs step, Zhuoran's rebase, no BLA) with deltas
// and a reference orbit in T, the reference iterated in MPFR at reference_bits: what deltas of
// more mantissa than double's would compute (DISABLED_BurningShipHullPrecision). A test's own copy
// of the loop, since deep_perturbation.h's helpers exist for double and FloatExp only.
template <typename T>
std::vector<int64_t> hull_wide_deltas(const DeepLocation& location, int width, int height, int64_t reference_bits) {
    const mpfr_prec_t bits = mpfr_prec_t(reference_bits);
    mpfr_t x, y, cr, ci, xx, yy, xy, spacing, offset;
    for (mpfr_ptr v : {x, y, cr, ci, xx, yy, xy, spacing, offset}) mpfr_init2(v, bits);
    mpfr_set_str(cr, location.center_re.c_str(), 10, MPFR_RNDN);
    mpfr_set_str(ci, location.center_im.c_str(), 10, MPFR_RNDN);
    mpfr_set_zero(x, 1);
    mpfr_set_zero(y, 1);
    std::vector<T> X{T(0)}, Y{T(0)};
    for (int64_t m = 1; m <= location.max_iterations; ++m) {  // Z <- (|X| + i|Y|)^2 + C
        mpfr_mul(xy, x, y, MPFR_RNDN);
        mpfr_mul_2ui(xy, xy, 1, MPFR_RNDN);
        mpfr_abs(xy, xy, MPFR_RNDN);
        mpfr_sqr(xx, x, MPFR_RNDN);
        mpfr_sqr(yy, y, MPFR_RNDN);
        mpfr_sub(x, xx, yy, MPFR_RNDN);
        mpfr_add(x, x, cr, MPFR_RNDN);
        mpfr_add(y, xy, ci, MPFR_RNDN);
        X.push_back(wide_from_mpfr<T>(x));
        Y.push_back(wide_from_mpfr<T>(y));
        const double xd = mpfr_get_d(x, MPFR_RNDN), yd = mpfr_get_d(y, MPFR_RNDN);
        if (xd * xd + yd * yd > kDeepBailoutSquared) break;
    }
    const FloatExp step = deep_pixel_spacing(location.zoom, height);
    mpfr_set_d(spacing, step.mantissa, MPFR_RNDN);
    mpfr_mul_2si(spacing, spacing, long(step.exponent), MPFR_RNDN);
    const int64_t last = int64_t(X.size()) - 1;
    auto diffabs = [](T c, T d) {  // |c + d| - |c|
        const T s = c + d;
        if (c >= 0) return s >= 0 ? d : -(c + c + d);
        return s >= 0 ? c + c + d : -d;
    };
    std::vector<int64_t> counts;
    for (int py = 0; py < height; ++py) {
        for (int px = 0; px < width; ++px) {
            mpfr_mul_d(offset, spacing, px + 0.5 - 0.5 * width, MPFR_RNDN);
            const T dcx = wide_from_mpfr<T>(offset);
            mpfr_mul_d(offset, spacing, -(py + 0.5 - 0.5 * height), MPFR_RNDN);
            const T dcy = wide_from_mpfr<T>(offset);
            T zx = 0, zy = 0;
            int64_t m = 0, count = -1;
            for (int64_t n = 1; n <= location.max_iterations; ++n) {
                const T Xm = X[size_t(m)], Ym = Y[size_t(m)];
                const T nx = (Xm + Xm + zx) * zx - (Ym + Ym + zy) * zy + dcx;
                const T ny = 2 * diffabs(Xm * Ym, Xm * zy + zx * (Ym + zy)) + dcy;
                zx = nx;
                zy = ny;
                ++m;
                const T fx = X[size_t(m)] + zx, fy = Y[size_t(m)] + zy;
                const T full = fx * fx + fy * fy;
                if (double(full) > kDeepBailoutSquared) {
                    count = n;
                    break;
                }
                if (full < zx * zx + zy * zy || m == last) {
                    zx = fx;
                    zy = fy;
                    m = 0;
                }
            }
            counts.push_back(count);
        }
    }
    for (mpfr_ptr v : {x, y, cr, ci, xx, yy, xy, spacing, offset}) mpfr_clear(v);
    return counts;
}

}  // namespace

TEST(DeepFamily, Multibrot3At1e20) { check(kMultibrot3, kSteps1e60, "1E20", 24, 14, DeepNumberType::Double); }

TEST(DeepFamily, Multibrot5At1e20) { check(kMultibrot5, kSteps1e60, "1E20", 24, 14, DeepNumberType::Double); }

TEST(DeepFamily, Multibrot4TipAt1e60) { check(kMultibrot4Tip, kSteps1e60, "1E60", 24, 14, DeepNumberType::Double); }

TEST(DeepFamily, Tricorn) {
    check(kTricorn, kSteps1e60, "1E20", 24, 14, DeepNumberType::Double);
    check(kTricornTip, kSteps1e60, "1E60", 24, 14, DeepNumberType::Double);
}

TEST(DeepFamily, BurningShip) {
    check(kBurningShip, kSteps1e60, "1E20", 24, 14, DeepNumberType::Double);
    check(kBurningShipTip, kSteps1e60, "1E60", 24, 14, DeepNumberType::Double);
}

// The Burning Ship's hull, off the axes, where orbits that part from the reference stay chaotic:
// held to the bar at iteration counts where double deltas decide every pixel with room to spare
// (deep_family_locations.h; DISABLED_BurningShipHullPrecision below measures it). BLA on and off
// agree there too (2x2 skips kept off the axes by the sign margin).
TEST(DeepFamily, BurningShipChaoticHull) {
    check(kBurningShipHull, kSteps1e60, "1E20", 24, 14, DeepNumberType::Double, kBurningShipHullIterations1e20);
    check(kBurningShipHull, kSteps1e60, "1E60", 24, 14, DeepNumberType::Double, kBurningShipHullIterations1e60);
    const DeepLocation location = boundary_location(kBurningShipHull, kSteps1e60, kBurningShipHullIterations1e60,
                                                    "1E60");
    DeepRenderOptions off;
    off.use_bla = false;
    const DeepFrame a = deep_cpu(location, 24, 14);
    EXPECT_GT(a.stats.bla_iterations, a.stats.iterations / 5);
    EXPECT_EQ(a.escape_count, deep_cpu(location, 24, 14, off).escape_count);
}

// By hand (prints the figures deep_family_locations.h and deep_truth.h quote; asserts only that
// its truth has settled): --gtest_also_run_disabled_tests --gtest_filter='*HullPrecision'.
// For the hull at each depth and iteration count: how many of the pixels the brute force gets
// right at each precision, against itself at 400 bits above the reference's (which must agree
// with +300 on every pixel); the deep path's double deltas with BLA on and off, its FloatExp
// deltas, and the truth of expect_agreement (stable between +32 and +96, and how many of those
// pixels are right); then the same loop (BLA off) with deltas of wider types against a reference
// exact to them: double, long double (64-bit mantissa on x86-64) and __float128 (113 bits).
TEST(DeepFamily, DISABLED_BurningShipHullPrecision) {
    struct Case {
        const char* zoom;
        int64_t iterations;
    };
    for (const Case& c : {Case{"1E20", 150}, Case{"1E20", 200}, Case{"1E20", 250}, Case{"1E20", 1000},
                          Case{"1E60", 500}, Case{"1E60", 600}, Case{"1E60", 800}, Case{"1E60", 1000}}) {
        const int width = 24, height = 14;
        const DeepLocation location = boundary_location(kBurningShipHull, kSteps1e60, c.iterations, c.zoom);
        const int64_t bits = deep_reference_precision_bits(location.zoom, height);
        const std::vector<int64_t> exact = deep_cpu_reference(location, width, height, bits + 400).escape_count;
        ASSERT_EQ(deep_cpu_reference(location, width, height, bits + 300).escape_count, exact)
            << c.zoom << ", " << c.iterations << " iterations: the brute force has not settled at +300 bits";
        auto right = [&](const std::vector<int64_t>& counts) {
            int n = 0;
            for (size_t i = 0; i < exact.size(); ++i) n += counts[i] == exact[i];
            return n;
        };
        std::printf("hull at %s, %lld iterations, reference %lld bits; of %zu pixels, right:\n  brute force", c.zoom,
                    (long long)c.iterations, (long long)bits, exact.size());
        for (int64_t b = bits - 48; b <= bits + 96; b += 16)
            std::printf(" %d at %lld bits,", right(deep_cpu_reference(location, width, height, b).escape_count),
                        (long long)b);
        std::printf("\n");
        DeepRenderOptions off, floatexp;
        off.use_bla = false;
        floatexp.number_type = DeepNumberType::FloatExp;
        const Truth truth = brute_force(location, width, height);
        int stable = 0, stable_right = 0;
        for (size_t i = 0; i < exact.size(); ++i) {
            if (truth.frame.escape_count[i] != truth.frame_more.escape_count[i]) continue;
            ++stable;
            stable_right += truth.frame.escape_count[i] == exact[i];
        }
        std::printf(
            "  deep path: double deltas %d, BLA off %d, FloatExp deltas %d; stable (+32 = +96) %d, of "
            "those right %d\n",
            right(deep_cpu(location, width, height).escape_count),
            right(deep_cpu(location, width, height, off).escape_count),
            right(deep_cpu(location, width, height, floatexp).escape_count), stable, stable_right);
        std::printf("  wider deltas: double %d, long double %d",
                    right(hull_wide_deltas<double>(location, width, height, bits + 400)),
                    right(hull_wide_deltas<long double>(location, width, height, bits + 400)));
#ifdef __SIZEOF_FLOAT128__
        std::printf(", __float128 %d", right(hull_wide_deltas<__float128>(location, width, height, bits + 400)));
#endif
        std::printf("\n");
    }
}

TEST(DeepFamily, JuliaOfMandelbrot) {
    check(kJuliaRabbit, kSteps1e60, "1E20", 24, 14, DeepNumberType::Double);
    check(kJuliaRabbit, kSteps1e60, "1E60", 24, 14, DeepNumberType::Double);
}

TEST(DeepFamily, JuliaOfMultibrot3) { check(kJuliaMultibrot3, kSteps1e60, "1E60", 24, 14, DeepNumberType::Double); }

TEST(DeepFamily, JuliaOfBurningShip) { check(kJuliaBurningShip, kSteps1e60, "1E60", 24, 14, DeepNumberType::Double); }

// Past 1e308: FloatExp deltas through the Multibrot's binomial step (and its BLA) and the Burning
// Ship's diffabs. 1,500 iterations: neighbours 1e-320 apart part after about 1,100 (log2 1e320).
TEST(DeepFamily, PastDoubleRangeWithFloatExp) {
    check(kJuliaMultibrot3, kSteps1e320, "1E320", 8, 5, DeepNumberType::FloatExp, 1500);
    check(kBurningShipTip, kSteps1e320, "1E320", 8, 5, DeepNumberType::FloatExp, 1500);
}

// BLA changes the work, not the picture: complex A for the Multibrots and Julia sets, 2x2
// matrices for the Tricorn and the Burning Ship (parameter plane and Julia set).
TEST(DeepFamily, BlaOnAndOffAgree) {
    for (const FamilyCase* c : {&kMultibrot5, &kTricorn, &kBurningShip, &kJuliaMultibrot3, &kJuliaBurningShip}) {
        const DeepLocation location = boundary_location(*c, kSteps1e60, kFamilyIterations, "1E20");
        DeepRenderOptions off;
        off.use_bla = false;
        const DeepFrame a = deep_cpu(location, 32, 18);
        const DeepFrame b = deep_cpu(location, 32, 18, off);
        std::printf("%s: %.1f%% of %llu iterations by BLA\n", c->name,
                    100.0 * double(a.stats.bla_iterations) / double(a.stats.iterations),
                    (unsigned long long)a.stats.iterations);
        EXPECT_GT(a.stats.bla_iterations, a.stats.iterations / 5) << c->name;
        EXPECT_EQ(b.stats.bla_iterations, 0u);
        EXPECT_EQ(a.escape_count, b.escape_count) << c->name;
    }
}
