// test_render_nucleus_worker.cpp: the Newton zoom's search thread (render/frame/nucleus_worker.h):
// a job at the period-3 minibrot comes back with its nucleus, without the caller waiting on the
// search; a job cancelled leaves no result; a hover lookup never replaces a zoom the user asked
// for; and a place with no nucleus answers with a sentence.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "render/frame/nucleus_worker.h"

namespace ms {
namespace {

View default_view() {
    View v;
    v.center_re = "-0.5";
    v.center_im = "0";
    v.zoom = 2.370;
    v.width = 320;
    v.height = 180;
    v.max_iterations = 1200;
    return v;
}

// Polls for the result, as the frame loop does, for up to 30 s.
bool wait_result(NucleusWorker& w, NucleusResult* out) {
    for (int i = 0; i < 3000; ++i) {
        if (take_nucleus_result(w, out)) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

TEST(NucleusWorker, FindsThePeriodThreeMinibrot) {
    NucleusWorker w;
    start_nucleus_worker(w);
    NucleusJob job;
    job.target = NewtonTarget::Minibrot;
    job.view = default_view();
    job.pixel = {26.0, 90.0};  // -1.7549, 0 at this view
    EXPECT_NE(request_nucleus(w, job), 0u);
    NucleusResult r;
    ASSERT_TRUE(wait_result(w, &r));
    ASSERT_TRUE(r.minibrot.found) << r.minibrot.failure;
    EXPECT_EQ(r.minibrot.period, 3);
    EXPECT_EQ(r.minibrot.center_re.substr(0, 10), "-1.7548776");
    EXPECT_EQ(r.job.target, NewtonTarget::Minibrot);
    EXPECT_FALSE(nucleus_status(w).busy);

    // The next period beyond 3 there.
    job.target = NewtonTarget::NextPeriod;
    request_nucleus(w, job);
    ASSERT_TRUE(wait_result(w, &r));
    if (r.minibrot.found) {
        EXPECT_GT(r.minibrot.period, 3);
    }
    EXPECT_EQ(r.below_period, 3);
    stop_nucleus_worker(w);
}

TEST(NucleusWorker, CancelLeavesNoResultAndHoverYieldsToAZoom) {
    NucleusWorker w;
    start_nucleus_worker(w);
    NucleusJob zoom;
    zoom.target = NewtonTarget::Minibrot;
    zoom.view = default_view();
    zoom.pixel = {26.0, 90.0};
    request_nucleus(w, zoom);
    NucleusJob hover = zoom;
    hover.target = NewtonTarget::None;
    // Dropped unless the zoom has already finished.
    if (nucleus_status(w).busy) {
        EXPECT_EQ(request_nucleus(w, hover), 0u);
    }
    NucleusResult r;
    ASSERT_TRUE(wait_result(w, &r));
    EXPECT_EQ(r.job.target, NewtonTarget::Minibrot);

    request_nucleus(w, zoom);
    cancel_nucleus(w);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_FALSE(take_nucleus_result(w, &r));
    EXPECT_FALSE(nucleus_status(w).busy);
    stop_nucleus_worker(w);
}

TEST(NucleusWorker, NoNucleusIsASentence) {
    NucleusWorker w;
    start_nucleus_worker(w);
    NucleusJob job;
    job.target = NewtonTarget::Minibrot;
    job.view = default_view();
    job.pixel = {300.0, 20.0};  // 1.4, 0.73: the orbit escapes at once
    request_nucleus(w, job);
    NucleusResult r;
    ASSERT_TRUE(wait_result(w, &r));
    EXPECT_FALSE(r.minibrot.found);
    EXPECT_FALSE(r.minibrot.failure.empty());
    stop_nucleus_worker(w);
}

}  // namespace
}  // namespace ms
