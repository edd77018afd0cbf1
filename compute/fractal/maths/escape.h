// escape.h: the small pieces of maths every Mandelbrot path shares (CPU reference,
// SIMD CPU, and CUDA, whose .cu files include this header too: hence MS_HD).
#pragma once

#include <cmath>

#include "compute/fractal/view/view.h"

#ifdef __CUDACC__
#define MS_HD __host__ __device__
#else
#define MS_HD
#endif

namespace ms {

inline constexpr double kBailoutRadius = 256.0;
inline constexpr float kInteriorMu = -1.0f;

// Shortcuts that skip work without changing the picture; each can be switched off for
// benchmarking.
struct Shortcuts {
    bool cardioid_bulb = true;  // main cardioid and period-2 bulb: interior without iterating
    bool periodicity = true;    // an orbit that exactly revisits a saved value is interior
};

// k from a smooth value: log2(ln|z_k|) lies in (log2 ln R, log2 ln R + 1], so
// k = ceil(mu - 1 + log2 ln R) for every escaped pixel (mu > 0), and -1 for interior ones.

// log2(ln(kBailoutRadius)) = log2(ln 256) = log2(5.545177444479562)
inline constexpr double kLog2LnBailout = 2.4712336270551023;

inline int mandelbrot_escape_count(float mu) {
    if (mu < 0.0f) return -1;
    return int(std::floor(double(mu) + kLog2LnBailout));
}

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

// The box that holds the main cardioid (re in [-0.75, 0.375], |im| <= 3 sqrt(3) / 8 = 0.6495) and
// the period-2 bulb (re in [-1.25, -0.75], |im| <= 0.25), with a margin far above the test's
// rounding: no point outside it passes in_cardioid_or_period2_bulb(). (The cardioid reaches
// past its cusp at 1/4: its rightmost points are 3/8 +- 0.2165i.)
inline constexpr double kShapesMinRe = -1.26, kShapesMaxRe = 0.38, kShapesMaxIm = 0.66;

// Periodicity checking, the schedule the CPU paths follow: z is saved at steps 32, 64, 128, ...
// until the saves are `interval` steps apart, then every `interval` steps, and z is compared
// exactly with the saved value at every fourth step after the first save (periodicity_compare_step).
// An orbit that repeats exactly is periodic in this arithmetic and never escapes. Nothing is
// compared before step 33: most exterior pixels have escaped by then, and the SIMD path's first
// 32 steps, which every pixel runs, need no repeat test; an orbit that settles earlier is found
// after the first save.
// Brent's pure doubling finds any period, but late: an orbit that settles into its cycle at step
// 300 is found only after the save at 512. With the interval capped, it is found within one
// interval, so the interval grows with the iteration budget: 64 up to 1,024 iterations,
// max_iterations / 16 (a power of two) above, since a pixel whose period is a sixteenth of the
// budget cannot settle much before it runs out.
// Which periods are found: every save step is a multiple of 4, so an orbit of period p that has
// settled comes back to the saved value at a compared step within lcm(p, 4) steps, and is found
// if that is at most the interval: with the interval at 64, every period up to 16, the even ones
// up to 32 and the multiples of 4 up to 64. Orbits whose period is not found run to
// max_iterations, which is the same picture (they never escape), only without the shortcut.
// Comparing at every fourth step instead of every step runs the test a quarter as often, at the
// cost of a few more iterations a pixel before a cycle is found: a net saving on the full view
// (see docs/performance.md).
// (The CUDA kernels compare at block ends on a schedule of their own; see direct_cuda.cu.)
MS_HD inline int periodicity_interval(int max_iterations) {
    int interval = 64;
    while (interval < max_iterations / 16 && interval < (1 << 29)) interval *= 2;
    return interval;
}

inline constexpr int kPeriodicityFirstSave = 32;
inline constexpr int kPeriodicityCompareStride = 4;

// Whether z is compared with the saved value after step k.
MS_HD inline bool periodicity_compare_step(int k) {
    return k > kPeriodicityFirstSave && k % kPeriodicityCompareStride == 0;
}

// The first save step after step k.
MS_HD inline int next_periodicity_save(int k, int interval) {
    if (k < interval) {
        int save = kPeriodicityFirstSave;
        while (save <= k) save *= 2;
        return save;
    }
    const long long next = (static_cast<long long>(k) / interval + 1) * interval;
    return next > 0x7fffffffLL ? 0x7fffffff : static_cast<int>(next);
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

// The grid of `view` (host code: the CPU paths and the CUDA launchers).
inline PixelGrid make_pixel_grid(const View& view) {
    return {center_re_value(view), center_im_value(view), pixel_step(view), 0.5 * view.width, 0.5 * view.height};
}

}  // namespace ms
