// machine_json.cpp: the JSON of machine_json.h.
#include "app/modes/machine_json.h"

#include <string>

#include "compute/fractal/direct/direct.h"

namespace ms {

std::string cuda_version_text(int version) {
    return version ? std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10) : "none";
}

nlohmann::ordered_json iteration_limit_json(const IterationLimit& limit) {
    nlohmann::ordered_json j;
    j["iterations_per_second"] = limit.iterations_per_second;
    j["instructions_per_iteration"] = limit.instructions_per_iteration;
    j["formula"] = limit.formula;
    return j;
}

nlohmann::ordered_json cpu_json(const CpuInfo& cpu) {
    std::string clock_source;
    const double clock_hz = cpu_clock_hz(cpu, &clock_source);
    nlohmann::ordered_json j;
    j["model"] = cpu.model;
    j["vendor"] = cpu.vendor;
    j["family"] = cpu.family;
    j["cores"] = cpu.cores;
    j["threads"] = cpu.threads;
    j["nominal_mhz"] = cpu.nominal_mhz;
    j["max_mhz"] = cpu.max_mhz;
    j["measured_mhz"] = cpu.measured_mhz;
    j["clock_hz"] = clock_hz;
    j["clock_source"] = clock_source;
    j["simd_target"] = cpu.simd_target;
    j["simd_targets_available"] = direct_cpu_simd_targets();
    j["simd_bits"] = cpu.simd_bits;
    j["fp32_lanes"] = cpu_simd_lanes(cpu, Precision::Fp32);
    j["fp64_lanes"] = cpu_simd_lanes(cpu, Precision::Fp64);
    j["fp_pipes_per_core"] = cpu.fp_pipes;
    j["fma_pipes_per_core"] = cpu_fma_pipes(cpu);
    j["fp_ops_per_iteration"] = kCpuFpOpsPerIteration;
    j["iteration_limit_fp32"] = cpu_iteration_limit(cpu, Precision::Fp32);
    j["iteration_limit_fp64"] = cpu_iteration_limit(cpu, Precision::Fp64);
    j["limits"] = {{"cpu_reference", iteration_limit_json(cpu_reference_iteration_limit(cpu))},
                   {"cpu_fast_fp32", iteration_limit_json(cpu_fast_iteration_limit(cpu, Precision::Fp32))},
                   {"cpu_fast_fp64", iteration_limit_json(cpu_fast_iteration_limit(cpu, Precision::Fp64))}};
    return j;
}

nlohmann::ordered_json cuda_json(const CudaSystemInfo& cuda) {
    nlohmann::ordered_json j;
    j["usable"] = cuda.usable;
    j["built_with_cuda"] = bool(MANDELSCOPE_HAVE_CUDA);  // a CPU-only build has no runtime at all
    j["reason"] = cuda.reason;
    j["driver_version"] = cuda.driver_version;
    j["driver_version_text"] = cuda_version_text(cuda.driver_version);
    j["runtime_version"] = cuda.runtime_version;
    j["runtime_version_text"] = cuda_version_text(cuda.runtime_version);
    std::string source32, source64;
    const double instructions32 = cuda_instructions_per_iteration(Precision::Fp32, &source32);
    const double instructions64 = cuda_instructions_per_iteration(Precision::Fp64, &source64);
    j["instructions_per_iteration"] = {{"fp32", instructions32}, {"fp64", instructions64}, {"source", source32}};
    j["devices"] = nlohmann::ordered_json::array();
    for (const auto& d : cuda.devices) {
        nlohmann::ordered_json dj;
        dj["index"] = d.index;
        dj["name"] = d.name;
        dj["compute_capability"] = std::to_string(d.compute_major) + "." + std::to_string(d.compute_minor);
        dj["sm_count"] = d.sm_count;
        dj["fp32_lanes_per_sm"] = d.fp32_lanes_per_sm;
        dj["fp64_lanes_per_sm"] = d.fp64_lanes_per_sm;
        dj["clock_khz"] = d.clock_khz;
        dj["memory_clock_khz"] = d.memory_clock_khz;
        dj["memory_bus_width_bits"] = d.memory_bus_width_bits;
        dj["total_memory_bytes"] = d.total_memory_bytes;
        dj["l2_cache_bytes"] = d.l2_cache_bytes;
        dj["max_threads_per_sm"] = d.max_threads_per_sm;
        dj["memory_bytes_per_second"] = d.memory_bytes_per_second;
        dj["limits"] = {{"cuda_fp32", iteration_limit_json(cuda_iteration_limit(d, Precision::Fp32))},
                        {"cuda_fp64", iteration_limit_json(cuda_iteration_limit(d, Precision::Fp64))}};
        nlohmann::ordered_json attributes = nlohmann::ordered_json::object();
        for (const auto& [name, value] : d.attributes) attributes[name] = value;
        dj["attributes"] = attributes;
        j["devices"].push_back(dj);
    }
    return j;
}

nlohmann::ordered_json speedup_estimates_json(const CpuInfo& cpu, const CudaSystemInfo& cuda) {
    if (cuda.devices.empty()) return nullptr;
    nlohmann::ordered_json j;
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& e : estimate_gpu_speedup(cpu, cuda.devices.front(), p))
            list.push_back({{"name", e.name},
                            {"unit", e.unit},
                            {"cpu_per_second", e.cpu_per_second},
                            {"gpu_per_second", e.gpu_per_second},
                            {"speedup", e.speedup},
                            {"cpu_formula", e.cpu_formula},
                            {"gpu_formula", e.gpu_formula}});
        j[precision_name(p)] = list;
    }
    return j;
}

}  // namespace ms
