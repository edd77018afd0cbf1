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
    return reasons.progress ? kProgressWaitSeconds : kIdleWaitSeconds;
}

}  // namespace ms
