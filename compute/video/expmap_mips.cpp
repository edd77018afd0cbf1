// expmap_mips.cpp: mip levels of coloured images (expmap_mips.h).
#include "compute/video/expmap_mips.h"

namespace ms {

MipLevel mip_level_from_rgba(const uint8_t* rgba, int width, int height, int factor) {
    MipLevel level;
    level.width = (width + factor - 1) / factor;
    level.height = (height + factor - 1) / factor;
    level.rgb.assign(size_t(level.width) * size_t(level.height) * 3, 0.0f);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < level.height; ++y)
        for (int x = 0; x < level.width; ++x)
            mip_texel_from_rgba(rgba, width, height, factor, x, y,
                                &level.rgb[(size_t(y) * size_t(level.width) + size_t(x)) * 3]);
    return level;
}

MipLevel mip_level_halve(const MipLevel& in) {
    MipLevel level;
    level.width = (in.width + 1) / 2;
    level.height = (in.height + 1) / 2;
    level.rgb.assign(size_t(level.width) * size_t(level.height) * 3, 0.0f);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < level.height; ++y)
        for (int x = 0; x < level.width; ++x)
            mip_texel_halve(in.rgb.data(), in.width, in.height, x, y,
                            &level.rgb[(size_t(y) * size_t(level.width) + size_t(x)) * 3]);
    return level;
}

}  // namespace ms
