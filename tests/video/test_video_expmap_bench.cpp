// test_video_expmap_bench.cpp: frames/s of a straight dive, exponential map against direct, on the CPU
// (DISABLED_: run by hand, it prints figures and asserts nothing about time):
//   build-cpu/bin/test_video_expmap_bench --gtest_also_run_disabled_tests
// The dive: assets/locations/e50.kfr from zoom 1, 640x360, 30 fps, 1 s a doubling (the
// issue's development-machine row: 166 doublings, 4,982 frames). A whole dive takes hours on two
// cores by either method, so the benchmark times segments of it: for each start doubling in
// MS_EXPMAP_BENCH_SEGMENTS (default "0,80,160"), the expmap renders the segment's first frame
// (which renders the strips it reads, about 11 octaves below it), then MS_EXPMAP_BENCH_DOUBLINGS
// (default 2) doublings of frames, timed: each new doubling costs one new strip plus the
// frames' reconstruction, the steady state of a whole dive. Direct renders 3 frames of the
// segment (FP64 or the deep CPU path, colour, box filter). MS_EXPMAP_BENCH_SIZE=WxH, _FPS and
// _SUPERSAMPLE change the dive.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "compute/fractal/colour/palette.h"
#include "compute/video/expmap.h"
#include "tests/fractal/deep/kfr_location.h"
#include "tests/video/expmap_test_util.h"

namespace ms {
namespace {

int env_int(const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::atoi(v) : fallback;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(ExpmapBench, DISABLED_DiveToE50) {
    int width = 640, height = 360;
    if (const char* size = std::getenv("MS_EXPMAP_BENCH_SIZE")) std::sscanf(size, "%dx%d", &width, &height);
    const int fps = env_int("MS_EXPMAP_BENCH_FPS", 30);
    const int k = env_int("MS_EXPMAP_BENCH_SUPERSAMPLE", 1);
    const int segment_doublings = env_int("MS_EXPMAP_BENCH_DOUBLINGS", 2);
    const char* segments_env = std::getenv("MS_EXPMAP_BENCH_SEGMENTS");
    const std::string segments_text = segments_env ? segments_env : "0,80,160";
    const DeepLocation location = test::load_location("e50");
    const double log10_zoom = double(location.zoom.exponent10) + std::log10(location.zoom.mantissa);
    const double doublings = log10_zoom * 3.321928094887362;
    const int64_t n = int64_t(std::llround(doublings * fps)) + 1;
    const std::vector<View> plan = test::straight_dive(location, 0.0, log10_zoom, n, width, height);
    const PaletteTable palette = make_palette_table(load_palette(plan.front().palette));
    ExpmapOptions options;
    options.supersample = k;
    ExpmapRenderer expmap(plan, palette, options);
    const ExpmapLayout& layout = expmap.layout();
    std::printf("dive: e50.kfr, %dx%d, %d fps, %.1f doublings, %lld frames, %dx%d samples a pixel, %d threads\n", width,
                height, fps, doublings, (long long)n, k, k, omp_get_max_threads());
    std::printf("strips: %d octaves of %dx%d samples (%d mip levels): %.3g samples; direct frames %.3g samples "
                "(ratio %.1f)\n",
                layout.octaves, layout.columns, layout.rows_per_octave, layout.levels,
                double(layout.octaves) * layout.columns * layout.rows_per_octave, double(n) * width * height * k * k,
                expmap_sample_ratio(plan, k));

    ReferenceCache cache;
    std::stringstream segments(segments_text);
    std::string item;
    while (std::getline(segments, item, ',')) {
        const int start_doubling = std::atoi(item.c_str());
        const int64_t first = std::min<int64_t>(int64_t(start_doubling) * fps, n - 1);
        const int64_t last = std::min<int64_t>(first + int64_t(segment_doublings) * fps, n - 1);
        if (last <= first) continue;
        std::vector<uint8_t> frame(size_t(width) * height * 4);
        const int strips_before = expmap.stats().strips;
        auto t0 = std::chrono::steady_clock::now();
        expmap.render(first, frame.data());
        const double warm_s = seconds_since(t0);
        const ExpmapStats before = expmap.stats();
        t0 = std::chrono::steady_clock::now();
        for (int64_t i = first + 1; i <= last; ++i) expmap.render(i, frame.data());
        const double expmap_s = seconds_since(t0);
        const ExpmapStats& after = expmap.stats();
        const int64_t frames = last - first;
        std::printf("doublings %d-%d (zoom %s to %s):\n", start_doubling, start_doubling + segment_doublings,
                    plan[size_t(first)].zoom.text().c_str(), plan[size_t(last)].zoom.text().c_str());
        std::printf("  expmap  %lld frames in %.2f s: %.2f frames/s; %d new strips %.2f s (%.2f s a strip), "
                    "colour+mips %.2f s, flat %.2f s, reconstruction %.1f ms a frame (first frame and its %d "
                    "strips: %.1f s)\n",
                    (long long)frames, expmap_s, double(frames) / expmap_s, after.strips - before.strips,
                    (after.strips_ms - before.strips_ms) * 1e-3,
                    after.strips > before.strips
                        ? (after.strips_ms - before.strips_ms) * 1e-3 / (after.strips - before.strips)
                        : 0.0,
                    (after.colour_ms - before.colour_ms) * 1e-3, (after.flat_ms - before.flat_ms) * 1e-3,
                    (after.reconstruct_ms - before.reconstruct_ms) / double(frames), before.strips - strips_before, warm_s);
        double direct_s = 0.0;
        const int direct_frames = 3;
        for (int j = 0; j < direct_frames; ++j) {
            const int64_t i = first + (last - first) * j / (direct_frames - 1);
            t0 = std::chrono::steady_clock::now();
            test::direct_frame(plan[size_t(i)], k, palette, &cache);
            direct_s += seconds_since(t0);
        }
        const double direct_frame_s = direct_s / direct_frames;
        std::printf("  direct  %.3f s a frame: %.2f frames/s; direct/expmap time ratio %.1f\n", direct_frame_s,
                    1.0 / direct_frame_s, direct_frame_s * double(frames) / expmap_s);
    }
}

}  // namespace
}  // namespace ms
