// mandelbrot_math.h: the small pieces of maths every Mandelbrot path shares (CPU reference,
// SIMD CPU, and CUDA, whose .cu files include this header too: hence MS_HD).
#pragma once

#include <cmath>

#include "compute/mandelbrot.h"

#ifdef __CUDACC__
#define MS_HD __host__ __device__
#else
#define MS_HD
#endif

namespace ms {

// log2(ln(kBailoutRadius)) = log2(ln 256) = log2(5.545177444479562)
inline constexpr double kLog2LnBailout = 2.4712336270551023;

// mu = k + 1 - log2(ln|z_k|), from |z_k|^2: ln|z| = 0.5 * ln|z|^2. Clamped at 0 so it never
// collides with kInteriorMu (it would dip below 0 only where |c| > kBailoutRadius).
MS_HD inline float smooth_mu(int k, double norm_squared) {
    double mu = double(k) + 1.0 - log2(0.5 * log(norm_squared));
    return mu > 0.0 ? float(mu) : 0.0f;
}

// Main cardioid and period-2 bulb, in closed form: points there never escape.
//   cardioid: q = (x - 1/4)^2 + y^2,  q (q + (x - 1/4)) <= y^2 / 4
//   bulb:     (x + 1)^2 + y^2 <= 1/16
// Evaluated in double on every path, so all paths classify the same points as interior.
// The inequalities are strict-safe: points on the boundary iterate as usual elsewhere and the
// boundary itself never escapes either, so either answer is the same picture.
MS_HD inline bool in_cardioid_or_period2_bulb(double x, double y) {
    double xq = x - 0.25;
    double y2 = y * y;
    double q = xq * xq + y2;
    if (q * (q + xq) <= 0.25 * y2) return true;
    double xb = x + 1.0;
    return xb * xb + y2 <= 0.0625;
}

// Pixel centres of a view: re(x) and im(y) for whole-image pixel indices.
struct PixelGrid {
    double center_re = 0.0;
    double center_im = 0.0;
    double step = 0.0;
    double half_width = 0.0;   // width / 2
    double half_height = 0.0;  // height / 2
    MS_HD double re(int x) const { return center_re + (double(x) + 0.5 - half_width) * step; }
    MS_HD double im(int y) const { return center_im - (double(y) + 0.5 - half_height) * step; }
};

#ifndef __CUDACC__
inline PixelGrid make_pixel_grid(const View& view) {
    return {center_re_value(view), center_im_value(view), pixel_step(view), 0.5 * view.width,
            0.5 * view.height};
}
#endif

}  // namespace ms
