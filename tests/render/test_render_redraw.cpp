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

TEST(Redraw, ContinuousNeverWaits) {
    RedrawState state{0};
    RedrawReasons continuous;
    continuous.continuous = true;
    continuous.progress = true;
    for (int i = 0; i < 10; ++i) EXPECT_EQ(next_frame_wait_s(state, continuous), 0.0);
}

}  // namespace
}  // namespace ms
