// view.cpp: view geometry, precision choice and validation (see view.h for the conventions).
#include "compute/fractal/view/view.h"

#include "compute/system/number_text.h"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
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

// The shortest text of a double that reads back to it (1 to 17 significant digits), written
// as %g would with that many digits, except that whole numbers below 1e17 keep their digits
// ("300", not "3e+02", as %.17g prints them).
std::string shortest_text(double x) {
    char text[400];
    int digits = 1;
    for (; digits < 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, x);
        if (std::strtod(text, nullptr) == x) break;
    }
    const double magnitude = std::fabs(x);
    if (magnitude >= 1.0 && magnitude < 1e17) digits = std::max(digits, int(std::floor(std::log10(magnitude))) + 1);
    std::snprintf(text, sizeof text, "%.*g", digits, x);
    return text;
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

// --- ViewZoom ------------------------------------------------------------------------------
// value_ and deep_ describe one number: a zoom made from a double keeps it exactly in value_
// and takes deep_ from its shortest decimal text (so 1e50 is {1, 50}, not {0.99999..., 50});
// a zoom parsed from text takes value_ from the text (correctly rounded by strtod) while the
// text fits a double, and deep_ from the text always.

ViewZoom::ViewZoom(double zoom) : value_(zoom) {
    // A double outside DeepZoom's range (a subnormal) keeps an unnormalised deep_ too.
    if (!(std::isfinite(zoom) && zoom > 0.0) || !parse_deep_zoom(shortest_text(zoom), &deep_).empty()) {
        deep_ = DeepZoom{zoom, 0};  // not normalised: is_valid() is false, validate_view says so
    }
}

ViewZoom ViewZoom::from_deep(DeepZoom zoom) {
    ViewZoom z;
    z.deep_ = zoom;
    z.value_ = zoom.exponent10 <= 308 ? std::strtod(format_deep_zoom(zoom).c_str(), nullptr) : HUGE_VAL;
    return z;
}

std::string ViewZoom::parse(const std::string& text, ViewZoom* out) {
    DeepZoom deep;
    if (std::string problem = parse_deep_zoom(text, &deep); !problem.empty()) return problem;
    out->deep_ = deep;
    out->value_ = deep.exponent10 <= 308 ? std::strtod(text.c_str(), nullptr) : HUGE_VAL;
    return {};
}

bool ViewZoom::fits_double() const { return std::isfinite(value_); }

bool ViewZoom::is_valid() const {
    return deep_.mantissa >= 1.0 && deep_.mantissa < 10.0 && deep_.exponent10 <= kDeepZoomMaxExponent10 &&
           deep_.exponent10 >= kDeepZoomMinExponent10 && value_ > 0.0;
}

double ViewZoom::log10() const { return double(deep_.exponent10) + std::log10(deep_.mantissa); }

std::string ViewZoom::text() const {
    if (!is_valid()) return shortest_text(value_);
    return fits_double() ? shortest_text(value_) : format_deep_zoom(deep_);
}

bool operator==(const ViewZoom& a, const ViewZoom& b) {
    if (a.fits_double() || b.fits_double()) return a.value_ == b.value_;
    return a.deep_ == b.deep_;
}

// --- View ----------------------------------------------------------------------------------

double center_re_value(const View& view) { return parse_coordinate(view.center_re, "real"); }
double center_im_value(const View& view) { return parse_coordinate(view.center_im, "imaginary"); }
double julia_re_value(const View& view) { return parse_coordinate(view.julia_re, "real", "the Julia parameter's"); }
double julia_im_value(const View& view) {
    return parse_coordinate(view.julia_im, "imaginary", "the Julia parameter's");
}

double pixel_step(const View& view) { return 4.0 / (view.zoom.value() * view.height); }

PixelRect full_rect(const View& view) { return {0, 0, view.width, view.height}; }

PixelRect resolve_rect(const View& view, PixelRect rect) {
    if (rect.width == 0) rect.width = view.width - rect.x;
    if (rect.height == 0) rect.height = view.height - rect.y;
    if (rect.x < 0 || rect.y < 0 || rect.width <= 0 || rect.height <= 0 || rect.x + rect.width > view.width ||
        rect.y + rect.height > view.height)
        throw std::invalid_argument("pixel rectangle lies outside the image");
    return rect;
}

bool fp32_resolves(const View& view) { return pixel_step(view) >= kMinUlpsPerPixel * ulp_near<float>(view); }
bool fp64_resolves(const View& view) { return pixel_step(view) >= kMinUlpsPerPixel * ulp_near<double>(view); }

Precision resolve_precision(const View& view, Precision requested) {
    if (requested != Precision::Auto) return requested;
    if (view.max_iterations <= kMaxDirectIterations) {
        if (fp32_resolves(view)) return Precision::Fp32;
        if (fp64_resolves(view)) return Precision::Fp64;
    }
    // The pixel step in extended range (pixel_step() is 0 past double's range). The deep path
    // itself falls back to FloatExp where the reference orbit does not fit double (deep_cpu.h).
    const FloatExp step = deep_pixel_spacing(view.zoom.deep(), view.height);
    return step >= fe_from_double(kDeepDoubleMinStep) ? Precision::DeepDouble : Precision::DeepFloatExp;
}

Precision resolve_direct_precision(const View& view, Precision requested) {
    if (requested == Precision::Fp32 || requested == Precision::Fp64) return requested;
    if (requested == Precision::Auto && fp32_resolves(view)) return Precision::Fp32;
    return Precision::Fp64;
}

bool is_deep(Precision precision) { return precision == Precision::DeepDouble || precision == Precision::DeepFloatExp; }

const char* precision_name(Precision precision) {
    switch (precision) {
    case Precision::Auto: return "auto";
    case Precision::Fp32: return "fp32";
    case Precision::Fp64: return "fp64";
    case Precision::DeepDouble: return "deep-double";
    case Precision::DeepFloatExp: return "deep-floatexp";
    }
    return "?";
}

bool precision_from_name(const std::string& name, Precision* out) {
    for (Precision p :
         {Precision::Auto, Precision::Fp32, Precision::Fp64, Precision::DeepDouble, Precision::DeepFloatExp})
        if (name == precision_name(p)) {
            *out = p;
            return true;
        }
    return false;
}

DeepLocation deep_location(const View& view) {
    DeepLocation location;
    location.center_re = view.center_re;
    location.center_im = view.center_im;
    location.zoom = view.zoom.deep();
    location.max_iterations = view.max_iterations;
    location.formula = view.formula;
    location.julia = view.julia;
    location.julia_re = view.julia_re;
    location.julia_im = view.julia_im;
    return location;
}

int direct_iterations(const View& view) {
    if (view.max_iterations < 1 || view.max_iterations > kMaxDirectIterations)
        throw std::invalid_argument("the direct FP32/FP64 kernels count at most " +
                                    std::to_string(kMaxDirectIterations) + " iterations (got " +
                                    std::to_string(view.max_iterations) + "); more run on the deep path");
    return int(view.max_iterations);
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
        return "the image size must be at least 1x1 pixels (got " + std::to_string(view.width) + "x" +
               std::to_string(view.height) + ")";
    if (view.max_iterations < 1 || view.max_iterations > kDeepMaxIterations)
        return "the iteration count must be between 1 and " + std::to_string(kDeepMaxIterations) + " (got " +
               std::to_string(view.max_iterations) + ")";
    if (!view.zoom.is_valid() || (view.zoom.fits_double() && !(view.zoom.value() >= kMinZoom))) {
        char text[160];
        std::snprintf(text, sizeof text, "the zoom must be between %g and 1E%lld (got %s)", kMinZoom,
                      (long long)kDeepZoomMaxExponent10, view.zoom.text().c_str());
        return text;
    }
    for (const std::string* part : {&view.center_re, &view.center_im})
        if (part->size() > kDeepCenterMaxChars)
            return "the centre has a part of " + std::to_string(part->size()) + " characters, more than the limit of " +
                   std::to_string(kDeepCenterMaxChars);
    if (!std::isfinite(view.palette_offset) || !std::isfinite(view.palette_density))
        return "the palette offset and density must be finite numbers";
    if (std::string problem = validate_colouring(view.colouring); !problem.empty()) return problem;
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

std::string deep_view_colouring_problem(const View& view) {
    // Every formula and Julia set has the deep distance estimate (deep_derivative.h): what is
    // refused is the colouring's, whatever the formula.
    return deep_colouring_problem(view.colouring);
}

bool drop_deep_unavailable_view_colouring(View* view) {
    const bool dropped = !deep_view_colouring_problem(*view).empty();
    drop_deep_unavailable_colouring(&view->colouring);
    return dropped;
}

std::string validate_double_view(const View& view) {
    if (std::string problem = validate_view(view); !problem.empty()) return problem;
    if (!(view.zoom.value() <= kMaxDoubleZoom)) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "the zoom %s is deeper than the window can navigate yet (%g); mandelscope render draws it",
                      view.zoom.text().c_str(), kMaxDoubleZoom);
        return text;
    }
    return {};
}

bool palette_name_is_plain(const std::string& name) {
    return !name.empty() && name.size() <= 64 && name.front() != '-' &&
           std::all_of(name.begin(), name.end(), [](char ch) {
               return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                      ch == '-';
           });
}

std::string palette_name_problem(const std::string& name) {
    std::string shown = name.size() > 64 ? name.substr(0, 64) + "..." : name;
    return "'" + shown +
           "' is not a palette name (letters, digits, '-' and '_' only: a file in assets/palettes/; "
           "use --palette-file for a file elsewhere)";
}

}  // namespace ms
