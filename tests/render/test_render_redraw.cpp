// test_render_redraw.cpp: when the explorer draws its next frame (render/redraw.h): at once
// after an event (for a few settling frames) or while redrawing continuously, after a short
// wait while work shows progress, and otherwise only on the next event or after a long sleep.
#include <gtest/gtest.h>

#include "render/platform/redraw.h"

namespace ms {
namespace {

TEST(Redraw, IdleWindowSleepsOnceSettled) {
    RedrawState state;
    RedrawReasons idle;
    for (int i = 0; i < kSettleFrames; ++i) EXPECT_EQ(next_frame_wait_s(state, idle), 0.0) << "startup frame " << i;
    EXPECT_EQ(next_frame_wait_s(state, idle), kIdleWaitSeconds);
    EXPECT_EQ(next_frame_wait_s(state, idle), kIdleWaitSeconds);
    EXPECT_GE(kIdleWaitSeconds, 1.0);
}

TEST(Redraw, AnEventDrawsAFewFramesAtOnce) {
    RedrawState state{0};
    RedrawReasons event;
    event.events = true;
    EXPECT_EQ(next_frame_wait_s(state, event), 0.0);
    RedrawReasons idle;
    for (int i = 1; i < kSettleFrames; ++i) EXPECT_EQ(next_frame_wait_s(state, idle), 0.0) << "settling frame " << i;
    EXPECT_EQ(next_frame_wait_s(state, idle), kIdleWaitSeconds);
}

TEST(Redraw, ProgressRedrawsAfterAShortWait) {
    RedrawState state{0};
    RedrawReasons progress;
    progress.progress = true;
    EXPECT_EQ(next_frame_wait_s(state, progress), kProgressWaitSeconds);
    EXPECT_GT(kProgressWaitSeconds, 0.0);
    EXPECT_LE(kProgressWaitSeconds, 0.25);  // progress bars and rows still move several times a second
}

// The cadence follows what a frame costs: 40 frames a second where frames are cheap (a GPU's GL),
// no more than about a tenth of a core on redraws where they are not (llvmpipe), never slower
// than 4. The wait is the interval less the frame's own wall time, so the frames come at that
// interval (a wait added after the frame would stretch it).
TEST(Redraw, ProgressCadenceFollowsTheFrameCost) {
    RedrawState state{0};
    RedrawReasons progress;
    progress.progress = true;
    progress.frame_s = 0.002;  // 2 ms of work: a GPU's frame, whose swap waited 5 ms more
    progress.frame_wall_s = 0.007;
    EXPECT_DOUBLE_EQ(next_frame_wait_s(state, progress), kProgressMinWaitSeconds - 0.007);
    EXPECT_GE(1.0 / (progress.frame_wall_s + next_frame_wait_s(state, progress)), 40.0 - 1e-9);
    progress.frame_s = progress.frame_wall_s = 0.010;  // 10 ms: a tenth of a core over 110 ms
    EXPECT_DOUBLE_EQ(next_frame_wait_s(state, progress), 0.1);
    progress.frame_s = progress.frame_wall_s = 0.035;  // llvmpipe's 35 ms: capped at the longest interval
    EXPECT_DOUBLE_EQ(next_frame_wait_s(state, progress), kProgressWaitSeconds - 0.035);
    progress.frame_s = 0.0;  // unknown (the first frames)
    progress.frame_wall_s = 0.0;
    EXPECT_DOUBLE_EQ(next_frame_wait_s(state, progress), kProgressWaitSeconds);
    progress.frame_s = progress.frame_wall_s = 0.3;  // a frame longer than the longest interval: no wait
    EXPECT_DOUBLE_EQ(next_frame_wait_s(state, progress), 0.0);
    // Never more than a tenth of a core between the bounds, and at least 4 frames a second.
    for (double frame_s : {0.004, 0.008, 0.02}) {
        EXPECT_LE(frame_s / progress_interval_s(frame_s), 1.0 / (1.0 + kProgressCostFactor) + 1e-12);
        EXPECT_LE(progress_interval_s(frame_s), kProgressWaitSeconds);
    }
}

TEST(Redraw, ContinuousNeverWaits) {
    RedrawState state{0};
    RedrawReasons continuous;
    continuous.continuous = true;
    continuous.progress = true;
    for (int i = 0; i < 10; ++i) EXPECT_EQ(next_frame_wait_s(state, continuous), 0.0);
}

}  // namespace
}  // namespace ms
