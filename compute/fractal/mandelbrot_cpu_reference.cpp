// mandelbrot_cpu_reference.cpp: the yardstick. One thread, one pixel at a time, scalar code
// that reads like the maths; every faster path (SIMD CPU, CUDA) is tested against it.
// Also home of the pieces all paths share: the shortcut tests and the smooth value.
#include <chrono>
#include <cmath>

#include "compute/fractal/mandelbrot.h"
#include "compute/fractal/mandelbrot_math.h"

namespace ms {

int mandelbrot_escape_count(float mu) {
    if (mu < 0.0f) return -1;
    return int(std::floor(double(mu) + kLog2LnBailout));
}

namespace {

// Iterates one point; returns mu (or kInteriorMu) and adds the iterations it ran to *iterations.
template <typename T>
float iterate_point(T cr, T ci, int max_iterations, const Shortcuts& shortcuts,
                    uint64_t* iterations) {
    if (shortcuts.cardioid_bulb && in_cardioid_or_period2_bulb(double(cr), double(ci)))
        return kInteriorMu;
    const T bailout_squared = T(kBailoutRadius * kBailoutRadius);
    T zr = 0, zi = 0;
    // Periodicity: remember z at the save steps of next_periodicity_save() and compare z with
    // it exactly at the steps of periodicity_compare_step(). An exact repeat means the
    // floating-point orbit is periodic from there on, so it would never escape in this
    // arithmetic either: the pixel comes out exactly as without the check.
    T saved_r = 0, saved_i = 0;
    const int interval = periodicity_interval(max_iterations);
    int next_save = next_periodicity_save(0, interval);
    for (int k = 1; k <= max_iterations; ++k) {
        T new_zr = zr * zr - zi * zi + cr;
        T new_zi = T(2) * zr * zi + ci;
        zr = new_zr;
        zi = new_zi;
        T norm = zr * zr + zi * zi;
        if (norm > bailout_squared) {
            *iterations += uint64_t(k);
            return smooth_mu(k, double(norm));
        }
        if (shortcuts.periodicity) {
            if (periodicity_compare_step(k) && zr == saved_r && zi == saved_i) {
                *iterations += uint64_t(k);
                return kInteriorMu;
            }
            if (k == next_save) {
                saved_r = zr;
                saved_i = zi;
                next_save = next_periodicity_save(k, interval);
            }
        }
    }
    *iterations += uint64_t(max_iterations);
    return kInteriorMu;
}

template <typename T>
void render_reference(const View& view, const Shortcuts& shortcuts, PixelRect rect, float* mu_out,
                      FrameStats* stats) {
    const PixelGrid grid = make_pixel_grid(view);
    const int max_iterations = direct_iterations(view);
    for (int y = 0; y < rect.height; ++y) {
        for (int x = 0; x < rect.width; ++x) {
            T cr = T(grid.re(rect.x + x));
            T ci = T(grid.im(rect.y + y));
            float mu = iterate_point<T>(cr, ci, max_iterations, shortcuts, &stats->iterations);
            if (mu >= 0.0f) ++stats->escaped_pixels;
            mu_out[size_t(y) * rect.width + x] = mu;
        }
    }
}

}  // namespace

FrameStats mandelbrot_cpu_reference(const View& view, Precision precision,
                                    const Shortcuts& shortcuts, PixelRect rect, float* mu_out) {
    rect = resolve_rect(view, rect);
    FrameStats stats;
    stats.precision = resolve_direct_precision(view, precision);
    auto start = std::chrono::steady_clock::now();
    if (stats.precision == Precision::Fp32)
        render_reference<float>(view, shortcuts, rect, mu_out, &stats);
    else
        render_reference<double>(view, shortcuts, rect, mu_out, &stats);
    stats.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return stats;
}

}  // namespace ms
