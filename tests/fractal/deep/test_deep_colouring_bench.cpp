// test_deep_colouring_bench.cpp: what the colouring layers cost on the deep path, as DISABLED_
// tests (never run by CTest; run by hand). Prints figures, asserts only that the runs completed.
// Per location, the deep frame (reference and BLA table cached after a warm-up, so the figure is
// the pixel loop and the colour pass) with a smooth colouring, with the DE loop
// (deep_perturbation.h's kDistance variant) and the DE and slope layers, and with
// histogram,de,slope; the variants taken in turn within each round, so a load that comes and
// goes touches them all alike; the medians and their ratio against the smooth frame's median of
// the same run. The bar: DE and slopes at most 1.5x the smooth colouring, the histogram
// one extra pass.
//   build/bin/test_deep_colouring_bench --gtest_also_run_disabled_tests --gtest_filter='*Cpu*'
//   build/bin/test_deep_colouring_bench --gtest_also_run_disabled_tests --gtest_filter='*Cuda*'
//   MANDELSCOPE_DEEP_COLOUR_BENCH_SIZE=640x360 ... (the default: 160x90 on the CPU, 1920x1080 on CUDA)
// Locations: rust-fractal-core's e50 (kf2's 1e50 benchmark: double deltas) and its e1000 centre
// at 1e300 (FloatExp deltas); assets/locations/*.kfr say where they come from.
// The formula family (*Family*): smooth against smooth,de for every formula and Julia set, at the
// boundary locations of tests/fractal/deep/deep_family_locations.h (1e20 and 1e50 with double deltas,
// 1e320 with FloatExp), Mandelbrot at e50's centre seen from 1e20, 1,000 iterations (1,500 past
// 1e308), interleaved as above:
//   build/bin/test_deep_colouring_bench --gtest_also_run_disabled_tests --gtest_filter='*FamilyCpu*'
//   build/bin/test_deep_colouring_bench --gtest_also_run_disabled_tests --gtest_filter='*FamilyCuda*'
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_cuda.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/direct/direct.h"
#include "compute/fractal/colour/palette.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/deep_family_locations.h"

using namespace ms;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void bench(bool use_cuda, int width, int height, int rounds) {
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_COLOUR_BENCH_SIZE")) std::sscanf(s, "%dx%d", &width, &height);
    const PaletteTable palette = make_palette_table(load_palette("classic"));
    struct Case {
        const char* name;
        const char* zoom;
    };
    for (const Case& k : {Case{"e50", nullptr}, Case{"e1000", "1E300"}}) {
        DeepLocation location;
        ASSERT_EQ(read_kfr((find_data_dir("assets") / "locations").string() + "/" + k.name + ".kfr", &location), "");
        if (k.zoom) {
            ASSERT_EQ(parse_deep_zoom(k.zoom, &location.zoom), "");
        }
        View view;
        view.width = width;
        view.height = height;
        view.max_iterations = location.max_iterations;
        struct Row {
            const char* methods;
            View view;
            std::vector<double> pixels_ms, colour_ms, total_ms;
            DeepFrameStats stats;
        };
        std::vector<Row> rows;
        for (const char* methods : {"smooth", "smooth,de", "smooth,de,slope", "histogram,de,slope"}) {
            Row row{methods, view, {}, {}, {}, {}};
            ASSERT_EQ(parse_colouring_methods(methods, &row.view.colouring), "");
            rows.push_back(row);
        }
        ReferenceCache cache;
        std::vector<uint8_t> rgba(size_t(width) * height * 4);
        auto frame = [&](Row& row, bool timed) {
            DeepRenderOptions options;
            options.cache = &cache;
            deep_options_for_colouring(row.view.colouring, &options);
            const auto start = std::chrono::steady_clock::now();
            const DeepFrame f = use_cuda ? deep_cuda(location, width, height, options)
                                         : deep_cpu(location, width, height, options);
            const auto coloured = std::chrono::steady_clock::now();
            colour_deep_frame(f, palette, row.view, 1.0, rgba.data());
            const auto end = std::chrono::steady_clock::now();
            row.stats = f.stats;
            if (!timed) return;
            row.pixels_ms.push_back(f.stats.pixels_ms);
            row.colour_ms.push_back(std::chrono::duration<double, std::milli>(end - coloured).count());
            row.total_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
        };
        for (Row& row : rows) frame(row, false);  // warm-up: the reference and BLA tables into the cache
        for (int round = 0; round < rounds; ++round)
            for (Row& row : rows) frame(row, true);
        const Row& base = rows.front();
        std::printf(
            "%s, %s at %s, %dx%d, %s deltas, %lld iterations, %.1f%% by BLA (median of %d rounds; "
            "pixels: the %s)\n",
            use_cuda ? "CUDA" : "CPU", k.name, format_deep_zoom(location.zoom).c_str(), width, height,
            deep_number_type_name(base.stats.number_type), (long long)location.max_iterations,
            100.0 * double(base.stats.bla_iterations) / double(base.stats.iterations), rounds,
            use_cuda ? "kernel, CUDA events" : "pixel loop");
        std::printf("  %-20s %11s %6s %11s %11s %6s %9s\n", "colouring", "pixels ms", "ratio", "colour ms", "frame ms",
                    "ratio", "it./px");
        for (const Row& row : rows)
            std::printf("  %-20s %11.2f %5.2fx %11.2f %11.2f %5.2fx %9.1f\n", row.methods, median(row.pixels_ms),
                        median(row.pixels_ms) / median(base.pixels_ms), median(row.colour_ms), median(row.total_ms),
                        median(row.total_ms) / median(base.total_ms),
                        double(row.stats.iterations) / (double(width) * height));
        std::fflush(stdout);
    }
}

// Smooth against smooth,de per formula: the pixel loop (kernel) and the whole frame with its colour
// pass, medians of `rounds` interleaved rounds, the reference and BLA tables cached.
void bench_family(bool use_cuda, int width, int height, int rounds) {
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_COLOUR_BENCH_SIZE")) std::sscanf(s, "%dx%d", &width, &height);
    const PaletteTable palette = make_palette_table(load_palette("classic"));
    struct Case {
        const test::FamilyCase* c;  // null: Mandelbrot at e50's centre
        const char* zoom;
        int steps;
        int64_t iterations;
    };
    std::printf("%s, %dx%d, median of %d rounds; pixels: the %s\n", use_cuda ? "CUDA" : "CPU", width, height, rounds,
                use_cuda ? "kernel, CUDA events" : "pixel loop");
    std::printf("  %-24s %6s %8s %7s %6s %12s %12s %6s %12s %6s\n", "formula", "zoom", "deltas", "it./px", "BLA",
                "smooth ms", "de ms", "ratio", "de frame ms", "ratio");
    for (const Case& k :
         {Case{nullptr, "1E20", 0, 1000}, Case{&test::kMultibrot3, "1E20", 215, 1000},
          Case{&test::kMultibrot5, "1E20", 215, 1000}, Case{&test::kTricorn, "1E20", 215, 1000},
          Case{&test::kBurningShip, "1E20", 215, 1000},
          Case{&test::kBurningShipHull, "1E20", 215, test::kBurningShipHullIterations1e20},
          Case{&test::kJuliaRabbit, "1E50", 215, 1000}, Case{&test::kJuliaMultibrot3, "1E50", 215, 1000},
          Case{&test::kJuliaBurningShip, "1E50", 215, 1000}, Case{&test::kJuliaMultibrot3, "1E320", 1075, 1500},
          Case{&test::kTricornTip, "1E320", 1075, 1500}, Case{&test::kBurningShipTip, "1E320", 1075, 1500}}) {
        DeepLocation location;
        if (k.c) {
            location = test::boundary_location(*k.c, k.steps, k.iterations, k.zoom);
        } else {
            ASSERT_EQ(read_kfr((find_data_dir("assets") / "locations").string() + "/e50.kfr", &location), "");
            ASSERT_EQ(parse_deep_zoom(k.zoom, &location.zoom), "");
            location.max_iterations = k.iterations;
        }
        View smooth_view, de_view;
        for (View* v : {&smooth_view, &de_view}) {
            v->width = width;
            v->height = height;
            v->max_iterations = location.max_iterations;
        }
        ASSERT_EQ(parse_colouring_methods("smooth,de", &de_view.colouring), "");
        ReferenceCache cache;
        std::vector<uint8_t> rgba(size_t(width) * height * 4);
        std::vector<double> pixels_ms[2], frame_ms[2];
        DeepFrameStats stats;
        auto frame = [&](int which, bool timed) {
            const View& view = which ? de_view : smooth_view;
            DeepRenderOptions options;
            options.cache = &cache;
            deep_options_for_colouring(view.colouring, &options);
            const auto start = std::chrono::steady_clock::now();
            const DeepFrame f = use_cuda ? deep_cuda(location, width, height, options)
                                         : deep_cpu(location, width, height, options);
            colour_deep_frame(f, palette, view, 1.0, rgba.data());
            const auto end = std::chrono::steady_clock::now();
            stats = f.stats;
            if (!timed) return;
            pixels_ms[which].push_back(f.stats.pixels_ms);
            frame_ms[which].push_back(std::chrono::duration<double, std::milli>(end - start).count());
        };
        frame(0, false);  // warm-up: the reference and the BLA tables into the cache
        frame(1, false);
        for (int round = 0; round < rounds; ++round)
            for (int which : {0, 1}) frame(which, true);
        const std::string name = k.c ? k.c->name : "mandelbrot (e50 centre)";
        std::printf("  %-24s %6s %8s %7.1f %5.1f%% %12.2f %12.2f %5.2fx %12.2f %5.2fx\n", name.c_str(), k.zoom,
                    deep_number_type_name(stats.number_type), double(stats.iterations) / (double(width) * height),
                    100.0 * double(stats.bla_iterations) / double(stats.iterations), median(pixels_ms[0]),
                    median(pixels_ms[1]), median(pixels_ms[1]) / median(pixels_ms[0]), median(frame_ms[1]),
                    median(frame_ms[1]) / median(frame_ms[0]));
        std::fflush(stdout);
    }
}

}  // namespace

TEST(DeepColouringBench, DISABLED_FamilyCpu) { bench_family(false, 160, 90, 5); }

TEST(DeepColouringBench, DISABLED_FamilyCuda) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    bench_family(true, 1920, 1080, 11);
}

TEST(DeepColouringBench, DISABLED_Cpu) { bench(false, 160, 90, 5); }

TEST(DeepColouringBench, DISABLED_Cuda) {
    std::string why;
    if (!cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    bench(true, 1920, 1080, 11);
}
