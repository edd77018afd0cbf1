// deep_bench.h: the deep zoom's benchmark, as functions the `bench` mode (and the DISABLED_
// benchmark test, tests/fractal/deep/test_deep_bench.cpp) can call. Figures are printed with their
// napkin maths and as ratios against a baseline measured in the same run:
//   deep_bench_reference  the reference orbit against a bare MPFR loop at the same precision
//   deep_bench_reference_team  the reference on 1, 2 and 3 threads, by precision
//   deep_bench_hand_over  the meeting of 2 and 3 spinning threads that each team iteration pays
//   deep_bench_core_to_core  the one-way hand-over between each pair of CPUs, threads pinned
//   deep_bench_reference_threads  a frame's reference (stopped at its nucleus) on 1, 2, 3 and the chosen threads
//   deep_bench_gpu_squaring  a chain of exact squarings on the GPU against GMP and MPFR on one CPU
//                         thread, by precision: what a reference orbit on the GPU would cost
//   deep_bench_locations  Kalles Fraktaler 2's benchmark locations (assets/locations/): reference
//                         ms, BLA ms, frame ms, iterations skipped by BLA, nothing cached;
//                         on the CPU or on CUDA
//   deep_bench_plain      one location, the full pipeline (all cores, BLA) against the plain
//                         loop: MPFR reference, double deltas, rebasing, no BLA, one thread
//   deep_bench_bla        the BLA table built on the CPU and copied, against built on the GPU
//   deep_bench_kf2        `mandelscope bench --deep`: each kf2 benchmark location end to end
//                         with nothing cached, then the frame alone with its reference cached
//                         (BLA table built again), then with its BLA table kept too,
//                         against Kalles Fraktaler 2.12.11's published CPU times, with the goal
//                         marks (100x goal, 30x resolve bar, 50 ms frame goal)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"

namespace ms {

using DeepBenchPrint = std::function<void(const std::string&)>;

// Location files are read from `folder` (assets/locations) by name ("e50", "e533", ...).
void deep_bench_reference(const std::string& folder, const std::vector<std::string>& names, int height,
                          const DeepBenchPrint& print);
// A bounded orbit at each precision in `bits`, `iterations` iterations.
void deep_bench_reference_team(const std::vector<int64_t>& bits, int64_t iterations, const DeepBenchPrint& print);
// Nanoseconds a meeting of 2 and of 3 threads takes (where the machine has as many hardware
// threads): each publishes a count and spins, with the pause instruction as the squaring team's
// waits do, until every other has published it; `meetings` in a row, best of 5.
void deep_bench_hand_over(int meetings, const DeepBenchPrint& print);
// The one-way hand-over between every ordered pair of the CPUs the process may run on: two
// threads pinned to them pass a count back and forth `rounds` times (Linux; elsewhere a line
// says so). The squaring team's meeting is made of such crossings.
void deep_bench_core_to_core(int rounds, const DeepBenchPrint& print);
// Each location's reference orbit as a width x height frame needs it (its precision, stopped at
// the nucleus within the frame's half diagonal) on 1, 2 and 3 threads and as chosen (threads 0),
// `rounds` rounds interleaved, medians, each orbit checked equal to one thread's;
// max_iterations > 0 caps the locations' iterations.
void deep_bench_reference_threads(const std::string& folder, const std::vector<std::string>& names, int width,
                                  int height, int64_t max_iterations, int rounds, const DeepBenchPrint& print);
// At each precision in `bits`: microseconds a squaring in a dependent chain takes with GMP's
// mpn_sqr and MPFR's mpfr_sqr on one CPU thread, in one block on the GPU and over a cooperative
// grid (deep_square_cuda.h), best of 3, each GPU square checked against GMP's; then a grid-wide
// barrier's microseconds. Throws where CUDA cannot run.
void deep_bench_gpu_squaring(const std::vector<int64_t>& bits, const DeepBenchPrint& print);
// use_cuda: the frames on CUDA (deep_cuda) instead; throws where CUDA cannot run.
void deep_bench_locations(const std::string& folder, const std::vector<std::string>& names, int width, int height,
                          const DeepBenchPrint& print, bool use_cuda = false);
// The pipeline's whole frame end to end once, then `rounds` rounds on a sample of every
// rows_stride-th row (0: chosen so that the plain loop takes about 15 s there), the pipeline and
// the plain loop interleaved on the same rows; prints both, their medians, the ratio on the
// sample and for the whole frame (the plain loop's ns per iteration times the frame's
// iterations), and the load average.
void deep_bench_plain(const std::string& folder, const std::string& name, int width, int height, int rows_stride,
                      int rounds, const DeepBenchPrint& print);

// Where each location's pixel work goes (Mandelbrot's parameter plane, BLA with the frame's own
// table): per pixel of every rows_stride-th row of width x height, the iterations, perturbation
// steps, BLA skips (by level), rebases, the interior pixels' share, and the steps spent before
// a pixel's first skip and after its rebases; counted, deterministic, machine-independent.
void deep_bench_work(const std::string& folder, const std::vector<std::string>& names, int width, int height,
                     int rows_stride, const DeepBenchPrint& print);

// The BLA table of each location (Mandelbrot's parameter plane) at width x height: built on the
// CPU (all cores) and copied to the device against built on the GPU (deep_bla_cuda.h), `rounds`
// rounds interleaved, medians, with the tables checked equal; then deep_cuda's frame end to end,
// nothing cached, with each (options.bla_on_device). Throws where CUDA cannot run.
// (deep_bla_bench.cpp)
void deep_bench_bla(const std::string& folder, const std::vector<std::string>& names, int width, int height, int rounds,
                    const DeepBenchPrint& print);

// deep_cuda's pixel kernel time at width x height with the reference and table kept: in one pass
// against in passes of a step budget (DeepRenderOptions::cuda_pass_steps), `rounds` rounds
// interleaved, medians, every frame checked equal. Throws where CUDA cannot run. (deep_bla_bench.cpp)
void deep_bench_cuda_passes(const std::string& folder, const std::vector<std::string>& names, int width, int height,
                            int rounds, const DeepBenchPrint& print);

// The kf2 locations at width x height on CUDA, each frame's bands shared out over `devices`
// (compute/scale/deep_multi_gpu.h) against the first device alone through the same engine:
// end to end once each (nothing cached), then `rounds` rounds interleaved with the reference and
// every device's tables kept (the pixel work alone); medians, the ratio, and each device's bands,
// rows and share of the iterations; every frame checked equal to the one device's byte for byte.
// Throws where CUDA cannot run. (deep_devices_bench.cpp)
void deep_bench_devices(const std::string& folder, int width, int height, const std::vector<int>& devices, int rounds,
                        const DeepBenchPrint& print);

// Kalles Fraktaler 2's benchmark locations and KF 2.12.11's published CPU times for them at
// 1024x1024 (its benchmarks/ logs). The 1e14 location is not among the public files found
// (assets/locations/README.md): its row says so.
struct DeepKf2Location {
    const char* name;   // file stem in assets/locations/
    const char* label;  // kf2's name for it
    double kf_seconds;  // KF 2.12.11, CPU, 1024x1024
};
inline constexpr DeepKf2Location kDeepKf2Locations[] = {
    {"e14", "1e14", 7.6},   {"e50", "1e50", 29.5},   {"e113", "5e113", 10.6},
    {"e227", "5e227", 268}, {"e533", "4e533", 22.4}, {"e1086", "1e1086", 274},
};
inline constexpr double kDeepKf2GoalRatio = 100.0;    // the goal, end to end
inline constexpr double kDeepKf2ResolveRatio = 30.0;  // the lower bar that still counts as met
inline constexpr double kDeepKf2FrameGoalMs = 50.0;   // the frame alone, reference cached

struct DeepKf2Row {
    DeepKf2Location location{};
    std::string missing;        // why the row did not run ("" when it ran)
    DeepFrameStats end_to_end;  // nothing cached: reference + BLA + pixels
    DeepFrameStats cached;      // the same frame again, its reference from the cache, BLA built
    DeepFrameStats bla_kept;    // and again, its BLA table kept with the reference too
    double ratio = 0.0;         // KF's time / our end-to-end time
};

// Renders each location at width x height on CUDA (use_cuda) or the CPU, prints the table
// (marks only at 1024x1024, the size KF's times are for) and returns the rows. progress gets
// (fraction of the whole run, what is running). Throws where CUDA cannot run.
std::vector<DeepKf2Row> deep_bench_kf2(const std::string& folder, int width, int height, bool use_cuda,
                                       const DeepBenchPrint& print,
                                       const std::function<void(double, const std::string&)>& progress = {});

}  // namespace ms
