// expmap_test_util.h: straight dives and their direct frames for the exponential map's tests
// and benchmark (test_video_expmap.cpp, test_video_expmap_bench.cpp), and what the video tests
// share: the dive to assets/locations/e50.kfr, and a file's bytes (to compare outputs).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "compute/fractal/colour/box_filter.h"
#include "compute/fractal/deep/deep_colour.h"
#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/view.h"
#include "compute/io/assets.h"
#include "compute/video/dive_plan.h"

namespace ms::test {

// The whole file, as bytes (empty when it cannot be read).
inline std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The straight dive to assets/locations/e50.kfr at width x height, fps frames a second for
// `seconds` (checked by check_dive).
inline DiveSettings e50_dive(int width, int height, int fps, double seconds) {
    DeepLocation location;
    EXPECT_EQ(read_kfr((find_data_dir("assets") / "locations" / "e50.kfr").string(), &location), "");
    DiveSettings dive;
    dive.target.center_re = location.center_re;
    dive.target.center_im = location.center_im;
    dive.target.zoom = ViewZoom::from_deep(location.zoom);
    dive.target.max_iterations = location.max_iterations;
    dive.target.formula = location.formula;
    dive.target.width = width;
    dive.target.height = height;
    dive.fps = fps;
    dive.seconds = seconds;
    EXPECT_EQ(check_dive(dive), "");
    return dive;
}

// n frames centred on `location`, zoom from 10^log10_from to 10^log10_to evenly in log-zoom.
inline std::vector<View> straight_dive(const DeepLocation& location, double log10_from, double log10_to, int64_t n,
                                       int width, int height) {
    std::vector<View> plan;
    for (int64_t k = 0; k < n; ++k) {
        const double t = n > 1 ? double(k) / double(n - 1) : 1.0;
        const double log10_zoom = log10_from + t * (log10_to - log10_from);
        const double whole = std::floor(log10_zoom);
        View view;
        view.center_re = location.center_re;
        view.center_im = location.center_im;
        view.zoom = ViewZoom::from_deep(DeepZoom{std::pow(10.0, log10_zoom - whole), int64_t(whole)});
        view.width = width;
        view.height = height;
        view.max_iterations = location.max_iterations;
        plan.push_back(view);
    }
    return plan;
}

// The frame as the direct method renders it, at K x K samples a pixel box-filtered, as
// `render --supersample=K` does: FP64 where it resolves the samples (coloured_frame.h), else the
// deep CPU path (colour_deep_frame). *ms: the time of the pixels.
inline std::vector<uint8_t> direct_frame(const View& view, int k, const PaletteTable& palette, ReferenceCache* cache,
                                         double* ms = nullptr) {
    View samples = view;
    samples.width *= k;
    samples.height *= k;
    std::vector<uint8_t> out(size_t(view.width) * view.height * 4);
    if (fp64_resolves(samples) && samples.max_iterations <= kMaxDirectIterations) {
        std::vector<float> mu(size_t(samples.width) * samples.height);
        std::vector<uint8_t> rgba(mu.size() * 4);
        const FrameStats stats = render_coloured_cpu(samples, Precision::Fp64, Shortcuts{}, palette, full_rect(samples),
                                                     1.0 / k, mu.data(), rgba.data());
        if (ms) *ms = stats.compute_ms;
        box_filter_rgba(rgba.data(), samples.width, k, view.width, view.height, out.data());
        return out;
    }
    DeepRenderOptions options;
    options.cache = cache;
    deep_options_for_colouring(view.colouring, &options);
    const DeepFrame frame = deep_cpu(deep_location(samples), samples.width, samples.height, options);
    if (ms) *ms = frame.stats.frame_ms;
    std::vector<uint8_t> rgba(size_t(samples.width) * samples.height * 4);
    colour_deep_frame(frame, palette, samples, 1.0 / k, rgba.data());
    box_filter_rgba(rgba.data(), samples.width, k, view.width, view.height, out.data());
    return out;
}

// Per-channel absolute differences (R, G, B) of two RGBA8 frames, over the pixels `use` keeps.
struct FrameError {
    double mean = 0.0;  // mean absolute error, 8-bit levels
    int p99 = 0;        // 99th percentile
    int max = 0;
    int64_t count = 0;
};
template <class Use>
FrameError frame_error(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, int width, int height, Use use) {
    std::vector<int> d;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            if (!use(x, y)) continue;
            for (int c = 0; c < 3; ++c) {
                const size_t i = (size_t(y) * width + x) * 4 + c;
                d.push_back(std::abs(int(a[i]) - int(b[i])));
            }
        }
    FrameError e;
    e.count = int64_t(d.size());
    if (d.empty()) return e;
    double sum = 0.0;
    for (int v : d) sum += v;
    e.mean = sum / double(d.size());
    std::sort(d.begin(), d.end());
    e.p99 = d[std::min(d.size() - 1, size_t(0.99 * double(d.size())))];
    e.max = d.back();
    return e;
}
inline FrameError frame_error(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, int width, int height) {
    return frame_error(a, b, width, height, [](int, int) { return true; });
}

// The mean of each block x block square of an RGBA8 frame (alpha kept): what the frame looks
// like at 1/block of its size, where detail finer than a few pixels (aliasing) averages out.
inline std::vector<uint8_t> block_means(const std::vector<uint8_t>& rgba, int width, int height, int block,
                                        int* out_width, int* out_height) {
    const int w = width / block, h = height / block;
    std::vector<uint8_t> out(size_t(w) * h * 4, 255);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c) {
                int sum = 0;
                for (int j = 0; j < block; ++j)
                    for (int i = 0; i < block; ++i)
                        sum += rgba[(size_t(y * block + j) * width + size_t(x * block + i)) * 4 + size_t(c)];
                out[(size_t(y) * w + x) * 4 + size_t(c)] = uint8_t((sum + block * block / 2) / (block * block));
            }
    *out_width = w;
    *out_height = h;
    return out;
}

}  // namespace ms::test
