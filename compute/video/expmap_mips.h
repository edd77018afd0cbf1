// expmap_mips.h: coloured images with mip levels and their filtered lookup, the two kinds of
// image the exponential map reconstructs frames from (expmap.h): the log-polar strips, whose
// columns wrap around the turn and whose rows run on from one octave's strip into the next,
// and the flat image of the centre, clamped at its edges.
//
// A level holds linear RGB as floats (the means of 8-bit sample colours, as box_filter.h
// averages a supersampled pixel). Level L's texel (x, y) covers level 0's texels
// [x 2^L, (x + 1) 2^L) x [y 2^L, (y + 1) 2^L), and a lookup at level-0 coordinates (u, v)
// (texel centres at half-integers) with a footprint of f level-0 texels blends the two levels
// around log2(f) bilinearly: trilinear filtering.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define MS_HD __host__ __device__
#else
#define MS_HD
#endif

namespace ms {

struct MipLevel {
    int width = 0;
    int height = 0;
    std::vector<float> rgb;  // row-major, 3 floats a texel
    const float* texel(int x, int y) const { return &rgb[(size_t(y) * size_t(width) + size_t(x)) * 3]; }
};

// The mean of each factor x factor block of an RGBA8 image (alpha dropped); blocks cut by the
// right or bottom edge average the pixels they have. The result is ceil(width / factor) by
// ceil(height / factor).
MipLevel mip_level_from_rgba(const uint8_t* rgba, int width, int height, int factor);
// The next level: 2x2 means, as mip_level_from_rgba with factor 2.
MipLevel mip_level_halve(const MipLevel& level);

// One texel of each, on the host and the device (expmap_cuda.cu's kernels), the same sums in the
// same order: texel (x, y) of mip_level_from_rgba's level, and of the level after `in` (width x
// height texels of 3 floats), into out[3].
MS_HD inline void mip_texel_from_rgba(const uint8_t* rgba, int width, int height, int factor, int x, int y,
                                      float* out) {
    const int y_end = (y + 1) * factor < height ? (y + 1) * factor : height;
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
    for (int i = 0; i < 3; ++i) out[i] = float(sum[i]) / n;
}
MS_HD inline void mip_texel_halve(const float* in, int width, int height, int x, int y, float* out) {
    const int y_end = 2 * y + 2 < height ? 2 * y + 2 : height;
    const int x_end = 2 * x + 2 < width ? 2 * x + 2 : width;
    float sum[3] = {0.0f, 0.0f, 0.0f};
    for (int sy = 2 * y; sy < y_end; ++sy)
        for (int sx = 2 * x; sx < x_end; ++sx)
            for (int i = 0; i < 3; ++i) sum[i] += in[(size_t(sy) * size_t(width) + size_t(sx)) * 3 + i];
    const float n = float((y_end - 2 * y) * (x_end - 2 * x));
    for (int i = 0; i < 3; ++i) out[i] = sum[i] / n;
}

// Bilinear lookup at level L of an image given by fetch(L, x, y) -> const float* (x and y may be
// out of range: fetch wraps or clamps them). u, v in level 0's texel units.
template <class Fetch>
inline void mip_bilinear(const Fetch& fetch, int level, double u, double v, float out[3]) {
    const double scale = std::ldexp(1.0, -level);
    const double x = u * scale - 0.5, y = v * scale - 0.5;
    const double fx0 = std::floor(x), fy0 = std::floor(y);
    const int x0 = int(fx0), y0 = int(fy0);
    const float tx = float(x - fx0), ty = float(y - fy0);
    const float* a = fetch(level, x0, y0);
    const float* b = fetch(level, x0 + 1, y0);
    const float* c = fetch(level, x0, y0 + 1);
    const float* d = fetch(level, x0 + 1, y0 + 1);
    for (int i = 0; i < 3; ++i) {
        const float top = a[i] + tx * (b[i] - a[i]);
        const float bottom = c[i] + tx * (d[i] - c[i]);
        out[i] = top + ty * (bottom - top);
    }
}

// Trilinear lookup: footprint f (level-0 texels; below 1 is level 0), levels 0 .. levels - 1.
template <class Fetch>
inline void mip_trilinear(const Fetch& fetch, int levels, double u, double v, double footprint, float out[3]) {
    const double lambda = footprint > 1.0 ? std::log2(footprint) : 0.0;
    if (lambda >= double(levels - 1)) {
        mip_bilinear(fetch, levels - 1, u, v, out);
        return;
    }
    const int level = int(lambda);
    const float t = float(lambda - level);
    mip_bilinear(fetch, level, u, v, out);
    if (t > 0.0f) {
        float next[3];
        mip_bilinear(fetch, level + 1, u, v, next);
        for (int i = 0; i < 3; ++i) out[i] += t * (next[i] - out[i]);
    }
}

}  // namespace ms
