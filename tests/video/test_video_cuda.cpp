// test_video_cuda.cpp: the direct frame source on CUDA against the same source on the CPU, for a
// dive to 1e50 (assets/locations/e50.kfr) at 64x36: its first frame (the direct FP kernels) and
// its last frames (perturbation, coloured on the device from the mu deep_cuda leaves there, only
// the RGBA copied back). deep_cuda's escape counts are the CPU's bit for bit and mu differs in
// its last bits (device log/log2), so the colours agree to a level or two: at least 99% of the
// channels within 2 levels, a mean difference of at most 0.5 levels. The source also reports
// the GPU's busy time, which `video`'s summary sets against the rendering's wall time.
// The exponential map's reconstruction on CUDA (expmap_cuda.h) against its CPU reference
// (expmap.cpp), from the same strips: the kernel mirrors the CPU's operations, so the frames are
// equal but where a device atan2, hypot or log2 rounds a last bit otherwise and a channel lands
// on the other side of a rounding: at most 1 level apart, on at most 0.1% of the channels; with
// 2x2 supersampling too, and past the flat image's crossfade. And the exponential map with its
// deep strips and flat image rendered on the device as well, against the CPU's map. And a
// video's segments shared over renderers on devices (VideoJob::devices: device 0 twice, and
// every visible device where there are several; one renderer failing mid-run): the MP4 has the
// bytes of one renderer's, by the direct method and by the exponential map.
// Skips without a usable CUDA device.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "compute/fractal/view/kfr.h"
#include "compute/io/assets.h"
#include "compute/system/cuda_info.h"
#include "compute/video/dive_plan.h"
#include "compute/video/expmap.h"
#include "compute/video/frame_source.h"
#include "compute/video/video_job.h"
#include "tests/video/expmap_test_util.h"

namespace ms {
namespace {

std::vector<View> e50_plan(int width, int height) { return plan_dive(test::e50_dive(width, height, 10, 3)); }

// Frames from deep pixels whose mu differs in the last bits: at least 99% of the channels within
// 2 levels, a mean difference of at most 0.5 levels.
void expect_close_colours(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, const char* what, int64_t k) {
    ASSERT_EQ(a.size(), b.size());
    size_t far = 0, channels = 0;
    double sum = 0.0;
    int worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (i % 4 == 3) continue;
        const int d = std::abs(int(a[i]) - int(b[i]));
        far += d > 2;
        sum += d;
        worst = std::max(worst, d);
        ++channels;
    }
    std::printf("%s frame %lld: mean %.3f levels, max %d, %zu of %zu channels more than 2 levels apart\n", what,
                (long long)k, sum / double(channels), worst, far, channels);
    EXPECT_LE(double(far), 0.01 * double(channels)) << what << " frame " << k;
    EXPECT_LE(sum / double(channels), 0.5) << what << " frame " << k;
}

TEST(VideoCuda, DirectSourceMatchesTheCpuSource) {
    std::string reason;
    if (!cuda_available(&reason)) GTEST_SKIP() << reason;
    FrameSourceSettings settings;
    settings.plan = e50_plan(64, 36);
    settings.palette = make_palette_table(load_palette(settings.plan.back().palette));
    settings.segment_frames = 10;
    std::string problem;
    auto cpu = make_frame_source(settings, VideoMethod::Direct, &problem);
    ASSERT_TRUE(cpu) << problem;
    settings.cuda = true;
    auto gpu = make_frame_source(settings, VideoMethod::Direct, &problem);
    ASSERT_TRUE(gpu) << problem;
    const size_t bytes = 64 * 36 * 4;
    // Frames of a segment in order from its first (frame_source.h's rule): segment 0's first,
    // then all of segment 2, whose last three are compared.
    std::vector<int64_t> frames = {0};
    for (int64_t k = 20; k < 30; ++k) frames.push_back(k);
    for (int64_t k : frames) {
        std::vector<uint8_t> a(bytes), b(bytes);
        cpu->render(k, a.data());
        gpu->render(k, b.data());
        if (k != 0 && k < 27) continue;
        expect_close_colours(a, b, "direct", k);
    }
    const FrameSourceTimes times = gpu->times();
    EXPECT_GT(times.direct_frames, 0);
    EXPECT_GT(times.deep_frames, 0);
    EXPECT_GT(times.gpu_busy_ms, 0.0);
    EXPECT_EQ(cpu->times().gpu_busy_ms, 0.0);
}

// The frames' channels: how many differ, and by how much at most.
void expect_within_one_level(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, const char* what,
                             int64_t k) {
    ASSERT_EQ(a.size(), b.size());
    size_t differ = 0, channels = 0;
    int worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (i % 4 == 3) continue;
        const int d = std::abs(int(a[i]) - int(b[i]));
        differ += d > 0;
        worst = std::max(worst, d);
        ++channels;
    }
    std::printf("%s frame %lld: %zu of %zu channels differ, by %d at most\n", what, (long long)k, differ, channels,
                worst);
    EXPECT_LE(worst, 1) << what << " frame " << k;
    EXPECT_LE(double(differ), 0.001 * double(channels)) << what << " frame " << k;
}

TEST(VideoCuda, ExpmapReconstructionMatchesTheCpu) {
    std::string reason;
    if (!cuda_available(&reason)) GTEST_SKIP() << reason;
    DeepLocation location;
    location.center_re = "0.4";
    location.center_im = "0.4";
    location.max_iterations = 1000;
    struct Case {
        const char* name;
        int supersample;
    };
    for (const Case& c : {Case{"smooth", 1}, Case{"smooth 2x2", 2}}) {
        const std::vector<View> plan = test::straight_dive(location, std::log10(200.0), 5.0, 24, 96, 54);
        const PaletteTable palette = make_palette_table(load_palette("classic"));
        ExpmapOptions options;
        options.supersample = c.supersample;
        ExpmapRenderer cpu(plan, palette, options);
        options.cuda = true;
        options.pixels_on_cpu = true;
        ExpmapRenderer gpu(plan, palette, options);
        for (int64_t k = 0; k < int64_t(plan.size()); ++k) {
            std::vector<uint8_t> a(size_t(96) * 54 * 4), b(a.size());
            cpu.render(k, a.data());
            gpu.render(k, b.data());
            expect_within_one_level(a, b, c.name, k);
        }
        EXPECT_EQ(cpu.stats().strips, gpu.stats().strips);
    }
}

// The exponential map with its strips and flat image rendered and coloured on the device
// (direct_cuda_rings, deep_cuda_rings, deep_cuda, colour_deep_frame_cuda and the mip kernels)
// against the whole map on the CPU, over the e50 dive, smooth and with the DE layer: the strips'
// counts are the CPU's bit for bit and mu differs in the last bits, so every frame's colours
// agree as the direct frames' do (expect_close_colours). The GPU's busy time counts the strips'
// kernels and colouring as well as the reconstruction.
TEST(VideoCuda, ExpmapStripsOnTheGpuMatchTheCpu) {
    std::string reason;
    if (!cuda_available(&reason)) GTEST_SKIP() << reason;
    for (const bool de : {false, true}) {
        FrameSourceSettings settings;
        settings.plan = e50_plan(96, 54);
        for (View& v : settings.plan) v.colouring.distance_estimation = de;
        settings.palette = make_palette_table(load_palette("classic"));
        std::string problem;
        auto cpu = make_frame_source(settings, VideoMethod::Expmap, &problem);
        ASSERT_TRUE(cpu) << problem;
        settings.cuda = true;
        auto gpu = make_frame_source(settings, VideoMethod::Expmap, &problem);
        ASSERT_TRUE(gpu) << problem;
        const size_t bytes = 96 * 54 * 4;
        const char* what = de ? "expmap, DE" : "expmap";
        for (int64_t k = 0; k < int64_t(settings.plan.size()); ++k) {
            std::vector<uint8_t> a(bytes), b(bytes);
            cpu->render(k, a.data());
            gpu->render(k, b.data());
            expect_close_colours(a, b, what, k);
        }
        const FrameSourceTimes times = gpu->times();
        EXPECT_EQ(times.expmap_frames, int64_t(settings.plan.size()));
        EXPECT_GT(times.gpu_busy_ms, times.reconstruct_ms);
        std::printf(
            "%s on CUDA: pixels %.1f ms (CPU %.1f ms), colouring %.1f ms (CPU %.1f ms), GPU busy %.1f ms, "
            "reconstruction %.1f ms\n",
            what, times.pixels_ms, cpu->times().pixels_ms, times.colour_ms, cpu->times().colour_ms, times.gpu_busy_ms,
            times.reconstruct_ms);
    }
}

TEST(VideoCuda, RenderersOnDevicesWriteTheBytesOfOne) {
    std::string reason;
    if (!cuda_available(&reason)) GTEST_SKIP() << reason;
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("mandelscope_video_cuda_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const int visible = int(query_cuda_system().devices.size());
    for (VideoMethod method : {VideoMethod::Direct, VideoMethod::Expmap}) {
        SCOPED_TRACE(video_method_name(method));
        auto job_for = [&](const std::string& name, std::vector<int> devices) {
            VideoJob job;
            job.frames.plan = plan_dive(test::e50_dive(160, 90, 10, 3));
            job.frames.palette = make_palette_table(load_palette(job.frames.plan.back().palette));
            job.frames.cuda = true;
            job.fps = 10;
            job.method = method;
            job.encoding.segment_frames = 5;
            job.encoding.preset = "ultrafast";
            job.devices = std::move(devices);
            job.output = dir / (std::string(video_method_name(method)) + "_" + name + ".mp4");
            return job;
        };
        const VideoJob one = job_for("one", {0});
        const VideoResult alone = run_video(one, nullptr, nullptr);
        ASSERT_EQ(alone.status, 0) << alone.message;
        std::vector<std::vector<int>> lists = {{0, 0}};
        if (visible > 1) {
            lists.emplace_back();
            for (int d = 0; d < visible; ++d) lists.back().push_back(d);
        }
        for (const std::vector<int>& devices : lists) {
            const VideoJob many = job_for("many" + std::to_string(devices.size()) + "_" + std::to_string(devices[1]),
                                          devices);
            const VideoResult shared = run_video(many, nullptr, nullptr);
            ASSERT_EQ(shared.status, 0) << shared.message;
            ASSERT_EQ(shared.renderers.size(), devices.size());
            for (size_t r = 0; r < devices.size(); ++r) {
                EXPECT_EQ(shared.renderers[r].device, devices[r]);
                EXPECT_GT(shared.renderers[r].segments, 0) << "renderer " << r;
            }
            EXPECT_EQ(test::file_bytes(many.output), test::file_bytes(one.output))
                << devices.size() << " renderers' MP4 differs from one renderer's";
        }
        // The last renderer fails inside its first segment: the other renders it all again.
        VideoJob failing = job_for("failing", lists.back());
        failing.fail_renderer = int(lists.back().size()) - 1;
        failing.fail_after_frames = 2;
        const VideoResult handed = run_video(failing, nullptr, nullptr);
        ASSERT_EQ(handed.status, 0) << handed.message;
        EXPECT_NE(handed.failure_text(), "");
        EXPECT_EQ(handed.frames_rendered, int64_t(failing.frames.plan.size()));
        EXPECT_EQ(test::file_bytes(failing.output), test::file_bytes(one.output));
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ms
