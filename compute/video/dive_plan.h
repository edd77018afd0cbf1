// dive_plan.h: a straight dive as a plan, one View per frame.
//
// Frame k of n (k = 0 .. n-1) is centred on the target and its zoom is
//     zoom_k = from * (Z / from)^(k / (n-1))
// so frame 0 is at `from` (1 unless --from-zoom) and frame n-1 is exactly the target's view.
// The interpolation runs in log10 of the zoom (DeepZoom's mantissa and decimal exponent), so a
// dive to 1e1086 or 1e60000 plans as exactly as one to 1e5: the last frame takes the target's
// zoom itself, not a power's rounding of it. Every other field (iterations, formula, Julia c,
// colouring, palette, offset, density, size) is the target's in every frame: a straight dive
// changes the zoom alone, so its colours do not flicker and its iterations do not jump.
//
// The length is fps x seconds frames, or, with seconds_per_doubling, that many seconds for
// each halving of the frame's width: seconds = log2(Z / from) x seconds_per_doubling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compute/fractal/view/view.h"

namespace ms {

inline constexpr int kVideoMaxFps = 240;
// A plan's frames are kept in memory (a View each); this bounds the length to about 2.3 days at
// 60 frames a second.
inline constexpr int64_t kVideoMaxFrames = 12000000;

struct DiveSettings {
    View target;                   // the last frame: centre, zoom, iterations, colouring, size
    ViewZoom from_zoom = 1.0;      // frame 0's zoom (below the target's)
    int fps = 30;                  // frames a second, 1 .. kVideoMaxFps
    double seconds = 0.0;          // the video's length; 0: from seconds_per_doubling
    double seconds_per_doubling = 0.0;  // > 0 (and seconds 0): seconds for each doubling of the zoom
};

// "" or one sentence: fps, lengths, the zooms' order, the target view (validate_view).
std::string check_dive(const DiveSettings& settings);
// n = round(fps x seconds), at least 2 (a dive has a first and a last frame).
int64_t dive_frame_count(const DiveSettings& settings);
// The zoom a fraction t in [0, 1] of the way from `from` to `to`, in log zoom (t = 0 and t = 1
// give `from` and `to` exactly).
ViewZoom dive_zoom(const ViewZoom& from, const ViewZoom& to, double t);
// The plan: dive_frame_count views (check_dive first).
std::vector<View> plan_dive(const DiveSettings& settings);

}  // namespace ms
