// cpu_row_jobs.h: the frame loop both fast CPU kernels share (direct_cpu.cpp's smooth
// values, direct_features_cpu.cpp's orbit features): the rect's rows cut into jobs of
// `rows_per_job`, handed out one at a time to the OpenMP team (rows differ wildly in cost),
// CpuRenderControl's cancel flag polled before each job, and each finished job reported to
// rows_finished and progress from the thread that computed it.
//
// A small inline template, instantiated once per kernel in its HWY_ONCE part (not per SIMD
// target or formula): render_job(first_row, rows, &result) computes rows [first_row,
// first_row + rows) of the rect and adds its counts to `result`, a thread's own.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include <omp.h>

#include "compute/fractal/direct/direct.h"

namespace ms {

struct RowJobsResult {
    uint64_t iterations = 0;
    uint64_t escaped_pixels = 0;
};

// Runs the jobs and fills stats' iterations, escaped_pixels, cancelled and compute_ms (the wall
// time from `start`, the kernel's own beginning, to the team's end).
template <class RenderJob>
inline void run_cpu_row_jobs(int height, int rows_per_job, const CpuRenderControl& control, RenderJob render_job,
                             std::chrono::steady_clock::time_point start, FrameStats* stats) {
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
    stats->iterations = iterations;
    stats->escaped_pixels = escaped;
    stats->cancelled = cancelled.load();
    stats->compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ms
