// view_flight.h: a view that flies from one place to another over a second or two (the Newton
// zoom's animation: render/frame/nucleus_worker.h finds the place, the explorer flies there).
//
// The flight is time-based: view_flight_at(now) gives the view at that moment, so a slow frame
// shows a later view, never a slower flight. The zoom moves linearly in log(zoom) (each frame
// magnifies by the same ratio, as a steady continuous zoom does), eased in and out. The target
// point (the destination's centre) starts where it was on screen and glides to the middle of
// the window while the picture zooms, so the path looks like flying at it: the centre is
//     target + (middle - p(s)) * spacing(zoom(s)),   p(s) = p0 + (middle - p0) * s
// in pixels, computed at any depth with compute/fractal/view/deep_navigation.h (exact decimal
// text; the destination's digits are all kept). At the end the view is the destination, exactly.
#pragma once

#include <glm/vec2.hpp>

#include "compute/fractal/view/deep_location.h"
#include "compute/fractal/view/view.h"

namespace ms {

struct ViewFlight {
    bool active = false;
    View from;                         // where it started
    View to;                           // where it lands
    glm::dvec2 start_pixel{0.0, 0.0};  // where `to`'s centre was in `from`, in from's pixels
    double start_s = 0.0;              // clock of the start (seconds, any clock)
    double duration_s = 0.0;
};

// Starts a flight from `from` to `to` (same size; `to` keeps its own colours and iterations).
ViewFlight start_view_flight(const View& from, const View& to, double now_s, double duration_s);
// The view at `now_s`; *arrived is true from the end on (the view is then `to`).
View view_flight_at(const ViewFlight& flight, double now_s, bool* arrived);

// log10(zoom) as a double, and back (the zoom's mantissa to ~1e-12 relative up to 1E60000).
double deep_zoom_log10(DeepZoom zoom);
DeepZoom deep_zoom_from_log10(double log10_zoom);

}  // namespace ms
