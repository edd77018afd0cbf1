// redraw.cpp: when the explorer's main loop draws its next frame (see redraw.h).
#include "render/platform/redraw.h"

namespace ms {

double next_frame_wait_s(RedrawState& state, const RedrawReasons& reasons) {
    if (reasons.events) state.settle_frames = kSettleFrames;
    if (reasons.continuous) return 0.0;
    if (state.settle_frames > 0) {
        --state.settle_frames;
        return 0.0;
    }
    return reasons.progress ? progress_wait_s(reasons.frame_s) : kIdleWaitSeconds;
}

double progress_wait_s(double frame_s) {
    if (!(frame_s > 0.0)) return kProgressWaitSeconds;  // unknown: the cautious cadence
    const double wait = kProgressCostFactor * frame_s;
    return wait < kProgressMinWaitSeconds ? kProgressMinWaitSeconds : wait > kProgressWaitSeconds ? kProgressWaitSeconds : wait;
}

}  // namespace ms
