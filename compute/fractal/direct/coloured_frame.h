// coloured_frame.h: a whole coloured frame with view.colouring's layers (colouring.h), on the
// CPU or on CUDA: the kernels that the colouring needs (the smooth kernels of direct.h, or
// their orbit-feature variant of orbit_features.h), then the histogram pass where the base is
// histogram, then the colour pass (pixel_colour.h's colour_pixel on every pixel, with the
// slopes' finite differences). A plain colouring goes straight to the smooth kernels and
// colourize(), so the plain picture costs no more than the smooth frame and its palette.
//
// The frame is `rect` of the view, and the layers that look at neighbours or at the whole frame
// (slope, histogram) see only that rectangle: callers colour whole frames (or bands, accepting
// seams at their edges). pixel_scale: image pixels per pixel of this frame (1/K when the view
// is a K-times supersampled sample grid), which keeps the DE band and the slopes' relief in
// image pixels.
#pragma once

#include <cstdint>

#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/direct/direct.h"
#include "compute/fractal/direct/direct_features.h"

namespace ms {

// CPU: mu_out (rect-sized) receives the smooth values, rgba_out the colours. `reference` runs
// the one-thread reference kernels instead of the fast ones (tests compare the two).
FrameStats render_coloured_cpu(const View& view, Precision precision, const Shortcuts& shortcuts,
                               const PaletteTable& palette, PixelRect rect, double pixel_scale, float* mu_out,
                               uint8_t* rgba_out, const CpuRenderControl& control = {}, bool reference = false);

// CUDA, into device memory (rgba_device required, mu_device optional), as direct_cuda().
FrameStats render_coloured_cuda(const View& view, Precision precision, const Shortcuts& shortcuts,
                                const PaletteTable& palette, PixelRect rect, double pixel_scale, uint8_t* rgba_device,
                                float* mu_device);
// The same into host memory (either output may be null).
FrameStats render_coloured_cuda_to_host(const View& view, Precision precision, const Shortcuts& shortcuts,
                                        const PaletteTable& palette, PixelRect rect, double pixel_scale,
                                        uint8_t* rgba_host, float* mu_host);

}  // namespace ms
