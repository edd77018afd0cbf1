// test_deep_pan_bench.cpp: what the window's BLA headroom costs a deep frame, as a DISABLED_
// test (never run by CTest; run by hand, it prints figures and asserts only that frames came).
//   build/bin/test_deep_pan_bench --gtest_also_run_disabled_tests
//       (MANDELSCOPE_DEEP_BENCH_SIZE=640x360 and MANDELSCOPE_DEEP_BENCH_ROUNDS=5 in the environment
//       choose the frame size and the rounds)
// The window builds its BLA tables for a largest |dc| of one image diagonal (deep_render_worker:
// kBlaHeadroomDiagonals) instead of the frame's own (half a diagonal with the reference at the
// centre), so that a drag keeps its table. A larger radius gives smaller validity radii, so BLA
// skips fewer iterations and the pixels take longer. Each location's frame is rendered with the
// table built for 0 (the frame's own), 1 and 2 diagonals, the settings alternated round by round
// (the machine is shared: each setting sees the same load), the table built anew each time
// (no cache); the medians of the per-pixel loop alone are compared with the frame's own table,
// and so is the work, which does not depend on the load: perturbation steps plus BLA skips.
// Napkin maths: a drag view at 1920x1080 computes a 2-pixel strip, 2,160 pixels, 1/960 of the
// frame, so the pixels' cost matters only in full frames; the table's build (~the orbit's length
// in steps) is saved on every view of a drag that would otherwise rebuild it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/view/kfr.h"
#include "compute/io/assets.h"

using namespace ms;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

TEST(DeepPanBench, DISABLED_BlaHeadroomCost) {
    int width = 320, height = 180, rounds = 3;
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_BENCH_SIZE")) std::sscanf(s, "%dx%d", &width, &height);
    if (const char* s = std::getenv("MANDELSCOPE_DEEP_BENCH_ROUNDS")) rounds = std::max(1, std::atoi(s));
    const double diagonal = std::hypot(double(width), double(height));
    const double headrooms[] = {0.0, 1.0, 2.0};  // in image diagonals; 0: the frame's own |dc|
    for (const char* name : {"e50", "e533"}) {
        DeepLocation location;
        ASSERT_EQ(read_kfr((find_data_dir("assets") / "locations").string() + "/" + name + ".kfr", &location), "");
        ReferenceCache cache;  // the orbit only: tables are built anew (bla_capacity 0)
        cache.bla_capacity = 0;
        std::vector<double> pixels_ms[3], bla_ms[3];
        double skipped[3] = {};
        uint64_t steps[3] = {}, skips[3] = {};  // the work: perturbation steps and BLA skips taken
        std::vector<int64_t> counts[3];
        for (int round = 0; round < rounds; ++round) {
            for (int h = 0; h < 3; ++h) {
                DeepRenderOptions options;
                options.cache = &cache;
                options.bla_min_radius_pixels = headrooms[h] * diagonal;
                const DeepFrame frame = deep_cpu(location, width, height, options);
                ASSERT_FALSE(frame.stats.cancelled);
                pixels_ms[h].push_back(frame.stats.pixels_ms);
                bla_ms[h].push_back(frame.stats.bla_ms);
                skipped[h] = double(frame.stats.bla_iterations) / double(std::max<uint64_t>(1, frame.stats.iterations));
                steps[h] = frame.stats.perturbation_steps;
                skips[h] = frame.stats.bla_skips;
                counts[h] = frame.escape_count;
            }
        }
        std::printf("%s at %dx%d, %d rounds (medians; the per-pixel loop, the table built anew):\n", name, width,
                    height, rounds);
        for (int h = 0; h < 3; ++h) {
            size_t same = 0;
            for (size_t i = 0; i < counts[h].size(); ++i) same += counts[h][i] == counts[0][i];
            std::printf(
                "  BLA built for %s: pixels %.1f ms (%.3f x the frame's own), BLA build %.1f ms, %.3f%% of "
                "iterations skipped; %llu steps + %llu skips (%.4f x the own table's work); escape counts "
                "equal to the own table's on %.2f%%\n",
                h == 0 ? "the frame's own |dc|" : (std::to_string(int(headrooms[h])) + " diagonal(s)").c_str(),
                median(pixels_ms[h]), median(pixels_ms[h]) / median(pixels_ms[0]), median(bla_ms[h]),
                100.0 * skipped[h], (unsigned long long)steps[h], (unsigned long long)skips[h],
                double(steps[h] + skips[h]) / double(std::max<uint64_t>(1, steps[0] + skips[0])),
                100.0 * double(same) / double(counts[h].size()));
        }
        std::fflush(stdout);
    }
}
