// view_math.cpp: navigation maths and the decimal centre arithmetic (see view_math.h).
#include "render/frame/view_math.h"

#include "compute/fractal/view/deep_navigation.h"
#include "compute/fractal/view/formula.h"
#include "compute/system/number_text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <glm/common.hpp>
#include <glm/geometric.hpp>

namespace ms {

// ---------------------------------------------------------------------------------------
// Decimal text arithmetic (compute/number_text.h: the one decimal grammar of every mode). Only
// addition is needed: the centre moves by offsets computed in double, which are small next to
// the centre's own digits, and the sum must keep every digit of both.

namespace {

DecimalNumber parse_decimal_or_throw(const std::string& text) {
    DecimalNumber d;
    if (std::string problem = parse_decimal(text, &d); !problem.empty()) throw std::invalid_argument(problem);
    return d;
}

}  // namespace

DeepZoom view_zoom(const View& view) {
    // A zoom validate_view would refuse (0, negative, inf, NaN) still converts to something
    // finite: the navigation maths must not feed an infinity to an integer conversion.
    if (view.zoom.is_valid()) return view.zoom.deep();
    return view.zoom.value() > 0.0 ? DeepZoom{1.0, kDeepZoomMaxExponent10} : DeepZoom{1.0, kDeepZoomMinExponent10};
}

std::string add_to_decimal(const std::string& text, double delta, int fraction_digits) {
    if (!std::isfinite(delta)) throw std::invalid_argument("the centre cannot move by a non-finite amount");
    fraction_digits = std::clamp(fraction_digits, 0, 1000);
    // glibc prints the exact binary value correctly rounded, so this is delta rounded to
    // fraction_digits decimals, not an approximation of one.
    char delta_text[1400];  // %.1000f of a |delta| < 1e300... fits; larger deltas are absurd
    if (std::fabs(delta) >= 1e300) throw std::invalid_argument("the centre cannot move that far");
    std::snprintf(delta_text, sizeof delta_text, "%.*f", fraction_digits, delta);
    return format_decimal(add_decimals(parse_decimal_or_throw(text), parse_decimal_or_throw(delta_text)));
}

int center_fraction_digits(const View& view) { return int(deep_center_fraction_digits(view_zoom(view), view.height)); }

// ---------------------------------------------------------------------------------------
// Geometry (compute/fractal/view/view.h: c = centre + ((px - W/2) * step, -(py - H/2) * step)).
//
// The gestures move the centre by some pixels: deep_offset_decimal (compute/fractal/deep/
// deep_navigation.h) turns pixels into a decimal offset in MPFR from the zoom's decimal
// exponent, so a drag at zoom 1e500 moves the view by exactly the dragged pixels although a
// pixel's spacing is far below a double's resolution (and below its range past 1e308).

glm::dvec2 pixel_to_plane_offset(const View& view, glm::dvec2 pixel) {
    double step = pixel_step(view);
    return {(pixel.x - 0.5 * view.width) * step, -(pixel.y - 0.5 * view.height) * step};
}

glm::dvec2 plane_offset_to_pixel(const View& view, glm::dvec2 offset) {
    double step = pixel_step(view);
    return {offset.x / step + 0.5 * view.width, -offset.y / step + 0.5 * view.height};
}

View move_center(const View& view, glm::dvec2 offset) {
    View moved = view;
    int digits = center_fraction_digits(view);
    moved.center_re = add_to_decimal(view.center_re, offset.x, digits);
    moved.center_im = add_to_decimal(view.center_im, offset.y, digits);
    return moved;
}

View move_center_by_pixels(const View& view, glm::dvec2 pixels, int fraction_digits) {
    if (fraction_digits < 0) fraction_digits = center_fraction_digits(view);
    View moved = view;
    const DeepZoom zoom = view_zoom(view);
    moved.center_re = deep_offset_decimal(view.center_re, pixels.x, zoom, view.height, fraction_digits);
    moved.center_im = deep_offset_decimal(view.center_im, -pixels.y, zoom, view.height, fraction_digits);
    return moved;
}

View pan_view(const View& view, glm::dvec2 grab_pixel, glm::dvec2 cursor_pixel) {
    return move_center_by_pixels(view, grab_pixel - cursor_pixel);
}

View zoom_view_about(const View& view, glm::dvec2 pixel, double factor) {
    if (!(factor > 0.0) || !std::isfinite(factor)) return view;
    // Shallow zooms stay doubles (exactly as before); past kMaxDoubleZoom the zoom scales in
    // extended range, up to DeepLocation's limit.
    ViewZoom zoom;
    if (view.zoom.fits_double() && view.zoom.value() * factor <= kMaxDoubleZoom) {
        zoom = std::max(view.zoom.value() * factor, kMinZoom);
    } else {
        DeepZoom deep = deep_zoom_scaled(view.zoom.deep(), factor);
        const DeepZoom deepest{1.0, kDeepZoomMaxExponent10};
        if (deep_zoom_compare(deep, deepest) > 0) deep = deepest;
        zoom = ViewZoom::from_deep(deep);
    }
    factor = deep_zoom_ratio(zoom.deep(), view.zoom.deep());
    if (!(factor > 0.0) || !std::isfinite(factor)) return view;
    // The point p = centre + d must stay at offset d / factor from the new centre: the centre
    // moves by d (1 - 1/factor), d in the old view's pixels.
    const glm::dvec2 d = pixel - glm::dvec2(0.5 * view.width, 0.5 * view.height);
    View zoomed = view;
    zoomed.zoom = zoom;
    // Digits for the finer of the two steps: the new view's when zooming in.
    const int digits = std::max(center_fraction_digits(view), center_fraction_digits(zoomed));
    View moved = move_center_by_pixels(view, d * (1.0 - 1.0 / factor), digits);
    zoomed.center_re = moved.center_re;
    zoomed.center_im = moved.center_im;
    return zoomed;
}

View box_zoom_view(const View& view, glm::dvec2 corner_a, glm::dvec2 corner_b) {
    glm::dvec2 size = glm::abs(corner_b - corner_a);
    if (size.x < kMinBoxPixels || size.y < kMinBoxPixels) return view;
    double factor = std::min(view.width / size.x, view.height / size.y);
    View centred = center_view_on(view, 0.5 * (corner_a + corner_b));
    return zoom_view_about(centred, {0.5 * view.width, 0.5 * view.height}, factor);
}

View center_view_on(const View& view, glm::dvec2 pixel) {
    return move_center_by_pixels(view, pixel - glm::dvec2(0.5 * view.width, 0.5 * view.height));
}

View pan_view_by_fraction(const View& view, glm::dvec2 fraction) {
    glm::dvec2 centre{0.5 * view.width, 0.5 * view.height};
    return center_view_on(view, centre + fraction * glm::dvec2(view.width, view.height));
}

View reset_view(const View& view) {
    const FormulaFrame home = formula_default_frame(view.formula, view.julia);  // View{}'s for Mandelbrot
    View reset = view;
    reset.center_re = home.center_re;
    reset.center_im = home.center_im;
    reset.zoom = home.zoom;
    return reset;
}

int64_t auto_iterations(const ViewZoom& zoom) {
    // 600 a decade up to DeepLocation's deepest zoom (36 million iterations at 1E60000); an
    // invalid zoom (NaN, 0, inf from a double) counts as zoom 1.
    double decades = zoom.is_valid() ? std::clamp(zoom.log10(), 0.0, double(kDeepZoomMaxExponent10)) : 0.0;
    if (std::isnan(decades)) decades = 0.0;
    return int64_t(std::llround((1000.0 + 600.0 * decades) / 100.0)) * 100;
}

bool same_place(const View& a, const View& b) {
    return a.center_re == b.center_re && a.center_im == b.center_im && a.zoom == b.zoom && a.formula == b.formula &&
           a.julia == b.julia && a.julia_re == b.julia_re && a.julia_im == b.julia_im &&
           a.max_iterations == b.max_iterations && a.palette == b.palette && a.palette_offset == b.palette_offset &&
           a.palette_density == b.palette_density;
}

// ---------------------------------------------------------------------------------------
// History.

void history_record(ViewHistory& history, const View& view) {
    if (!history.views.empty()) {
        if (same_place(history.views[history.current], view)) return;
        history.views.resize(history.current + 1);  // a new branch drops the forward views
    }
    history.views.push_back(view);
    if (history.views.size() > std::max<std::size_t>(history.max_views, 1)) history.views.erase(history.views.begin());
    history.current = history.views.size() - 1;
}

bool history_can_back(const ViewHistory& history, const View& shown) {
    if (history.views.empty()) return false;
    return history.current > 0 || !same_place(history.views[history.current], shown);
}

bool history_can_forward(const ViewHistory& history) {
    return !history.views.empty() && history.current + 1 < history.views.size();
}

namespace {
void restore_place(const View& from_history, View* view) {
    int width = view->width, height = view->height;
    *view = from_history;
    view->width = width;
    view->height = height;
}
}  // namespace

bool history_back(ViewHistory& history, View* view) {
    if (!history_can_back(history, *view)) return false;
    history_record(history, *view);  // an unrecorded view on screen becomes the forward step
    if (history.current == 0) return false;
    --history.current;
    restore_place(history.views[history.current], view);
    return true;
}

bool history_forward(ViewHistory& history, View* view) {
    if (!history_can_forward(history)) return false;
    ++history.current;
    restore_place(history.views[history.current], view);
    return true;
}

// ---------------------------------------------------------------------------------------
// The default view in the free area.

namespace {

// The place a default view is compared by: not the iterations or colours, which the user may
// change while the view stays where it was put.
bool same_spot(const View& a, const View& b) {
    return a.center_re == b.center_re && a.center_im == b.center_im && a.zoom == b.zoom && a.formula == b.formula &&
           a.julia == b.julia && a.julia_re == b.julia_re && a.julia_im == b.julia_im;
}

}  // namespace

bool at_default_frame(const View& view) {
    const FormulaFrame frame = formula_default_frame(view.formula, view.julia);
    return view.center_re == frame.center_re && view.center_im == frame.center_im && view.zoom == ViewZoom(frame.zoom);
}

View default_view_in(const View& view, const FramingArea& area) {
    View fitted = reset_view(view);
    if (view.width <= 0 || view.height <= 0) return fitted;
    FramingArea a = area;
    if (!(a.width >= kMinFramingPixels && a.height >= kMinFramingPixels))
        a = {0.0, 0.0, double(view.width), double(view.height)};
    // The frame spans 4 / zoom of the plane vertically (view.h) and 16:9 of that across; the
    // area's pixels must hold it both ways.
    const double frame_height = 4.0 / fitted.zoom.value();
    const double step = std::max(kDefaultFrameAspect * frame_height / a.width, frame_height / a.height);
    double zoom = 4.0 / (step * view.height);
    // 4 significant digits, rounded down (the frame stays whole); dividing by an exact power of
    // ten gives the double nearest the short decimal, which then prints as such.
    const double scale = std::pow(10.0, 3.0 - std::floor(std::log10(zoom)));
    zoom = std::max(std::floor(zoom * scale) / scale, kMinZoom);
    fitted.zoom = zoom;
    // The frame's centre (the view's centre now) moves to the area's centre.
    const glm::dvec2 shift{0.5 * view.width - (a.x + 0.5 * a.width), 0.5 * view.height - (a.y + 0.5 * a.height)};
    const int tenth_pixel_digits = std::max(0, int(std::ceil(-std::log10(0.1 * pixel_step(fitted)))));
    return move_center_by_pixels(fitted, shift, tenth_pixel_digits);
}

DefaultFraming start_default_framing(const View& view, bool view_given) { return {view, !view_given}; }

bool update_default_framing(DefaultFraming& framing, View* view, ViewHistory* history, const FramingArea& area) {
    const bool unmoved = same_spot(*view, framing.placed);
    if (unmoved ? !framing.follows : !at_default_frame(*view)) {
        framing.placed = *view;
        framing.follows = false;
        return false;
    }
    const View fitted = default_view_in(*view, area);
    const bool moved = !same_spot(fitted, *view);
    // The history's newest entry is the place being left: forget it (it is recorded anew where
    // the view comes to rest).
    if (moved && unmoved && history && !history->views.empty() && history->current + 1 == history->views.size() &&
        same_spot(history->views.back(), framing.placed)) {
        history->views.pop_back();
        history->current = history->views.empty() ? 0 : history->views.size() - 1;
    }
    *view = fitted;
    framing.placed = fitted;
    framing.follows = true;
    return moved;
}

// ---------------------------------------------------------------------------------------

FrameMapping frame_mapping(const View& shown_view, const View& frame_view) {
    // In the frame's pixels, exact before one rounding at any depth (deep_navigation.h).
    const DeepZoom frame_zoom = view_zoom(frame_view);
    const glm::dvec2 centre_shift{
        deep_decimal_difference_pixels(shown_view.center_re, frame_view.center_re, frame_zoom, frame_view.height),
        deep_decimal_difference_pixels(shown_view.center_im, frame_view.center_im, frame_zoom, frame_view.height)};
    FrameMapping m;
    // step_shown / step_frame = (zoom_frame * height_frame) / (zoom_shown * height_shown)
    m.scale = deep_zoom_ratio(frame_zoom, view_zoom(shown_view)) * double(frame_view.height) /
              double(std::max(shown_view.height, 1));
    m.offset.x = centre_shift.x - 0.5 * shown_view.width * m.scale + 0.5 * frame_view.width;
    m.offset.y = -centre_shift.y - 0.5 * shown_view.height * m.scale + 0.5 * frame_view.height;
    // A frame far away (or far deeper) maps to nothing on screen rather than to NaNs.
    if (!std::isfinite(m.scale) || !std::isfinite(m.offset.x) || !std::isfinite(m.offset.y)) {
        m.scale = 1.0;
        m.offset = {1e9, 1e9};
    }
    return m;
}

}  // namespace ms
