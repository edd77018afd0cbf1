// cpu_row_jobs.h: the frame setup and the frame loop both fast CPU kernels share (direct_cpu.cpp's
// smooth values, direct_features_cpu.cpp's orbit features), so that the two resolve a frame the
// same way.
//   setup_cpu_frame   checks the caller's arguments and resolves them once: the rect, the
//                     precision the kernel runs (Fp32 or Fp64, resolve_direct_precision) and
//                     what every job of rows needs of the view (CpuRowJob, which each kernel's
//                     job extends).
//   run_cpu_row_jobs  the rect's rows cut into jobs of `rows_per_job`, handed out one at a time
//                     to the OpenMP team (rows differ wildly in cost), CpuRenderControl's cancel
//                     flag polled before each job, and each finished job reported to
//                     rows_finished and progress from the thread that computed it.
//
// Small inline functions, called once per kernel in its HWY_ONCE part (not per SIMD target or
// formula): render_job(first_row, rows, &result) computes rows [first_row, first_row + rows) of
// the rect and adds its counts to `result`, a thread's own.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include <hwy/targets.h>
#include <omp.h>

#include "compute/fractal/direct/direct.h"

namespace ms {

// What a job of rows needs of the frame, the same for both kernels (their jobs add their
// outputs and options).
struct CpuRowJob {
    PixelGrid grid;
    int x_begin = 0;  // whole-image column of the first pixel
    int y = 0;        // whole-image row of the job's first row
    int width = 0;    // pixels
    int max_iterations = 0;
    Formula formula = Formula::Mandelbrot;
    bool cardioid_bulb = true;  // Mandelbrot's parameter plane only (setup_cpu_frame resolves it)
    bool periodicity = true;
    bool julia = false;  // z_0 = the pixel, c = (julia_re, julia_im)
    double julia_re = 0.0, julia_im = 0.0;
};

// A frame as a fast CPU kernel runs it.
struct CpuFrameSetup {
    PixelRect rect;                               // resolve_rect's: no zero sizes
    Precision precision = Precision::Fp64;        // what the kernel runs and reports: Fp32 or Fp64
    CpuRowJob job;                                // every job's, but for y
    std::chrono::steady_clock::time_point start;  // the kernel's own beginning
};

// Throws std::invalid_argument as resolve_rect, direct_iterations and julia_re_value do. The
// direct kernels have no deep path: a deep request, or Auto on a view past FP64's resolution,
// runs in FP64 (resolve_direct_precision), and the statistics say so.
inline CpuFrameSetup setup_cpu_frame(const View& view, Precision precision, const Shortcuts& shortcuts,
                                     PixelRect rect) {
    CpuFrameSetup frame;
    frame.rect = resolve_rect(view, rect);
    frame.precision = resolve_direct_precision(view, precision);
    frame.start = std::chrono::steady_clock::now();
    CpuRowJob& job = frame.job;
    job.grid = make_pixel_grid(view);
    job.x_begin = frame.rect.x;
    job.width = frame.rect.width;
    job.max_iterations = direct_iterations(view);
    job.formula = view.formula;
    job.cardioid_bulb = shortcuts.cardioid_bulb && view.formula == Formula::Mandelbrot && !view.julia;
    job.periodicity = shortcuts.periodicity;
    job.julia = view.julia;
    if (view.julia) {
        job.julia_re = julia_re_value(view);
        job.julia_im = julia_im_value(view);
    }
    // Highway's choice of target made once here, so that the pointers the kernels take with
    // HWY_DYNAMIC_DISPATCH are the targets' own functions rather than the first-call trampoline.
    if (!hwy::GetChosenTarget().IsInitialized()) hwy::GetChosenTarget().Update(hwy::SupportedTargets());
    return frame;
}

struct RowJobsResult {
    uint64_t iterations = 0;
    uint64_t escaped_pixels = 0;
};

// Runs the frame's jobs. The statistics: the precision the frame runs, the jobs' iterations and
// escaped pixels, whether it was cancelled, and compute_ms, the wall time from frame.start to
// the team's end.
template <class RenderJob>
inline FrameStats run_cpu_row_jobs(const CpuFrameSetup& frame, int rows_per_job, const CpuRenderControl& control,
                                   RenderJob render_job) {
    const int height = frame.rect.height;
    const int jobs = (height + rows_per_job - 1) / rows_per_job;
    uint64_t iterations = 0, escaped = 0;
    std::atomic<int> rows_done{0};
    std::atomic<bool> cancelled{false};
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : iterations, escaped)
    for (int j = 0; j < jobs; ++j) {
        if (cancelled.load(std::memory_order_relaxed)) continue;
        if (control.cancel && control.cancel->load(std::memory_order_relaxed)) {
            cancelled.store(true, std::memory_order_relaxed);
            continue;
        }
        const int first_row = j * rows_per_job;
        const int rows = std::min(rows_per_job, height - first_row);
        RowJobsResult result;
        render_job(first_row, rows, &result);
        iterations += result.iterations;
        escaped += result.escaped_pixels;
        const int done = rows_done.fetch_add(rows, std::memory_order_relaxed) + rows;
        if (control.rows_finished) control.rows_finished(first_row, rows);
        if (control.progress) control.progress(done, height);
    }
    FrameStats stats;
    stats.precision = frame.precision;
    stats.iterations = iterations;
    stats.escaped_pixels = escaped;
    stats.cancelled = cancelled.load();
    stats.compute_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame.start).count();
    return stats;
}

}  // namespace ms
