// expmap_mips.cpp: mip levels of coloured images (expmap_mips.h).
#include "compute/video/expmap_mips.h"

namespace ms {

MipLevel mip_level_from_rgba(const uint8_t* rgba, int width, int height, int factor) {
    MipLevel level;
    level.width = (width + factor - 1) / factor;
    level.height = (height + factor - 1) / factor;
    level.rgb.assign(size_t(level.width) * size_t(level.height) * 3, 0.0f);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < level.height; ++y) {
        const int y_end = (y + 1) * factor < height ? (y + 1) * factor : height;
        for (int x = 0; x < level.width; ++x) {
            const int x_end = (x + 1) * factor < width ? (x + 1) * factor : width;
            uint32_t sum[3] = {0, 0, 0};
            for (int sy = y * factor; sy < y_end; ++sy)
                for (int sx = x * factor; sx < x_end; ++sx) {
                    const uint8_t* p = rgba + (size_t(sy) * size_t(width) + size_t(sx)) * 4;
                    sum[0] += p[0];
                    sum[1] += p[1];
                    sum[2] += p[2];
                }
            const float n = float((y_end - y * factor) * (x_end - x * factor));
            float* out = &level.rgb[(size_t(y) * size_t(level.width) + size_t(x)) * 3];
            for (int i = 0; i < 3; ++i) out[i] = float(sum[i]) / n;
        }
    }
    return level;
}

MipLevel mip_level_halve(const MipLevel& in) {
    MipLevel level;
    level.width = (in.width + 1) / 2;
    level.height = (in.height + 1) / 2;
    level.rgb.assign(size_t(level.width) * size_t(level.height) * 3, 0.0f);
#pragma omp parallel for schedule(static)
    for (int y = 0; y < level.height; ++y) {
        const int y_end = 2 * y + 2 < in.height ? 2 * y + 2 : in.height;
        for (int x = 0; x < level.width; ++x) {
            const int x_end = 2 * x + 2 < in.width ? 2 * x + 2 : in.width;
            float sum[3] = {0.0f, 0.0f, 0.0f};
            for (int sy = 2 * y; sy < y_end; ++sy)
                for (int sx = 2 * x; sx < x_end; ++sx)
                    for (int i = 0; i < 3; ++i) sum[i] += in.texel(sx, sy)[i];
            const float n = float((y_end - 2 * y) * (x_end - 2 * x));
            float* out = &level.rgb[(size_t(y) * size_t(level.width) + size_t(x)) * 3];
            for (int i = 0; i < 3; ++i) out[i] = sum[i] / n;
        }
    }
    return level;
}

}  // namespace ms
