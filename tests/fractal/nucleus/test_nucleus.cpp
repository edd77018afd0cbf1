// Newton zoom's maths (compute/fractal/nucleus/nucleus.h): the period search finds the
// lowest-period nucleus in a disc, Newton's method finds it to the digits its minibrot needs (the
// same digits as a run at higher precision, and Z_p vanishes there when evaluated at more bits),
// the size estimate agrees with the published shape of known minibrots, and every failure is one
// sentence: no nucleus near, a wrong period, a Julia set, a cancel.
//
// Published values:
//   - the period-3 "airplane" nucleus, the real root of c^3 + 2c^2 + c + 1 = 0 (Z_3(c) / c),
//     -1.75487766624669276004950889635852869..., Mu-Ency (R. Munafo), "Exact Coordinates",
//     mrob.com/pub/muency/exactcoordinates.html; its minibrot's cusp, where the period-3 window
//     opens on the real axis, is c = -7/4 (the same page's period-3 boundary formula at D = 1);
//   - the period-4 nuclei, roots of Z_4(c) / Z_2(c): -1.94079980652948475..., -0.15652016683375506
//     +- 1.03224710892283180i (the same page's period-4 polynomial at D = 0);
//   - the period-5 nuclei -1.98542425305420531... and -0.50434017544624400 +- 0.56276576145298200i
//     (the 2/5 bulb), roots of Z_5(c) / c (the period-5 polynomial at mu = 0).
// The size estimate is mandelbrot-numerics' m_d_size (github.com/Flarp/mandelbrot-numerics,
// c/lib/m_d_size.c): s = 1 / (beta lambda^2).
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>

#include "compute/fractal/deep/deep_reference.h"
#include "compute/fractal/nucleus/nucleus.h"
#include "compute/fractal/numbers/mpfr.h"
#include "tests/fractal/deep/kfr_location.h"

using namespace ms;

namespace {

DeepLocation at(const char* re, const char* im, const char* zoom, int64_t iterations = 1000) {
    DeepLocation location;
    location.center_re = re;
    location.center_im = im;
    EXPECT_EQ(parse_deep_zoom(zoom, &location.zoom), "");
    location.max_iterations = iterations;
    return location;
}

// 2 / zoom: the frame's half height, the radius the CLI searches.
FloatExp half_height(DeepZoom zoom) {
    const double log2_zoom = deep_zoom_log2(zoom);
    const double whole = std::floor(log2_zoom);
    return fe_make(2.0 * std::exp2(whole - log2_zoom), -int64_t(whole));
}

Minibrot find(const DeepLocation& location, NucleusSearch search = {}) {
    return find_minibrot(location, half_height(location.zoom), search);
}

double size_value(const Minibrot& m) { return fe_to_double(m.size); }

// Whether `text` agrees with `truth` to all but its last digit (the last may round either way).
bool agrees(const std::string& text, const std::string& truth) {
    if (text.size() < 3) return text == truth;
    const std::string body = text.substr(0, text.size() - 1);
    return truth.compare(0, body.size(), body) == 0;
}

// |Z_p(c) / Z_p'(c)| at `bits` in MPFR, as log2: how far c is from a root of Z_p, measured
// independently of nucleus.cpp.
double newton_distance_log2(const Minibrot& m, int64_t bits) {
    MpfrNumber cr(bits), ci(bits), x(bits), y(bits), dx(bits), dy(bits), t(bits), u(bits), v(bits);
    mpfr_set_decimal(cr.get(), m.center_re);
    mpfr_set_decimal(ci.get(), m.center_im);
    mpfr_set_zero(x.get(), 1), mpfr_set_zero(y.get(), 1), mpfr_set_zero(dx.get(), 1), mpfr_set_zero(dy.get(), 1);
    for (int64_t n = 0; n < m.period; ++n) {
        // dZ := 2 Z dZ + 1, Z := Z^2 + c.
        mpfr_mul(t.get(), x.get(), dx.get(), MPFR_RNDN);
        mpfr_mul(u.get(), y.get(), dy.get(), MPFR_RNDN);
        mpfr_sub(t.get(), t.get(), u.get(), MPFR_RNDN);
        mpfr_mul(u.get(), x.get(), dy.get(), MPFR_RNDN);
        mpfr_mul(v.get(), y.get(), dx.get(), MPFR_RNDN);
        mpfr_add(u.get(), u.get(), v.get(), MPFR_RNDN);
        mpfr_mul_2ui(dx.get(), t.get(), 1, MPFR_RNDN);
        mpfr_add_ui(dx.get(), dx.get(), 1, MPFR_RNDN);
        mpfr_mul_2ui(dy.get(), u.get(), 1, MPFR_RNDN);
        mpfr_sqr(t.get(), x.get(), MPFR_RNDN);
        mpfr_sqr(u.get(), y.get(), MPFR_RNDN);
        mpfr_mul(v.get(), x.get(), y.get(), MPFR_RNDN);
        mpfr_sub(x.get(), t.get(), u.get(), MPFR_RNDN);
        mpfr_add(x.get(), x.get(), cr.get(), MPFR_RNDN);
        mpfr_mul_2ui(y.get(), v.get(), 1, MPFR_RNDN);
        mpfr_add(y.get(), y.get(), ci.get(), MPFR_RNDN);
    }
    mpfr_hypot(t.get(), x.get(), y.get(), MPFR_RNDN);
    mpfr_hypot(u.get(), dx.get(), dy.get(), MPFR_RNDN);
    mpfr_div(t.get(), t.get(), u.get(), MPFR_RNDN);
    if (mpfr_zero_p(t.get())) return -double(bits);
    return double(mpfr_get_exp(t.get()));
}

TEST(Nucleus, AirplaneNucleusSizeAndDigits) {
    const Minibrot m = find(at("-1.75", "0", "100"));
    ASSERT_TRUE(m.found) << m.failure;
    EXPECT_EQ(m.period, 3);
    EXPECT_EQ(m.center_im, "0");
    const std::string truth = "-1.75487766624669276004950889635852869189460661777279";
    EXPECT_TRUE(agrees(m.center_re, truth)) << m.center_re;
    EXPECT_GE(m.center_re.size(), 16u) << "fewer digits than 2^-40 of the minibrot's size needs";
    // The size: from the nucleus to the cusp at -7/4 is a quarter of it (c = c0 + s c', the cusp
    // at c' = 1/4); the estimate is first order, so within 10%.
    const double cusp_size = (-1.75 - (-1.7548776662466927)) / 0.25;
    EXPECT_NEAR(size_value(m) / cusp_size, 1.0, 0.1) << size_value(m);
    EXPECT_NEAR(m.angle, 0.0, 1e-9);
    // size_zoom: |s| fills the half height, 2 / zoom.
    EXPECT_NEAR(2.0 / (m.size_zoom.mantissa * std::pow(10.0, double(m.size_zoom.exponent10))), size_value(m), 1e-12);

    // More bits: the same digits, continued, and Z_3 vanishes there to them.
    NucleusSearch more;
    more.extra_bits = 200;
    const Minibrot deep = find(at("-1.75", "0", "100"), more);
    ASSERT_TRUE(deep.found) << deep.failure;
    EXPECT_TRUE(agrees(m.center_re, deep.center_re)) << m.center_re << " vs " << deep.center_re;
    EXPECT_TRUE(agrees(deep.center_re.substr(0, truth.size()), truth)) << deep.center_re;
    EXPECT_LT(newton_distance_log2(deep, 512), -200.0);
}

TEST(Nucleus, PeriodFourAndFiveNuclei) {
    struct Case {
        const char *re, *im, *zoom;
        int64_t period;
        const char *truth_re, *truth_im;
        double angle;  // arg s where it is known exactly (real nuclei: 0), else NAN
    };
    const Case cases[] = {
        {"-1.94", "0", "100", 4, "-1.94079980652948475", "0", 0.0},
        {"-0.16", "1.04", "20", 4, "-0.15652016683375506", "1.0322471089228318", NAN},
        {"-1.985", "0", "500", 5, "-1.98542425305420531", "0", 0.0},
        {"-0.5", "0.56", "20", 5, "-0.50434017544624400", "0.56276576145298200", NAN},
    };
    for (const Case& c : cases) {
        const Minibrot m = find(at(c.re, c.im, c.zoom));
        ASSERT_TRUE(m.found) << c.re << "," << c.im << ": " << m.failure;
        EXPECT_EQ(m.period, c.period) << c.re;
        // The published digits, as far as both go.
        const size_t n = std::min(std::string(c.truth_re).size(), m.center_re.size()) - 1;
        EXPECT_EQ(m.center_re.substr(0, n), std::string(c.truth_re).substr(0, n)) << c.re;
        if (std::string(c.truth_im) == "0") {
            EXPECT_EQ(m.center_im, "0");
        } else {
            const size_t k = std::min(std::string(c.truth_im).size(), m.center_im.size()) - 1;
            EXPECT_EQ(m.center_im.substr(0, k), std::string(c.truth_im).substr(0, k)) << c.re;
        }
        if (!std::isnan(c.angle)) {
            EXPECT_NEAR(m.angle, c.angle, 1e-9) << c.re;
        }
        EXPECT_GT(size_value(m), 0.0);
        EXPECT_LT(size_value(m), 0.1) << c.re;  // each is a small copy (the 2/5 bulb about 0.08)
        EXPECT_LT(newton_distance_log2(m, 256), -40.0 + std::log2(size_value(m)) + 1.0) << c.re;
    }
}

// A deep one: the kf2 benchmark location 5e113 (assets/locations/e113.kfr). The period is the
// one the reference orbit's own probe stops at for the same disc, and the nucleus's digits are
// those of a run with 128 more bits.
TEST(Nucleus, DeepLocationMatchesReferenceProbeAndHigherPrecision) {
    const DeepLocation location = test::load_location("e113");
    const FloatExp radius = half_height(location.zoom);
    const Minibrot m = find_minibrot(location, radius);
    ASSERT_TRUE(m.found) << m.failure;

    ReferenceControl control;
    control.nucleus_radius = radius;
    control.threads = 1;
    const auto orbit = compute_reference_orbit(location.center_re, location.center_im,
                                               deep_reference_precision_bits(location.zoom, 1024),
                                               location.max_iterations, control);
    ASSERT_TRUE(orbit);
    EXPECT_EQ(m.period, orbit->period);

    NucleusSearch more;
    more.extra_bits = 128;
    const Minibrot deep = find_minibrot(location, radius, more);
    ASSERT_TRUE(deep.found) << deep.failure;
    EXPECT_EQ(deep.period, m.period);
    EXPECT_TRUE(agrees(m.center_re, deep.center_re)) << m.center_re << "\n" << deep.center_re;
    EXPECT_TRUE(agrees(m.center_im, deep.center_im)) << m.center_im << "\n" << deep.center_im;
    EXPECT_GT(deep.center_re.size(), m.center_re.size() + 30);
    // The minibrot is far deeper than the location, and Z_p vanishes at the nucleus.
    EXPECT_GT(m.size_zoom.exponent10, location.zoom.exponent10);
    EXPECT_LT(newton_distance_log2(deep, deep.precision_bits + 64), -double(deep.precision_bits) + 64.0);
}

// rust-fractal's glitch_test_4 (assets/locations/glitch_test_4.kfr, 3.1e85): the probe's first
// find, period 2139, has Newton's method leave the disc; the search goes on to the next find, whose
// nucleus converges inside it.
TEST(Nucleus, AFindWhoseNewtonLeavesTheDiscGivesWayToTheNext) {
    const DeepLocation location = test::load_location("glitch_test_4");
    NucleusSearch only_2139;
    only_2139.period = 2139;
    const Minibrot first = find_minibrot(location, half_height(location.zoom), only_2139);
    EXPECT_FALSE(first.found);
    EXPECT_EQ(first.failure, "No nucleus of period 2139 converged near here (Newton's method left the disc).");
    const Minibrot m = find_minibrot(location, half_height(location.zoom));
    ASSERT_TRUE(m.found) << m.failure;
    EXPECT_GT(m.period, 2139);
    EXPECT_LT(newton_distance_log2(m, m.precision_bits + 64), -double(m.precision_bits) + 64.0);
}

TEST(Nucleus, FailuresAreOneSentence) {
    // Outside the set, far from any nucleus: the orbit escapes first.
    Minibrot m = find(at("1", "1", "100"));
    EXPECT_FALSE(m.found);
    EXPECT_EQ(m.failure.rfind("No nucleus near here: the centre's orbit escapes at iteration", 0), 0u) << m.failure;

    // Inside the main cardioid: no nucleus of any period within the disc.
    m = find(at("-0.1", "0", "1e6", 5000));
    EXPECT_FALSE(m.found);
    EXPECT_EQ(m.failure, "No nucleus of period 1 to 5000 lies near here (more iterations look further).");

    // A period whose Newton iteration lands on a nucleus of a divisor of it.
    NucleusSearch six;
    six.period = 6;
    m = find(at("-1.75", "0", "100"), six);
    EXPECT_FALSE(m.found);
    EXPECT_EQ(m.failure, "No nucleus of period 6 converged near here (Newton's method found the nucleus of period 3).");

    // A period with no nucleus near: Newton leaves the disc or finds nothing.
    NucleusSearch seven;
    seven.period = 7;
    m = find(at("-1.75", "0", "1e6"), seven);
    EXPECT_FALSE(m.found);
    EXPECT_EQ(m.failure.rfind("No nucleus of period 7 converged near here", 0), 0u) << m.failure;

    NucleusSearch past;
    past.period = 5000;
    m = find(at("-1.75", "0", "100"), past);
    EXPECT_EQ(m.failure, "The period 5000 is past the limit of 1000 (more iterations raise it).");

    DeepLocation julia = at("0", "0", "1");
    julia.julia = true;
    EXPECT_EQ(find(julia).failure, "Newton zoom looks for nuclei in the parameter plane, not in a Julia set.");
    DeepLocation ship = at("-1.75", "0", "100");
    ship.formula = Formula::BurningShip;
    EXPECT_EQ(find(ship).failure, "Newton zoom supports the Mandelbrot set.");
    EXPECT_EQ(minibrot_support(ship), "Newton zoom supports the Mandelbrot set.");
}

TEST(Nucleus, CancelStopsTheSearch) {
    std::atomic<bool> cancel{true};
    NucleusSearch search;
    search.cancel = &cancel;
    const Minibrot m = find(at("-0.1", "0", "1e6", 1000000), search);
    EXPECT_FALSE(m.found);
    EXPECT_EQ(m.failure, "cancelled");
}

TEST(Nucleus, NextPeriodSkipsTheFirstAndItsEchoes) {
    const DeepLocation location = at("-1.75", "0", "100", 2000);
    const Minibrot first = find(location);
    ASSERT_TRUE(first.found) << first.failure;
    NucleusSearch next;
    next.after_period = first.period;
    const Minibrot m = find(location, next);
    ASSERT_TRUE(m.found) << m.failure;
    EXPECT_GT(m.period, first.period);
    EXPECT_NE(m.period % first.period, 0) << m.period;
    EXPECT_NE(m.center_re, first.center_re);
}

TEST(Nucleus, ZoomFractionAndFrame) {
    const DeepZoom a{1.0, 10}, b{1.0, 30};
    const DeepZoom mid = zoom_fraction(a, b, 0.5);
    EXPECT_EQ(mid.exponent10, 20);
    EXPECT_NEAR(mid.mantissa, 1.0, 1e-9);
    const DeepZoom quarter = zoom_fraction(DeepZoom{4.0, 2}, DeepZoom{4.0, 50002}, 0.25);
    EXPECT_EQ(quarter.exponent10, 12502);
    EXPECT_NEAR(quarter.mantissa, 4.0, 1e-6);
    Minibrot m;
    m.size_zoom = DeepZoom{1.5, 300};
    const DeepZoom framed = minibrot_frame_zoom(m, 3.0);
    EXPECT_EQ(framed.exponent10, 299);
    EXPECT_NEAR(framed.mantissa, 5.0, 1e-9);
}

}  // namespace
