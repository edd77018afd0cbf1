// nucleus.h: Newton zoom's maths: the period of the lowest-period nucleus in a disc, the nucleus
// itself in MPFR, and the minibrot's size and orientation, so that a zoom can frame it.
//
// A nucleus of period p is a c0 with Z_p(c0) = 0 (Z_0 = 0, Z_{n+1} = Z_n^2 + c): the centre of
// a hyperbolic component, and of the minibrot that component's cardioid belongs to.
//   period   the probe that stops the reference orbit at a nucleus (deep/deep_nucleus_probe.h):
//            the first n at which Newton's step from the disc's centre to a nucleus of period
//            n, |(dZ_n/dc)^-1 Z_n|, is shorter than the disc's radius ("next period": the first
//            past after_period that is not a multiple of an earlier find pointing the same way);
//   nucleus  Newton's method on Z_p(c) = 0, starting with the probe's own step from the centre
//            (free: the search has J_p and Z_p), then steps in MPFR whose precision follows the
//            digits (Z_p at the bits the next error needs, the derivative at the bits the step
//            gains), until the digits to 2^-40 of the minibrot's size are stable: the step is
//            below that, or the steps have shown the quadratic rate and the error it leaves is;
//   size     the usual renormalisation estimate along the period at the nucleus,
//            s = 1 / (beta lambda^2), lambda = prod_{n=1}^{p-1} 2 Z_n,
//            beta = sum_{k=1}^{p} 1 / prod_{n=1}^{k-1} 2 Z_n (so that dZ_p/dc = lambda beta and
//            s = 1 / (lambda dZ_p/dc)): near c0 the minibrot is the Mandelbrot set scaled by |s|
//            and turned by arg s, c = c0 + s c' (mandelbrot-numerics' m_d_size).
// Cost: the search is one orbit of p iterations at the disc's precision; Newton takes (mostly)
// two or three orbits of p iterations at up to the minibrot's precision (tests/fractal/nucleus/
// test_nucleus_bench.cpp measures both against the reference orbit).
// Only the Mandelbrot set (its parameter plane); find_minibrot refuses the rest with a sentence.
// Nothing here touches a GPU or a window: the CLI (app/modes/cmd_nucleus.cpp), render
// --to-minibrot and the window's Newton zoom all call find_minibrot.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "compute/fractal/numbers/floatexp.h"
#include "compute/fractal/view/deep_location.h"

namespace ms {

struct NucleusSearch {
    int64_t max_period = 0;    // 0: the location's max_iterations
    int64_t after_period = 0;  // "next period": only periods > this
    int64_t period = 0;        // > 0: no search; Newton for exactly this period
    int64_t extra_bits = 0;    // the nucleus to this many more bits than framing the minibrot needs
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(const char* stage, double fraction)> progress;  // optional, any thread
};

struct Minibrot {
    bool found = false;
    std::string failure;  // one sentence when !found (cancelled: "cancelled")
    int64_t period = 0;
    std::string center_re, center_im;  // the nucleus, decimal text to the precision used
    int64_t precision_bits = 0;
    DeepZoom size_zoom{};  // the zoom at which the minibrot's size fills the frame's half height (no margin)
    double angle = 0.0;    // orientation, radians (arg s)
    FloatExp size{};       // |s|, plane units: the minibrot is the Mandelbrot set scaled by this
    int newton_steps = 0;
    double period_ms = 0.0, newton_ms = 0.0;
};

// Empty when find_minibrot can look around `location`, else the sentence it fails with.
std::string minibrot_support(const DeepLocation& location);

// Looks in the disc of `radius` (plane units) around the location's centre (formula, max_iterations from it).
Minibrot find_minibrot(const DeepLocation& around, FloatExp radius, const NucleusSearch& search = {});
// Zoom framing the minibrot with `margin` (>1: that many times its size).
DeepZoom minibrot_frame_zoom(const Minibrot& m, double margin = 2.0);
// A fraction of the way from `from` to `to` in log zoom (0.5: the geometric mean: the embedded Julia set).
DeepZoom zoom_fraction(DeepZoom from, DeepZoom to, double fraction);
// Iterations that draw a minibrot of period p where a view frames it or its embedded Julia set:
// near it a point's orbit shadows the nucleus's cycle, so escape takes whole multiples of p, and
// kMinibrotCycles of them draw the copy's outline and bulbs as that many iterations draw the
// whole set's. At least `current`, at most kDeepMaxIterations.
inline constexpr int64_t kMinibrotCycles = 100;
int64_t minibrot_iterations(const Minibrot& m, int64_t current);

}  // namespace ms
