// colour_pass.h: the colour pass over a whole frame on the CPU, with every layer of the view's
// colouring (view/colouring.h): histogram equalisation's CDF, the plain smooth colouring on
// every core, and the layered pass that calls pixel_colour.h's colour_pixel() on each pixel.
// The CUDA colour pass is colour_pass_cuda.h.
#pragma once

#include <cstdint>
#include <vector>

#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/colouring.h"

namespace ms {

struct View;

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

// --- The CPU colour pass -----------------------------------------------------------------
// Colours a width x height frame (row-major, as the kernels write it) with every layer of
// view.colouring. distance, stripe, period and atom are the orbit features (may be null where the
// colouring does not need them); distance is in the pixels of this frame, and `pixel_scale`
// turns it into image pixels (the supersampling factor K: a sample is 1/K of an image pixel).
// For a plain colouring this is colourize() on every core.
struct FrameFeatures {
    const float* distance = nullptr;
    const float* stripe = nullptr;
    const float* period = nullptr;
    const float* atom = nullptr;  // the atom-domain period
};
void colour_frame(const float* mu, const FrameFeatures& features, int width, int height, const PaletteTable& palette,
                  const View& view, double pixel_scale, uint8_t* rgba_out);

// --- Past FP64 (compute/fractal/deep/) -----------------------------------------------------
// The colour pass of a layered colouring over a deep frame's smooth values, which are double
// and reach millions: each is measured from the frame's lowest escaped value, floored to a
// whole count (deep_mu_origin), so that float keeps its fraction for the slopes' differences
// and the histogram's bins; the palette position moves by that origin, so the smooth base
// colours as colourize_deep does. distance: the deep frame's (may be null without DE); atom:
// its atom periods (may be null without the atom layer).
// Then colour_frame's pass, colour_pixel on every pixel.
double deep_mu_origin(const double* mu, int64_t count);
void colour_frame_deep(const double* mu, const float* distance, int width, int height, const PaletteTable& palette,
                       const View& view, double pixel_scale, uint8_t* rgba_out, const float* atom = nullptr);

}  // namespace ms
