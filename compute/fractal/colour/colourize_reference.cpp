// colourize_reference.cpp: The scalar colouring that colourize() (colourize.cpp, SIMD) must equal byte for byte.
#include <cstring>

#include "compute/fractal/colour/colourize.h"
#include "compute/fractal/view/view.h"

namespace ms {

void colourize_reference(const float* mu, int64_t count, const PaletteTable& palette, const View& view,
                         uint8_t* rgba_out) {
    const double scale = view.palette_density / 100.0 * kPaletteTableSize;
    const double offset = view.palette_offset * kPaletteTableSize;
    for (int64_t i = 0; i < count; ++i) {
        uint32_t c = palette.interior_rgba;
        if (mu[i] >= 0.0f) c = palette_lookup(palette.rgba.data(), double(mu[i]) * scale + offset);
        std::memcpy(rgba_out + 4 * i, &c, 4);
    }
}

}  // namespace ms
