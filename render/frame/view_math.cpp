// view_math.cpp: navigation maths and the decimal centre arithmetic (see view_math.h).
#include "render/frame/view_math.h"

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

// a - b in double, computed in decimal first so nearby centres with many digits subtract
// exactly before the one rounding to double.
double decimal_difference(const std::string& a, const std::string& b) {
    DecimalNumber nb = parse_decimal_or_throw(b);
    if (!nb.digits.empty()) nb.negative = !nb.negative;
    return decimal_to_double(add_decimals(parse_decimal_or_throw(a), nb));
}

}  // namespace

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

int center_fraction_digits(const View& view) {
    // Clamped in double before the conversion: a step of 0 or inf (a zoom near double's limit)
    // would otherwise convert an infinity to int, which is undefined (UBSan's float-cast-overflow).
    const double digits = std::ceil(-std::log10(pixel_step(view))) + 4.0;
    return int(std::clamp(std::isnan(digits) ? 0.0 : digits, 0.0, 1000.0));
}

// ---------------------------------------------------------------------------------------
// Geometry (compute/fractal/view.h: c = centre + ((px - W/2) * step, -(py - H/2) * step)).

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

View pan_view(const View& view, glm::dvec2 grab_pixel, glm::dvec2 cursor_pixel) {
    return move_center(view, pixel_to_plane_offset(view, grab_pixel) - pixel_to_plane_offset(view, cursor_pixel));
}

View zoom_view_about(const View& view, glm::dvec2 pixel, double factor) {
    if (!(factor > 0.0) || !std::isfinite(factor)) return view;
    double zoom = std::clamp(view.zoom.value() * factor, kMinZoom, kMaxDoubleZoom);
    factor = zoom / view.zoom.value();
    // The point p = centre + d must stay at offset d / factor from the new centre.
    glm::dvec2 d = pixel_to_plane_offset(view, pixel);
    View zoomed = view;
    zoomed.zoom = zoom;
    // Digits for the finer of the two steps: the new view's when zooming in.
    int digits = std::max(center_fraction_digits(view), center_fraction_digits(zoomed));
    zoomed.center_re = add_to_decimal(view.center_re, d.x * (1.0 - 1.0 / factor), digits);
    zoomed.center_im = add_to_decimal(view.center_im, d.y * (1.0 - 1.0 / factor), digits);
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
    return move_center(view, pixel_to_plane_offset(view, pixel));
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

int auto_iterations(double zoom) {
    // At most 1e6 iterations (zoom 1e1665, far past double): finite and inside int whatever zoom is.
    double decades = std::clamp(std::log10(zoom), 0.0, 1665.0);
    if (std::isnan(decades)) decades = 0.0;
    return int(std::lround((1000.0 + 600.0 * decades) / 100.0)) * 100;
}

bool same_place(const View& a, const View& b) {
    return a.center_re == b.center_re && a.center_im == b.center_im && a.zoom == b.zoom &&
           a.formula == b.formula && a.julia == b.julia && a.julia_re == b.julia_re && a.julia_im == b.julia_im &&
           a.max_iterations == b.max_iterations && a.palette == b.palette &&
           a.palette_offset == b.palette_offset && a.palette_density == b.palette_density;
}

// ---------------------------------------------------------------------------------------
// History.

void history_record(ViewHistory& history, const View& view) {
    if (!history.views.empty()) {
        if (same_place(history.views[history.current], view)) return;
        history.views.resize(history.current + 1);  // a new branch drops the forward views
    }
    history.views.push_back(view);
    if (history.views.size() > std::max<std::size_t>(history.max_views, 1))
        history.views.erase(history.views.begin());
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

FrameMapping frame_mapping(const View& shown_view, const View& frame_view) {
    double step_shown = pixel_step(shown_view), step_frame = pixel_step(frame_view);
    glm::dvec2 centre_shift{decimal_difference(shown_view.center_re, frame_view.center_re),
                            decimal_difference(shown_view.center_im, frame_view.center_im)};
    FrameMapping m;
    m.scale = step_shown / step_frame;
    m.offset.x = centre_shift.x / step_frame - 0.5 * shown_view.width * m.scale + 0.5 * frame_view.width;
    m.offset.y = -centre_shift.y / step_frame - 0.5 * shown_view.height * m.scale + 0.5 * frame_view.height;
    return m;
}

}  // namespace ms
