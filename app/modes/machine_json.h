// machine_json.h: this machine's CPU and CUDA facts as JSON, for `mandelscope info --json` and
// the machine section of `mandelscope bench --json`: everything cpu_info.h and cuda_info.h
// report (every CUDA device attribute included), the iteration limits of perf_model.h with their
// formulas, and, where a device exists, the back-of-the-envelope GPU-vs-CPU estimates.
#pragma once

#include <nlohmann/json.hpp>

#include "compute/perf/perf_model.h"
#include "compute/system/cpu_info.h"
#include "compute/system/cuda_info.h"

namespace ms {

nlohmann::ordered_json iteration_limit_json(const IterationLimit& limit);
nlohmann::ordered_json cpu_json(const CpuInfo& cpu);
// "usable": false comes with the reason in words; devices are listed even then, if any.
nlohmann::ordered_json cuda_json(const CudaSystemInfo& cuda);
// The estimates of estimate_gpu_speedup for FP32 and FP64 against the first device (null
// without one), each with its arithmetic.
nlohmann::ordered_json speedup_estimates_json(const CpuInfo& cpu, const CudaSystemInfo& cuda);

std::string cuda_version_text(int version);  // CUDA encodes 13.0 as 13000; 0 -> "none"

}  // namespace ms
