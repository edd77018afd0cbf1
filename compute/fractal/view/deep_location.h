// deep_location.h: where a deep view looks, in numbers that do not run out.
//
// DeepLocation is the deep sibling of View (compute/view.h): the centre stays full decimal
// text (its digits grow with the depth), the zoom is a decimal mantissa and a 64-bit decimal
// exponent, and iterations are 64-bit. It uses View's conventions (Kalles Fraktaler's): half the
// image height spans 2/zoom, so the pixel spacing is 4 / (zoom * height), pixel (x, y) samples
// its centre, y = 0 is the top row. It also names the map iterated (formula.h: Mandelbrot,
// Multibrot 3..8, Burning Ship, Tricorn) and whether the view draws its Julia set of a fixed c
// (full decimal text, like the centre). Nothing here depends on View (view.h's deep_location()
// makes one from a View).
//
// Text forms (what --zoom, .kfr files and PNG metadata carry):
//   zoom   "4.00000000000E533", "1e50", "5.0E-1", "250": a positive decimal number with an
//          optional exponent; printed as 12 significant digits, "E", the exponent (KF's form),
//          with more digits only where 12 would not read back to the same value.
// Limits: zoom in [1e-10, 1e60000]; a centre of at most 65,536 characters; iterations in
// [1, 10^11]. Each parse error is one sentence.
#pragma once

#include <cstdint>
#include <string>

#include "compute/fractal/numbers/floatexp.h"
#include "compute/fractal/view/formula.h"

namespace ms {

inline constexpr int64_t kDeepZoomMaxExponent10 = 60000;
inline constexpr int64_t kDeepZoomMinExponent10 = -10;
inline constexpr size_t kDeepCenterMaxChars = 65536;
inline constexpr int64_t kDeepMaxIterations = 100000000000;  // 1e11

// value = mantissa * 10^exponent10 with 1 <= mantissa < 10.
struct DeepZoom {
    double mantissa = 1.0;
    int64_t exponent10 = 0;
};

struct DeepLocation {
    std::string center_re = "-0.75";  // full decimal text, kept verbatim
    std::string center_im = "0";
    DeepZoom zoom{};
    int64_t max_iterations = 1000;
    Formula formula = Formula::Mandelbrot;
    bool julia = false;          // false: c = pixel, z_0 = 0; true: z_0 = pixel, c = julia_re/im
    std::string julia_re = "0";  // the Julia parameter c, full decimal text
    std::string julia_im = "0";
};

// Empty string on success, else one sentence (the input is quoted, cut to 40 characters).
std::string parse_deep_zoom(const std::string& text, DeepZoom* out);
std::string format_deep_zoom(DeepZoom zoom);
std::string check_deep_center(const std::string& text, const char* which);  // "real" / "imaginary"
std::string parse_deep_iterations(const std::string& text, int64_t* out);
// The whole location: centre texts (and the Julia c's), zoom range, iterations.
std::string validate_deep_location(const DeepLocation& location);

// log2(zoom) (as double: exact enough to size precisions and pick number types).
double deep_zoom_log2(DeepZoom zoom);
// 4 / (zoom * height), the pixel spacing, in extended range.
FloatExp deep_pixel_spacing(DeepZoom zoom, int height);
// Half the diagonal of a width x height image at `zoom`, in the plane's units: how far its corners
// are from its centre.
FloatExp deep_half_diagonal(DeepZoom zoom, int width, int height);
// Zoom from a double (shallow views: View's zoom).
DeepZoom deep_zoom_from_double(double zoom);

bool operator==(const DeepZoom& a, const DeepZoom& b);

}  // namespace ms
