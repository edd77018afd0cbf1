// deep_bench.h: the deep zoom's benchmark, as functions the `bench` mode (and the DISABLED_
// benchmark test, tests/fractal/test_deep_bench.cpp) can call. Figures are printed with their
// napkin maths and as ratios against a baseline measured in the same run:
//   deep_bench_reference  the reference orbit against a bare MPFR loop at the same precision
//   deep_bench_locations  Kalles Fraktaler 2's benchmark locations (assets/locations/): reference
//                         ms, BLA ms, frame ms, iterations skipped by BLA, nothing cached;
//                         on the CPU or on CUDA
//   deep_bench_plain      one location, the full pipeline (all cores, BLA) against the plain
//                         loop: MPFR reference, double deltas, rebasing, no BLA, one thread
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"

namespace ms {

using DeepBenchPrint = std::function<void(const std::string&)>;

// Location files are read from `folder` (assets/locations) by name ("e50", "e533", ...).
void deep_bench_reference(const std::string& folder, const std::vector<std::string>& names,
                          int height, const DeepBenchPrint& print);
// use_cuda: the frames on CUDA (deep_cuda) instead; throws where CUDA cannot run.
void deep_bench_locations(const std::string& folder, const std::vector<std::string>& names,
                          int width, int height, const DeepBenchPrint& print, bool use_cuda = false);
// rows_stride > 1 runs the plain loop on the middle 1/n of the rows only and scales its time by
// n, saying so (the whole frame can take minutes on one thread).
void deep_bench_plain(const std::string& folder, const std::string& name, int width, int height,
                      int rows_stride, const DeepBenchPrint& print);

}  // namespace ms
