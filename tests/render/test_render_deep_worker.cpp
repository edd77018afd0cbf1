// test_render_deep_worker.cpp: the window's deep render worker (render/frame/deep_render_worker.h)
// without a window, on the CPU: a view at 1E1000 comes back as a complete frame of colours with
// its figures (a new reference, BLA levels, floatexp deltas); the same place panned by a few
// pixels reuses the reference (cached); a newer request cancels an older, slower one, whose
// pixels never reach the display; the worker stops when its owner unwinds mid-frame; a Julia set
// and a Tricorn view at 1E50 come back as deep_cpu computes them; a whole-pixel pan reuses the
// last frame's pixels, a fractional pan and a zoom do not; a drag whose views come faster than
// the worker ends on the right picture; a view with colouring layers renders in full. On CUDA
// (skipped without): a window with interop gets full frames in device memory, the same bytes;
// a worker with several devices spreads its frames over them, the same bytes again. A disabled
// benchmark times the window's 4K frame on one GPU and on all.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "compute/fractal/view/kfr.h"
#include "compute/fractal/colour/palette.h"
#include "compute/io/assets.h"
#include "compute/scale/deep_multi_gpu.h"
#include "render/frame/cuda_interop.h"
#include "render/frame/deep_render_worker.h"
#include "render/frame/view_math.h"
#include "tests/fractal/deep/deep_family_locations.h"
#include "tests/validate.h"

namespace ms {
namespace {

PaletteTable test_palette() {
    Palette palette;
    palette.name = "test";
    palette.stops = {{0.0, 255, 0, 0}, {0.3, 0, 255, 40}, {0.6, 20, 40, 255}};
    return make_palette_table(palette);
}

// assets/locations/NAME.kfr's place (e1000: zoom 1E1000), at a size of the test's, with its
// iteration count (0: the file's).
View deep_view(int width, int height, int64_t iterations, const char* name = "e1000") {
    DeepLocation location;
    EXPECT_EQ(read_kfr((find_data_dir("assets") / "locations" / (std::string(name) + ".kfr")).string(), &location),
              "");
    View v;
    v.center_re = location.center_re;
    v.center_im = location.center_im;
    v.zoom = ViewZoom::from_deep(location.zoom);
    v.width = width;
    v.height = height;
    v.max_iterations = iterations > 0 ? iterations : location.max_iterations;
    return v;
}

// Waits (up to a minute) until the worker has a complete frame for request `id`. A frame the
// worker hands over in device memory (requests with device_display) is copied back, and
// *from_device (if given) says which way the last pixels came.
DeepRenderStatus wait_for_frame(DeepRenderWorker& worker, uint64_t id, std::vector<uint8_t>* rgba, View* frame_view,
                                bool* from_device = nullptr) {
    DeepRenderStatus status;
    for (int i = 0; i < 6000; ++i) {
        status = take_deep_render_frame(
            worker,
            [&](const View& view, const uint8_t* pixels, int, int) {
                *frame_view = view;
                rgba->assign(pixels, pixels + size_t(view.width) * view.height * 4);
                if (from_device) *from_device = false;
            },
            [&](const View& view, const uint8_t* pixels_device) {
                *frame_view = view;
                rgba->resize(size_t(view.width) * view.height * 4);
                cuda_copy_to_host(rgba->data(), pixels_device, rgba->size());
                if (from_device) *from_device = true;
            });
        if (status.frame_id == id && status.complete) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return status;
}

// The share of rgba's pixels that equal a full deep_cpu render of `view`, coloured by
// colourize_deep (0 when the sizes differ).
double share_as_rendered(const std::vector<uint8_t>& rgba, const View& view, const PaletteTable& palette) {
    const DeepFrame expected = deep_cpu(deep_location(view), view.width, view.height);
    std::vector<uint8_t> expected_rgba(expected.mu.size() * 4);
    colourize_deep(expected.mu.data(), int64_t(expected.mu.size()), palette, view.palette_density, view.palette_offset,
                   expected_rgba.data());
    EXPECT_EQ(rgba.size(), expected_rgba.size());
    if (rgba.size() != expected_rgba.size()) return 0.0;
    size_t same = 0;
    for (size_t i = 0; i < rgba.size(); i += 4) same += std::equal(&rgba[i], &rgba[i] + 4, &expected_rgba[i]);
    return double(same) / double(view.width * view.height);
}

size_t colours(const std::vector<uint8_t>& rgba) {
    std::set<uint32_t> seen;
    for (size_t i = 0; i + 3 < rgba.size(); i += 4)
        seen.insert(uint32_t(rgba[i]) | uint32_t(rgba[i + 1]) << 8 | uint32_t(rgba[i + 2]) << 16);
    return seen.size();
}

TEST(DeepRenderWorker, RendersADeepViewAndReusesItsReference) {
    DeepRenderWorker worker;
    start_deep_render_worker(worker);
    const View view = deep_view(64, 36, 32000);  // the file's iterations
    const uint64_t first = request_deep_render(worker, view, Precision::Auto, test_palette(), false);
    std::vector<uint8_t> rgba;
    View frame_view;
    DeepRenderStatus status = wait_for_frame(worker, first, &rgba, &frame_view);
    ASSERT_TRUE(status.complete) << "no frame within a minute";
    EXPECT_EQ(status.error, "");
    EXPECT_TRUE(same_place(frame_view, view));
    ASSERT_EQ(rgba.size(), size_t(64 * 36 * 4));
    EXPECT_GT(colours(rgba), 20u);
    EXPECT_FALSE(status.stats.reference_cached);
    EXPECT_GT(status.stats.reference_ms, 0.0);
    EXPECT_EQ(status.stats.number_type, DeepNumberType::FloatExp);
    EXPECT_GT(status.stats.bla_levels, 0);
    EXPECT_GT(status.stats.precision_bits, 3322);  // 1000 decades need more than 3322 bits
    EXPECT_FALSE(status.ran_on_cuda);

    // Panned by a few pixels: the same orbit serves (its point is still inside the image).
    const View panned = pan_view(view, {10.0, 10.0}, {14.0, 7.0});
    const uint64_t second = request_deep_render(worker, panned, Precision::Auto, test_palette(), false);
    status = wait_for_frame(worker, second, &rgba, &frame_view);
    ASSERT_TRUE(status.complete);
    EXPECT_TRUE(status.stats.reference_cached);
    EXPECT_EQ(status.stats.reference_ms, 0.0);
    EXPECT_TRUE(same_place(frame_view, panned));
    stop_deep_render_worker(worker);
}

TEST(DeepRenderWorker, ANewerViewCancelsTheOlder) {
    DeepRenderWorker worker;
    start_deep_render_worker(worker);
    // A slow frame (many pixels at many iterations), then at once a small one.
    const uint64_t slow = request_deep_render(worker, deep_view(1600, 900, 200000), Precision::Auto, test_palette(),
                                              false);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let it start
    const View quick = deep_view(48, 27, 32000);
    const uint64_t newer = request_deep_render(worker, quick, Precision::Auto, test_palette(), false);
    ASSERT_GT(newer, slow);
    std::vector<uint8_t> rgba;
    View frame_view;
    const DeepRenderStatus status = wait_for_frame(worker, newer, &rgba, &frame_view);
    ASSERT_TRUE(status.complete) << "the newer view did not come within a minute";
    EXPECT_TRUE(same_place(frame_view, quick));
    EXPECT_EQ(frame_view.width, 48);
    stop_deep_render_worker(worker);
}

TEST(DeepRenderWorker, StopsWhenItsOwnerUnwinds) {
    EXPECT_THROW(
        {
            DeepRenderWorker worker;
            start_deep_render_worker(worker);
            request_deep_render(worker, deep_view(1600, 900, 200000), Precision::Auto, test_palette(), false);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            throw std::runtime_error("the main loop failed");
        },
        std::runtime_error);
}

// The formula family goes through the worker too (View carries the formula and Julia c into
// deep_location): a Julia set of z^2 + c (on its boundary: deep_family_locations.h) and a
// Tricorn view (its real tip) at 1E50 come back exactly as deep_cpu
// computes and colourize_deep colours them.
TEST(DeepRenderWorker, RendersTheFormulaFamily) {
    DeepRenderWorker worker;
    start_deep_render_worker(worker);
    const PaletteTable palette = test_palette();
    View julia;
    julia.julia = true;
    julia.julia_re = "-0.123";
    julia.julia_im = "0.745";
    const DeepLocation on_boundary = test::boundary_location(test::kJuliaRabbit, 215, 1000, "1E50");
    julia.center_re = on_boundary.center_re;
    julia.center_im = on_boundary.center_im;
    View tricorn;
    tricorn.formula = Formula::Tricorn;
    tricorn.center_re = "-2.0000000000000000000000000000000000000000000000001";
    tricorn.center_im = "0";
    for (View* v : {&julia, &tricorn}) {
        v->zoom = ViewZoom::from_deep(DeepZoom{1.0, 50});
        v->width = 48;
        v->height = 27;
        v->max_iterations = 1000;
        const uint64_t id = request_deep_render(worker, *v, Precision::Auto, palette, false);
        std::vector<uint8_t> rgba;
        View frame_view;
        DeepRenderStatus status = wait_for_frame(worker, id, &rgba, &frame_view);
        ASSERT_TRUE(status.complete) << "no frame within a minute";
        EXPECT_EQ(status.error, "");
        const DeepFrame expected = deep_cpu(deep_location(*v), v->width, v->height);
        std::vector<uint8_t> expected_rgba(expected.mu.size() * 4);
        colourize_deep(expected.mu.data(), int64_t(expected.mu.size()), palette, v->palette_density, v->palette_offset,
                       expected_rgba.data());
        EXPECT_EQ(rgba, expected_rgba) << formula_name(v->formula) << (v->julia ? " (Julia)" : "");
        EXPECT_GT(colours(rgba), 2u);
    }
    stop_deep_render_worker(worker);
}

// A drag (deep_pan.h): a view panned by whole pixels takes the last frame's pixels and computes
// only the exposed strips, and its picture is the full render's (the 1E1000 view is not chaotic
// at the centres' rounding: every pixel agrees); a pan by half a pixel, and a zoom, render in full.
TEST(DeepRenderWorker, ReusesPixelsForAWholePixelPanOnly) {
    DeepRenderWorker worker;
    start_deep_render_worker(worker);
    const PaletteTable palette = test_palette();
    const int width = 96, height = 54;
    const View view = deep_view(width, height, 32000);
    std::vector<uint8_t> rgba;
    View frame_view;
    DeepRenderStatus status = wait_for_frame(worker, request_deep_render(worker, view, Precision::Auto, palette, false),
                                             &rgba, &frame_view);
    ASSERT_TRUE(status.complete) << "no frame within a minute";
    EXPECT_EQ(status.stats.reused_pixels, 0u);

    // The cursor 3 pixels right and 2 up: the picture follows it.
    const View panned = pan_view(view, {10.0, 10.0}, {13.0, 8.0});
    status = wait_for_frame(worker, request_deep_render(worker, panned, Precision::Auto, palette, false), &rgba,
                            &frame_view);
    ASSERT_TRUE(status.complete);
    EXPECT_TRUE(same_place(frame_view, panned));
    EXPECT_EQ(status.stats.reused_pixels, uint64_t(width - 3) * (height - 2));
    EXPECT_EQ(status.stats.pan_x, -3);  // pixel (x, y) is the last frame's (x - 3, y + 2)
    EXPECT_EQ(status.stats.pan_y, 2);
    EXPECT_TRUE(status.stats.reference_cached);
    EXPECT_TRUE(status.stats.bla_cached) << "the headroom should keep the BLA table for a pan";
    EXPECT_LT(status.stats.iterations, uint64_t(32000) * (3 * height + 2 * width));  // the strips' alone
    EXPECT_GE(share_as_rendered(rgba, panned, palette), 0.999);

    // Half a pixel: not a whole-pixel pan, rendered in full.
    const View half = pan_view(panned, {10.0, 10.0}, {10.5, 10.0});
    status = wait_for_frame(worker, request_deep_render(worker, half, Precision::Auto, palette, false), &rgba,
                            &frame_view);
    ASSERT_TRUE(status.complete);
    EXPECT_TRUE(same_place(frame_view, half));
    EXPECT_EQ(status.stats.reused_pixels, 0u);

    // A whole-pixel pan of that one reuses again; then a zoom does not.
    const View again = pan_view(half, {10.0, 10.0}, {8.0, 10.0});
    status = wait_for_frame(worker, request_deep_render(worker, again, Precision::Auto, palette, false), &rgba,
                            &frame_view);
    ASSERT_TRUE(status.complete);
    EXPECT_EQ(status.stats.reused_pixels, uint64_t(width - 2) * height);
    const View zoomed = zoom_view_about(again, {48.0, 27.0}, 1.25);
    status = wait_for_frame(worker, request_deep_render(worker, zoomed, Precision::Auto, palette, false), &rgba,
                            &frame_view);
    ASSERT_TRUE(status.complete);
    EXPECT_TRUE(same_place(frame_view, zoomed));
    EXPECT_EQ(status.stats.reused_pixels, 0u);

    // With a colouring layer (slopes: mu's differences over the whole frame) every view renders in
    // full, whole-pixel pan or not.
    View sloped = zoomed;
    sloped.colouring.slopes = true;
    status = wait_for_frame(worker, request_deep_render(worker, sloped, Precision::Auto, palette, false), &rgba,
                            &frame_view);
    ASSERT_TRUE(status.complete);
    const View sloped_panned = pan_view(sloped, {10.0, 10.0}, {12.0, 10.0});
    status = wait_for_frame(worker, request_deep_render(worker, sloped_panned, Precision::Auto, palette, false), &rgba,
                            &frame_view);
    ASSERT_TRUE(status.complete);
    EXPECT_TRUE(same_place(frame_view, sloped_panned));
    EXPECT_EQ(status.stats.reused_pixels, 0u);
    stop_deep_render_worker(worker);
}

// A drag whose views come faster than the worker finishes them (no waiting between requests):
// short strips are finished even when a newer view comes, and the last frame moves on with them;
// the drag's last view is still the full render's picture, and it was assembled from the pixels
// before.
TEST(DeepRenderWorker, AQuickDragEndsOnTheRightPicture) {
    DeepRenderWorker worker;
    start_deep_render_worker(worker);
    const PaletteTable palette = test_palette();
    const int width = 96, height = 54;
    const View start = deep_view(width, height, 32000);
    std::vector<uint8_t> rgba;
    View frame_view;
    ASSERT_TRUE(
        wait_for_frame(worker, request_deep_render(worker, start, Precision::Auto, palette, false), &rgba, &frame_view)
            .complete);
    uint64_t id = 0;
    View view = start;
    for (int step = 1; step <= 12; ++step) {
        view = pan_view(start, {50.0, 20.0}, {50.0 + step, 20.0 - (step % 3)});
        id = request_deep_render(worker, view, Precision::Auto, palette, false);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    const DeepRenderStatus status = wait_for_frame(worker, id, &rgba, &frame_view);
    ASSERT_TRUE(status.complete);
    EXPECT_TRUE(same_place(frame_view, view));
    EXPECT_GT(status.stats.reused_pixels, uint64_t(width) * height / 2);
    EXPECT_GE(share_as_rendered(rgba, view, palette), 0.999);
    stop_deep_render_worker(worker);
}

// CUDA, for a window whose GL buffer CUDA can write (request_deep_render's device_display): the
// full frame is coloured on the device and handed over there, its bytes those of the frame the
// worker colours on the host for a window without interop; a whole-pixel pan after it (whose
// colours were never on the host) comes through host memory with a full render's colours, and
// the next full frame goes to the other device buffer. Skips without CUDA.
TEST(DeepRenderWorker, ACudaFrameForAnInteropWindowStaysOnTheDevice) {
    SKIP_WITHOUT_CUDA();
    const PaletteTable palette = test_palette();
    const int width = 160, height = 90;
    const View view = deep_view(width, height, 32000);
    std::vector<uint8_t> host_rgba, device_rgba;
    View frame_view;
    bool from_device = true;
    {
        DeepRenderWorker host_worker;
        start_deep_render_worker(host_worker);
        const DeepRenderStatus status = wait_for_frame(
            host_worker, request_deep_render(host_worker, view, Precision::Auto, palette, true, false), &host_rgba,
            &frame_view, &from_device);
        ASSERT_TRUE(status.complete);
        EXPECT_TRUE(status.ran_on_cuda);
        EXPECT_FALSE(from_device);
    }
    DeepRenderWorker worker;
    start_deep_render_worker(worker);
    DeepRenderStatus status = wait_for_frame(worker,
                                             request_deep_render(worker, view, Precision::Auto, palette, true, true),
                                             &device_rgba, &frame_view, &from_device);
    ASSERT_TRUE(status.complete);
    EXPECT_TRUE(status.ran_on_cuda);
    EXPECT_TRUE(from_device);
    EXPECT_TRUE(same_place(frame_view, view));
    EXPECT_EQ(device_rgba, host_rgba);
    int first_buffer = 0;
    {
        std::lock_guard lock(worker.mutex);
        first_buffer = worker.device_front;
    }

    const View panned = pan_view(view, {10.0, 10.0}, {13.0, 8.0});
    status = wait_for_frame(worker, request_deep_render(worker, panned, Precision::Auto, palette, true, true),
                            &device_rgba, &frame_view, &from_device);
    ASSERT_TRUE(status.complete);
    EXPECT_FALSE(from_device) << "a pan's frame is assembled on the host";
    EXPECT_EQ(status.stats.reused_pixels, uint64_t(width - 3) * (height - 2));
    EXPECT_GE(share_as_rendered(device_rgba, panned, palette), 0.999);

    const View zoomed = zoom_view_about(panned, {80.0, 45.0}, 1.25);
    status = wait_for_frame(worker, request_deep_render(worker, zoomed, Precision::Auto, palette, true, true),
                            &device_rgba, &frame_view, &from_device);
    ASSERT_TRUE(status.complete);
    EXPECT_TRUE(from_device);
    {
        std::lock_guard lock(worker.mutex);
        EXPECT_NE(worker.device_front, first_buffer) << "the next frame is coloured into the other buffer";
    }
    stop_deep_render_worker(worker);
}

// A worker with several devices (here device 0 named twice, two slots of the bands engine)
// shares its full CUDA frames out over them: the same colours as one device's frame, coloured
// on the host; a pan afterwards still reuses the frame's pixels.
TEST(DeepRenderWorker, ACudaFrameSpreadOverDevicesIsOneDevicesFrame) {
    SKIP_WITHOUT_CUDA();
    const PaletteTable palette = test_palette();
    const View view = deep_view(160, 90, 32000);
    std::vector<uint8_t> one_rgba, spread_rgba;
    View frame_view;
    {
        DeepRenderWorker one;
        start_deep_render_worker(one);
        const DeepRenderStatus status = wait_for_frame(
            one, request_deep_render(one, view, Precision::Auto, palette, true, true), &one_rgba, &frame_view);
        ASSERT_TRUE(status.complete);
        EXPECT_EQ(status.devices_used, 1);
    }
    DeepRenderWorker worker;
    worker.devices = {0, 0};
    worker.spread_min_pixels = 0;
    start_deep_render_worker(worker);
    bool from_device = true;
    DeepRenderStatus status = wait_for_frame(
        worker, request_deep_render(worker, view, Precision::Auto, palette, true, true), &spread_rgba, &frame_view,
        &from_device);
    ASSERT_TRUE(status.complete);
    EXPECT_TRUE(status.ran_on_cuda);
    EXPECT_EQ(status.devices_used, 2);
    EXPECT_FALSE(from_device) << "a spread frame is coloured on the host";
    EXPECT_EQ(spread_rgba, one_rgba);
    const View panned = pan_view(view, {10.0, 10.0}, {13.0, 8.0});
    status = wait_for_frame(worker, request_deep_render(worker, panned, Precision::Auto, palette, true, true),
                            &spread_rgba, &frame_view);
    ASSERT_TRUE(status.complete);
    EXPECT_EQ(status.stats.reused_pixels, uint64_t(160 - 3) * (90 - 2));
    EXPECT_GE(share_as_rendered(spread_rgba, panned, palette), 0.999);
    stop_deep_render_worker(worker);
}

// Not a test: the window's deep frame at 4K (3840x2160, assets/locations/e227.kfr) through the
// worker, on the first GPU alone and spread over every visible one, as the window takes it
// (device_display: one GPU's frame stays on the device, a spread frame is coloured on the host).
// For each, three rounds alternated: the first frame (a new reference) and a zoom of 1.02x about
// the centre (the reference kept), the worker's compute_ms (reference, pixels, colours).
//   build/bin/test_render_deep_worker --gtest_also_run_disabled_tests --gtest_filter='*WindowFrameAt4k*'
TEST(DeepRenderWorker, DISABLED_WindowFrameAt4kOnOneGpuAndAll) {
    SKIP_WITHOUT_CUDA();
    const std::vector<int> all = deep_visible_devices();
    const View view = deep_view(3840, 2160, 0, "e227");
    const View zoomed = zoom_view_about(view, {1920.0, 1080.0}, 1.02);
    const PaletteTable palette = test_palette();
    std::printf("  e227 at 3840x2160 in the window's deep worker, compute_ms: first frame / a 1.02x zoom\n");
    for (int round = 0; round < 3; ++round)
        for (const std::vector<int>& devices : {std::vector<int>{all.front()}, all}) {
            DeepRenderWorker worker;
            worker.devices = devices;
            start_deep_render_worker(worker);
            std::vector<uint8_t> rgba;
            View frame_view;
            const DeepRenderStatus first = wait_for_frame(
                worker, request_deep_render(worker, view, Precision::Auto, palette, true, true), &rgba, &frame_view);
            const DeepRenderStatus next = wait_for_frame(
                worker, request_deep_render(worker, zoomed, Precision::Auto, palette, true, true), &rgba, &frame_view);
            stop_deep_render_worker(worker);
            ASSERT_TRUE(first.complete && next.complete);
            std::printf("  round %d, %zu device slot(s), spread over %d: %.1f ms / %.1f ms\n", round, devices.size(),
                        next.devices_used, first.compute_ms, next.compute_ms);
        }
}

}  // namespace
}  // namespace ms
