// test_render_workers_stop.cpp: every background worker of the window stops before its owner
// dies, even when an exception skips the explicit stop_* call (otherwise an exception out of
// the main loop leaves the Compare worker waiting on a condition variable that ~PerfMonitor
// then destroys, and the process hangs at 0% CPU with no output).
//
// Each test starts a worker with work under way, then leaves its scope by an exception, the
// way the main loop does. Without the workers' destructors this aborts (a joinable
// std::thread destroyed) or hangs (CTest's timeout); with them it returns at once.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

#include <unistd.h>

#include "compute/fractal/colour/palette.h"
#include "render/perf/compare_worker.h"
#include "render/frame/cpu_render_worker.h"
#include "render/frame/export_image.h"
#include "render/perf/perf_monitor.h"

namespace {

ms::PaletteTable test_palette() {
    ms::Palette palette;
    palette.name = "test";
    palette.stops = {{0.0, 255, 0, 0}, {0.5, 0, 255, 40}};
    return ms::make_palette_table(palette);
}

// A view slow enough that the worker is still busy when its owner goes away.
ms::View busy_view() {
    ms::View view;
    view.width = 1600;
    view.height = 900;
    view.max_iterations = 20000;
    view.center_re = "-0.75";
    view.center_im = "0.1";
    view.zoom = 50.0;
    return view;
}

// Runs `body`, which must throw: its locals are destroyed by the unwinding.
template <class Body>
void unwind(Body body) {
    EXPECT_THROW(body(), std::runtime_error);
}

}  // namespace

TEST(WorkersStop, CpuRenderWorkerStopsWhenItsOwnerUnwinds) {
    unwind([] {
        ms::CpuRenderWorker worker;
        ms::start_cpu_render_worker(worker);
        ms::request_cpu_render(worker, busy_view(), ms::Precision::Fp64, test_palette());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let it start rendering
        throw std::runtime_error("the main loop failed");
    });
}

TEST(WorkersStop, CompareWorkerStopsWhenItsOwnerUnwinds) {
    unwind([] {
        ms::CompareWorker worker;
        ms::start_compare_worker(worker);
        ms::request_compare(worker, busy_view(), ms::Precision::Fp64, test_palette());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        throw std::runtime_error("the main loop failed");
    });
}

TEST(WorkersStop, IdleCompareWorkerStopsToo) {
    // The hang this guards against: the worker waiting for a request, ~PerfMonitor destroying the
    // condition variable it waits on.
    unwind([] {
        ms::PerfMonitor perf;
        ms::start_perf_monitor(perf, false, true);
        throw std::runtime_error("the first frame failed");
    });
}

TEST(WorkersStop, ExportJobStopsWhenItsOwnerUnwinds) {
    const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                       ("mandelscope-workers-stop-" + std::to_string(::getpid()) + ".png");
    unwind([&] {
        ms::ExportJob job;
        ms::ExportSettings settings;
        settings.path = path;
        settings.width = 1600;
        settings.height = 900;
        settings.supersample = 4;  // 16 samples a pixel: still running after 50 ms on many cores
        ms::start_export_job(job, busy_view(), test_palette(), settings);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        throw std::runtime_error("the main loop failed");
    });
    // Cancelled: no partial file at the target.
    EXPECT_FALSE(std::filesystem::exists(path));
}
