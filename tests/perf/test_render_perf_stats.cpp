// test_render_perf_stats.cpp: the performance panels' bookkeeping (render/perf/perf_stats.h): the ring
// keeps the newest values in order, min/median/p95 are the textbook ones and skip frames where a
// stage did not run, the timeline files each frame's stages where the plot and tables read them,
// and the device panel's filter finds attributes by words.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "render/perf/perf_stats.h"

namespace {

TEST(SampleRing, KeepsTheNewestValuesOldestFirst) {
    ms::SampleRing ring;
    ring.capacity = 4;
    for (int i = 1; i <= 3; ++i) ms::ring_push(ring, i);
    EXPECT_EQ(ms::ring_values(ring), (std::vector<double>{1, 2, 3}));
    for (int i = 4; i <= 6; ++i) ms::ring_push(ring, i);
    EXPECT_EQ(ms::ring_size(ring), 4);
    EXPECT_EQ(ms::ring_values(ring), (std::vector<double>{3, 4, 5, 6}));
    EXPECT_EQ(ms::ring_latest(ring), 6.0);
    // The latest value that is a sample: NaN marks a frame where the stage did not run.
    ms::ring_push(ring, ms::kNoSample);
    EXPECT_EQ(ms::ring_latest(ring), 6.0);
    ms::SampleRing empty;
    EXPECT_TRUE(std::isnan(ms::ring_latest(empty)));
}

TEST(SampleStats, MinMedianP95OverOneHundredValues) {
    // 1..100 shuffled by a fixed stride: p95 by nearest rank is the 95th smallest, 95.
    ms::SampleRing ring;
    ring.capacity = 100;
    for (int i = 0; i < 100; ++i) ms::ring_push(ring, double((i * 37) % 100 + 1));
    ms::SampleStats s = ms::sample_stats(ring);
    EXPECT_EQ(s.count, 100);
    EXPECT_EQ(s.min, 1.0);
    EXPECT_EQ(s.median, 50.5);  // even count: the mean of the 50th and 51st
    EXPECT_EQ(s.p95, 95.0);
    EXPECT_EQ(s.max, 100.0);
}

TEST(SampleStats, OddCountsSmallCountsAndGaps) {
    ms::SampleStats s = ms::sample_stats(std::vector<double>{5.0, ms::kNoSample, 1.0, 3.0, ms::kNoSample});
    EXPECT_EQ(s.count, 3);
    EXPECT_EQ(s.min, 1.0);
    EXPECT_EQ(s.median, 3.0);
    EXPECT_EQ(s.p95, 5.0);  // ceil(0.95 * 3) = 3rd smallest
    ms::SampleStats one = ms::sample_stats(std::vector<double>{2.5});
    EXPECT_EQ(one.median, 2.5);
    EXPECT_EQ(one.p95, 2.5);
    ms::SampleStats none = ms::sample_stats(std::vector<double>{ms::kNoSample});
    EXPECT_EQ(none.count, 0);
    EXPECT_TRUE(std::isnan(none.median));
    // 20 values: nearest rank 19 -> the 19th smallest, not the maximum.
    std::vector<double> twenty(20);
    std::iota(twenty.begin(), twenty.end(), 1.0);
    EXPECT_EQ(ms::sample_stats(twenty).p95, 19.0);
}

TEST(SampleStats, AWrappedRingCountsOnlyWhatItHolds) {
    ms::SampleRing ring;
    ring.capacity = 10;
    for (int i = 0; i < 1000; ++i) ms::ring_push(ring, i < 990 ? 1000.0 : double(i - 989));  // ends with 1..10
    ms::SampleStats s = ms::sample_stats(ring);
    EXPECT_EQ(s.count, 10);
    EXPECT_EQ(s.min, 1.0);
    EXPECT_EQ(s.max, 10.0);
    EXPECT_EQ(s.median, 5.5);
    EXPECT_EQ(s.p95, 10.0);
}

TEST(FrameTimeline, RenderedFramesFeedTheirOwnRingsAndThroughput) {
    ms::FrameTimeline t;
    ms::init_frame_timeline(t, 8, 4, 2);
    ms::FrameSample idle;  // no new picture: only UI and present
    idle.stage_ms[size_t(ms::FrameStage::Ui)] = 0.5;
    idle.stage_ms[size_t(ms::FrameStage::Present)] = 16.0;
    ms::FrameSample cuda = idle;
    cuda.rendered = true;
    cuda.cuda = true;
    cuda.stage_ms[size_t(ms::FrameStage::Compute)] = 2.0;
    cuda.stage_ms[size_t(ms::FrameStage::Interop)] = 0.1;
    cuda.host_launch_ms = 0.02;
    cuda.iterations = 4'000'000'000;  // in 2 ms: 2e12 iterations/s
    ms::FrameSample cpu = idle;
    cpu.rendered = true;
    cpu.stage_ms[size_t(ms::FrameStage::Compute)] = 500.0;
    cpu.iterations = 5'000'000'000;  // in 0.5 s: 1e10 iterations/s
    ms::record_ui_frame(t, idle, 16.6);
    ms::record_ui_frame(t, cuda, 16.7);
    ms::record_ui_frame(t, idle, 16.6);
    ms::record_ui_frame(t, cpu, 17.0);
    EXPECT_EQ(t.ui_frames, 4u);
    EXPECT_EQ(t.rendered_frames, 2u);
    // The per-UI-frame compute ring has gaps where nothing rendered.
    std::vector<double> compute = ms::ring_values(t.stages[size_t(ms::FrameStage::Compute)]);
    ASSERT_EQ(compute.size(), 4u);
    EXPECT_TRUE(std::isnan(compute[0]));
    EXPECT_EQ(compute[1], 2.0);
    EXPECT_EQ(compute[3], 500.0);
    EXPECT_EQ(ms::ring_values(t.compute_ms), (std::vector<double>{2.0, 500.0}));
    // The unsynchronised host timer exists for CUDA frames only.
    EXPECT_EQ(ms::sample_stats(t.host_launch_ms).count, 1);
    EXPECT_EQ(ms::ring_latest(t.cuda_iterations_per_second), 2e12);
    EXPECT_EQ(ms::ring_latest(t.cpu_iterations_per_second), 1e10);
    EXPECT_EQ(ms::sample_stats(t.stages[size_t(ms::FrameStage::Present)]).median, 16.0);
    // Compare's renders count towards throughput only.
    ms::record_throughput(t, false, 3'000'000'000, 0, 100.0);
    EXPECT_EQ(ms::ring_latest(t.cpu_iterations_per_second), 3e10);
    EXPECT_EQ(t.rendered_frames, 2u);
    ms::record_throughput(t, true, 0, 0, 1.0);  // nothing counted: not a measurement
    EXPECT_EQ(ms::ring_size(t.cuda_iterations_per_second), 1);
}

TEST(FrameTimeline, SummaryHoldsTheTablesFigures) {
    ms::FrameTimeline t;
    ms::init_frame_timeline(t, 10, 10, 4);
    for (int i = 1; i <= 5; ++i) {
        ms::FrameSample s;
        s.stage_ms[size_t(ms::FrameStage::Ui)] = 0.1 * i;
        s.stage_ms[size_t(ms::FrameStage::Present)] = 16.0;
        s.panel_ms = 0.05;
        if (i % 2) {  // frames 1, 3, 5 render on CUDA in i ms, 1e9 iterations each
            s.rendered = s.cuda = true;
            s.stage_ms[size_t(ms::FrameStage::Compute)] = double(i);
            s.host_launch_ms = 0.01;
            s.iterations = 1'000'000'000;
        }
        ms::record_ui_frame(t, s, 16.5);
    }
    ms::TimelineSummary sum = ms::summarize_timeline(t);
    EXPECT_EQ(sum.compute_ms.count, 3);
    EXPECT_EQ(sum.compute_ms.median, 3.0);
    EXPECT_EQ(sum.latest_compute_ms, 5.0);
    EXPECT_NEAR(sum.ui_ms.median, 0.3, 1e-12);
    EXPECT_NEAR(sum.latest_ui_ms, 0.5, 1e-12);
    EXPECT_EQ(sum.present_ms.p95, 16.0);
    EXPECT_EQ(sum.host_launch_ms.count, 3);
    EXPECT_EQ(sum.panel_ms.median, 0.05);
    EXPECT_EQ(sum.interop_ms.count, 0);                            // no map+unmap recorded: the copy or CPU path
    EXPECT_DOUBLE_EQ(sum.cuda_iterations_per_second, 1e9 / 3e-3);  // the median of 1e12, 3.3e11, 2e11
    EXPECT_TRUE(std::isnan(sum.cpu_iterations_per_second));
}

// The defect this guards against: at depth the panel would read "CPU: 3.54e+11 it/s = 468% of
// its limit", counting the iterations BLA skipped as if they had been stepped. A deep frame's
// percentage divides its perturbation steps (iterations - BLA's), and the skipped share and the
// effective rate are figures of their own.
TEST(Throughput, ADeepFramesPercentCountsTheStepsItRan) {
    ms::FrameTimeline t;
    ms::init_frame_timeline(t, 8, 8, 4);
    ms::FrameSample deep;
    deep.rendered = true;  // a deep-cpu frame: 1e9 iterations in 100 ms, 94% of them BLA's
    deep.stage_ms[size_t(ms::FrameStage::Compute)] = 100.0;
    deep.iterations = 1'000'000'000;
    deep.skipped_iterations = 940'000'000;
    ms::record_ui_frame(t, deep, 100.0);
    const ms::TimelineSummary sum = ms::summarize_timeline(t);
    EXPECT_DOUBLE_EQ(sum.cpu_iterations_per_second, 1e10);
    EXPECT_DOUBLE_EQ(sum.cpu_steps_per_second, 6e8);  // 60 million steps in 0.1 s
    EXPECT_NEAR(sum.cpu_skipped_fraction, 0.94, 1e-12);
    EXPECT_TRUE(std::isnan(sum.cuda_steps_per_second));

    ms::IterationLimit limit;
    limit.iterations_per_second = 2e9;
    const ms::ThroughputFigures f = ms::throughput_figures(sum.cpu_steps_per_second, sum.cpu_iterations_per_second,
                                                           sum.cpu_skipped_fraction, limit);
    EXPECT_DOUBLE_EQ(f.percent_of_limit, 30.0);  // 6e8 of 2e9, not the 500% of 1e10
    EXPECT_DOUBLE_EQ(f.effective_per_second, 1e10);
    EXPECT_NEAR(f.skipped_fraction, 0.94, 1e-12);

    // A direct frame skips nothing: its steps are its iterations.
    ms::record_throughput(t, true, 4'000'000'000, 0, 2.0);
    const ms::TimelineSummary direct = ms::summarize_timeline(t);
    EXPECT_DOUBLE_EQ(direct.cuda_steps_per_second, 2e12);
    EXPECT_DOUBLE_EQ(direct.cuda_iterations_per_second, 2e12);
    EXPECT_EQ(direct.cuda_skipped_fraction, 0.0);
    // An unknown limit gives no percentage; more skipped than run is clamped to all skipped.
    EXPECT_EQ(ms::throughput_figures(6e8, 1e10, 0.94, ms::IterationLimit{}).percent_of_limit, 0.0);
    ms::record_throughput(t, true, 10, 20, 1.0);
    EXPECT_EQ(ms::ring_latest(t.cuda_steps_per_second), 0.0);
}

TEST(IterationsPerSecond, IsIterationsOverSeconds) {
    EXPECT_DOUBLE_EQ(ms::iterations_per_second(1'000'000, 1.0), 1e9);
    EXPECT_TRUE(std::isnan(ms::iterations_per_second(0, 1.0)));
    EXPECT_TRUE(std::isnan(ms::iterations_per_second(10, 0.0)));
}

TEST(FilterAttributes, EveryWordCaseInsensitively) {
    std::vector<std::pair<std::string, int>> attributes = {{"MAX_THREADS_PER_BLOCK", 1024},
                                                           {"CLOCK_RATE", 1980000},
                                                           {"MEMORY_CLOCK_RATE", 2619000},
                                                           {"L2_CACHE_SIZE", 52428800},
                                                           {"MULTIPROCESSOR_COUNT", 132}};
    EXPECT_EQ(ms::filter_attributes(attributes, ""), (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_EQ(ms::filter_attributes(attributes, "clock"), (std::vector<int>{1, 2}));
    EXPECT_EQ(ms::filter_attributes(attributes, "  Memory   clock "), (std::vector<int>{2}));
    EXPECT_EQ(ms::filter_attributes(attributes, "l2_cache"), (std::vector<int>{3}));
    EXPECT_TRUE(ms::filter_attributes(attributes, "texture").empty());
}

TEST(FrameMarks, UiIsTheImGuiFrameWithoutTheRenderingPlusItsDrawCalls) {
    ms::FrameMarks m;
    m.frame_start = 10.000;
    m.render_start = 10.001;
    m.render_end = 10.004;  // 3 ms of compute, map and upload inside the ImGui frame
    m.ui_built = 10.0055;   // 5.5 ms from NewFrame to Render
    m.draw_data_start = 10.006;
    m.draw_data_end = 10.0065;  // 0.5 ms of ImGui draw calls
    m.swap_start = 10.007;
    m.swap_end = 10.0166;
    EXPECT_NEAR(ms::ui_stage_ms(m), 3.0, 1e-9);
    EXPECT_NEAR(ms::present_stage_ms(m), 9.6, 1e-9);
}

TEST(Compare, SummaryLineAndSpeedup) {
    ms::CompareRecord r;
    r.cpu_ms = 812.3;
    r.cuda_ms = 1.2;
    r.agreement = 1.0;
    r.agree = true;
    EXPECT_NEAR(ms::compare_speedup(r), 676.9166, 1e-3);
    EXPECT_EQ(ms::compare_summary(r), "cpu 812.3 ms, cuda 1.20 ms, speedup 677x, agree 100.00%");
    r.cpu_ms = 30.0;
    r.cuda_ms = 12.5;
    r.agreement = 0.971;
    r.agree = false;
    EXPECT_EQ(ms::compare_summary(r), "cpu 30.0 ms, cuda 12.5 ms, speedup 2.4x, DISAGREE 97.10%");
    r.cuda_ms = 0.0;
    EXPECT_TRUE(std::isnan(ms::compare_speedup(r)));
}

TEST(Compare, SameComputationIgnoresColoursOnly) {
    ms::View a;
    ms::View b = a;
    b.palette = "fire";
    b.palette_offset = 0.5;
    b.palette_density = 3.0;
    EXPECT_TRUE(ms::same_computation(a, b));
    b.max_iterations += 1;
    EXPECT_FALSE(ms::same_computation(a, b));
    b = a;
    b.width += 1;
    EXPECT_FALSE(ms::same_computation(a, b));
    b = a;
    b.center_re = "-0.50000000000000000001";
    EXPECT_FALSE(ms::same_computation(a, b));
}

}  // namespace
