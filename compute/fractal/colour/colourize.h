// colourize.h: smooth values to RGBA8 through a palette, the plain colouring of every CPU path
// (the CUDA kernels colour in-kernel with the same arithmetic). colourize is vectorised
// (colourize.cpp, Highway, one thread), colourize_reference the scalar loop it equals byte for
// byte (colourize_reference.cpp), colourize_parallel the vectorised one on every core.
#pragma once

#include <cstdint>

#include "compute/fractal/colour/palette.h"

namespace ms {

struct View;

void colourize(const float* mu, int64_t count, const PaletteTable& palette, const View& view, uint8_t* rgba_out);
void colourize_reference(const float* mu, int64_t count, const PaletteTable& palette, const View& view,
                         uint8_t* rgba_out);
// colourize() over a whole frame on every core, in chunks of 65,536 pixels.
void colourize_parallel(const float* mu, int64_t count, const PaletteTable& palette, const View& view,
                        uint8_t* rgba_out);

}  // namespace ms
