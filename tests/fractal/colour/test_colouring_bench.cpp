// test_colouring_bench.cpp: what each colouring method costs against the smooth colouring alone,
// as DISABLED_ tests (never run by CTest; run by hand). Prints figures, asserts only that the
// runs completed. Each figure is the median of several whole coloured frames (kernels and colour
// passes, the wall time of the synchronous call), the methods taken in turn within each round so
// that a load which comes and goes on the machine touches them all alike, and the ratio against
// the smooth frame's median of the same run: the goal is <= 1.5x for de, slope and stripe
// on CUDA at 4K, and at most one extra pass for the histogram.
// On CUDA each row also gives the kernels' own time (CUDA events: the iteration kernels and the
// colour passes, without the launches' and copies' host time); both give iterations per pixel.
//   build/bin/test_colouring_bench --gtest_also_run_disabled_tests --gtest_filter='*Cpu*'
//   build/bin/test_colouring_bench --gtest_also_run_disabled_tests --gtest_filter='*Cuda*'
//   MANDELSCOPE_COLOUR_BENCH_SIZE=3840x2160 ... (the default: 1280x720 on the CPU, 3840x2160 on CUDA)
// The reference figures, both backends at 4K in one run:
//   MANDELSCOPE_COLOUR_BENCH_SIZE=3840x2160 build/bin/test_colouring_bench --gtest_also_run_disabled_tests
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/colour/palette.h"

#if MANDELSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

std::vector<ms::View> bench_views(int width, int height) {
    ms::View full;  // the reference figures' frame: 1,000 iterations
    full.width = width;
    full.height = height;
    ms::View seahorse = full;
    seahorse.center_re = "-0.745";
    seahorse.center_im = "0.113";
    seahorse.zoom = 60.0;
    seahorse.max_iterations = 3000;
    return {full, seahorse};
}

void size_from_env(int* width, int* height) {
    if (const char* s = std::getenv("MANDELSCOPE_COLOUR_BENCH_SIZE")) std::sscanf(s, "%dx%d", width, height);
}

const char* kMethods[] = {"smooth", "histogram", "stripe", "smooth,de", "smooth,slope", "histogram,de,slope"};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One frame per method and round, the methods in turn; a warm-up frame each first (buffers,
// first-touch pages, the CUDA context). `frame` returns the stats of the frame it drew.
void bench_methods(const ms::View& base, int rounds, bool kernel_times,
                   const std::function<ms::FrameStats(const ms::View&)>& frame) {
    struct Row {
        const char* method;
        ms::View view;
        std::vector<double> wall_ms, kernel_ms;
        ms::FrameStats stats;
    };
    std::vector<Row> rows;
    for (const char* method : kMethods) {
        Row row{method, base, {}, {}, {}};
        ASSERT_EQ(ms::parse_colouring_methods(method, &row.view.colouring), "") << method;
        row.stats = frame(row.view);
        rows.push_back(row);
    }
    for (int round = 0; round < rounds; ++round) {
        for (Row& row : rows) {
            const auto start = std::chrono::steady_clock::now();
            row.stats = frame(row.view);
            row.wall_ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            row.kernel_ms.push_back(row.stats.compute_ms);
        }
    }
    const double pixels = double(base.width) * base.height;
    const double smooth_wall = median(rows.front().wall_ms), smooth_kernels = median(rows.front().kernel_ms);
    if (kernel_times)
        std::printf("  %-20s %9s %6s %11s %6s %9s\n", "method", "wall ms", "ratio", "kernels ms", "ratio", "it./px");
    else std::printf("  %-20s %9s %6s %9s\n", "method", "wall ms", "ratio", "it./px");
    for (const Row& row : rows) {
        const double wall = median(row.wall_ms);
        if (kernel_times) {
            const double kernels = median(row.kernel_ms);
            std::printf("  %-20s %9.2f %5.2fx %11.3f %5.2fx %9.1f\n", row.method, wall, wall / smooth_wall, kernels,
                        kernels / smooth_kernels, double(row.stats.iterations) / pixels);
        } else {
            std::printf("  %-20s %9.1f %5.2fx %9.1f\n", row.method, wall, wall / smooth_wall,
                        double(row.stats.iterations) / pixels);
        }
    }
    std::fflush(stdout);
}

}  // namespace

TEST(ColouringBench, DISABLED_Cpu) {
    int width = 1280, height = 720;
    size_from_env(&width, &height);
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    const size_t n = size_t(width) * height;
    std::vector<float> mu(n);
    std::vector<uint8_t> rgba(n * 4);
    for (const ms::View& base : bench_views(width, height)) {
        std::printf("CPU, %dx%d, centre %s,%s, %lld iterations (FP64, median of 5 rounds)\n", width, height,
                    base.center_re.c_str(), base.center_im.c_str(), (long long)base.max_iterations);
        bench_methods(base, 5, false, [&](const ms::View& view) {
            return ms::render_coloured_cpu(view, ms::Precision::Fp64, {}, table, {}, 1.0, mu.data(), rgba.data());
        });
    }
}

#if MANDELSCOPE_HAVE_CUDA
TEST(ColouringBench, DISABLED_Cuda) {
    std::string why;
    if (!ms::cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    int width = 3840, height = 2160;
    size_from_env(&width, &height);
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    const size_t n = size_t(width) * height;
    uint8_t* rgba = nullptr;
    ASSERT_EQ(cudaMalloc(&rgba, n * 4), cudaSuccess);
    for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
        for (const ms::View& base : bench_views(width, height)) {
            std::printf("CUDA %s, %dx%d, centre %s,%s, %lld iterations (median of 11 rounds)\n",
                        ms::precision_name(precision), width, height, base.center_re.c_str(), base.center_im.c_str(),
                        (long long)base.max_iterations);
            bench_methods(base, 11, true, [&](const ms::View& view) {
                return ms::render_coloured_cuda(view, precision, {}, table, {}, 1.0, rgba, nullptr);
            });
        }
    }
    cudaFree(rgba);
}
#endif
