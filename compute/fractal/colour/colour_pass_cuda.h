// colour_pass_cuda.h: the colour pass on CUDA, shared by the direct path's layered frames
// (direct_cuda_features.cu) and the deep path's frames coloured on the device
// (deep/deep_colour_cuda.cu):
//   histogram   counts per bin of colouring.h's histogram over a frame's mu, then the CDF, both
//               on the device, as histogram_cdf() does on the host;
//   colour      colour_pixel() per pixel (pixel_colour.h), with mu_gradient() for the slopes.
// Launches only, queued on the caller's stream; the caller owns every buffer (device memory).
// Built in CUDA builds only (colour_pass_cuda.cu, with --fmad=false as the other colouring
// kernels, so a pixel's colour rounds as the host's colour pass does).
#pragma once

#include <cstdint>

#include "compute/fractal/colour/pixel_colour.h"

namespace ms {

// The histogram's device buffers: counts (kHistogramBins) and cdf (kHistogramBins + 1).
// Returns the bins per log2 the CDF was made with (ColourParams::bins_per_log2). Throws
// std::runtime_error on a CUDA error.
float launch_histogram_cdf(const float* mu, int64_t count, int64_t max_iterations, unsigned long long* counts,
                           float* cdf, void* stream);

// rgba[i] = colour_pixel(p, mu[i], ...) over a width x height frame; distance, stripe, period and
// atom may be null (their layer off).
void launch_colour_pass(const ColourParams& p, const float* mu, const float* distance, const float* stripe,
                        const float* period, const float* atom, int width, int height, uint32_t* rgba, void* stream);

}  // namespace ms
