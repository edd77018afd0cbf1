// test_render_cpu_worker_bench.cpp: the window's CPU frame (render/frame/cpu_render_worker.h)
// against the same view computed as `mandelscope render` computes it (one direct_cpu call
// on the calling thread), without a window: no X server, no llvmpipe and no UI thread taking
// turns on the cores, so what remains is the worker's own cost (its thread and OpenMP team,
// colouring every row, the hand-over of the rows). As a DISABLED_ test (never run by CTest;
// run by hand). Prints figures, asserts only that every frame completed.
//
// Each view of a drag (a pan of up to 60 pixels, as --bench-drag makes) is rendered by the
// worker until complete, its rows taken by a stand-in for the UI that copies them (what the
// texture upload reads), then computed by direct_cpu, alternating, with pauses between the
// two so that neither's OpenMP team is still spinning when the other starts. The ratio is of
// the medians (the goal: 1.3), and of the fastest of each, which moves less with the
// load of a shared machine. "latency" is from the request to the UI holding every row.
//   build/bin/test_render_cpu_worker_bench --gtest_also_run_disabled_tests
//   MANDELSCOPE_WORKER_BENCH_VIEWS=60 ... (views per scene; 30 by default)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compute/fractal/colour/palette.h"
#include "render/frame/cpu_render_worker.h"
#include "render/frame/view_math.h"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}
double fastest(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

struct Scene {
    const char* name;
    ms::View view;
};

std::vector<Scene> scenes() {
    ms::View full;  // the window's default view
    full.width = 1280;
    full.height = 720;
    ms::View seahorse;  // seahorse valley, compute-bound
    seahorse.width = 1920;
    seahorse.height = 1080;
    seahorse.center_re = "-0.7453";
    seahorse.center_im = "0.1127";
    seahorse.zoom = 150.0;
    seahorse.max_iterations = 2000;
    return {{"default view 1280x720", full}, {"seahorse valley 1920x1080, 2000 iterations", seahorse}};
}

// The UI's side: wakes on the worker's news and takes the rows as the window does.
struct FakeUi {
    std::mutex mutex;
    std::condition_variable news;
    bool has_news = false;
    std::vector<uint8_t> texture;
};

}  // namespace

TEST(CpuWorkerBench, DISABLED_WindowFrameAgainstRender) {
    int views = 30;
    if (const char* s = std::getenv("MANDELSCOPE_WORKER_BENCH_VIEWS")) views = std::max(1, std::atoi(s));
    const ms::PaletteTable palette = ms::make_palette_table(ms::load_palette("classic"));
    FakeUi ui;
    ms::CpuRenderWorker worker;
    worker.on_news = [&ui] {
        std::lock_guard lock(ui.mutex);
        ui.has_news = true;
        ui.news.notify_one();
    };
    ms::start_cpu_render_worker(worker);
    for (const Scene& scene : scenes()) {
        std::vector<double> window_ms, latency_ms, render_ms;
        std::vector<float> mu(size_t(scene.view.width) * scene.view.height);
        for (int i = 0; i <= views; ++i) {  // view 0 warms up (buffers, the first frame's coarse pass)
            const double dx = 60.0 * std::sin(2.0 * M_PI * (i + 1) / 240.0);
            const glm::dvec2 centre{0.5 * scene.view.width, 0.5 * scene.view.height};
            const ms::View view = ms::pan_view(scene.view, centre, centre + glm::dvec2(dx, 0.0));
            const auto requested = Clock::now();
            const uint64_t id = ms::request_cpu_render(worker, view, ms::Precision::Auto, palette);
            ms::CpuRenderStatus status;
            for (;;) {
                status = ms::take_cpu_render_rows(
                    worker, [&](const ms::View& v, const uint8_t* rgba, int first, int rows) {
                        ui.texture.resize(size_t(v.width) * v.height * 4);
                        const size_t at = size_t(first) * v.width * 4;
                        std::memcpy(ui.texture.data() + at, rgba + at, size_t(rows) * v.width * 4);
                    });
                if (status.frame_id == id && status.complete) break;
                std::unique_lock lock(ui.mutex);
                ui.news.wait_for(lock, std::chrono::milliseconds(250), [&ui] { return ui.has_news; });
                ui.has_news = false;
            }
            const double latency = ms_since(requested);
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            const double render =
                ms::direct_cpu(view, ms::Precision::Auto, ms::Shortcuts{}, ms::full_rect(view), mu.data()).compute_ms;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            if (i == 0) continue;
            window_ms.push_back(status.compute_ms);
            latency_ms.push_back(latency);
            render_ms.push_back(render);
        }
        ASSERT_EQ(int(window_ms.size()), views);
        std::printf(
            "%s, %d views: window frame median %.2f ms (fastest %.2f), request to every row taken %.2f ms; "
            "render compute median %.2f ms (fastest %.2f)\n",
            scene.name, views, median(window_ms), fastest(window_ms), median(latency_ms), median(render_ms),
            fastest(render_ms));
        std::printf("  window / render: %.2f of the medians, %.2f of the fastest (goal <= 1.3)\n",
                    median(window_ms) / median(render_ms), fastest(window_ms) / fastest(render_ms));
        std::fflush(stdout);
    }
    ms::stop_cpu_render_worker(worker);
}
