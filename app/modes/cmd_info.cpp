// cmd_info.cpp: `mandelscope info [--json]`: the CPU (model, cores, threads, clock, the SIMD set
// the fast path uses, and its iteration bound) and every CUDA device (with --json, every device
// attribute), or the exact reason no CUDA device can be used, plus the napkin limits and
// GPU-vs-CPU estimates of compute/perf_model.h. Exits 0 either way: no GPU is a fact to report,
// not an error.
#include <cstdio>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "app/modes/machine_json.h"
#include "compute/fractal/direct/direct.h"
#include "compute/io/assets.h"
#include "compute/perf/perf_model.h"
#include "compute/system/cpu_info.h"
#include "compute/system/cuda_info.h"

namespace ms {

namespace {

void print_text(const CpuInfo& cpu, const CudaSystemInfo& cuda) {
    std::string clock_source;
    const double clock_hz = cpu_clock_hz(cpu, &clock_source);
    std::printf("CPU\n");
    std::printf("  model          %s\n", cpu.model.c_str());
    std::printf("  cores          %d (%d threads available)\n", cpu.cores, cpu.threads);
    std::printf("  clock          %.0f MHz nominal", cpu.nominal_mhz);
    if (cpu.max_mhz > 0) std::printf(", %.0f MHz maximum", cpu.max_mhz);
    if (cpu.measured_mhz > 0) std::printf(", %.0f MHz measured", cpu.measured_mhz);
    std::printf("\n");
    std::printf("  SIMD in use    %s (%d-bit vectors: %d FP32 / %d FP64 lanes)", cpu.simd_target.c_str(), cpu.simd_bits,
                cpu_simd_lanes(cpu, Precision::Fp32), cpu_simd_lanes(cpu, Precision::Fp64));
    std::string others;
    for (const auto& t : direct_cpu_simd_targets())
        if (t != cpu.simd_target) others += (others.empty() ? "" : ", ") + t;
    if (!others.empty()) std::printf("; also built: %s", others.c_str());
    std::printf("\n");
    std::printf(
        "  bound          %.3g FP32 / %.3g FP64 iterations/s = %d cores x lanes x %.2f GHz (%s) x %d FP pipes / %d FP "
        "ops per iteration\n",
        cpu_iteration_limit(cpu, Precision::Fp32), cpu_iteration_limit(cpu, Precision::Fp64), cpu.cores, clock_hz / 1e9,
        clock_source.c_str(), cpu.fp_pipes, kCpuFpOpsPerIteration);
    std::printf("CUDA\n");
    std::printf("  driver %s, runtime %s\n", cuda_version_text(cuda.driver_version).c_str(),
                cuda_version_text(cuda.runtime_version).c_str());
    if (!cuda.usable) std::printf("  no CUDA device can be used: %s\n", cuda.reason.c_str());
    for (const auto& d : cuda.devices) {
        std::printf("  device %d       %s, compute capability %d.%d\n", d.index, d.name.c_str(), d.compute_major,
                    d.compute_minor);
        std::printf("    SMs          %d (%d FP32 / %d FP64 lanes each), clock %.0f MHz\n", d.sm_count,
                    d.fp32_lanes_per_sm, d.fp64_lanes_per_sm, d.clock_khz / 1000.0);
        std::printf("    memory       %.1f GiB, %d-bit bus at %.0f MHz: %.0f GB/s theoretical; L2 %.0f MiB\n",
                    double(d.total_memory_bytes) / (1 << 30), d.memory_bus_width_bits, d.memory_clock_khz / 1000.0,
                    d.memory_bytes_per_second / 1e9, d.l2_cache_bytes / double(1 << 20));
        for (Precision p : {Precision::Fp32, Precision::Fp64}) {
            const IterationLimit limit = cuda_iteration_limit(d, p);
            std::printf("    bound %s   %.3g iterations/s = %s\n", precision_name(p), limit.iterations_per_second,
                        limit.formula.c_str());
        }
        std::printf("    (%zu device attributes: mandelscope info --json lists them all)\n", d.attributes.size());
    }
    if (cuda.devices.empty()) return;
    std::printf("Back of the envelope: how many times faster is the GPU? (measured by mandelscope bench)\n");
    for (Precision p : {Precision::Fp32, Precision::Fp64})
        for (const auto& e : estimate_gpu_speedup(cpu, cuda.devices.front(), p))
            std::printf("  %s %-24s %8.1fx  = %s / %s\n", precision_name(p), e.name.c_str(), e.speedup,
                        e.gpu_formula.c_str(), e.cpu_formula.c_str());
}

}  // namespace

int run_info_command(int argc, char** argv) {
    CLI::App app{"Describe this machine's CPU and CUDA devices", "info"};
    bool json = false;
    app.add_flag("--json", json, "Print JSON instead of text");
    if (int status = parse_command_line(app, argc, argv); status >= 0) return status;

    const CpuInfo cpu = query_cpu_info();
    const CudaSystemInfo cuda = query_cuda_system();
    // Where the data files were found (assets.h gives the order): an installed or moved copy
    // shows here which tree it reads.
    auto data_dir = [](const char* sub) {
        try {
            return find_data_dir(sub).string();
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
    };
    if (json) {
        nlohmann::ordered_json j;
        j["cpu"] = cpu_json(cpu);
        j["cuda"] = cuda_json(cuda);
        j["speedup_estimates"] = speedup_estimates_json(cpu, cuda);
        j["data"] = {{"assets", data_dir("assets")}, {"shaders", data_dir("shaders")}};
        std::cout << j.dump(2) << "\n";
    } else {
        print_text(cpu, cuda);
        std::printf("\nData\n  assets         %s\n  shaders        %s\n", data_dir("assets").c_str(),
                    data_dir("shaders").c_str());
    }
    return 0;
}

}  // namespace ms
