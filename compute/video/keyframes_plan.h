// keyframes_plan.h: a keyframed video's frames, one View each, along flight paths
// (flight_path.h) from keyframe to keyframe. The video pipeline renders the plan's views as it
// renders a straight dive's; the window's Video panel scrubs along the same plan.
//
// Frames: n = round(fps * (t_last - t_first)) frames (at least 2), frame k at time
//     t_k = t_first + (t_last - t_first) * k / (n - 1),
// so that frame 0 is the first keyframe and frame n - 1 the last, exactly, as in a straight dive
// (frame k of n at zoom Z^(k / (n - 1))). Within the segment [t_i, t_i+1] that holds t, the time
// share f = (t - t_i) / (t_i+1 - t_i) is the share of the path's length (constant speed in van
// Wijk and Nuij's metric). Along it:
//   - centre and zoom follow the flight path;
//   - iterations interpolate log-linearly, rounded (monotone from one keyframe's to the next's);
//   - the palette offset interpolates linearly.
// Everything else (size, formula, palette, colouring, Julia parameter) is the base view's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/fractal/view/view.h"
#include "compute/video/flight_path.h"
#include "compute/video/keyframes.h"

namespace ms {

inline constexpr double kKeyframesMaxFps = 240.0;

struct KeyframePlan {
    View base;                         // size, formula, colouring... of every frame
    std::vector<Keyframe> keyframes;   // validated
    std::vector<FlightPath> segments;  // keyframes.size() - 1
    double fps = 30.0;
    int64_t frame_count = 0;
};

// "" or one sentence (bad keyframes, fps outside (0, 240], a path shorter than two frames).
std::string make_keyframe_plan(const std::vector<Keyframe>& keyframes, const View& base, double fps, double rho,
                               KeyframePlan* out);

// The plan's duration in seconds, and frame k's time.
double keyframe_plan_seconds(const KeyframePlan& plan);
double keyframe_plan_frame_time(const KeyframePlan& plan, int64_t frame);
// The view at `time_s` (clamped to the keyframes' span): frame views and the panel's scrubbing.
View keyframe_plan_view_at(const KeyframePlan& plan, double time_s);
// Frame k's view (k in [0, frame_count)).
View keyframe_plan_frame(const KeyframePlan& plan, int64_t frame);
// Every frame's view, in order.
std::vector<View> keyframe_plan_frames(const KeyframePlan& plan);

// Keyframe times in proportion to the flight paths' lengths over `seconds` in all (the first
// keyframe at 0): an even pace along the whole path. A segment shorter than 1/100 of the whole
// path counts as 1/100 of it, so that times stay strictly increasing (one camera twice: a pause).
std::string keyframe_times_by_length(std::vector<Keyframe>* keyframes, const View& base, double seconds, double rho);

}  // namespace ms
