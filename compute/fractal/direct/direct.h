// direct.h: the escape-time iteration with smooth colouring, in three sibling
// implementations that compute the same frame:
//   direct_cpu_reference  one thread, scalar FP64, obviously correct (the yardstick)
//   direct_cpu            all cores (OpenMP, dynamic schedule), SIMD picked at run time
//                             (Highway: AVX-512, AVX2 or SSE), FP32 or FP64
//   direct_cuda           CUDA kernels, FP32 or FP64, writing RGBA8 to a device pointer
//                             the caller passes (the window passes its interop buffer)
//
// Every function here draws the view's formula (view.formula: Mandelbrot, Multibrot, Burning
// Ship, Tricorn; formula.h), or its Julia set (view.julia); formula_math.h has the maths. What
// follows describes Mandelbrot's parameter plane, the default.
// The iteration: z_0 = 0, z_{k+1} = z_k^2 + c. A pixel escapes at the first k with
// |z_k| > kBailoutRadius; k is its integer escape count and the iterations it cost.
// Smooth value of an escaping pixel: mu = k + 1 - log2(ln|z_k|), clamped at 0 (it dips below 0
// only for |c| > kBailoutRadius). The bailout radius is large, so no bands show. Interior
// pixels (no escape within max_iterations) get mu = kInteriorMu (-1) and the palette's interior
// colour; mandelbrot_escape_count() recovers k from mu.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compute/fractal/colour/colourize.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/maths/escape.h"
#include "compute/fractal/view/view.h"
#include "compute/system/cuda_info.h"

namespace ms {

struct FrameStats {
    uint64_t iterations = 0;  // iterations actually executed (shortcut pixels count 0)
    uint64_t escaped_pixels = 0;
    Precision precision = Precision::Fp64;  // what ran
    double compute_ms = 0.0;                // wall time (CPU) or CUDA event time (GPU)
    // CUDA only: host steady_clock time around the kernel launch calls alone, read before any
    // synchronisation. NOT the kernels' time: launches are asynchronous, so this measures how
    // long queuing the work took. Kept to show, beside compute_ms, what a host timer without
    // synchronisation would wrongly report. 0 on the CPU paths.
    double host_launch_ms = 0.0;
    bool cancelled = false;
};

// Optional hooks for long CPU renders: cancel is polled between jobs of a few rows (rows
// not started are left as they were, and FrameStats::cancelled is set); progress gets
// (rows_done, rows_total) from the worker threads after each job and must be thread-safe.
// rows_finished gets (first_row, rows) of each finished job, relative to the rect, from the
// worker thread that computed them, once mu_out holds them: the window colours and shows
// rows there while the other threads compute (thread-safe too; jobs finish roughly in order).
struct CpuRenderControl {
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(int, int)> progress;
    std::function<void(int, int)> rows_finished;
    // false (default): multiply and add rounded separately, as the reference does: the same
    // picture bit for bit on every SIMD target. true: fused multiply-add (one rounding), faster
    // where adds and FMAs share ports (Intel); escape counts then differ from the reference on
    // a thin scatter of boundary pixels (see direct_cpu.cpp).
    bool fused_multiply_add = false;
};

// Smooth iteration values for `rect` of `view` (row-major, rect.width * rect.height floats).
// The reference runs in the precision asked for (Auto resolves through resolve_direct_precision:
// the direct kernels run Fp32 or Fp64; a deep request runs Fp64, max_iterations at most
// kMaxDirectIterations, else std::invalid_argument), so
// every fast path can be checked against the reference of its own precision.
FrameStats direct_cpu_reference(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect,
                                float* mu_out);
FrameStats direct_cpu(const View& view, Precision precision, const Shortcuts& shortcuts, PixelRect rect, float* mu_out,
                      const CpuRenderControl& control = {});

// The SIMD target the fast CPU path dispatches to on this machine ("AVX3", "AVX2", "SSE4"...).
std::string direct_cpu_simd_target();
// Frees what each thread of the caller's OpenMP team keeps for the SIMD kernel's chunks (kept
// between calls, sized to the largest chunk since): for a thread that renders now and then and
// then idles with its team, as the window's export thread does after each export.
void release_cpu_render_scratch();
// Every target this binary has code for and this CPU can run, best first.
std::vector<std::string> direct_cpu_simd_targets();
// Makes direct_cpu use one of those targets (tests and benchmarks compare them); "" goes
// back to the best. Returns false for a name not in the list. Call between renders only.
bool direct_cpu_use_simd_target(const std::string& name);

// --- CUDA (cuda_available() is compute/system/cuda_info.h's) --------------------------------
// Renders `rect` of `view` into device memory: rgba_device gets rect.width*rect.height RGBA8
// pixels (row pitch rect.width*4), mu_device (optional, may be null) the smooth values.
// Synchronous. compute_ms is measured with CUDA events. Throws std::runtime_error with a
// sentence on any CUDA error.
FrameStats direct_cuda(const View& view, Precision precision, const Shortcuts& shortcuts, const PaletteTable& palette,
                       PixelRect rect, uint8_t* rgba_device, float* mu_device);

// The same into host memory (allocates device buffers internally; either output may be null).
FrameStats direct_cuda_to_host(const View& view, Precision precision, const Shortcuts& shortcuts,
                               const PaletteTable& palette, PixelRect rect, uint8_t* rgba_host, float* mu_host);

// Instructions the CUDA kernel's inner loop issues per iteration, counted in its SASS (see
// direct_cuda.cu): for Fp32 every instruction (FP32 work is issue-bound: one warp
// instruction per clock per SM sub-partition, as many lanes as FP32 units), for Fp64 the FP64-pipe
// instructions. The bench divides SMs x FP lanes x clock by this for "% of limit". 0 without CUDA.
// Other formulas: Mandelbrot's count with their step's instructions (formula_cuda_step_instructions)
// in place of its 6 per step.
double direct_cuda_instructions_per_iteration(Precision precision, Formula formula = Formula::Mandelbrot);

}  // namespace ms
