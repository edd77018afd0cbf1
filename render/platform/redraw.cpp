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
    return reasons.progress ? progress_wait_s(reasons.frame_s, reasons.frame_wall_s) : kIdleWaitSeconds;
}

double progress_interval_s(double frame_s) {
    if (!(frame_s > 0.0)) return kProgressWaitSeconds;  // unknown: the cautious cadence
    const double interval = (1.0 + kProgressCostFactor) * frame_s;
    return interval < kProgressMinWaitSeconds ? kProgressMinWaitSeconds
           : interval > kProgressWaitSeconds  ? kProgressWaitSeconds
                                              : interval;
}

double progress_wait_s(double frame_s, double frame_wall_s) {
    const double wait = progress_interval_s(frame_s) - (frame_wall_s > 0.0 ? frame_wall_s : 0.0);
    return wait > 0.0 ? wait : 0.0;
}

}  // namespace ms
