// colouring.h: how smooth values become colours, beyond the plain palette (issue 14).
//
// Methods combine as layers over one base:
//   base      where the palette position comes from:
//               smooth     the smooth iteration value mu (today's colouring, colorize())
//               histogram  mu's rank among the frame's escaped pixels (histogram equalisation):
//                          the palette spreads evenly over the frame at any depth
//               stripe     the stripe average (Haerkoenen): the mean over the orbit of
//                          1/2 + 1/2 sin(density * arg z_k), blended between its last two
//                          values by mu's fraction, so that it is continuous
//   layers    that modulate the base colour's brightness:
//               de         exterior distance estimation |z| ln|z| / |dz/dc| (in pixels): a dark
//                          band of de_band_px pixels along the boundary shows its filaments
//               slope      normal-map lighting of the mu field (as Kalles Fraktaler's "Slopes"):
//                          mu's gradient, from finite differences, tilts a surface lit from
//                          slope_angle_deg with strength slope_strength
//   interior  flat (the palette's interior colour) or period (a palette colour per period of
//             the settled orbit: each hyperbolic component gets its period's colour; orbits that
//             have not settled, on the boundary, keep the flat colour)
//
// Where the data comes from: mu from every kernel (mandelbrot.h); the distance estimate, the
// stripe average and the period from the orbit-feature variant of the kernels
// (orbit_features.h), which accumulates them in the iteration loop; the histogram and the
// slopes from passes over the frame's mu. The per-pixel colour is colouring_math.h's
// colour_pixel(), one function for the CPU and the CUDA colour pass.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/fractal/palette.h"

namespace ms {

struct View;

enum class ColourBase { Smooth, Histogram, Stripe };
enum class InteriorColour { Flat, Period };

struct Colouring {
    ColourBase base = ColourBase::Smooth;
    int stripe_density = 5;             // stripes per turn of arg z; whole, so arg's wrap is seamless
    bool distance_estimation = false;   // the DE layer
    double de_band_px = 2.0;            // width of its dark band along the boundary, in image pixels
    bool slopes = false;                // the slope layer
    double slope_angle_deg = 45.0;      // light direction, counterclockwise from the right (+x)
    double slope_strength = 4.0;        // relief height; 0 is flat
    InteriorColour interior = InteriorColour::Flat;
    bool operator==(const Colouring&) const = default;
};

// Limits that validate_colouring() checks.
inline constexpr int kMaxStripeDensity = 64;
inline constexpr double kMaxDeBandPx = 1000.0;
inline constexpr double kMaxSlopeStrength = 1000.0;

// The methods as a comma list, base first, then layers: "smooth", "histogram,de,slope".
// parse_colouring_methods() reads such a list (each of smooth, histogram, stripe at most once
// and only one of them; de and slope in any order) into *colouring's base and layer switches,
// leaving the parameters as they are. Returns "" or one sentence.
std::string colouring_methods_text(const Colouring& colouring);
std::string parse_colouring_methods(const std::string& text, Colouring* colouring);
const char* interior_colour_name(InteriorColour interior);  // "flat", "period"
std::string parse_interior_colour(const std::string& text, InteriorColour* interior);
// "" or one sentence about a parameter out of range.
std::string validate_colouring(const Colouring& colouring);

// Today's picture: a smooth base, no layers, flat interior. Every path keeps its fast smooth
// kernel and colorize() for it.
bool colouring_is_plain(const Colouring& colouring);

// Which orbit features (orbit_features.h's kFeature* bits) the colouring needs from the kernels.
unsigned colouring_orbit_features(const Colouring& colouring);

// --- Histogram equalisation --------------------------------------------------------------
// Bins over log2(1 + mu) from 0 to log2(2 + max_iterations), so that bins are finer where mu is
// small (most pixels) and one pass over the frame fills them whatever the depth. The CDF has
// kHistogramBins + 1 entries: cdf[i] is the fraction of the frame's escaped pixels below bin
// i's lower edge; the colour pass interpolates within a bin, so the rank is continuous.
inline constexpr int kHistogramBins = 16384;
struct HistogramCdf {
    std::vector<float> cdf;     // kHistogramBins + 1 entries, 0 ... 1
    float bins_per_log2 = 0.f;  // bin index = log2(1 + mu) * bins_per_log2
};
double histogram_bins_per_log2(int64_t max_iterations);
// Counts (kHistogramBins entries) to the CDF; all-zero counts give an all-zero CDF.
HistogramCdf histogram_cdf_from_counts(const std::vector<uint64_t>& counts, int64_t max_iterations);
// The pass over a frame's smooth values (escaped pixels only), on every core.
HistogramCdf histogram_cdf(const float* mu, int64_t count, int64_t max_iterations);

// colorize() (mandelbrot.h) over a whole frame on every core, in chunks of 65,536 pixels.
void colorize_parallel(const float* mu, int64_t count, const PaletteTable& palette, const View& view,
                       uint8_t* rgba_out);

// --- The CPU colour pass -----------------------------------------------------------------
// Colours a width x height frame (row-major, as the kernels write it) with every layer of
// view.colouring. distance, stripe and period are the orbit features (may be null where the
// colouring does not need them); distance is in the pixels of this frame, and `pixel_scale`
// turns it into image pixels (the supersampling factor K: a sample is 1/K of an image pixel).
// For a plain colouring this is colorize() on every core.
struct FrameFeatures {
    const float* distance = nullptr;
    const float* stripe = nullptr;
    const float* period = nullptr;
};
void colour_frame(const float* mu, const FrameFeatures& features, int width, int height,
                  const PaletteTable& palette, const View& view, double pixel_scale, uint8_t* rgba_out);

// --- Past FP64 (compute/fractal/deep/) -----------------------------------------------------
// The deep path gives mu and, on request, the distance estimate; it skips iterations in bulk
// (BLA), so the stripe average and the period, which need every iteration, are not there.
// "" or one sentence for a colouring it cannot give.
std::string deep_colouring_problem(const Colouring& colouring);
// Drops what deep_colouring_problem refuses (stripe base to smooth, period interior to flat):
// the window's way when a view goes past FP64. Returns whether anything was dropped.
bool drop_deep_unavailable_colouring(Colouring* colouring);
// The colour pass of a layered colouring over a deep frame's smooth values, which are double
// and reach millions: each is measured from the frame's lowest escaped value, floored to a
// whole count (deep_mu_origin), so that float keeps its fraction for the slopes' differences
// and the histogram's bins; the palette position moves by that origin, so the smooth base
// colours as colorize_deep does. distance: the deep frame's (may be null without DE).
// Then colour_frame's pass, colour_pixel on every pixel.
double deep_mu_origin(const double* mu, int64_t count);
void colour_frame_deep(const double* mu, const float* distance, int width, int height, const PaletteTable& palette,
                       const View& view, double pixel_scale, uint8_t* rgba_out);

}  // namespace ms
