// view.h: where the camera looks in the complex plane, and the pixel grid it samples.
//
// Convention of Kalles Fraktaler's location files: half of the image *height* spans 2/zoom in
// the complex plane, so zoom 1 shows the imaginary range [-2, 2] and the pixel spacing is
// 4 / (zoom * height). Pixel (x, y) samples its centre; y = 0 is the top row and the imaginary
// axis points up:
//     c = centre + ((x + 0.5 - width/2) * step, -(y + 0.5 - height/2) * step)
//
// The centre is kept as the user's full decimal text (center_re, center_im) so that a later
// high-precision path can take it over without loss; center_re_value() parses it to double.
// Its grammar is compute/number_text.h's, the same for every mode and for the PNG reader.
#pragma once

#include <cstdint>
#include <string>

#include "compute/fractal/formula.h"

namespace ms {

enum class Precision { Auto, Fp32, Fp64 };

// The default view is the classic full frame: at 16:9 the real axis runs from -2 to 1 (the
// frame of the reference figures in ../shared/gpu/README.md: at 4K and 1,000 iterations it
// averages 306 iterations per pixel). zoom = (4 / 3) * (16 / 9) = 2.370370...
inline constexpr double kDefaultZoom = 64.0 / 27.0;

// Zoom limits, the same in every mode (validate_view checks them): below kMinZoom the set is a
// dot; past kMaxZoom the pixel step leaves double's range long after FP64 stopped resolving
// pixels (the window and `render` say so well before).
inline constexpr double kMinZoom = 1e-3;
inline constexpr double kMaxZoom = 1e300;

struct View {
    std::string center_re = "-0.5";   // full decimal text, kept verbatim
    std::string center_im = "0";
    double zoom = kDefaultZoom;       // half the image height spans 2/zoom
    int width = 1280;                 // pixels
    int height = 720;                 // pixels
    int max_iterations = 1000;
    std::string palette = "classic";  // a file name (without .txt) in assets/palettes/
    double palette_offset = 0.0;      // phase, in palette cycles (0..1 wraps)
    double palette_density = 1.0;     // palette cycles per 100 iterations of the smooth count
    Formula formula = Formula::Mandelbrot;  // the map iterated (formula.h)
    bool julia = false;               // false: c = pixel, z_0 = 0; true: z_0 = pixel, c = julia_re/im
    std::string julia_re = "0";       // the Julia parameter c, full decimal text like the centre
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

double center_re_value(const View& view);           // parsed centre (throws std::invalid_argument)
double center_im_value(const View& view);
double julia_re_value(const View& view);            // parsed Julia c (throws std::invalid_argument)
double julia_im_value(const View& view);
double pixel_step(const View& view);                 // 4 / (zoom * height)
PixelRect full_rect(const View& view);               // {0, 0, width, height}
PixelRect resolve_rect(const View& view, PixelRect rect);  // expands 0 sizes, checks bounds

// Precision: FP32 is used only while it resolves every pixel, i.e. while the pixel step is
// well above FP32's spacing of numbers near the centre; FP64 likewise. resolve_precision()
// turns Auto into Fp32 or Fp64; beyond_fp64() says when even FP64 cannot separate neighbouring
// pixels (the picture would come out blocky: callers say so instead).
bool fp32_resolves(const View& view);
bool fp64_resolves(const View& view);
Precision resolve_precision(const View& view, Precision requested);
const char* precision_name(Precision precision);   // "auto", "fp32", "fp64"

// "RE,IM" as the command line gives it (--center in every mode): exactly one comma, each part
// kept verbatim and checked by the decimal grammar (no spaces). Returns "" or one sentence.
std::string parse_center_option(const std::string& text, std::string* re, std::string* im);

// "RE,IM" for --julia: the same grammar as the centre's. Returns "" or one sentence.
std::string parse_julia_option(const std::string& text, std::string* re, std::string* im);

// Checks a view for use: sizes > 0, iterations > 0, zoom in [kMinZoom, kMaxZoom], centre
// (and, for a Julia view, the parameter c) parses (decimal text, finite as a double).
// Returns an empty string when valid, else one sentence saying what is wrong.
std::string validate_view(const View& view);

}  // namespace ms
