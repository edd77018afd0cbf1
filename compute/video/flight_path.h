// flight_path.h: the camera's way from one keyframe to the next, as van Wijk and Nuij's optimal
// zoom-and-pan path ("Smooth and efficient zooming and panning", InfoVis 2003).
//
// The camera is (u, w): u its position along the straight line from centre c0 to centre c1
// (u0 = 0, u1 = |c1 - c0|), w the width of the image in the plane (4 * aspect / zoom). The path
// that is shortest in their metric, with rho trading zooming against panning (rho^2 = 2 is the
// "optimal" of their user study; kFlightRho), has the closed forms, with s its arc length:
//     b_i = (w1^2 - w0^2 + (-1)^i rho^4 u1^2) / (2 w_i rho^2 u1),  r_i = -asinh(b_i)
//     S   = (r1 - r0) / rho
//     w(s) = w0 cosh(r0) / cosh(rho s + r0)
//     u(s) = w0 / rho^2 * (cosh(r0) tanh(rho s + r0) - sinh(r0)) = w0 / rho^2 * sinh(rho s) / cosh(rho s + r0)
// and, for a pure zoom (u1 = 0), w(s) = w0 e^(+-rho s), S = |ln(w1 / w0)| / rho. The camera moves
// at a constant speed in that metric, so the segment's time maps linearly to s. The centre moves
// monotonically along the line; the zoom is monotone when the target is roughly inside the
// first view (rho^4 u1^2 <= |w0^2 - w1^2|), else the camera climbs (zooms out) to pan, as a flight.
//
// Deep zooms: w is 1e-1000 and smaller, u1 far below a double's resolution of the centre. So
//   - the formulas are written in logarithms (ln w, ln u1; cosh, sinh and the b_i through
//     FloatExp and log-cosh), which no depth overflows, and u(s) as the rewritten sinh/cosh ratio,
//     which has no cancellation;
//   - the centre is c0 + sigma (c1 - c0) with sigma = u / u1 in [0, 1], from the nearer end: for
//     the second half c1 - (1 - sigma)(c1 - c0), where 1 - sigma comes from the same formulas run
//     backwards (the reversed path is the same path). The difference c1 - c0 is exact decimal
//     arithmetic on the centre texts; the offset is rounded once, to a ten-thousandth of the
//     frame's pixel (deep_navigation.h's rule), and added to the end's text exactly.
// So the path starts and ends exactly at the keyframes (their texts verbatim) at any depth.
#pragma once

#include <string>

#include "compute/fractal/view/view.h"
#include "compute/system/number_text.h"
#include "compute/video/keyframes.h"

namespace ms {

inline constexpr double kFlightRho = 1.4142135623730951;  // sqrt(2), van Wijk and Nuij's optimum

// One segment, from keyframe a to keyframe b, precomputed by make_flight_path.
struct FlightPath {
    Keyframe a, b;
    int width = 0, height = 0;  // pixels of the frames (the aspect ratio sets w; the height, the digits)
    double rho = kFlightRho;
    DecimalNumber d_re, d_im;  // c1 - c0, exact
    bool centres_equal = false;
    double ln_w0 = 0.0, ln_w1 = 0.0;  // ln of the image width in the plane at each end
    double ln_u1 = 0.0;               // ln |c1 - c0| (unused when the centres are equal)
    double r0 = 0.0, r1 = 0.0;
    double length = 0.0;  // S: the path's length in the metric (0 when a and b are one camera)
};

// "" or one sentence (a centre that number_text.h's grammar refuses, rho <= 0, a size of 0).
std::string make_flight_path(const Keyframe& a, const Keyframe& b, int width, int height, double rho,
                             FlightPath* out);

// The camera at fraction f in [0, 1] of the segment (its time share): s = f * S.
struct FlightPoint {
    std::string center_re, center_im;  // decimal text (the keyframe's verbatim at f = 0 and 1)
    ViewZoom zoom;
    double log10_zoom = 0.0;
    double pan_fraction = 0.0;  // sigma = u(s) / u1 in [0, 1] (0 when the centres are equal)
};
FlightPoint flight_point(const FlightPath& path, double f);

// log10 of the zoom at fraction f, and sigma at f, without building the centre texts (cheap:
// the scrubbing preview and the tests' curves).
double flight_log10_zoom(const FlightPath& path, double f);
double flight_pan_fraction(const FlightPath& path, double f);

// A zoom from its decimal logarithm: the exact double zoom (ViewZoom(double)) while it fits a
// double, the DeepZoom beyond.
ViewZoom view_zoom_from_log10(double log10_zoom);

}  // namespace ms
