// test_render_cpu_worker.cpp: the window's CPU worker (render/frame/cpu_render_worker.h) hands
// the UI exactly the picture `mandelscope render` makes (direct_cpu, then colourize; the
// colouring layers through render_coloured_cpu), every row once, the coarse pass first where
// the frame is expected to be slow; a newer request cancels the older. And the lock-free row
// board it hands rows over with (render/frame/finished_rows.h): rows marked by many threads at
// once are each taken once, in runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "compute/fractal/colour/colour_pass.h"
#include "compute/fractal/direct/coloured_frame.h"
#include "compute/fractal/colour/palette.h"
#include "render/frame/cpu_render_worker.h"
#include "render/frame/finished_rows.h"

namespace {

ms::PaletteTable classic() { return ms::make_palette_table(ms::load_palette("classic")); }

ms::View small_view(int width, int height) {
    ms::View view;
    view.width = width;
    view.height = height;
    view.center_re = "-0.7453";
    view.center_im = "0.1127";
    view.zoom = 40.0;
    view.max_iterations = 600;
    return view;
}

// What the UI sees of one request: the uploads in order, applied to its own copy of the frame.
struct UiSide {
    std::vector<uint8_t> texture;
    std::vector<int> row_count;  // per row: how often it was handed over (the coarse pass included)
    ms::CpuRenderStatus status;
};

// Takes rows like the window does until request `id` is complete (or a timeout fails the test).
UiSide take_until_complete(ms::CpuRenderWorker& worker, uint64_t id, const ms::View& view) {
    UiSide ui;
    ui.texture.assign(size_t(view.width) * view.height * 4, 0);
    ui.row_count.assign(size_t(view.height), 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    for (;;) {
        ui.status = ms::take_cpu_render_rows(worker, [&](const ms::View& v, const uint8_t* rgba, int first, int rows) {
            if (v.width != view.width || v.height != view.height) return;  // an older request's frame
            const size_t at = size_t(first) * v.width * 4;
            std::memcpy(ui.texture.data() + at, rgba + at, size_t(rows) * v.width * 4);
            for (int y = first; y < first + rows; ++y) ++ui.row_count[size_t(y)];
        });
        if (ui.status.frame_id == id && ui.status.complete) return ui;
        if (std::chrono::steady_clock::now() > deadline) {
            ADD_FAILURE() << "request " << id << " did not complete within 60 s";
            return ui;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

std::vector<uint8_t> rendered_as_render_does(const ms::View& view, const ms::PaletteTable& palette) {
    std::vector<float> mu(size_t(view.width) * view.height);
    ms::direct_cpu(view, ms::Precision::Auto, ms::Shortcuts{}, ms::full_rect(view), mu.data());
    std::vector<uint8_t> rgba(mu.size() * 4);
    ms::colourize(mu.data(), int64_t(mu.size()), palette, view, rgba.data());
    return rgba;
}

size_t first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (a[i] != b[i]) return i;
    return a.size() == b.size() ? SIZE_MAX : std::min(a.size(), b.size());
}

}  // namespace

TEST(FinishedRows, RowsMarkedByManyThreadsAreEachTakenOnceInRuns) {
    ms::FinishedRows board;
    ms::reset_finished_rows(board, 1000);
    std::vector<int> taken(1000, 0);
    int runs = 0;
    auto take = [&] {
        return ms::take_finished_rows(board, [&](int first, int count) {
            ++runs;
            for (int y = first; y < first + count; ++y) ++taken[size_t(y)];
        });
    };
    EXPECT_EQ(take(), 0);  // nothing marked yet
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&board, t] {
            for (int job = t; job < 100; job += 4) ms::mark_finished_rows(board, job * 10, 10);
        });
    int total = 0, takes = 0;
    while (total < 1000) {  // the UI takes while the threads mark
        const int got = take();
        total += got;
        takes += got > 0;
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(take(), 0);
    for (int y = 0; y < 1000; ++y) ASSERT_EQ(taken[size_t(y)], 1) << "row " << y;
    // Consecutive marked rows go in one run: 100 jobs of 10 rows, each split at most once by a
    // take that comes while its rows are being marked (a row at a time; 4 threads mark at once).
    EXPECT_LE(runs, 100 + 4 * takes);

    ms::mark_finished_rows(board, 10, 3);
    ms::mark_finished_rows(board, 14, 1);
    std::vector<std::pair<int, int>> got;
    ms::take_finished_rows(board, [&](int first, int count) { got.push_back({first, count}); });
    EXPECT_EQ(got, (std::vector<std::pair<int, int>>{{10, 3}, {14, 1}}));
    ms::reset_finished_rows(board, 1000);  // a new frame: every row pending again
    ms::mark_finished_rows(board, 10, 1);
    EXPECT_EQ(take(), 1);
}

TEST(CpuRenderWorker, HandsOverRendersPictureEveryRowOnceCoarsePassFirstWhenSlow) {
    const ms::PaletteTable palette = classic();
    ms::CpuRenderWorker worker;
    ms::start_cpu_render_worker(worker);
    const ms::View view = small_view(640, 360);
    const std::vector<uint8_t> expected = rendered_as_render_does(view, palette);

    // The first frame has no time to go by, so it counts as slow: a coarse pass (the whole
    // frame at once) comes before the rows, so every row is handed over twice, and the full
    // pass's row last (the picture is render's).
    uint64_t id = ms::request_cpu_render(worker, view, ms::Precision::Auto, palette);
    UiSide first = take_until_complete(worker, id, view);
    EXPECT_EQ(first_difference(first.texture, expected), SIZE_MAX) << "first byte that differs from render's";
    for (int y = 0; y < view.height; ++y) ASSERT_EQ(first.row_count[size_t(y)], 2) << "row " << y;
    EXPECT_GT(first.status.compute_ms, 0.0);
    EXPECT_GT(first.status.iterations, 0u);
    EXPECT_EQ(first.status.progress, 1.0);

    // Now the worker knows a frame of this size takes well under 100 ms: no coarse pass, each
    // row handed over exactly once.
    id = ms::request_cpu_render(worker, view, ms::Precision::Auto, palette);
    UiSide second = take_until_complete(worker, id, view);
    EXPECT_EQ(first_difference(second.texture, expected), SIZE_MAX);
    for (int y = 0; y < view.height; ++y) ASSERT_EQ(second.row_count[size_t(y)], 1) << "row " << y;
    ms::stop_cpu_render_worker(worker);
}

TEST(CpuRenderWorker, ColouringLayersComeWholeAsRenderColoursThem) {
    const ms::PaletteTable palette = classic();
    ms::View view = small_view(320, 200);
    ASSERT_EQ(ms::parse_colouring_methods("histogram,de", &view.colouring), "");
    std::vector<float> mu(size_t(view.width) * view.height);
    std::vector<uint8_t> expected(mu.size() * 4);
    ms::render_coloured_cpu(view, ms::resolve_precision(view, ms::Precision::Auto), ms::Shortcuts{}, palette,
                            ms::full_rect(view), 1.0, mu.data(), expected.data());
    ms::CpuRenderWorker worker;
    ms::start_cpu_render_worker(worker);
    const uint64_t id = ms::request_cpu_render(worker, view, ms::Precision::Auto, palette);
    UiSide ui = take_until_complete(worker, id, view);
    EXPECT_EQ(first_difference(ui.texture, expected), SIZE_MAX);
    for (int y = 0; y < view.height; ++y) ASSERT_EQ(ui.row_count[size_t(y)], 1) << "row " << y;
    ms::stop_cpu_render_worker(worker);
}

TEST(CpuRenderWorker, ANewerRequestCancelsTheOlder) {
    const ms::PaletteTable palette = classic();
    ms::CpuRenderWorker worker;
    ms::start_cpu_render_worker(worker);
    // Seconds of one core's work (FP64, a million iterations at the boundary), so 5 ms in it
    // is still running even on many cores (a lighter view can finish first, and the test would
    // fail on its premise).
    ms::View slow = small_view(1920, 1080);
    slow.center_re = "-0.743643887037151";
    slow.center_im = "0.131825904205330";
    slow.zoom = 2e11;
    slow.max_iterations = 1000000;
    const uint64_t stale = ms::request_cpu_render(worker, slow, ms::Precision::Auto, palette);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const ms::CpuRenderStatus running = ms::take_cpu_render_rows(worker,
                                                                 [](const ms::View&, const uint8_t*, int, int) {});
    ASSERT_FALSE(running.frame_id == stale && running.complete)
        << "the slow view finished before it could be cancelled";
    const ms::View view = small_view(200, 120);
    const auto asked = std::chrono::steady_clock::now();
    const uint64_t id = ms::request_cpu_render(worker, view, ms::Precision::Auto, palette);
    EXPECT_GT(id, stale);
    UiSide ui = take_until_complete(worker, id, view);
    EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(10))
        << "the stale frame was not cancelled";
    EXPECT_EQ(first_difference(ui.texture, rendered_as_render_does(view, palette)), SIZE_MAX);
    ms::stop_cpu_render_worker(worker);
}
