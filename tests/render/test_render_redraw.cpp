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

// The cadence follows what a frame costs: 30 frames a second where frames are cheap (a GPU's GL),
// no more than a tenth of a core on redraws where they are not (llvmpipe), never slower than 4.
TEST(Redraw, ProgressCadenceFollowsTheFrameCost) {
    RedrawState state{0};
    RedrawReasons progress;
    progress.progress = true;
    progress.frame_s = 0.002;  // 2 ms: a GPU's frame
    EXPECT_DOUBLE_EQ(next_frame_wait_s(state, progress), kProgressMinWaitSeconds);
    EXPECT_GE(1.0 / kProgressMinWaitSeconds, 30.0 - 1e-9);
    progress.frame_s = 0.010;  // 10 ms: a tenth of a core at 10x
    EXPECT_DOUBLE_EQ(next_frame_wait_s(state, progress), 0.1);
    progress.frame_s = 0.035;  // llvmpipe's 35 ms: capped at the longest wait
    EXPECT_DOUBLE_EQ(next_frame_wait_s(state, progress), kProgressWaitSeconds);
    progress.frame_s = 0.0;    // unknown (the first frames)
    EXPECT_DOUBLE_EQ(next_frame_wait_s(state, progress), kProgressWaitSeconds);
    // Never more than a tenth of a core between the bounds.
    for (double frame_s : {0.004, 0.008, 0.02})
        EXPECT_LE(frame_s / (frame_s + progress_wait_s(frame_s)), 1.0 / (1.0 + kProgressCostFactor) + 1e-12);
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
