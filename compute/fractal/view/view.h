// view.h: where the camera looks in the complex plane, and the pixel grid it samples.
//
// Convention of Kalles Fraktaler's location files: half of the image *height* spans 2/zoom in
// the complex plane, so zoom 1 shows the imaginary range [-2, 2] and the pixel spacing is
// 4 / (zoom * height). Pixel (x, y) samples its centre; y = 0 is the top row and the imaginary
// axis points up:
//     c = centre + ((x + 0.5 - width/2) * step, -(y + 0.5 - height/2) * step)
//
// The centre is kept as the user's full decimal text (center_re, center_im) so that the deep
// path (compute/fractal/deep/) takes it over without loss; center_re_value() parses it to
// double. Its grammar is compute/number_text.h's, the same for every mode and for the PNG reader.
// The zoom is extended-range (ViewZoom: up to 1e60000) and iterations are 64-bit, so one View
// describes shallow and deep views alike; deep_location() hands a view to the deep path.
#pragma once

#include <cstdint>
#include <string>

#include "compute/fractal/view/colouring.h"
#include "compute/fractal/view/deep_location.h"
#include "compute/fractal/view/formula.h"

namespace ms {

// The paths a view can render in. Fp32 and Fp64 are the direct kernels (direct.h); the
// two Deep ones are perturbation against an MPFR reference orbit (deep/deep_cpu.h) with double
// deltas or with FloatExp deltas (no underflow past 1e-308).
enum class Precision { Auto, Fp32, Fp64, DeepDouble, DeepFloatExp };

// The default view is the classic full frame: at 16:9 the real axis runs from -2 to 1 (the
// frame of the reference figures in ../shared/gpu/README.md: at 4K and 1,000 iterations it
// averages 306 iterations per pixel). zoom = (4 / 3) * (16 / 9) = 2.370370...
inline constexpr double kDefaultZoom = 64.0 / 27.0;

// Zoom limits, the same in every mode (validate_view checks them): below kMinZoom the set is a
// dot; the deepest zoom is DeepLocation's, 1E60000 (kDeepZoomMaxExponent10). Navigation in
// double (the window's, render/frame/view_math.cpp) stops at kMaxDoubleZoom, where the pixel
// step is about to leave double's range.
inline constexpr double kMinZoom = 1e-3;
inline constexpr double kMaxDoubleZoom = 1e300;

// The direct kernels count iterations in int: views with more run on the deep path.
inline constexpr int64_t kMaxDirectIterations = int64_t(1) << 30;

// A view's zoom: an extended-range value (a DeepZoom, decimal mantissa and exponent) that also
// keeps the exact double of every zoom a double can hold, so that shallow views compute,
// compare and print exactly as with a plain double zoom.
//   value()  the double (exact for a zoom made from a double; +inf past double's range)
//   deep()   the extended value, what the deep path uses
//   text()   "2.3703703703703702", "1e+50", "4.00000000000E533": reads back (parse) to the same
//            zoom; shallow zooms print the shortest decimal that reads back to their double
class ViewZoom {
public:
    ViewZoom() : ViewZoom(kDefaultZoom) {}
    ViewZoom(double zoom);  // implicit: a double zoom is a ViewZoom (NaN or <= 0 fail validation)
    static ViewZoom from_deep(DeepZoom zoom);
    // "" on success, else one sentence (deep_location.h's grammar and range).
    static std::string parse(const std::string& text, ViewZoom* out);

    double value() const { return value_; }
    DeepZoom deep() const { return deep_; }
    bool fits_double() const;  // value() is finite
    bool is_valid() const;     // positive, finite, mantissa normalised
    double log10() const;      // decimal exponent, as a double (for choosing paths)
    std::string text() const;

    friend bool operator==(const ViewZoom& a, const ViewZoom& b);

private:
    double value_ = 0.0;
    DeepZoom deep_{};
};

struct View {
    std::string center_re = "-0.5";  // full decimal text, kept verbatim
    std::string center_im = "0";
    ViewZoom zoom = kDefaultZoom;           // half the image height spans 2/zoom
    int width = 1280;                       // pixels
    int height = 720;                       // pixels
    int64_t max_iterations = 1000;          // 1 .. kDeepMaxIterations (the direct kernels: kMaxDirectIterations)
    std::string palette = "classic";        // a file name (without .txt) in assets/palettes/
    double palette_offset = 0.0;            // phase, in palette cycles (0..1 wraps)
    double palette_density = 1.0;           // palette cycles per 100 iterations of the smooth count
    Colouring colouring;                    // methods and layers beyond the plain palette (colouring.h)
    Formula formula = Formula::Mandelbrot;  // the map iterated (formula.h)
    bool julia = false;                     // false: c = pixel, z_0 = 0; true: z_0 = pixel, c = julia_re/im
    std::string julia_re = "0";             // the Julia parameter c, full decimal text like the centre
    std::string julia_im = "0";
};

// A sub-rectangle of a view's pixel grid: tiles of a large export, or rows of a progressive
// render. width or height 0 means "the whole image".
struct PixelRect {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
};

double center_re_value(const View& view);  // parsed centre (throws std::invalid_argument)
double center_im_value(const View& view);
double julia_re_value(const View& view);  // parsed Julia c (throws std::invalid_argument)
double julia_im_value(const View& view);
double pixel_step(const View& view);                       // 4 / (zoom * height); 0 past double's range
PixelRect full_rect(const View& view);                     // {0, 0, width, height}
PixelRect resolve_rect(const View& view, PixelRect rect);  // expands 0 sizes, checks bounds

// Precision: FP32 is used only while it resolves every pixel, i.e. while the pixel step is
// well above FP32's spacing of numbers near the centre; FP64 likewise. resolve_precision()
// turns Auto into the cheapest path that resolves the view, by depth: Fp32, Fp64, then
// perturbation with double deltas (pixel step down to kDeepDoubleMinStep), then FloatExp
// deltas. Views with more than kMaxDirectIterations iterations skip the direct kernels.
// resolve_direct_precision() is the choice among the direct kernels alone (Fp32 or Fp64; a
// deep request becomes Fp64), for the callers that have no deep path (the window, until it
// gets one): where fp64_resolves() is false their picture comes out blocky and they say so.
inline constexpr double kDeepDoubleMinStep = 1e-290;
bool fp32_resolves(const View& view);
bool fp64_resolves(const View& view);
Precision resolve_precision(const View& view, Precision requested);
Precision resolve_direct_precision(const View& view, Precision requested);
bool is_deep(Precision precision);  // DeepDouble or DeepFloatExp
// "auto", "fp32", "fp64", "deep-double", "deep-floatexp"; precision_from_name is its inverse
// (false for an unknown name).
const char* precision_name(Precision precision);
bool precision_from_name(const std::string& name, Precision* out);

// The view as the deep path takes it (centre text, extended zoom, iterations).
DeepLocation deep_location(const View& view);
// The iterations as the direct kernels count them; throws std::invalid_argument with a sentence
// past kMaxDirectIterations.
int direct_iterations(const View& view);

// "RE,IM" as the command line gives it (--center in every mode): exactly one comma, each part
// kept verbatim and checked by the decimal grammar (no spaces). Returns "" or one sentence.
std::string parse_center_option(const std::string& text, std::string* re, std::string* im);

// "RE,IM" for --julia: the same grammar as the centre's. Returns "" or one sentence.
std::string parse_julia_option(const std::string& text, std::string* re, std::string* im);

// Checks a view for use: sizes > 0, iterations in [1, kDeepMaxIterations], zoom in
// [kMinZoom, 1E60000], centre (and, for a Julia view, the parameter c) parses (decimal text of
// at most kDeepCenterMaxChars characters, finite as a double).
// Returns an empty string when valid, else one sentence saying what is wrong.
std::string validate_view(const View& view);

// The orbit-feature layers (distance estimate, stripes, period interior: colouring.h) colour
// every formula and Julia set on the direct kernels. Past FP64 (the deep path) there are no
// stripes nor period interior (deep_colouring_problem); the distance estimate is there for every
// formula and Julia set too: "" or one sentence for what the deep path cannot give.
std::string deep_view_colouring_problem(const View& view);
// Drops what deep_view_colouring_problem refuses (stripe base to smooth, period interior to
// flat): the window's way when a view goes past FP64. Returns whether anything was dropped.
bool drop_deep_unavailable_view_colouring(View* view);
// validate_view, and the zoom within what double navigation reaches (kMaxDoubleZoom): the
// window's check until it navigates in MPFR.
std::string validate_double_view(const View& view);

// The view names its palette; only a plain name (letters, digits, '-', '_': a file in
// assets/palettes/) is accepted, so a name from a PNG or the command line never reaches the file
// system as a path. palette_name_problem is the sentence for a name that is not plain.
bool palette_name_is_plain(const std::string& name);
std::string palette_name_problem(const std::string& name);

}  // namespace ms
