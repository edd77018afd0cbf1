// deep_navigation.h: moving a view's centre and zoom at any depth, in exact arithmetic.
//
// The window's navigation (render/frame/view_math.h) moves the centre by some pixels and scales
// the zoom. Past FP64 a pixel is far below a double's resolution of the centre (at zoom 1e500 a
// pixel spans ~1e-503, the centre is ~1), and even the pixel spacing underflows a double past
// 1e308. So the offset is computed here in MPFR, from the zoom's decimal exponent, and added to
// the centre's decimal text exactly (compute/system/number_text.h):
//     centre + round(pixels * spacing, fraction_digits),  spacing = 4 / (zoom * height)
// Every digit of the old centre is kept, and the text grows only to a ten-thousandth of a pixel
// (deep_center_fraction_digits), so the digits grow with the depth and no further.
// The reverse, how far apart two centres are in pixels (the preview of the last frame under a
// moved view), subtracts the texts exactly before the one rounding to double.
#pragma once

#include <cstdint>
#include <string>

#include "compute/fractal/view/deep_location.h"

namespace ms {

// Digits after the point a centre needs at (zoom, height): a ten-thousandth of a pixel.
// ceil(log10(zoom * height / 4)) + 4, at least 0.
int64_t deep_center_fraction_digits(DeepZoom zoom, int height);

// text + round(pixels * 4 / (zoom * height), fraction_digits), exact in decimal (the one
// rounding is the offset's, to fraction_digits digits after the point). Accepts the decimal
// grammar of number_text.h; prints plain fixed-point text. Throws std::invalid_argument with a
// sentence on a malformed text or a non-finite `pixels`.
std::string deep_offset_decimal(const std::string& text, double pixels, DeepZoom zoom, int height,
                                int64_t fraction_digits);

// (a - b) / (4 / (zoom * height)): how many pixels apart two centre coordinates are. The
// difference is exact; the result is its one rounding to double (+-inf when beyond double).
// Throws std::invalid_argument on a malformed text.
double deep_decimal_difference_pixels(const std::string& a, const std::string& b, DeepZoom zoom, int height);

// zoom * factor (factor > 0 and finite), normalised; zoom / other as a double (0 or inf where
// the ratio leaves double's range).
DeepZoom deep_zoom_scaled(DeepZoom zoom, double factor);
double deep_zoom_ratio(DeepZoom zoom, DeepZoom other);
// -1, 0, 1 as zoom <, ==, > other.
int deep_zoom_compare(DeepZoom zoom, DeepZoom other);

}  // namespace ms
