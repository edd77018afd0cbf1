// The reference orbit's three-thread squarings (ReferenceControl::threads, deep_reference.cpp's
// SquaringTeam): the same orbit bit for bit as one thread, for every formula the team runs, on
// both planes; a cancel stops it; the automatic choice follows its rules.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "compute/fractal/deep/deep_reference.h"
#include "tests/fractal/deep/kfr_location.h"

using namespace ms;

namespace {

bool same_numbers(const std::vector<DeepComplex<FloatExp>>& a, const std::vector<DeepComplex<FloatExp>>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].re.mantissa != b[i].re.mantissa || a[i].re.exponent != b[i].re.exponent ||
            a[i].im.mantissa != b[i].im.mantissa || a[i].im.exponent != b[i].im.exponent)
            return false;
    return true;
}

std::shared_ptr<const ReferenceOrbit> orbit_on(int threads, const DeepLocation& location, int64_t bits,
                                               int64_t iterations, const OrbitMap& map) {
    ReferenceControl control;
    control.threads = threads;
    return compute_reference_orbit(location.center_re, location.center_im, bits, iterations, control, map);
}

void expect_same_orbits(const DeepLocation& location, int64_t bits, int64_t iterations, const OrbitMap& map) {
    auto one = orbit_on(1, location, bits, iterations, map);
    auto three = orbit_on(3, location, bits, iterations, map);
    ASSERT_TRUE(one && three);
    EXPECT_GT(one->last_index(), 100) << formula_name(map.formula) << (map.julia ? " Julia" : "");
    EXPECT_TRUE(same_numbers(one->z_fe, three->z_fe));
    EXPECT_EQ(one->z.size(), three->z.size());
    for (size_t i = 0; i < one->z.size() && i < three->z.size(); ++i) {
        ASSERT_EQ(one->z[i].re, three->z[i].re) << i;
        ASSERT_EQ(one->z[i].im, three->z[i].im) << i;
    }
    EXPECT_TRUE(same_numbers(one->critical_z_fe, three->critical_z_fe));
    EXPECT_EQ(one->escaped, three->escaped);
    EXPECT_EQ(one->critical_escaped, three->critical_escaped);
    EXPECT_EQ(one->min_abs.mantissa, three->min_abs.mantissa);
    EXPECT_EQ(one->min_abs.exponent, three->min_abs.exponent);
}

}  // namespace

// e533 (4e533, Kalles Fraktaler 2's benchmark location) at the precision its frames use, the
// first 3,000 iterations: long enough for the helpers to meet the orbit's thread thousands of
// times. The two machines CI and development run on have 2 cores: three threads there take
// turns, which the test also covers.
TEST(DeepReferenceTeam, ThreeThreadsGiveTheSameMandelbrotOrbit) {
    const DeepLocation location = test::load_location("e533");
    expect_same_orbits(location, 1847, 3000, OrbitMap{});
}

// The other degree-2 formulas (the Burning Ship's |2xy|, the Tricorn's -2xy after the same
// squarings) and a Julia set (its view orbit, then the critical orbit with the same team), and
// an orbit that escapes while the helpers are already squaring the next Z.
TEST(DeepReferenceTeam, ThreeThreadsGiveTheSameOrbitForEveryDegreeTwoFormula) {
    // c = -1.9 + 1e-40 i: on the real axis both sets' orbits are the Mandelbrot set's, chaotic
    // and bounded at -1.9; the tiny imaginary part grows along the orbit until it escapes, a few
    // hundred iterations on, so 2xy is not zero.
    DeepLocation location = test::load_location("e50");
    location.center_re = "-1.9";
    location.center_im = "1e-40";
    for (Formula formula : {Formula::BurningShip, Formula::Tricorn}) {
        OrbitMap map;
        map.formula = formula;
        expect_same_orbits(location, 1200, 2000, map);
    }
    OrbitMap julia;
    julia.julia = true;
    julia.julia_re = "-0.123";  // Douady's rabbit; z_0 = 0.05 + 0.05i is in its central component
    julia.julia_im = "0.745";
    location.center_re = "0.05";
    location.center_im = "0.05";
    expect_same_orbits(location, 1200, 2000, julia);
    // c = 0.3: escapes after a few dozen iterations.
    location.center_re = "0.3";
    location.center_im = "0";
    auto one = orbit_on(1, location, 1200, 100000, OrbitMap{});
    auto three = orbit_on(3, location, 1200, 100000, OrbitMap{});
    ASSERT_TRUE(one && three);
    EXPECT_TRUE(one->escaped);
    EXPECT_LT(one->last_index(), 1000);
    EXPECT_TRUE(same_numbers(one->z_fe, three->z_fe));
}

TEST(DeepReferenceTeam, CancelStopsTheTeam) {
    const DeepLocation location = test::load_location("e533");
    std::atomic<bool> cancel{false};
    ReferenceControl control;
    control.threads = 3;
    control.cancel = &cancel;
    int64_t seen = 0;
    control.progress = [&](int64_t done, int64_t) {
        seen = done;
        if (done >= 4096) cancel = true;
    };
    EXPECT_EQ(compute_reference_orbit(location.center_re, location.center_im, 1200, 100000, control), nullptr);
    EXPECT_EQ(seen, 4096);
}

TEST(DeepReferenceTeam, AutomaticChoiceFollowsFormulaPrecisionAndRequest) {
    EXPECT_FALSE(reference_uses_team(Formula::Mandelbrot, 100000, 1));
    EXPECT_TRUE(reference_uses_team(Formula::Mandelbrot, 64, 3));
    EXPECT_TRUE(reference_uses_team(Formula::Tricorn, 64, 2));
    EXPECT_FALSE(reference_uses_team(Formula::Multibrot3, 100000, 3));
    EXPECT_FALSE(reference_uses_team(Formula::Mandelbrot, kReferenceTeamMinBits - 1, 0));
    EXPECT_EQ(reference_uses_team(Formula::Mandelbrot, kReferenceTeamMinBits, 0),
              std::thread::hardware_concurrency() >= 4);
}
