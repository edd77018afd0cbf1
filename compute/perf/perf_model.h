// perf_model.h: the napkin math behind Mandelscope's performance figures, in one place: the
// iterations per second each path can issue at most ("% of limit" in `mandelscope bench` and
// the performance panel), and the back-of-the-envelope GPU-vs-CPU comparisons that GPU
// tutorials make, set beside what was measured. Pure functions over the plain structs of
// cpu_info.h and cuda_info.h: nothing here measures or touches a GPU, so tests feed made-up
// machines and the panel can call it every frame.
//
// How to use it (what the bench and the panel do):
//   CpuInfo cpu = query_cpu_info();                       // once (cpu_info.h; a calibration loop)
//   CudaSystemInfo cuda = query_cuda_system();            // once (cuda_info.h)
//   IterationLimit gpu = cuda_iteration_limit(cuda.devices[0], Precision::Fp32);
//   double pct = percent_of_limit(measured_iterations_per_second, gpu);
//   auto estimates = estimate_gpu_speedup(cpu, cuda.devices[0], Precision::Fp32);
//   SpeedupCheck check = check_speedup_estimates(estimates, cpu_measured, gpu_measured);
//   for (const auto& e : check.estimates) show(e.sentence);
//
// The limits (iterations per second; see cpu_info.h and direct_cuda.cu for the counts):
//   CPU reference  1 core x 1 lane x clock x FP pipes / 9 FP ops per iteration
//   CPU fast       cores x SIMD lanes x clock x FP pipes / 9 FP ops per iteration
//   CUDA           SMs x FP lanes per SM x clock / instructions per iteration, the count read
//                  from the kernel's SASS (direct_cuda_instructions_per_iteration), or the
//                  GPU README's 8 (FP32) / 7 (FP64) in a build without CUDA
//
// The speedup estimates, from the tutorials' naive one to the closest (estimate_gpu_speedup):
//   "cores x clock"           CUDA cores (SMs x FP32 lanes) x clock against CPU cores x clock:
//                             what tutorials quote; it ignores the CPU's SIMD lanes
//   "SIMD lanes and FMA"      peak FLOP/s in the precision: GPU FP lanes x 2 (an FMA is two
//                             FLOPs) x clock against CPU cores x SIMD lanes x FMA pipes x 2 x clock
//   "Mandelbrot issue bound"  the two iteration limits above: an iteration is not all FMAs
//                             (adds, compares, loop work), and each side pays differently
// check_speedup_estimates() then says how far each one is from the measured speedup.
#pragma once

#include <string>
#include <vector>

#include "compute/fractal/view/view.h"
#include "compute/system/cpu_info.h"
#include "compute/system/cuda_info.h"

namespace ms {

// The CPU bound: cores x SIMD lanes x clock x FP pipes / FP operations per iteration.
//   Operations per iteration: the fast path's unfused step is 3 multiplies (zr*zr, zi*zi,
//   (zr+zr)*zi), 5 adds/subtracts (zr+zr, + ci, zr2 - zi2, + cr, zr2 + zi2) and 1 compare
//   (|z|^2 > R^2): 9 vector FP operations, FP32 or FP64 alike (FP32 has twice the lanes).
//   The periodicity check adds a compare; loop control runs on the integer side. The FP pipes
//   and the clock come from cpu_info.h.
inline constexpr int kCpuFpOpsPerIteration = 9;

int cpu_simd_lanes(const CpuInfo& info, Precision precision);  // FP64: bits/64, FP32: bits/32

// Iterations per second the cores can issue (see the formula above).
double cpu_iteration_limit(const CpuInfo& info, Precision precision);

// Iterations per second a path can issue at most, with its arithmetic spelled out.
struct IterationLimit {
    double iterations_per_second = 0.0;       // 0 when unknown (no device, unknown capability)
    double instructions_per_iteration = 0.0;  // what the formula divides by
    std::string formula;                      // "2 cores x 16 lanes x 3.00 GHz x 4 FP pipes / 9 FP ops per iteration"
};

IterationLimit cpu_reference_iteration_limit(const CpuInfo& cpu);  // FP64, one core, one lane
// Fp32 or Fp64; other formulas than Mandelbrot divide by their own operation count
// (formula_cpu_ops_per_iteration, formula.h).
IterationLimit cpu_fast_iteration_limit(const CpuInfo& cpu, Precision precision, Formula formula = Formula::Mandelbrot);
IterationLimit cuda_iteration_limit(const CudaDeviceInfo& device, Precision precision,
                                    double instructions_per_iteration);
// The same with cuda_instructions_per_iteration(precision, formula).
IterationLimit cuda_iteration_limit(const CudaDeviceInfo& device, Precision precision,
                                    Formula formula = Formula::Mandelbrot);

// Instructions per iteration the CUDA limit assumes: the SASS count of this build's kernel, or
// the GPU README's 8 (FP32) / 7 (FP64) without CUDA. `source` says which.
double cuda_instructions_per_iteration(Precision precision, std::string* source = nullptr,
                                       Formula formula = Formula::Mandelbrot);

// 100 x measured / limit; 0 when the limit is unknown.
double percent_of_limit(double measured_iterations_per_second, const IterationLimit& limit);

// FMA-capable FP pipes per CPU core, for the peak-FLOP estimate: 2 on current x86 cores (Intel
// ports 0 and 1, or 0 and 5; AMD Zen FP0 and FP1), 1 on Zen 4 running 512-bit vectors (it
// splits each into two 256-bit halves on the same pipe).
int cpu_fma_pipes(const CpuInfo& cpu);

// One back-of-the-envelope estimate of how many times faster the GPU is than the CPU.
struct SpeedupEstimate {
    std::string name;  // "cores x clock", "SIMD lanes and FMA", "Mandelbrot issue bound"
    std::string unit;  // what is counted per second: "core-cycles", "FLOP", "iterations"
    double cpu_per_second = 0.0;
    double gpu_per_second = 0.0;
    double speedup = 0.0;     // gpu / cpu; 0 when either side is unknown
    std::string cpu_formula;  // "16 cores x 3.00 GHz"
    std::string gpu_formula;  // "132 SMs x 128 lanes x 1.98 GHz"
};

// The three estimates above, naive first, for a precision (Fp32 or Fp64). The naive one counts
// CUDA cores (FP32 lanes) in either precision, as the tutorials do. gpu_instructions_per_iteration
// 0 takes cuda_instructions_per_iteration(precision).
std::vector<SpeedupEstimate> estimate_gpu_speedup(const CpuInfo& cpu, const CudaDeviceInfo& device, Precision precision,
                                                  double gpu_instructions_per_iteration = 0.0);

// One estimate against the measurement.
struct EstimateCheck {
    std::string name;
    double estimated_speedup = 0.0;
    double measured_speedup = 0.0;
    double ratio = 0.0;    // estimated / measured: 7 means the estimate promised 7x too much,
                           // 0.5 that the GPU did twice as well as it predicted; 0 if unknown
    std::string sentence;  // "cores x clock: 704x estimated, 95.2x measured: 7.4x too optimistic"
};

struct SpeedupCheck {
    double measured_speedup = 0.0;         // gpu / cpu measured iterations per second
    std::vector<EstimateCheck> estimates;  // in the order given
    std::string summary;                   // which estimate came closest, in one sentence
};

// Measured iterations per second of the CPU fast path and the GPU on the same frame and
// precision, against each estimate. Either measurement <= 0: every ratio 0 and a sentence
// saying what is missing.
SpeedupCheck check_speedup_estimates(const std::vector<SpeedupEstimate>& estimates, double cpu_iterations_per_second,
                                     double gpu_iterations_per_second);

}  // namespace ms
