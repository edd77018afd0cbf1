// bench_suite.h: the fixed suite of `mandelscope bench` and how each row is measured;
// cmd_bench.cpp prints the rows as a table and writes them as JSON.
//
// Frames: the full set (the default view), seahorse valley, elephant valley, a minibrot at zoom
// 1e10 and an all-interior view, each at 1920x1080 and 3840x2160 (--quick: 1080p only), plus
// one frame per formula of the family (formula.h: Multibrot 3..8, Burning Ship, Tricorn; 1080p,
// each at its default view, 1,000 iterations; Mandelbrot's is the full set), plus
// the seed frame: 1536x1024, 20 iterations, real axis -2..1 and imaginary -1..1, which a widely
// read GPU tutorial timed at 4.07 s in pure Python on a CPU and 0.0046 s on a GPU.
// Paths, each with the shortcuts (cardioid/bulb test, periodicity) on and then off:
//   CPU reference  FP64, one thread. Slow, so on big frames it renders an evenly spaced subset
//                  of rows (each at the centre of its stripe) within a time budget and scales the
//                  time and iterations to the whole frame; the row's note says so.
//   CPU fast       FP32 and FP64, all cores, SIMD; wall time.
//   CUDA           FP32 and FP64; CUDA-event time of the kernels. Each frame is also checked
//                  against the CPU fast frame of the same precision (frame_compare.h).
// FP32 runs only where it resolves the view (fp32_resolves); elsewhere its rows are skipped
// with the reason, as are the CUDA rows without a usable device.
// Timing: one warm-up, then the median of up to `repeats` runs (3 for frames over 250 ms); a CPU
// frame whose warm-up took over a second counts that run alone (a multi-second frame needs no
// warm-up, and the full bench must finish within minutes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compute/fractal/direct/frame_compare.h"
#include "compute/fractal/colour/palette.h"
#include "compute/fractal/view/view.h"
#include "compute/perf/perf_model.h"
#include "compute/system/cpu_info.h"
#include "compute/system/cuda_info.h"

namespace ms {

// The seed comparison's figures, as the tutorial printed them.
inline constexpr double kTutorialCpuPythonSeconds = 4.07;
inline constexpr double kTutorialGpuSeconds = 0.0046;

struct BenchFrame {
    std::string view_name;  // "seahorse valley"
    std::string size_name;  // "1080p", "4K", "1536x1024"
    View view;
    bool seed = false;  // the tutorial's frame
};

// The suite, in the order it runs. quick: 1080p only (and the seed frame).
std::vector<BenchFrame> bench_frames(bool quick);

enum class BenchPath { CpuReference, CpuFast, Cuda };
const char* bench_path_name(BenchPath path);  // "CPU reference", "CPU fast", "CUDA"

struct BenchRow {
    std::string view;  // BenchFrame::view_name
    std::string size;  // BenchFrame::size_name
    int width = 0, height = 0, max_iterations = 0;
    Formula formula = Formula::Mandelbrot;
    bool seed = false;
    BenchPath path = BenchPath::CpuFast;
    Precision precision = Precision::Fp64;
    bool shortcuts = true;
    std::string skipped;  // why it did not run; empty when it ran
    std::string note;     // "540 of 2160 rows, scaled", "one run", "all interior"
    double ms = 0.0;
    int runs = 0;
    uint64_t iterations = 0;            // executed (shortcut pixels count 0)
    IterationLimit limit;               // what the path can issue at most
    double speedup_vs_reference = 0.0;  // CPU reference time (same frame and shortcuts) / ms
    double speedup_vs_cpu_fast = 0.0;   // CPU fast time (same precision; FP64 for the
                                        // reference) / ms
    bool compared = false;              // CUDA rows: checked against the CPU fast frame
    FrameAgreement agreement;

    bool ran() const { return skipped.empty(); }
    double iterations_per_second() const { return ms > 0.0 ? double(iterations) / (ms * 1e-3) : 0.0; }
    double percent_of_limit() const { return ms::percent_of_limit(iterations_per_second(), limit); }
};

// What the suite runs with: the machine, and the budget.
struct BenchSetup {
    CpuInfo cpu;
    CudaSystemInfo cuda;
    bool cuda_usable = false;
    std::string cuda_reason;  // why not, in words
    PaletteTable palette;     // the CUDA path colours in-kernel
    bool quick = false;
    int repeats = 5;                  // timed runs after the warm-up (at most)
    double reference_budget_s = 2.0;  // per CPU reference measurement
    double reference_rate = 4e8;      // iterations/s the reference is assumed to run at, to size
                                      // its subset; updated from each measurement
};

// Runs every path on one frame, shortcuts on then off: 10 rows (reference, fast FP32/FP64,
// CUDA FP32/FP64, twice) with the speedups filled in. `step` is called before each path with
// what it is about to do (the progress bar's status).
std::vector<BenchRow> run_bench_frame(const BenchFrame& frame, BenchSetup& setup,
                                      const std::function<void(const std::string&)>& step);

inline constexpr int kBenchRowsPerFrame = 10;

}  // namespace ms
