// deep_family_locations.h: deep locations on the boundary of each formula's own set, for the
// deep-zoom tests of the formula family (test_deep_family.cpp against the MPFR truth,
// test_deep_cuda.cpp CUDA against the CPU).
//
// How a location is found: bisection, in MPFR, on the segment from a point that does not escape
// within N iterations (`inside`: 0, the critical point, for the parameter planes and for Julia
// sets of a c of the connectedness locus) to one that escapes (`outside`). Each midpoint is
// judged by the brute force itself (deep_cpu_reference on a 1x1 frame, whose one pixel samples
// the centre exactly). After `steps` halvings the segment is shorter than 2^-steps of its
// length, so a view centred on its inside end, at a zoom whose pixel spacing is above that,
// sits on the boundary of {dwell >= N}: pixels there follow the centre's orbit until they
// separate from it (a few hundred iterations at 1e60) and then escape at scattered counts up to
// N, or stay: varied counts, computed only from 60-digit offsets. Cost: `steps` x N MPFR
// iterations.
#pragma once

#include <gtest/gtest.h>
#include <mpfr.h>

#include <map>
#include <string>
#include <tuple>

#include "compute/fractal/deep/deep_cpu.h"

namespace ms::test {

struct FamilyCase {
    const char* name;  // for messages
    Formula formula;
    bool julia = false;
    const char* julia_re = "0";
    const char* julia_im = "0";
    const char* outside_re;  // escapes; the inside end is 0
    const char* outside_im;
};

inline std::string mpfr_text(mpfr_srcptr x) {
    char* buffer = nullptr;
    mpfr_asprintf(&buffer, "%.*Re", int(mpfr_get_prec(x) * 0.30103) + 2, x);
    std::string text(buffer);
    mpfr_free_str(buffer);
    return text;
}

inline DeepLocation family_location(const FamilyCase& c, const std::string& re, const std::string& im,
                                    int64_t max_iterations) {
    DeepLocation l;
    l.center_re = re;
    l.center_im = im;
    l.formula = c.formula;
    l.julia = c.julia;
    l.julia_re = c.julia_re;
    l.julia_im = c.julia_im;
    l.max_iterations = max_iterations;
    return l;
}

// A centre on the boundary of {dwell >= max_iterations} of the case's set, to `steps` bits of
// the segment, memoised (the tests of one case share it).
inline DeepLocation boundary_location(const FamilyCase& c, int steps, int64_t max_iterations, const char* zoom) {
    static std::map<std::tuple<std::string, int, int64_t>, std::pair<std::string, std::string>> found;
    auto key = std::make_tuple(std::string(c.name), steps, max_iterations);
    if (!found.count(key)) {
        const mpfr_prec_t bits = steps + 64;
        mpfr_t in_re, in_im, out_re, out_im, mid_re, mid_im;
        for (mpfr_ptr x : {in_re, in_im, out_re, out_im, mid_re, mid_im}) mpfr_init2(x, bits);
        mpfr_set_zero(in_re, 1);
        mpfr_set_zero(in_im, 1);
        mpfr_set_str(out_re, c.outside_re, 10, MPFR_RNDN);
        mpfr_set_str(out_im, c.outside_im, 10, MPFR_RNDN);
        auto dwell = [&](mpfr_srcptr re, mpfr_srcptr im) {
            return deep_cpu_reference(family_location(c, mpfr_text(re), mpfr_text(im), max_iterations), 1, 1,
                                      int64_t(bits))
                .escape_count[0];
        };
        EXPECT_EQ(dwell(in_re, in_im), -1) << c.name << ": the inside end escapes";
        EXPECT_GE(dwell(out_re, out_im), 0) << c.name << ": the outside end does not escape";
        for (int i = 0; i < steps; ++i) {
            mpfr_add(mid_re, in_re, out_re, MPFR_RNDN);
            mpfr_add(mid_im, in_im, out_im, MPFR_RNDN);
            mpfr_div_2ui(mid_re, mid_re, 1, MPFR_RNDN);
            mpfr_div_2ui(mid_im, mid_im, 1, MPFR_RNDN);
            if (dwell(mid_re, mid_im) < 0) {
                mpfr_swap(in_re, mid_re);
                mpfr_swap(in_im, mid_im);
            } else {
                mpfr_swap(out_re, mid_re);
                mpfr_swap(out_im, mid_im);
            }
        }
        found[key] = {mpfr_text(in_re), mpfr_text(in_im)};
        for (mpfr_ptr x : {in_re, in_im, out_re, out_im, mid_re, mid_im}) mpfr_clear(x);
    }
    DeepLocation l = family_location(c, found[key].first, found[key].second, max_iterations);
    EXPECT_EQ(parse_deep_zoom(zoom, &l.zoom), "");
    return l;
}

// The cases. Bisection from 0 lands on the first boundary it meets, and what it meets decides
// what a deep view shows. The edge of a hyperbolic component (where a segment from 0 leaves the
// main one) is parabolic: orbits there escape slowly and neighbours 1e-60 apart never part
// before the bailout, so the picture is one level line of |z_N| = R, which no reference stored
// in double resolves (|Z_N| ~ R carries 1e-14 of rounding): such views are avoided. Tips of the
// real slice are Misiurewicz points (0 -> -2 -> 2 -> 2, a repelling fixed point, for the three
// quadratic maps, which all reduce to x^2 + c on the real axis): neighbours part after about
// log4(1e60) = 100 iterations and escape at counts that depend on their 60-digit offsets. Julia
// sets of a c inside the connectedness locus (the Douady rabbit's component for z^2 + c) have a
// repelling boundary everywhere. The Multibrots z^3 and z^5 are odd: their real slices end at
// parabolic cusps, so they are checked at 1e20 (bisection toward a point off the axes) and,
// deeper, through the Julia set of z^3 + c; z^4 (even) has a Misiurewicz tip on the real axis.
// Bisection steps for boundary_location: the segment end is then within 2^-steps (x |outside|)
// of the boundary, below the pixel spacing of the deepest zoom each location is used at; and the
// iterations the family's MPFR tests use.
constexpr int kSteps1e60 = 215;    // 2^-215 = 1.9e-65
constexpr int kSteps1e320 = 1075;  // 2^-1075 = 2.5e-324
constexpr int64_t kFamilyIterations = 1000;

inline const FamilyCase kMultibrot3{"multibrot3", Formula::Multibrot3, false, "0", "0", "-0.3", "1.4"};
inline const FamilyCase kMultibrot5{"multibrot5", Formula::Multibrot5, false, "0", "0", "1.3", "0.4"};
inline const FamilyCase kMultibrot4Tip{"multibrot4 tip", Formula::Multibrot4, false, "0", "0", "-2", "0"};
inline const FamilyCase kTricornTip{"tricorn tip", Formula::Tricorn, false, "0", "0", "-2.5", "0"};
inline const FamilyCase kTricorn{"tricorn", Formula::Tricorn, false, "0", "0", "-1.6", "0.9"};
inline const FamilyCase kBurningShipTip{"burning-ship tip", Formula::BurningShip, false, "0", "0", "-2.5", "0"};
inline const FamilyCase kBurningShip{"burning-ship", Formula::BurningShip, false, "0", "0", "-1.7", "0.05"};
// Off the axes, in the ship's hull, where orbits that part from the reference stay chaotic (no
// attracting cycle catches them; an error grows about 0.4 bits an iteration there), so that past
// some iteration count a pixel's escape count depends on c more finely than its deltas hold it.
// Double deltas hold c to 53 bits below the frame's offsets, log2(1/max|dc|) + 53 bits (117 at
// 1e20 in 24x14 pixels, 250 at 1e60), and the deep path gets right about what a brute force at
// that precision does (test_deep_family's DISABLED_BurningShipHullPrecision, against the brute
// force at 400 bits above the reference's): at 1e20 and 250 iterations 267 of 336 pixels, where
// the brute force gets 232 at 103 bits and 287 at 119; at 1e60 and 800 iterations 254, as at
// 252 bits. FloatExp deltas (the same 53-bit mantissa) give the same counts bit for bit; BLA off
// differs only on pixels past that resolution. No defect of the step (diffabs), of BLA or of
// rebasing is involved: nine pixels traced against MPFR step by step, no
// step's error grows by more than 2.7 times the map's own stretch 2|Z + z|, the largest at
// ordinary early steps and never at a sign change or a rebase. Deltas of more mantissa are what
// would help (the diagnostic's own copy of the loop in wider types, against a reference exact to
// them): at 1e20 and 250 iterations long double deltas (64-bit mantissa) get 315 of those 336
// pixels and __float128 (113 bits) all 336; at 1e60 and 800 iterations 271 and 321. At 1,000
// iterations no delta type helps much: about half the pixels need over 300 bits at 1e20 (the
// brute force is right on 165 at +32 bits), and deep_truth.h's stable pixels are then partly
// wrong (35 of 170). Up to 200 iterations at
// 1e20 and 600 at 1e60 the brute force is right on every pixel from 119 and 252 bits, and the
// deep path too, but at the edge of double deltas' reach (a harmless change of rounding could
// flip a pixel); the tests take 150 and 500, where every pixel is settled from 103 and 220 bits.
inline const FamilyCase kBurningShipHull{"burning-ship hull", Formula::BurningShip, false, "0", "0", "-1.9", "-0.9"};
// The hull's iteration counts where double deltas decide every pixel with room to spare (above).
inline constexpr int64_t kBurningShipHullIterations1e20 = 150;
inline constexpr int64_t kBurningShipHullIterations1e60 = 500;
inline const FamilyCase kJuliaRabbit{"julia of mandelbrot", Formula::Mandelbrot, true, "-0.123", "0.745", "0.9", "1.1"};
inline const FamilyCase kJuliaMultibrot3{"julia of multibrot3", Formula::Multibrot3, true, "0.2", "0.5", "1.3", "0.2"};
inline const FamilyCase kJuliaBurningShip{
    "julia of burning-ship", Formula::BurningShip, true, "-0.4", "-0.2", "1.5", "1.2"};

}  // namespace ms::test
