// test_formulas.cpp: the formula family (compute/fractal/view/formula.h) and Julia sets on the CPU.
//   - each formula's fast path (direct_cpu) against its reference on several views, Julia
//     sets included, both precisions, shortcuts on and off: the same operations in the same
//     order, so escape counts are identical and smooth values agree to float rounding;
//   - known points of each set (inside: never escapes; outside: escapes at the step worked out
//     by hand);
//   - symmetry: Mandelbrot and Julia sets with real c are symmetric about the real axis, the
//     Burning Ship is not;
//   - names and parsing, the smooth value's degree, the view's Julia parameter checks.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compute/fractal/view/formula.h"
#include "compute/fractal/maths/formula_math.h"
#include "compute/fractal/direct/direct.h"
#include "tests/validate.h"

namespace {

using ms::Formula;

ms::View formula_view(Formula formula, bool julia, const char* re, const char* im, double zoom, int width, int height,
                      int iterations) {
    ms::View view;
    view.formula = formula;
    view.julia = julia;
    view.center_re = re;
    view.center_im = im;
    view.zoom = zoom;
    view.width = width;
    view.height = height;
    view.max_iterations = iterations;
    return view;
}

size_t pixels(const ms::View& v) { return size_t(v.width) * size_t(v.height); }

// The whole set at its default frame, a zoom into its boundary (centred on the pixel of the
// whole-set frame that escapes last: it lies next to the set), and a Julia set with c near 0,
// inside every set's main component, so that the Julia set has an interior.
std::vector<ms::View> views_of(Formula f) {
    const ms::FormulaFrame frame = ms::formula_default_frame(f, false);
    std::vector<ms::View> views;
    views.push_back(formula_view(f, false, frame.center_re, frame.center_im, frame.zoom, 131, 75, 300));
    std::vector<float> mu(pixels(views[0]));
    ms::direct_cpu_reference(views[0], ms::Precision::Fp64, {}, {}, mu.data());
    size_t last = 0;
    for (size_t i = 0; i < mu.size(); ++i)
        if (mu[i] > mu[last]) last = i;
    const double step = ms::pixel_step(views[0]);
    const std::string re = std::to_string(ms::center_re_value(views[0]) + (double(last % 131) + 0.5 - 65.5) * step);
    const std::string im = std::to_string(ms::center_im_value(views[0]) - (double(last / 131) + 0.5 - 37.5) * step);
    views.push_back(formula_view(f, false, re.c_str(), im.c_str(), 40.0 * frame.zoom, 97, 61, 600));
    ms::View julia = formula_view(f, true, "0", "0", 1.25, 111, 63, 400);
    julia.julia_re = "-0.1";
    julia.julia_im = "0.1";
    views.push_back(julia);
    return views;
}

TEST(Formulas, FastPathMatchesReferenceForEveryFormula) {
    for (Formula f : ms::kAllFormulas) {
        for (const ms::View& view : views_of(f)) {
            for (ms::Precision precision : {ms::Precision::Fp64, ms::Precision::Fp32}) {
                for (bool on : {true, false}) {
                    SCOPED_TRACE(std::string(ms::formula_name(f)) + (view.julia ? " julia" : "") + " " +
                                 ms::precision_name(precision) + (on ? " shortcuts on" : " shortcuts off") + " at " +
                                 view.center_re + "," + view.center_im);
                    ms::Shortcuts shortcuts{on, on};
                    std::vector<float> reference(pixels(view)), fast(pixels(view), 12345.0f);
                    const auto ref = ms::direct_cpu_reference(view, precision, shortcuts, {}, reference.data());
                    const auto got = ms::direct_cpu(view, precision, shortcuts, {}, fast.data());
                    std::vector<int> k_ref(reference.size()), k_got(fast.size());
                    for (size_t i = 0; i < reference.size(); ++i) {
                        k_ref[i] = ms::mandelbrot_escape_count(reference[i]);
                        k_got[i] = ms::mandelbrot_escape_count(fast[i]);
                    }
                    EXPECT_EQ(ms::test::validate_result("escape counts", k_ref.data(), k_got.data(), k_ref.size(), 0.0,
                                                        0.0, view.width)
                                  .mismatches,
                              0u);
                    // Smooth values: the fast path takes its logs in float (as for Mandelbrot).
                    EXPECT_EQ(ms::test::validate_result("smooth values", reference.data(), fast.data(),
                                                        reference.size(), 2e-6, 4e-7, view.width)
                                  .mismatches,
                              0u);
                    EXPECT_EQ(ref.iterations, got.iterations);
                    EXPECT_EQ(ref.escaped_pixels, got.escaped_pixels);
                    // A picture with both escaping and interior pixels (or the test shows nothing).
                    EXPECT_GT(ref.escaped_pixels, 0u);
                    EXPECT_LT(ref.escaped_pixels, pixels(view));
                }
            }
        }
    }
}

// The reference's value at one point.
float reference_at(Formula f, bool julia, const char* re, const char* im, int iterations, const char* julia_re = "0",
                   const char* julia_im = "0") {
    ms::View view = formula_view(f, julia, re, im, 1.0, 1, 1, iterations);
    view.julia_re = julia_re;
    view.julia_im = julia_im;
    float mu = 0.0f;
    ms::direct_cpu_reference(view, ms::Precision::Fp64, {false, false}, {}, &mu);
    return mu;
}

TEST(Formulas, KnownPoints) {
    for (Formula f : ms::kAllFormulas) {
        SCOPED_TRACE(ms::formula_name(f));
        // c = 0 is a fixed point of every map: inside every set; so is z_0 = 0 of the Julia set of c = 0.
        EXPECT_LT(reference_at(f, false, "0", "0", 500), 0.0f);
        EXPECT_LT(reference_at(f, true, "0", "0", 500), 0.0f);
        // The Julia set of c = 0 is the unit disc for every degree: 0.5 stays, 1.5 escapes.
        EXPECT_LT(reference_at(f, true, "0.5", "0", 500), 0.0f);
        EXPECT_GE(reference_at(f, true, "1.5", "0", 500), 0.0f);
        // Far outside: c = 3 escapes for every formula.
        EXPECT_GE(reference_at(f, false, "3", "0", 500), 0.0f);
    }
    // Counted by hand. Cubic, c = 1: z = 1, 2, 9, 730 > 64 -> escapes at k = 4.
    EXPECT_EQ(ms::mandelbrot_escape_count(reference_at(Formula::Multibrot3, false, "1", "0", 100)), 4);
    // Degree 8, c = 1: z = 1, 2, 257 > 64 -> k = 3.
    EXPECT_EQ(ms::mandelbrot_escape_count(reference_at(Formula::Multibrot8, false, "1", "0", 100)), 3);
    // c = -1: period 2 (0, -1, 0, ...) for z^2 (and for the Tricorn and the Burning Ship, whose
    // maps agree with z^2 on the real axis: |x|^2 = x^2): inside.
    for (Formula f : {Formula::Mandelbrot, Formula::Tricorn, Formula::BurningShip})
        EXPECT_LT(reference_at(f, false, "-1", "0", 1000), 0.0f) << ms::formula_name(f);
    // c = i: Mandelbrot's orbit is preperiodic (0, i, i-1, -i, i-1, ...): inside. The Burning
    // Ship's: z_2 = (|0| + i|1|)^2 + i = -1 + i, z_3 = (1 + i)^2 + i = 3i, z_4 = -9 + i, ... escapes.
    EXPECT_LT(reference_at(Formula::Mandelbrot, false, "0", "1", 1000), 0.0f);
    EXPECT_GE(reference_at(Formula::BurningShip, false, "0", "1", 1000), 0.0f);
    // The Tricorn at c = i: conj(i)^2 + i = -1 + i, conj(-1+i)^2 + i = (-1-i)^2 + i = 3i, escapes.
    EXPECT_GE(reference_at(Formula::Tricorn, false, "0", "1", 1000), 0.0f);
    // Julia set of the Mandelbrot map at c = -1 (the basilica): 0 is on the period-2 cycle.
    EXPECT_LT(reference_at(Formula::Mandelbrot, true, "0", "0", 1000, "-1", "0"), 0.0f);
}

// Rows y and height-1-y of a view centred on the real axis sample conjugate points.
size_t asymmetric_pixels(const ms::View& view) {
    std::vector<float> mu(pixels(view));
    ms::direct_cpu(view, ms::Precision::Fp64, {}, {}, mu.data());
    size_t differ = 0;
    for (int y = 0; y < view.height / 2; ++y)
        for (int x = 0; x < view.width; ++x)
            differ += ms::mandelbrot_escape_count(mu[size_t(y) * view.width + x]) !=
                      ms::mandelbrot_escape_count(mu[size_t(view.height - 1 - y) * view.width + x]);
    return differ;
}

TEST(Formulas, Symmetry) {
    // Even heights: the rows pair up exactly (pixel centres at +-(y + 0.5) steps). A rounding
    // difference between conjugate orbits can move a boundary pixel: allow 0.1%.
    for (Formula f : {Formula::Mandelbrot, Formula::Multibrot3, Formula::Multibrot6, Formula::Tricorn}) {
        ms::View view = formula_view(f, false, "-0.4", "0", 1.5, 160, 90, 300);
        EXPECT_LE(asymmetric_pixels(view), pixels(view) / 1000) << ms::formula_name(f);
        ms::View julia = formula_view(f, true, "0", "0", 1.25, 160, 90, 300);
        julia.julia_re = "-0.75";  // real c: symmetric about the real axis
        EXPECT_LE(asymmetric_pixels(julia), pixels(julia) / 1000) << ms::formula_name(f) << " julia";
    }
    // The Burning Ship folds z into the first quadrant: not symmetric (a large share differs).
    ms::View ship = formula_view(Formula::BurningShip, false, "-0.4", "0", 1.5, 160, 90, 300);
    EXPECT_GT(asymmetric_pixels(ship), pixels(ship) / 20);
}

TEST(Formulas, NamesRoundTrip) {
    for (Formula f : ms::kAllFormulas) {
        Formula parsed = Formula::Mandelbrot;
        ASSERT_TRUE(ms::parse_formula(ms::formula_name(f), &parsed)) << ms::formula_name(f);
        EXPECT_EQ(parsed, f);
    }
    Formula parsed = Formula::Tricorn;
    EXPECT_FALSE(ms::parse_formula("nope", &parsed));
    EXPECT_FALSE(ms::parse_formula("multibrot9", &parsed));
    EXPECT_EQ(parsed, Formula::Tricorn);
    EXPECT_EQ(ms::formula_degree(Formula::Multibrot5), 5);
    EXPECT_EQ(ms::formula_degree(Formula::BurningShip), 2);
}

TEST(Formulas, SmoothValueIsContinuousAcrossEscapeSteps) {
    // mu = k + const - log_d(ln|z_k|): one more step multiplies ln|z| by about d, so a point whose
    // |z_k| sits just above R and one just below (escaping a step later, at about R^d) get close
    // values; with log 2 instead of log d they would differ by about log2(d) - 1.
    for (Formula f : {Formula::Multibrot3, Formula::Multibrot8}) {
        const int d = ms::formula_degree(f);
        const double r = ms::formula_bailout_radius(f);
        const float above = ms::formula_smooth_mu(f, 5, r * r * 1.0001);
        const float below_then_power = ms::formula_smooth_mu(f, 6, std::pow(r * r * 0.9999, d));
        EXPECT_NEAR(above, below_then_power, 1e-3) << ms::formula_name(f);
        EXPECT_EQ(ms::mandelbrot_escape_count(above), 5);
        EXPECT_EQ(ms::mandelbrot_escape_count(below_then_power), 6);
    }
}

TEST(Formulas, JuliaParameterIsChecked) {
    std::string re, im;
    EXPECT_EQ(ms::parse_julia_option("-0.8,0.156", &re, &im), "");
    EXPECT_EQ(re, "-0.8");
    EXPECT_EQ(im, "0.156");
    EXPECT_NE(ms::parse_julia_option("1,", &re, &im), "");
    EXPECT_NE(ms::parse_julia_option("1", &re, &im), "");
    EXPECT_NE(ms::parse_julia_option("a,b", &re, &im), "");
    ms::View view;
    view.julia = true;
    view.julia_re = "nan";
    EXPECT_NE(ms::validate_view(view), "");
    view.julia = false;  // not a Julia view: the parameter is not used
    EXPECT_EQ(ms::validate_view(view), "");
}

}  // namespace
