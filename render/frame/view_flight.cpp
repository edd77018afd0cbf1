// view_flight.cpp: the Newton zoom's flight between two views (see view_flight.h).
#include "render/frame/view_flight.h"

#include <algorithm>
#include <cmath>

#include <glm/common.hpp>

#include "compute/fractal/view/deep_navigation.h"

namespace ms {

double deep_zoom_log10(DeepZoom zoom) { return double(zoom.exponent10) + std::log10(zoom.mantissa); }

DeepZoom deep_zoom_from_log10(double log10_zoom) {
    const double exponent = std::floor(log10_zoom);
    DeepZoom zoom{std::pow(10.0, log10_zoom - exponent), int64_t(exponent)};
    if (zoom.mantissa >= 10.0) zoom = {zoom.mantissa / 10.0, zoom.exponent10 + 1};
    if (zoom.mantissa < 1.0) zoom = {1.0, zoom.exponent10};
    return zoom;
}

ViewFlight start_view_flight(const View& from, const View& to, double now_s, double duration_s) {
    ViewFlight flight;
    flight.active = true;
    flight.from = from;
    flight.to = to;
    flight.to.width = from.width;
    flight.to.height = from.height;
    flight.start_s = now_s;
    flight.duration_s = std::max(duration_s, 0.0);
    // Where the destination's centre is on the starting screen (beyond double's range: far off
    // screen, clamped; the flight then comes from that side).
    const DeepZoom zoom = from.zoom.deep();
    const glm::dvec2 middle{0.5 * from.width, 0.5 * from.height};
    glm::dvec2 offset{deep_decimal_difference_pixels(to.center_re, from.center_re, zoom, from.height),
                      -deep_decimal_difference_pixels(to.center_im, from.center_im, zoom, from.height)};
    const double far = 1e6 * std::max(from.width, from.height);
    offset = glm::clamp(offset, glm::dvec2(-far), glm::dvec2(far));
    flight.start_pixel = middle + offset;
    return flight;
}

View view_flight_at(const ViewFlight& flight, double now_s, bool* arrived) {
    const double t = flight.duration_s > 0.0 ? (now_s - flight.start_s) / flight.duration_s : 1.0;
    *arrived = t >= 1.0;
    if (*arrived) return flight.to;
    const double u = std::clamp(t, 0.0, 1.0);
    const double s = u * u * (3.0 - 2.0 * u);  // smoothstep: eased in and out
    const double from_log = deep_zoom_log10(flight.from.zoom.deep()), to_log = deep_zoom_log10(flight.to.zoom.deep());
    const DeepZoom zoom = deep_zoom_from_log10(from_log + (to_log - from_log) * s);
    View view = flight.from;
    view.zoom = zoom.exponent10 < 300 && zoom.exponent10 > -300
                    ? ViewZoom(zoom.mantissa * std::pow(10.0, double(zoom.exponent10)))
                    : ViewZoom::from_deep(zoom);
    const glm::dvec2 middle{0.5 * view.width, 0.5 * view.height};
    const glm::dvec2 target_pixel = flight.start_pixel + (middle - flight.start_pixel) * s;
    const glm::dvec2 pixels = middle - target_pixel;  // from the target to the centre, y down
    const DeepZoom at = view.zoom.deep();
    const int64_t digits = std::max(deep_center_fraction_digits(at, view.height),
                                    deep_center_fraction_digits(flight.from.zoom.deep(), view.height));
    view.center_re = deep_offset_decimal(flight.to.center_re, pixels.x, at, view.height, digits);
    view.center_im = deep_offset_decimal(flight.to.center_im, -pixels.y, at, view.height, digits);
    return view;
}

}  // namespace ms
