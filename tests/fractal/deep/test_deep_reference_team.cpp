// The reference orbit's squarings shared between threads (ReferenceControl::threads,
// deep_reference_orbit.cpp's SquaringTeam, deep_reference_guard.h's TeamGuard): on two threads,
// on three and as chosen, the same orbit bit for bit as one thread (every Z_m in double and
// FloatExp, the escape, the period and its nucleus distance, min |Z|), for every formula the team
// runs, on both planes, at a shallow location, at 1e1086 and when the orbit stops at a period; a
// cancel stops it, progress is reported; the automatic choice follows its rules; the guard keeps
// a faster team through a moment's noise, leaves a slower one, follows the cores becoming busy
// and free, and keeps to the faster way when the host slows as a whole; and the orbit is the
// plain MPFR orbit. The two machines CI and development run on have 2 cores: three threads there
// take turns, which the tests also cover, so the orbits are kept short.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/deep/deep_reference_guard.h"
#include "compute/fractal/numbers/mpfr.h"
#include "tests/fractal/deep/kfr_location.h"

using namespace ms;

namespace {

bool same_fe(FloatExp a, FloatExp b) { return a.mantissa == b.mantissa && a.exponent == b.exponent; }

bool same_numbers(const std::vector<DeepComplex<FloatExp>>& a, const std::vector<DeepComplex<FloatExp>>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!same_fe(a[i].re, b[i].re) || !same_fe(a[i].im, b[i].im)) return false;
    return true;
}

std::shared_ptr<const ReferenceOrbit> orbit_on(int threads, const DeepLocation& location, int64_t bits,
                                               int64_t iterations, const OrbitMap& map, FloatExp nucleus_radius = {}) {
    ReferenceControl control;
    control.threads = threads;
    control.nucleus_radius = nucleus_radius;
    return compute_reference_orbit(location.center_re, location.center_im, bits, iterations, control, map);
}

// Everything compute_reference_orbit stores, compared bit for bit.
void expect_same_orbit(const ReferenceOrbit& one, const ReferenceOrbit& other, const std::string& what) {
    EXPECT_TRUE(same_numbers(one.z_fe, other.z_fe)) << what;
    ASSERT_EQ(one.z.size(), other.z.size()) << what;
    for (size_t i = 0; i < one.z.size(); ++i) {
        ASSERT_EQ(one.z[i].re, other.z[i].re) << what << " Z_" << i;
        ASSERT_EQ(one.z[i].im, other.z[i].im) << what << " Z_" << i;
    }
    EXPECT_TRUE(same_numbers(one.critical_z_fe, other.critical_z_fe)) << what;
    ASSERT_EQ(one.critical_z.size(), other.critical_z.size()) << what;
    for (size_t i = 0; i < one.critical_z.size(); ++i) {
        ASSERT_EQ(one.critical_z[i].re, other.critical_z[i].re) << what << " W_" << i;
        ASSERT_EQ(one.critical_z[i].im, other.critical_z[i].im) << what << " W_" << i;
    }
    EXPECT_EQ(one.escaped, other.escaped) << what;
    EXPECT_EQ(one.critical_escaped, other.critical_escaped) << what;
    EXPECT_EQ(one.period, other.period) << what;
    EXPECT_TRUE(same_fe(one.nucleus_distance, other.nucleus_distance)) << what;
    EXPECT_TRUE(same_fe(one.min_abs, other.min_abs)) << what;
}

// One thread against two, three and the automatic choice.
void expect_same_orbits(const DeepLocation& location, int64_t bits, int64_t iterations, const OrbitMap& map,
                        FloatExp nucleus_radius = {}) {
    auto one = orbit_on(1, location, bits, iterations, map, nucleus_radius);
    ASSERT_TRUE(one);
    EXPECT_GT(one->last_index(), 100) << formula_name(map.formula) << (map.julia ? " Julia" : "");
    for (int threads : {2, 3, 0}) {
        auto other = orbit_on(threads, location, bits, iterations, map, nucleus_radius);
        ASSERT_TRUE(other);
        expect_same_orbit(*one, *other,
                          std::string(formula_name(map.formula)) + (map.julia ? " Julia" : "") + ", " +
                              std::to_string(threads) + " threads");
    }
}

// Runs `blocks` blocks under a TeamGuard, block k taking cost(team, k) seconds the way the guard
// chose; returns the total and counts the team's blocks.
template <class Cost>
double guarded_seconds(int blocks, Cost cost, int* team_blocks) {
    TeamGuard guard;
    double total = 0.0;
    *team_blocks = 0;
    for (int k = 0; k < blocks; ++k) {
        const bool team = guard.use_team();
        const double seconds = cost(team, k);
        total += seconds;
        *team_blocks += team ? 1 : 0;
        guard.block_done(seconds);
    }
    return total;
}

}  // namespace

// e533 (4e533, Kalles Fraktaler 2's benchmark location) at the precision its frames use, the
// first 3,000 iterations: long enough for the helpers to meet the orbit's thread thousands of
// times.
TEST(DeepReferenceTeam, TheSameMandelbrotOrbitOnEveryThreadCount) {
    const DeepLocation location = test::load_location("e533");
    expect_same_orbits(location, 1847, 3000, OrbitMap{});
}

// A shallow location (e50 at the 64 + 176 bits of its 1024-pixel frames) and 1e1086 (kf2's
// deepest benchmark location) at its frames' 3,682 bits, the first 2,000 iterations.
TEST(DeepReferenceTeam, TheSameOrbitShallowAndAt1e1086) {
    const DeepLocation shallow = test::load_location("e50");
    expect_same_orbits(shallow, deep_reference_precision_bits(shallow.zoom, 1024), 3000, OrbitMap{});
    const DeepLocation deep = test::load_location("e1086");
    const int64_t bits = deep_reference_precision_bits(deep.zoom, 1024);
    EXPECT_GE(bits, 3600);
    expect_same_orbits(deep, bits, 2000, OrbitMap{});
}

// The orbit stops at the same period, with the same nucleus distance, on every thread count:
// 1e1086's centre with a radius that reaches a nucleus of a period of a few hundred.
TEST(DeepReferenceTeam, TheSamePeriodStop) {
    const DeepLocation location = test::load_location("e1086");
    const int64_t bits = deep_reference_precision_bits(location.zoom, 1024);
    const FloatExp radius = fe_make(1.0, -16);  // 2^-16 ~ 1.5e-5
    auto one = orbit_on(1, location, bits, 5000, OrbitMap{}, radius);
    ASSERT_TRUE(one);
    EXPECT_GT(one->period, 100);
    EXPECT_EQ(one->last_index(), one->period);
    expect_same_orbits(location, bits, 5000, OrbitMap{}, radius);
}

// The other degree-2 formulas (the Burning Ship's |2xy|, the Tricorn's -2xy after the same
// squarings) and a Julia set (its view orbit, then the critical orbit with the same team), and
// an orbit that escapes while the helpers are already squaring the next Z.
TEST(DeepReferenceTeam, TheSameOrbitForEveryDegreeTwoFormula) {
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
    // From 3,072 bits the Mandelbrot set's helpers each make one part of Z (s' from the squares).
    expect_same_orbits(location, kReferenceThreeThreadMinBits + 128, 500, julia);
    // c = 0.3: escapes after a few dozen iterations.
    location.center_re = "0.3";
    location.center_im = "0";
    for (int64_t bits : {int64_t(1200), kReferenceThreeThreadMinBits + 128}) {
        for (int threads : {2, 3}) {
            auto one = orbit_on(1, location, bits, 100000, OrbitMap{});
            auto other = orbit_on(threads, location, bits, 100000, OrbitMap{});
            ASSERT_TRUE(one && other);
            EXPECT_TRUE(one->escaped);
            EXPECT_LT(one->last_index(), 1000);
            expect_same_orbit(*one, *other,
                              "escaping, " + std::to_string(bits) + " bits, " + std::to_string(threads) + " threads");
        }
    }
}

namespace {

// The plain MPFR orbit of C at `bits`: x' = x^2 - y^2 + cr, y' = (x + y)^2 - x^2 - y^2 + ci with
// x + y added afresh each iteration; Z_0 .. Z_n as compute_reference_orbit stores them.
std::vector<DeepComplex<FloatExp>> plain_orbit(const DeepLocation& location, int64_t bits, int64_t n) {
    MpfrNumber x(bits), y(bits), cr(bits), ci(bits), x2(bits), y2(bits), s(bits);
    mpfr_set_decimal(cr.get(), location.center_re);
    mpfr_set_decimal(ci.get(), location.center_im);
    mpfr_set_zero(x.get(), 1);
    mpfr_set_zero(y.get(), 1);
    std::vector<DeepComplex<FloatExp>> z{{FloatExp{}, FloatExp{}}};
    for (int64_t i = 1; i <= n; ++i) {
        mpfr_sqr(x2.get(), x.get(), MPFR_RNDN);
        mpfr_sqr(y2.get(), y.get(), MPFR_RNDN);
        mpfr_add(s.get(), x.get(), y.get(), MPFR_RNDN);
        mpfr_sqr(s.get(), s.get(), MPFR_RNDN);
        mpfr_sub(s.get(), s.get(), x2.get(), MPFR_RNDN);
        mpfr_sub(s.get(), s.get(), y2.get(), MPFR_RNDN);
        mpfr_add(y.get(), s.get(), ci.get(), MPFR_RNDN);
        mpfr_sub(x.get(), x2.get(), y2.get(), MPFR_RNDN);
        mpfr_add(x.get(), x.get(), cr.get(), MPFR_RNDN);
        z.push_back({floatexp_from_mpfr(x.get()), floatexp_from_mpfr(y.get())});
    }
    return z;
}

}  // namespace

// Every Z_m the orbit stores (FloatExp and double) is the plain MPFR orbit's, where the next x + y
// is x' + y' (e533 at its frames' 1,847 bits) and where the Mandelbrot set's comes from the
// squares (1e1086 at its frames' 3,682 bits, from 3,072): the two ways differ only in MPFR's last
// bits. On one thread and on three.
TEST(DeepReferenceTeam, TheOrbitIsThePlainMpfrOrbit) {
    const DeepLocation shallow = test::load_location("e533");
    const DeepLocation deep = test::load_location("e1086");
    const int64_t deep_bits = deep_reference_precision_bits(deep.zoom, 1024);
    ASSERT_GE(deep_bits, kReferenceThreeThreadMinBits);
    for (const auto& [location, bits] : {std::pair{shallow, int64_t(1847)}, std::pair{deep, deep_bits}}) {
        const std::vector<DeepComplex<FloatExp>> plain = plain_orbit(location, bits, 2000);
        for (int threads : {1, 3}) {
            auto orbit = orbit_on(threads, location, bits, 2000, OrbitMap{});
            ASSERT_TRUE(orbit);
            EXPECT_TRUE(same_numbers(orbit->z_fe, plain)) << bits << " bits, " << threads << " threads";
            ASSERT_EQ(orbit->z.size(), plain.size());
            for (size_t i = 0; i < plain.size(); ++i) {
                ASSERT_EQ(orbit->z[i].re, fe_to_double(plain[i].re)) << bits << " bits, Z_" << i;
                ASSERT_EQ(orbit->z[i].im, fe_to_double(plain[i].im)) << bits << " bits, Z_" << i;
            }
        }
    }
}

// A cancel raised from the progress callback stops the orbit at the next poll (every 4,096
// iterations) on every thread count, and the computation returns null; progress reports
// iterations done out of those asked, and the whole count at the end.
TEST(DeepReferenceTeam, CancelAndProgress) {
    const DeepLocation location = test::load_location("e533");
    for (int threads : {1, 2, 3, 0}) {
        std::atomic<bool> cancel{false};
        ReferenceControl control;
        control.threads = threads;
        control.cancel = &cancel;
        std::vector<int64_t> seen;
        control.progress = [&](int64_t done, int64_t total) {
            EXPECT_EQ(total, 100000);
            seen.push_back(done);
            if (done >= 4096) cancel = true;
        };
        EXPECT_EQ(compute_reference_orbit(location.center_re, location.center_im, 1200, 100000, control), nullptr)
            << threads << " threads";
        EXPECT_EQ(seen, (std::vector<int64_t>{4096})) << threads << " threads";

        cancel = false;
        seen.clear();
        control.progress = [&](int64_t done, int64_t total) {
            EXPECT_EQ(total, 4200);
            seen.push_back(done);
        };
        auto orbit = compute_reference_orbit(location.center_re, location.center_im, 1200, 4200, control);
        ASSERT_TRUE(orbit) << threads << " threads";
        EXPECT_EQ(orbit->last_index(), 4200);
        EXPECT_EQ(seen, (std::vector<int64_t>{4096, 4200})) << threads << " threads";
    }
}

TEST(DeepReferenceTeam, AutomaticChoiceFollowsFormulaPrecisionAndRequest) {
    EXPECT_EQ(reference_threads(Formula::Mandelbrot, 100000, 1), 1);
    EXPECT_EQ(reference_threads(Formula::Mandelbrot, 64, 3), 3);
    EXPECT_EQ(reference_threads(Formula::Mandelbrot, 64, 8), 3);
    EXPECT_EQ(reference_threads(Formula::Tricorn, 64, 2), 2);
    EXPECT_EQ(reference_threads(Formula::BurningShip, 64, 3), 3);
    EXPECT_EQ(reference_threads(Formula::Multibrot3, 100000, 3), 1);
    EXPECT_EQ(reference_threads(Formula::Multibrot3, 100000, 0), 1);
    const unsigned cores = std::thread::hardware_concurrency();
    const int64_t below = std::min(kReferenceThreeThreadMinBits, kReferenceTwoThreadMinBits) - 1;
    EXPECT_EQ(reference_threads(Formula::Mandelbrot, below, 0), 1);
    EXPECT_EQ(reference_threads(Formula::Mandelbrot, kReferenceThreeThreadMinBits, 0),
              cores >= 3 ? 3 : (cores == 2 && kReferenceThreeThreadMinBits >= kReferenceTwoThreadMinBits ? 2 : 1));
    EXPECT_EQ(reference_threads(Formula::Mandelbrot, kReferenceTwoThreadMinBits, 0),
              cores >= 3 ? (kReferenceTwoThreadMinBits >= kReferenceThreeThreadMinBits ? 3 : 1) : (cores == 2 ? 2 : 1));
}

// A team twice as fast as one thread, one of whose blocks in 40 is slowed fivefold (a helper
// preempted once): the orbit stays on the team, apart from its trials of one thread.
TEST(DeepReferenceGuard, KeepsAFasterTeamThroughAMomentsNoise) {
    int team_blocks = 0;
    const double total = guarded_seconds(
        4000, [](bool team, int k) { return team ? (k % 40 == 7 ? 5.0 : 1.0) : 2.0; }, &team_blocks);
    EXPECT_GT(team_blocks, 3900);
    EXPECT_LT(total, 1.05 * (4000 + 100 * 4.0));  // every block on the team, its slowed ones too
}

// A team slower than one thread (its hand-overs cost more than the squarings it shares): the
// orbit runs alone, apart from the trials.
TEST(DeepReferenceGuard, LeavesASlowerTeam) {
    int team_blocks = 0;
    const double total = guarded_seconds(
        4000, [](bool team, int) { return team ? 3.0 : 2.0; }, &team_blocks);
    EXPECT_LT(team_blocks, 40);
    EXPECT_LT(total, 1.02 * 4000 * 2.0);
}

// The cores become busy for a while (the team slows fourfold, one thread is as before), then free
// again: the orbit leaves the team within a few blocks and comes back to it.
TEST(DeepReferenceGuard, FollowsTheCoresBecomingBusyAndFreeAgain) {
    int team_blocks = 0;
    auto busy = [](int k) { return k >= 1000 && k < 2000; };
    int busy_team_blocks = 0;
    const double total = guarded_seconds(
        4000,
        [&](bool team, int k) {
            if (team && busy(k)) ++busy_team_blocks;
            return team ? (busy(k) ? 4.0 : 1.0) : 2.0;
        },
        &team_blocks);
    EXPECT_LT(busy_team_blocks, 30);                  // a few blocks to notice, then trials
    EXPECT_GT(team_blocks - busy_team_blocks, 2900);  // back on the team after the busy spell
    const double best = 1000 * 1.0 + 1000 * 2.0 + 2000 * 1.0;
    EXPECT_LT(total, 1.15 * best);
}

// The host slowed as a whole for a while (both ways 2.5 times slower: another guest on its
// cores): the team stays the faster way throughout, and the orbit stays on it.
TEST(DeepReferenceGuard, StaysWithTheFasterWayWhenTheHostSlowsAsAWhole) {
    int team_blocks = 0;
    auto factor = [](int k) { return k >= 1000 && k < 2000 ? 2.5 : 1.0; };
    const double total = guarded_seconds(
        4000, [&](bool team, int k) { return (team ? 1.0 : 2.0) * factor(k); }, &team_blocks);
    EXPECT_GT(team_blocks, 3900);
    const double best = 3000 * 1.0 + 1000 * 2.5;
    EXPECT_LT(total, 1.05 * best);
}
