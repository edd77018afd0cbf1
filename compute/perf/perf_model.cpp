// perf_model.cpp: iteration limits and the back-of-the-envelope GPU-vs-CPU estimates of
// perf_model.h, with their arithmetic written out in words.
#include "compute/perf/perf_model.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "compute/fractal/direct/direct.h"
#include "compute/system/text_format.h"

namespace ms {

static_assert(formula_cpu_ops_per_iteration(Formula::Mandelbrot) == kCpuFpOpsPerIteration,
              "the model's Mandelbrot count and the formula table agree");

int cpu_simd_lanes(const CpuInfo& info, Precision precision) {
    if (info.simd_bits <= 64) return 1;  // SCALAR: one value at a time
    return info.simd_bits / (precision == Precision::Fp32 ? 32 : 64);
}

double cpu_iteration_limit(const CpuInfo& info, Precision precision) {
    return double(info.cores) * cpu_simd_lanes(info, precision) * cpu_clock_hz(info) * info.fp_pipes /
           kCpuFpOpsPerIteration;
}

namespace {

// The GPU README's estimates (../shared/gpu/README.md): about 8 FP32 or 7 FP64 instructions per
// iteration with the escape test every iteration.
constexpr double kReadmeInstructionsFp32 = 8.0;
constexpr double kReadmeInstructionsFp64 = 7.0;

std::string ghz(double hz) { return printf_text("%.2f GHz", hz / 1e9); }

double gpu_clock_hz(const CudaDeviceInfo& device) { return double(device.clock_khz) * 1e3; }

int gpu_lanes_per_sm(const CudaDeviceInfo& device, Precision precision) {
    return precision == Precision::Fp32 ? device.fp32_lanes_per_sm : device.fp64_lanes_per_sm;
}

// "704x", "95.2x", "0.53x": enough digits to read, not more.
std::string times(double x) {
    if (x >= 100.0) return printf_text("%.0fx", x);
    if (x >= 10.0) return printf_text("%.1fx", x);
    return printf_text("%.2gx", x);
}

}  // namespace

IterationLimit cpu_reference_iteration_limit(const CpuInfo& cpu) {
    IterationLimit limit;
    const double clock = cpu_clock_hz(cpu);
    limit.instructions_per_iteration = kCpuFpOpsPerIteration;
    limit.iterations_per_second = clock * cpu.fp_pipes / kCpuFpOpsPerIteration;
    limit.formula = printf_text("1 core x 1 lane x %s x %d FP pipes / %d FP ops per iteration", ghz(clock).c_str(),
                                cpu.fp_pipes, kCpuFpOpsPerIteration);
    return limit;
}

IterationLimit cpu_fast_iteration_limit(const CpuInfo& cpu, Precision precision, Formula formula) {
    IterationLimit limit;
    const int lanes = cpu_simd_lanes(cpu, precision);
    const double clock = cpu_clock_hz(cpu);
    const int ops = formula_cpu_ops_per_iteration(formula);  // kCpuFpOpsPerIteration for Mandelbrot
    limit.instructions_per_iteration = ops;
    limit.iterations_per_second = double(cpu.cores) * lanes * clock * cpu.fp_pipes / ops;
    limit.formula = printf_text("%d cores x %d %s lanes x %s x %d FP pipes / %d FP ops per iteration", cpu.cores, lanes,
                                precision == Precision::Fp32 ? "FP32" : "FP64", ghz(clock).c_str(), cpu.fp_pipes, ops);
    return limit;
}

IterationLimit cuda_iteration_limit(const CudaDeviceInfo& device, Precision precision,
                                    double instructions_per_iteration) {
    IterationLimit limit;
    const int lanes = gpu_lanes_per_sm(device, precision);
    limit.instructions_per_iteration = instructions_per_iteration;
    if (lanes > 0 && instructions_per_iteration > 0.0)
        limit.iterations_per_second = double(device.sm_count) * lanes * gpu_clock_hz(device) /
                                      instructions_per_iteration;
    limit.formula = printf_text("%d SMs x %d %s lanes x %s / %.2f instructions per iteration", device.sm_count, lanes,
                                precision == Precision::Fp32 ? "FP32" : "FP64", ghz(gpu_clock_hz(device)).c_str(),
                                instructions_per_iteration);
    if (lanes == 0)
        limit.formula += " (lanes unknown for compute capability " + std::to_string(device.compute_major) + "." +
                         std::to_string(device.compute_minor) + ")";
    return limit;
}

IterationLimit cuda_iteration_limit(const CudaDeviceInfo& device, Precision precision, Formula formula) {
    return cuda_iteration_limit(device, precision, cuda_instructions_per_iteration(precision, nullptr, formula));
}

double cuda_instructions_per_iteration(Precision precision, std::string* source, Formula formula) {
    const double sass = direct_cuda_instructions_per_iteration(precision, formula);
    if (sass > 0.0) {
        if (source) *source = "counted in the kernel's SASS (direct_cuda.cu)";
        return sass;
    }
    if (source) *source = "the GPU README's estimate (this build has no CUDA kernel to count)";
    return precision == Precision::Fp32 ? kReadmeInstructionsFp32 : kReadmeInstructionsFp64;
}

double percent_of_limit(double measured_iterations_per_second, const IterationLimit& limit) {
    return limit.iterations_per_second > 0.0 ? 100.0 * measured_iterations_per_second / limit.iterations_per_second
                                             : 0.0;
}

int cpu_fma_pipes(const CpuInfo& cpu) {
    const bool zen4 = cpu.vendor == "AuthenticAMD" && cpu.family == 0x19;
    return zen4 && cpu.simd_bits >= 512 ? 1 : 2;
}

std::vector<SpeedupEstimate> estimate_gpu_speedup(const CpuInfo& cpu, const CudaDeviceInfo& device, Precision precision,
                                                  double gpu_instructions_per_iteration) {
    if (gpu_instructions_per_iteration <= 0.0)
        gpu_instructions_per_iteration = cuda_instructions_per_iteration(precision);
    const double cpu_clock = cpu_clock_hz(cpu), gpu_clock = gpu_clock_hz(device);
    const char* fp = precision == Precision::Fp32 ? "FP32" : "FP64";
    auto finish = [](SpeedupEstimate e) {
        e.speedup = e.cpu_per_second > 0.0 && e.gpu_per_second > 0.0 ? e.gpu_per_second / e.cpu_per_second : 0.0;
        return e;
    };
    std::vector<SpeedupEstimate> out;

    SpeedupEstimate naive;
    naive.name = "cores x clock";
    naive.unit = "core-cycles";
    naive.cpu_per_second = double(cpu.cores) * cpu_clock;
    naive.gpu_per_second = double(device.sm_count) * device.fp32_lanes_per_sm * gpu_clock;
    naive.cpu_formula = printf_text("%d cores x %s", cpu.cores, ghz(cpu_clock).c_str());
    naive.gpu_formula = printf_text("%d CUDA cores (%d SMs x %d) x %s", device.sm_count * device.fp32_lanes_per_sm,
                                    device.sm_count, device.fp32_lanes_per_sm, ghz(gpu_clock).c_str());
    out.push_back(finish(naive));

    SpeedupEstimate flops;
    flops.name = "SIMD lanes and FMA";
    flops.unit = std::string(fp) + " FLOP";
    const int cpu_lanes = cpu_simd_lanes(cpu, precision), fma = cpu_fma_pipes(cpu);
    const int gpu_lanes = gpu_lanes_per_sm(device, precision);
    flops.cpu_per_second = double(cpu.cores) * cpu_lanes * fma * 2.0 * cpu_clock;
    flops.gpu_per_second = double(device.sm_count) * gpu_lanes * 2.0 * gpu_clock;
    flops.cpu_formula = printf_text("%d cores x %d lanes x %d FMA pipes x 2 FLOP x %s", cpu.cores, cpu_lanes, fma,
                                    ghz(cpu_clock).c_str());
    flops.gpu_formula = printf_text("%d SMs x %d lanes x 2 FLOP x %s", device.sm_count, gpu_lanes,
                                    ghz(gpu_clock).c_str());
    out.push_back(finish(flops));

    SpeedupEstimate bound;
    bound.name = "Mandelbrot issue bound";
    bound.unit = "iterations";
    const IterationLimit cpu_limit = cpu_fast_iteration_limit(cpu, precision);
    const IterationLimit gpu_limit = cuda_iteration_limit(device, precision, gpu_instructions_per_iteration);
    bound.cpu_per_second = cpu_limit.iterations_per_second;
    bound.gpu_per_second = gpu_limit.iterations_per_second;
    bound.cpu_formula = cpu_limit.formula;
    bound.gpu_formula = gpu_limit.formula;
    out.push_back(finish(bound));
    return out;
}

SpeedupCheck check_speedup_estimates(const std::vector<SpeedupEstimate>& estimates, double cpu_iterations_per_second,
                                     double gpu_iterations_per_second) {
    SpeedupCheck check;
    const bool measured = cpu_iterations_per_second > 0.0 && gpu_iterations_per_second > 0.0;
    if (measured) check.measured_speedup = gpu_iterations_per_second / cpu_iterations_per_second;
    const EstimateCheck* closest = nullptr;
    for (const auto& e : estimates) {
        EstimateCheck c;
        c.name = e.name;
        c.estimated_speedup = e.speedup;
        c.measured_speedup = check.measured_speedup;
        if (!measured) {
            c.sentence = e.name + ": " + (e.speedup > 0 ? times(e.speedup) : std::string("?")) +
                         " estimated; nothing measured to compare with (" +
                         (cpu_iterations_per_second > 0.0 ? "no GPU figure" : "no CPU figure") + ")";
        } else if (e.speedup <= 0.0) {
            c.sentence = e.name + ": no estimate (a figure of the machine is unknown); " +
                         times(check.measured_speedup) + " measured";
        } else {
            c.ratio = e.speedup / check.measured_speedup;
            std::string verdict;
            if (c.ratio > 1.1) verdict = times(c.ratio) + " too optimistic";
            else if (c.ratio < 1.0 / 1.1) verdict = times(1.0 / c.ratio) + " too pessimistic";
            else verdict = "within 10%";
            c.sentence = e.name + ": " + times(e.speedup) + " estimated, " + times(check.measured_speedup) +
                         " measured: " + verdict;
        }
        check.estimates.push_back(c);
    }
    for (const auto& c : check.estimates)
        if (c.ratio > 0.0 && (!closest || std::fabs(std::log(c.ratio)) < std::fabs(std::log(closest->ratio))))
            closest = &c;
    if (!measured) check.summary = "No speedup measured yet: it needs the CPU fast path and the GPU on the same frame.";
    else if (closest)
        check.summary = "Measured: the GPU runs " + times(check.measured_speedup) +
                        " the CPU's iterations per second; "
                        "the closest estimate is \"" +
                        closest->name + "\" (" + times(closest->estimated_speedup) + ").";
    else
        check.summary = "Measured: the GPU runs " + times(check.measured_speedup) +
                        " the CPU's iterations per second; no estimate could be made.";
    return check;
}

}  // namespace ms
