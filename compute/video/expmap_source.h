// expmap_source.h: the exponential map (expmap.h) as a video frame source (frame_source.h):
// --method=expmap, and --method=auto's choice for straight dives.
#pragma once

#include <memory>
#include <string>

#include "compute/video/frame_source.h"

namespace ms {

// Null with *problem set to one sentence where the plan is not a straight dive the expmap can
// colour (expmap_plan_problem). With settings.cuda the strips render and the frames are
// reconstructed on the GPU (expmap.h's ExpmapOptions::cuda); else everything runs on the CPU.
std::unique_ptr<VideoFrameSource> make_expmap_frame_source(const FrameSourceSettings& settings, std::string* problem);

// --method=auto: whether the expmap serves the plan (a straight dive it can colour, with at
// least kExpmapAutoMinRatio times fewer samples than direct frames).
inline constexpr double kExpmapAutoMinRatio = 2.0;
bool expmap_suits(const FrameSourceSettings& settings);

}  // namespace ms
