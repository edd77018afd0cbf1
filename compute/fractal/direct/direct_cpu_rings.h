// direct_cpu_rings.h: direct (FP64) points on rings around a view's centre, the exponential
// map's shallow strips (compute/video/expmap.h), where double resolves the ring's spacing: ring
// y at radius radius[y], its point x at the angle 2 pi (x + 0.5) / columns. Each point runs
// direct_point-inl.h's loop with the reference path's shortcuts (the cardioid and period-2
// bulb test on the Mandelbrot set's parameter plane, periodicity checking), so interior points
// cost what they cost in a direct frame, not the full iteration count.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "compute/fractal/view/view.h"

namespace ms {

struct DirectRings {
    std::vector<double> radius;  // one per ring
    int columns = 0;             // points per ring
};

// The view gives the centre, the formula (and Julia c) and the iterations (at most
// kMaxDirectIterations); mu_out: rings x columns smooth values, ring-major (kInteriorMu inside).
// threads 0: all cores. Returns the iterations run; false in *cancelled when cancel was seen.
uint64_t direct_cpu_rings(const View& view, const DirectRings& rings, float* mu_out, int threads = 0,
                          const std::atomic<bool>* cancel = nullptr, bool* cancelled = nullptr);

// direct_cpu_rings on CUDA: the same loop and shortcuts, a thread a point, so the same
// escape counts (mu within the device log's last bits). Returns the iterations run;
// *kernel_ms gets the kernels' time. Cancel is seen between launches of a few rings each.
// Throws std::runtime_error with a sentence where CUDA cannot run.
uint64_t direct_cuda_rings(const View& view, const DirectRings& rings, float* mu_out,
                           const std::atomic<bool>* cancel = nullptr, bool* cancelled = nullptr,
                           double* kernel_ms = nullptr);

// Whether double resolves a ring of `columns` points at `radius` around the view's centre (the
// rule of fp64_resolves, view.h, with the ring's point spacing for the pixel step).
bool direct_rings_resolve(const View& view, double radius, int columns);

}  // namespace ms
