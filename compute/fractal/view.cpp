// view.cpp: view geometry, precision choice and validation (see view.h for the conventions).
#include "compute/fractal/view.h"

#include "compute/system/number_text.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace ms {

namespace {

double parse_coordinate(const std::string& text, const char* what, const char* whose = "the centre's") {
    if (text.empty()) throw std::invalid_argument(std::string(whose) + " " + what + " part is empty");
    double value = 0.0;
    if (std::string problem = parse_finite_double(text, &value); !problem.empty())
        throw std::invalid_argument(std::string(whose) + " " + what + " part: " + problem);
    return value;
}

// Spacing of floating-point numbers near the largest coordinate the orbit visits: |c| and the
// escape region (|z| up to 2) both matter, so never less than 2.
template <typename T>
double ulp_near(const View& view) {
    double magnitude = std::max({std::fabs(center_re_value(view)), std::fabs(center_im_value(view)), 2.0});
    return magnitude * std::numeric_limits<T>::epsilon();
}

// A precision "resolves" a view while neighbouring pixels are at least this many ulps apart:
// with fewer, rounding merges neighbours and the picture turns blocky.
constexpr double kMinUlpsPerPixel = 8.0;

}  // namespace

double center_re_value(const View& view) { return parse_coordinate(view.center_re, "real"); }
double center_im_value(const View& view) { return parse_coordinate(view.center_im, "imaginary"); }
double julia_re_value(const View& view) { return parse_coordinate(view.julia_re, "real", "the Julia parameter's"); }
double julia_im_value(const View& view) { return parse_coordinate(view.julia_im, "imaginary", "the Julia parameter's"); }

double pixel_step(const View& view) { return 4.0 / (view.zoom * view.height); }

PixelRect full_rect(const View& view) { return {0, 0, view.width, view.height}; }

PixelRect resolve_rect(const View& view, PixelRect rect) {
    if (rect.width == 0) rect.width = view.width - rect.x;
    if (rect.height == 0) rect.height = view.height - rect.y;
    if (rect.x < 0 || rect.y < 0 || rect.width <= 0 || rect.height <= 0 ||
        rect.x + rect.width > view.width || rect.y + rect.height > view.height)
        throw std::invalid_argument("pixel rectangle lies outside the image");
    return rect;
}

bool fp32_resolves(const View& view) { return pixel_step(view) >= kMinUlpsPerPixel * ulp_near<float>(view); }
bool fp64_resolves(const View& view) { return pixel_step(view) >= kMinUlpsPerPixel * ulp_near<double>(view); }

Precision resolve_precision(const View& view, Precision requested) {
    if (requested != Precision::Auto) return requested;
    return fp32_resolves(view) ? Precision::Fp32 : Precision::Fp64;
}

const char* precision_name(Precision precision) {
    switch (precision) {
        case Precision::Auto: return "auto";
        case Precision::Fp32: return "fp32";
        case Precision::Fp64: return "fp64";
    }
    return "?";
}

std::string parse_center_option(const std::string& text, std::string* re, std::string* im) {
    const size_t comma = text.find(',');
    if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
        return "the centre '" + (text.size() > 60 ? text.substr(0, 60) + "..." : text) +
               "' is not of the form RE,IM (for example --center=-0.75,0)";
    View probe;
    probe.center_re = text.substr(0, comma);
    probe.center_im = text.substr(comma + 1);
    try {
        center_re_value(probe);
        center_im_value(probe);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    *re = probe.center_re;
    *im = probe.center_im;
    return {};
}

std::string parse_julia_option(const std::string& text, std::string* re, std::string* im) {
    const size_t comma = text.find(',');
    if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos)
        return "the Julia parameter '" + (text.size() > 60 ? text.substr(0, 60) + "..." : text) +
               "' is not of the form RE,IM (for example --julia=-0.8,0.156)";
    View probe;
    probe.julia_re = text.substr(0, comma);
    probe.julia_im = text.substr(comma + 1);
    try {
        julia_re_value(probe);
        julia_im_value(probe);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    *re = probe.julia_re;
    *im = probe.julia_im;
    return {};
}

std::string validate_view(const View& view) {
    if (view.width <= 0 || view.height <= 0)
        return "the image size must be at least 1x1 pixels (got " + std::to_string(view.width) +
               "x" + std::to_string(view.height) + ")";
    if (view.max_iterations <= 0)
        return "the iteration count must be at least 1 (got " + std::to_string(view.max_iterations) + ")";
    if (!(view.zoom >= kMinZoom && view.zoom <= kMaxZoom)) {
        char text[160];
        std::snprintf(text, sizeof text, "the zoom must be between %g and %g (got %g)", kMinZoom, kMaxZoom, view.zoom);
        return text;
    }
    if (!std::isfinite(view.palette_offset) || !std::isfinite(view.palette_density))
        return "the palette offset and density must be finite numbers";
    try {
        center_re_value(view);
        center_im_value(view);
        if (view.julia) {
            julia_re_value(view);
            julia_im_value(view);
        }
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    if (static_cast<int>(view.formula) >= kFormulaCount) return "the formula is not one of " + formula_names();
    return {};
}

}  // namespace ms
