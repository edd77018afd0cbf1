// mandelbrot_features_cpu.cpp: the orbit-feature variant (orbit_features.h) on every core.
// Rows are shared out dynamically (OpenMP), each pixel iterated by orbit_point_features(), the
// function the CUDA features kernel runs too. Scalar per pixel: the features layers cost a
// few operations more per iteration than the iteration itself, and this path serves the
// colouring layers only; the smooth-only frame keeps the SIMD kernels of mandelbrot_cpu.cpp.
#include <algorithm>
#include <atomic>
#include <chrono>

#include <omp.h>

#include "compute/fractal/orbit_features.h"

namespace ms {

namespace {

template <typename T, unsigned kFeatures>
void render_rows(const View& view, const Shortcuts& shortcuts, PixelRect rect, float* mu_out,
                 const OrbitFeatureOutputs& out, const CpuRenderControl& control, FrameStats* stats) {
    const PixelGrid grid = make_pixel_grid(view);
    const int density = view.colouring.stripe_density;
    const int max_iterations = direct_iterations(view);
    const int rows_per_job = 4;
    const int jobs = (rect.height + rows_per_job - 1) / rows_per_job;
    uint64_t iterations = 0, escaped = 0;
    std::atomic<int> rows_done{0};
    std::atomic<bool> cancelled{false};
    float scratch = 0.0f;  // where features not asked for go (never read)
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : iterations, escaped) firstprivate(scratch)
    for (int j = 0; j < jobs; ++j) {
        if (cancelled.load(std::memory_order_relaxed)) continue;
        if (control.cancel && control.cancel->load(std::memory_order_relaxed)) {
            cancelled.store(true, std::memory_order_relaxed);
            continue;
        }
        const int row0 = j * rows_per_job, rows = std::min(rows_per_job, rect.height - row0);
        for (int y = row0; y < row0 + rows; ++y) {
            const T ci = T(grid.im(rect.y + y));
            for (int x = 0; x < rect.width; ++x) {
                const size_t i = size_t(y) * rect.width + x;
                const float mu = orbit_point_features<T, kFeatures>(
                    T(grid.re(rect.x + x)), ci, max_iterations, shortcuts.cardioid_bulb, shortcuts.periodicity,
                    density, grid.step, &iterations, out.distance ? out.distance + i : &scratch,
                    out.stripe ? out.stripe + i : &scratch, out.period ? out.period + i : &scratch);
                if (mu >= 0.0f) ++escaped;
                mu_out[i] = mu;
            }
        }
        const int done = rows_done.fetch_add(rows, std::memory_order_relaxed) + rows;
        if (control.rows_finished) control.rows_finished(row0, rows);
        if (control.progress) control.progress(done, rect.height);
    }
    stats->iterations = iterations;
    stats->escaped_pixels = escaped;
    stats->cancelled = cancelled.load();
}

template <typename T>
void render_any(unsigned features, const View& view, const Shortcuts& shortcuts, PixelRect rect, float* mu_out,
                const OrbitFeatureOutputs& out, const CpuRenderControl& control, FrameStats* stats) {
    switch (features) {
        case 0: return render_rows<T, 0>(view, shortcuts, rect, mu_out, out, control, stats);
        case 1: return render_rows<T, 1>(view, shortcuts, rect, mu_out, out, control, stats);
        case 2: return render_rows<T, 2>(view, shortcuts, rect, mu_out, out, control, stats);
        case 3: return render_rows<T, 3>(view, shortcuts, rect, mu_out, out, control, stats);
        case 4: return render_rows<T, 4>(view, shortcuts, rect, mu_out, out, control, stats);
        case 5: return render_rows<T, 5>(view, shortcuts, rect, mu_out, out, control, stats);
        case 6: return render_rows<T, 6>(view, shortcuts, rect, mu_out, out, control, stats);
        default: return render_rows<T, 7>(view, shortcuts, rect, mu_out, out, control, stats);
    }
}

}  // namespace

FrameStats mandelbrot_features_cpu(const View& view, Precision precision, const Shortcuts& shortcuts,
                                   PixelRect rect, float* mu_out, const OrbitFeatureOutputs& outputs,
                                   const CpuRenderControl& control) {
    rect = resolve_rect(view, rect);
    FrameStats stats;
    stats.precision = resolve_precision(view, precision);
    const auto start = std::chrono::steady_clock::now();
    const unsigned features = requested_features(outputs);
    if (stats.precision == Precision::Fp32)
        render_any<float>(features, view, shortcuts, rect, mu_out, outputs, control, &stats);
    else
        render_any<double>(features, view, shortcuts, rect, mu_out, outputs, control, &stats);
    stats.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return stats;
}

}  // namespace ms
