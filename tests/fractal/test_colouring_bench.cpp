// test_colouring_bench.cpp: what each colouring method costs against the smooth colouring alone,
// as DISABLED_ tests (never run by CTest; run by hand). Prints figures, asserts only that the
// runs completed. Each figure is the best of several whole coloured frames (kernels and colour
// passes, the wall time of the synchronous call), and the ratio against the smooth frame of the
// same run: the goal is <= 1.5x for de, slope and stripe on CUDA at 4K, and at most one
// extra pass for the histogram.
//   build/bin/test_colouring_bench --gtest_also_run_disabled_tests --gtest_filter='*Cpu*'
//   build/bin/test_colouring_bench --gtest_also_run_disabled_tests --gtest_filter='*Cuda*'
//   MANDELSCOPE_COLOUR_BENCH_SIZE=3840x2160 ... (the default: 1280x720 on the CPU, 3840x2160 on CUDA)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "compute/fractal/colouring_render.h"
#include "compute/fractal/palette.h"

#if MANDELSCOPE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {

double best_ms(int runs, const std::function<void()>& frame) {
    frame();  // warm-up: buffers, first-touch pages, the CUDA context
    double best = 1e300;
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        frame();
        best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    return best;
}

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

const char* kMethods[] = {"histogram", "stripe", "smooth,de", "smooth,slope", "histogram,de,slope"};

}  // namespace

TEST(ColouringBench, DISABLED_Cpu) {
    int width = 1280, height = 720;
    size_from_env(&width, &height);
    const ms::PaletteTable table = ms::make_palette_table(ms::load_palette("classic"));
    for (const ms::View& base : bench_views(width, height)) {
        const size_t n = size_t(width) * height;
        std::vector<float> mu(n);
        std::vector<uint8_t> rgba(n * 4);
        std::printf("CPU, %dx%d, centre %s,%s, %lld iterations (FP64, best of 5)\n", width, height,
                    base.center_re.c_str(), base.center_im.c_str(), (long long)base.max_iterations);
        const double smooth = best_ms(5, [&] {
            ms::render_coloured_cpu(base, ms::Precision::Fp64, {}, table, {}, 1.0, mu.data(), rgba.data());
        });
        std::printf("  %-20s %9.1f ms  1.00x\n", "smooth", smooth);
        for (const char* method : kMethods) {
            ms::View view = base;
            ASSERT_EQ(ms::parse_colouring_methods(method, &view.colouring), "");
            const double ms_ = best_ms(5, [&] {
                ms::render_coloured_cpu(view, ms::Precision::Fp64, {}, table, {}, 1.0, mu.data(), rgba.data());
            });
            std::printf("  %-20s %9.1f ms  %.2fx\n", method, ms_, ms_ / smooth);
        }
        std::fflush(stdout);
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
            std::printf("CUDA %s, %dx%d, centre %s,%s, %lld iterations (best of 10)\n", ms::precision_name(precision),
                        width, height, base.center_re.c_str(), base.center_im.c_str(), (long long)base.max_iterations);
            const double smooth = best_ms(10, [&] {
                ms::render_coloured_cuda(base, precision, {}, table, {}, 1.0, rgba, nullptr);
            });
            std::printf("  %-20s %9.2f ms  1.00x\n", "smooth", smooth);
            for (const char* method : kMethods) {
                ms::View view = base;
                ASSERT_EQ(ms::parse_colouring_methods(method, &view.colouring), "");
                const double ms_ = best_ms(10, [&] {
                    ms::render_coloured_cuda(view, precision, {}, table, {}, 1.0, rgba, nullptr);
                });
                std::printf("  %-20s %9.2f ms  %.2fx\n", method, ms_, ms_ / smooth);
            }
            std::fflush(stdout);
        }
    }
    cudaFree(rgba);
}
#endif
