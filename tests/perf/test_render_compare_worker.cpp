// test_render_compare_worker.cpp: Compare's background job (render/perf/compare_worker.h).
// Everywhere: a newer request supersedes the job under way (its status is the newest one's, and
// it finishes); cancel_compare stops it. Without a CUDA device the job ends with the reason
// (it never hangs, never claims a speedup). With one: the CPU and CUDA frames of a real view
// agree and both times are measured. Past FP64 it compares the deep paths (deep_cuda against
// deep_cpu).
#include <gtest/gtest.h>
#include <sched.h>

#include <chrono>
#include <string>
#include <thread>

#include "compute/fractal/view/kfr.h"
#include "compute/fractal/direct/direct.h"
#include "compute/io/assets.h"
#include "compute/fractal/colour/palette.h"
#include "render/perf/compare_worker.h"

namespace {

ms::PaletteTable test_palette() {
    ms::Palette palette;
    palette.name = "test";
    palette.stops = {{0.0, 255, 0, 0}, {0.5, 0, 255, 40}, {1.0, 20, 30, 255}};
    return ms::make_palette_table(palette);
}

ms::View small_view() {
    ms::View view;  // the default full view
    view.width = 160;
    view.height = 90;
    view.max_iterations = 300;
    return view;
}

// Polls until the job `id` has finished (or 60 s passed).
// The worker at an ordinary thread's share: the window's SCHED_IDLE would wait for a free core,
// which ctest's other tests may hold for minutes.
void start_worker(ms::CompareWorker& worker) {
    worker.policy = SCHED_OTHER;
    ms::start_compare_worker(worker);
}

ms::CompareStatus wait_for(ms::CompareWorker& worker, uint64_t id) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    ms::CompareStatus status;
    while (std::chrono::steady_clock::now() < deadline) {
        status = ms::poll_compare(worker);
        if (status.id == id && status.finished) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return status;
}

TEST(CompareWorker, ANewerRequestSupersedesTheJobUnderWay) {
    ms::CompareWorker worker;
    start_worker(worker);
    ms::View big = small_view();
    big.width = 1920;
    big.height = 1080;
    big.max_iterations = 20000;
    const uint64_t first = ms::request_compare(worker, big, ms::Precision::Fp64, test_palette());
    const uint64_t second = ms::request_compare(worker, small_view(), ms::Precision::Auto, test_palette());
    EXPECT_GT(second, first);
    ms::CompareStatus status = wait_for(worker, second);
    EXPECT_EQ(status.id, second);
    EXPECT_TRUE(status.finished);
    EXPECT_FALSE(status.running);
    EXPECT_EQ(status.view.width, 160);
    EXPECT_EQ(status.precision, ms::resolve_precision(small_view(), ms::Precision::Auto));  // resolved
    ms::stop_compare_worker(worker);
}

TEST(CompareWorker, CancelStopsTheJob) {
    ms::CompareWorker worker;
    start_worker(worker);
    ms::View big = small_view();
    big.width = 1920;
    big.height = 1080;
    big.max_iterations = 20000;
    const uint64_t id = ms::request_compare(worker, big, ms::Precision::Fp64, test_palette());
    ms::cancel_compare(worker);
    ms::CompareStatus status = ms::poll_compare(worker);
    EXPECT_FALSE(status.running);
    EXPECT_FALSE(status.finished && status.id == id && status.error.empty() && status.cpu_done)
        << "a cancelled job must not be reported as a finished comparison";
    ms::stop_compare_worker(worker);  // returns promptly: the job was cancelled
}

TEST(CompareWorker, WithoutCudaTheJobEndsWithTheReason) {
    std::string why;
    if (ms::cuda_available(&why)) GTEST_SKIP() << "CUDA is available here; this checks the machines without it";
    ms::CompareWorker worker;
    start_worker(worker);
    const uint64_t id = ms::request_compare(worker, small_view(), ms::Precision::Auto, test_palette());
    ms::CompareStatus status = wait_for(worker, id);
    EXPECT_TRUE(status.finished);
    EXPECT_FALSE(status.cpu_done);
    EXPECT_NE(status.error.find("CUDA failed"), std::string::npos) << status.error;
    ms::stop_compare_worker(worker);
}

TEST(CompareWorker, CudaAndTheCpuAgreeOnARealView) {
    std::string why;
    if (!ms::cuda_available(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    ms::CompareWorker worker;
    start_worker(worker);
    for (ms::Precision precision : {ms::Precision::Fp32, ms::Precision::Fp64}) {
        ms::View view = small_view();
        view.center_re = "-0.7436";  // seahorse valley: boundary everywhere
        view.center_im = "0.1318";
        view.zoom = 40.0;
        view.width = 640;
        view.height = 360;
        view.max_iterations = 1000;
        const uint64_t id = ms::request_compare(worker, view, precision, test_palette());
        ms::CompareStatus status = wait_for(worker, id);
        ASSERT_TRUE(status.finished);
        EXPECT_TRUE(status.error.empty()) << status.error;
        EXPECT_TRUE(status.cuda_done && status.cpu_done);
        EXPECT_TRUE(status.agree) << status.disagreement;
        EXPECT_GE(status.agreement, 0.999);
        EXPECT_GT(status.cpu_ms, 0.0);
        EXPECT_GT(status.cuda_ms, 0.0);
        EXPECT_GT(status.cpu_iterations, 0u);
        EXPECT_GT(status.cuda_iterations, 0u);
        std::printf("%s: cpu %.2f ms, cuda %.3f ms, %.4f%% agree\n", ms::precision_name(precision), status.cpu_ms,
                    status.cuda_ms, 100.0 * status.agreement);
    }
    ms::stop_compare_worker(worker);
}

// Past FP64 the job compares the deep paths: the 1E1000 location (FloatExp deltas) and 1e50
// (double deltas) on deep_cuda against deep_cpu; without CUDA it ends with the reason.
ms::View deep_view(const char* name, int64_t iterations) {
    ms::DeepLocation location;
    EXPECT_EQ(ms::read_kfr((ms::find_data_dir("assets") / "locations" / name).string(), &location), "");
    ms::View view;
    view.center_re = location.center_re;
    view.center_im = location.center_im;
    view.zoom = ms::ViewZoom::from_deep(location.zoom);
    view.width = 96;
    view.height = 54;
    view.max_iterations = iterations;
    return view;
}

TEST(CompareWorker, DeepViewsCompareTheDeepPaths) {
    ms::CompareWorker worker;
    start_worker(worker);
    std::string why;
    const bool cuda = ms::cuda_available(&why);
    for (const ms::View& view : {deep_view("e1000.kfr", 32000), deep_view("e50.kfr", 20000)}) {
        const uint64_t id = ms::request_compare(worker, view, ms::Precision::Auto, test_palette());
        ms::CompareStatus status = wait_for(worker, id);
        ASSERT_TRUE(status.finished);
        EXPECT_TRUE(ms::is_deep(status.precision)) << ms::precision_name(status.precision);
        if (!cuda) {
            EXPECT_NE(status.error.find("CUDA failed"), std::string::npos) << status.error;
            EXPECT_FALSE(status.cpu_done);
            continue;
        }
        EXPECT_TRUE(status.error.empty()) << status.error;
        EXPECT_TRUE(status.cuda_done && status.cpu_done);
        EXPECT_TRUE(status.agree) << status.disagreement;
        EXPECT_EQ(status.cuda_iterations, status.cpu_iterations);  // the same loop, bit for bit
        std::printf("%s: cpu %.2f ms, cuda %.3f ms, %.4f%% agree\n", ms::precision_name(status.precision),
                    status.cpu_ms, status.cuda_ms, 100.0 * status.agreement);
    }
    ms::stop_compare_worker(worker);
}

}  // namespace
