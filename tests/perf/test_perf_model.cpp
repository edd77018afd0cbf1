// test_perf_model.cpp: the napkin math of compute/perf/perf_model.h on made-up machines (a 16-core
// AVX-512 Intel CPU at 3 GHz and an H100-like GPU: 132 SMs x 128 FP32 / 64 FP64 lanes at
// 1.98 GHz), with every figure worked out by hand here: the iteration limits and their formulas,
// the three speedup estimates, and how far each lands from a made-up measurement.
#include <gtest/gtest.h>

#include <string>

#include "compute/fractal/direct/direct.h"
#include "compute/perf/perf_model.h"

namespace ms {
namespace {

CpuInfo made_up_cpu() {
    CpuInfo cpu;
    cpu.model = "Made-up Xeon";
    cpu.vendor = "GenuineIntel";
    cpu.family = 6;
    cpu.cores = 16;
    cpu.threads = 32;
    cpu.measured_mhz = 3000.0;
    cpu.simd_target = "AVX3";
    cpu.simd_bits = 512;
    cpu.fp_pipes = 2;
    return cpu;
}

CudaDeviceInfo made_up_gpu() {
    CudaDeviceInfo gpu;
    gpu.name = "Made-up H100";
    gpu.compute_major = 9;
    gpu.compute_minor = 0;
    gpu.sm_count = 132;
    gpu.fp32_lanes_per_sm = 128;
    gpu.fp64_lanes_per_sm = 64;
    gpu.clock_khz = 1980000;
    return gpu;
}

TEST(PerfModel, CpuLimits) {
    const CpuInfo cpu = made_up_cpu();
    // 1 core x 1 lane x 3 GHz x 2 pipes / 9 = 6.667e8
    const IterationLimit reference = cpu_reference_iteration_limit(cpu);
    EXPECT_NEAR(reference.iterations_per_second, 3e9 * 2 / 9, 1.0);
    EXPECT_EQ(reference.instructions_per_iteration, 9.0);
    EXPECT_EQ(reference.formula, "1 core x 1 lane x 3.00 GHz x 2 FP pipes / 9 FP ops per iteration");
    // 16 cores x 16 FP32 lanes x 3 GHz x 2 / 9 = 1.7067e11; FP64 half of it.
    const IterationLimit fp32 = cpu_fast_iteration_limit(cpu, Precision::Fp32);
    EXPECT_NEAR(fp32.iterations_per_second, 1.70666667e11, 1e3);
    EXPECT_EQ(fp32.formula, "16 cores x 16 FP32 lanes x 3.00 GHz x 2 FP pipes / 9 FP ops per iteration");
    EXPECT_NEAR(cpu_fast_iteration_limit(cpu, Precision::Fp64).iterations_per_second, 8.53333333e10, 1e3);
    // The same as cpu_info.h's bound, which the older callers use.
    EXPECT_DOUBLE_EQ(fp32.iterations_per_second, cpu_iteration_limit(cpu, Precision::Fp32));
}

TEST(PerfModel, GpuLimits) {
    const CudaDeviceInfo gpu = made_up_gpu();
    // 132 x 128 x 1.98e9 / 8 = 4.18176e12 (the README's FP32 bound); 132 x 64 x 1.98e9 / 7 = 2.3896e12.
    const IterationLimit fp32 = cuda_iteration_limit(gpu, Precision::Fp32, 8.0);
    EXPECT_NEAR(fp32.iterations_per_second, 4.18176e12, 1e6);
    EXPECT_EQ(fp32.formula, "132 SMs x 128 FP32 lanes x 1.98 GHz / 8.00 instructions per iteration");
    EXPECT_NEAR(cuda_iteration_limit(gpu, Precision::Fp64, 7.0).iterations_per_second, 2.38958e12, 1e7);
    EXPECT_NEAR(percent_of_limit(2.5e12, fp32), 59.783, 1e-3);

    // A capability whose lanes are unknown: no limit, and the formula says why.
    CudaDeviceInfo unknown = gpu;
    unknown.compute_major = 42;
    unknown.fp32_lanes_per_sm = 0;
    const IterationLimit none = cuda_iteration_limit(unknown, Precision::Fp32, 8.0);
    EXPECT_EQ(none.iterations_per_second, 0.0);
    EXPECT_NE(none.formula.find("unknown for compute capability 42.0"), std::string::npos) << none.formula;
    EXPECT_EQ(percent_of_limit(1e12, none), 0.0);
}

TEST(PerfModel, InstructionsPerIterationComeFromTheKernelWhenBuilt) {
    for (Precision p : {Precision::Fp32, Precision::Fp64}) {
        std::string source;
        const double n = cuda_instructions_per_iteration(p, &source);
        EXPECT_FALSE(source.empty());
        if (direct_cuda_instructions_per_iteration(p) > 0.0) EXPECT_EQ(n, direct_cuda_instructions_per_iteration(p));
        else EXPECT_EQ(n, p == Precision::Fp32 ? 8.0 : 7.0);
    }
}

TEST(PerfModel, FmaPipes) {
    CpuInfo cpu = made_up_cpu();
    EXPECT_EQ(cpu_fma_pipes(cpu), 2);
    cpu.vendor = "AuthenticAMD";
    cpu.family = 0x19;  // Zen 4: 512-bit operations take two passes
    EXPECT_EQ(cpu_fma_pipes(cpu), 1);
    cpu.simd_bits = 256;
    EXPECT_EQ(cpu_fma_pipes(cpu), 2);
    cpu.family = 0x1A;  // Zen 5
    cpu.simd_bits = 512;
    EXPECT_EQ(cpu_fma_pipes(cpu), 2);
}

TEST(PerfModel, SpeedupEstimatesFp32) {
    const auto e = estimate_gpu_speedup(made_up_cpu(), made_up_gpu(), Precision::Fp32, 8.0);
    ASSERT_EQ(e.size(), 3u);
    // Naive: 16,896 CUDA cores x 1.98 GHz = 3.3454e13 against 16 cores x 3 GHz = 4.8e10: 697x.
    EXPECT_EQ(e[0].name, "cores x clock");
    EXPECT_NEAR(e[0].cpu_per_second, 4.8e10, 1.0);
    EXPECT_NEAR(e[0].gpu_per_second, 3.345408e13, 1e3);
    EXPECT_NEAR(e[0].speedup, 696.96, 0.01);
    EXPECT_EQ(e[0].gpu_formula, "16896 CUDA cores (132 SMs x 128) x 1.98 GHz");
    // SIMD and FMA: 16 x 16 lanes x 2 FMA pipes x 2 FLOP x 3 GHz = 3.072e12 FLOP/s against
    // 132 x 128 x 2 x 1.98 GHz = 6.6908e13: 21.8x.
    EXPECT_EQ(e[1].name, "SIMD lanes and FMA");
    EXPECT_NEAR(e[1].cpu_per_second, 3.072e12, 1e3);
    EXPECT_NEAR(e[1].gpu_per_second, 6.690816e13, 1e4);
    EXPECT_NEAR(e[1].speedup, 21.78, 0.01);
    EXPECT_EQ(e[1].cpu_formula, "16 cores x 16 lanes x 2 FMA pipes x 2 FLOP x 3.00 GHz");
    // Issue bounds: 4.18176e12 / 1.70667e11 = 24.50x.
    EXPECT_EQ(e[2].name, "Mandelbrot issue bound");
    EXPECT_NEAR(e[2].speedup, 24.5025, 1e-3);
}

TEST(PerfModel, SpeedupEstimatesFp64) {
    const auto e = estimate_gpu_speedup(made_up_cpu(), made_up_gpu(), Precision::Fp64, 7.0);
    ASSERT_EQ(e.size(), 3u);
    EXPECT_NEAR(e[0].speedup, 696.96, 0.01);  // the naive count ignores the precision
    // 16 x 8 x 2 x 2 x 3e9 = 1.536e12 against 132 x 64 x 2 x 1.98e9 = 3.3454e13: 21.8x.
    EXPECT_NEAR(e[1].speedup, 21.78, 0.01);
    // 2.38958e12 / 8.53333e10 = 28.00x.
    EXPECT_NEAR(e[2].speedup, 28.003, 1e-3);
}

TEST(PerfModel, ChecksSayHowFarEachEstimateIs) {
    const auto e = estimate_gpu_speedup(made_up_cpu(), made_up_gpu(), Precision::Fp32, 8.0);
    // Measured: 5e10 on the CPU, 2.5e12 on the GPU: 50x.
    const SpeedupCheck c = check_speedup_estimates(e, 5e10, 2.5e12);
    EXPECT_DOUBLE_EQ(c.measured_speedup, 50.0);
    ASSERT_EQ(c.estimates.size(), 3u);
    EXPECT_NEAR(c.estimates[0].ratio, 13.94, 0.01);
    EXPECT_EQ(c.estimates[0].sentence, "cores x clock: 697x estimated, 50.0x measured: 13.9x too optimistic");
    EXPECT_NEAR(c.estimates[1].ratio, 0.4356, 1e-4);
    EXPECT_EQ(c.estimates[1].sentence, "SIMD lanes and FMA: 21.8x estimated, 50.0x measured: 2.3x too pessimistic");
    EXPECT_NEAR(c.estimates[2].ratio, 0.49005, 1e-4);
    EXPECT_NE(c.summary.find("\"Mandelbrot issue bound\""), std::string::npos) << c.summary;

    // An estimate within 10% of the measurement says so.
    const SpeedupCheck close = check_speedup_estimates(e, 1e11, 2.3e12);  // 23x measured
    EXPECT_EQ(close.estimates[2].sentence, "Mandelbrot issue bound: 24.5x estimated, 23.0x measured: within 10%");
}

TEST(PerfModel, ChecksWithoutMeasurementsOrEstimates) {
    const auto e = estimate_gpu_speedup(made_up_cpu(), made_up_gpu(), Precision::Fp32, 8.0);
    const SpeedupCheck none = check_speedup_estimates(e, 5e10, 0.0);
    EXPECT_EQ(none.measured_speedup, 0.0);
    for (const auto& c : none.estimates) {
        EXPECT_EQ(c.ratio, 0.0);
        EXPECT_NE(c.sentence.find("no GPU figure"), std::string::npos) << c.sentence;
    }
    EXPECT_NE(none.summary.find("No speedup measured"), std::string::npos);

    CudaDeviceInfo unknown = made_up_gpu();
    unknown.fp64_lanes_per_sm = 0;
    const auto partial = estimate_gpu_speedup(made_up_cpu(), unknown, Precision::Fp64, 7.0);
    EXPECT_GT(partial[0].speedup, 0.0);  // the naive count needs FP32 lanes only
    EXPECT_EQ(partial[1].speedup, 0.0);
    EXPECT_EQ(partial[2].speedup, 0.0);
    const SpeedupCheck c = check_speedup_estimates(partial, 5e10, 1e12);
    EXPECT_EQ(c.estimates[1].ratio, 0.0);
    EXPECT_NE(c.estimates[1].sentence.find("no estimate"), std::string::npos) << c.estimates[1].sentence;
    EXPECT_NE(c.summary.find("\"cores x clock\""), std::string::npos) << c.summary;
}

}  // namespace
}  // namespace ms
