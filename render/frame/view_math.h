// view_math.h: the explorer's navigation as pure functions of a View (no GL, no window): pan,
// zoom about a point, box zoom, keyboard steps, automatic iterations, the history of views,
// the default view fitted into the part of the window the panels leave free, and how the last
// finished frame maps onto a view that has moved since (the preview while a new frame is being
// computed).
//
// Pixel coordinates are continuous framebuffer coordinates of the image: origin at its top-left
// corner, y down, so pixel (x, y) covers [x, x+1) x [y, y+1) and its centre is (x+0.5, y+0.5).
// That is the convention of compute/fractal/view/view.h's grid, so a point given here samples exactly what
// the renderers sample.
//
// The centre stays decimal text (compute/fractal/view/view.h): moving the view adds the offset to the text
// in decimal (add_to_decimal), rounded to a thousandth of a pixel or finer, so no digit the
// user typed is ever lost to a double round trip, and the text grows only as deep as the zoom
// needs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <glm/vec2.hpp>

#include "compute/fractal/view/deep_location.h"
#include "compute/fractal/view/view.h"

namespace ms {

// Complex-plane offset (re, im) of a pixel position from the view's centre, and back.
glm::dvec2 pixel_to_plane_offset(const View& view, glm::dvec2 pixel);
glm::dvec2 plane_offset_to_pixel(const View& view, glm::dvec2 offset);

// The view with its centre moved by `offset` in the plane (decimal text arithmetic; shallow
// views: the offset is a double).
View move_center(const View& view, glm::dvec2 offset);
// The view with its centre moved by `pixels` (x right, y down) at any depth: exactly pixels *
// spacing, rounded to `fraction_digits` after the point (-1: center_fraction_digits(view)).
View move_center_by_pixels(const View& view, glm::dvec2 pixels, int fraction_digits = -1);
// The view's zoom in extended range (compute/fractal/view/deep_location.h).
DeepZoom view_zoom(const View& view);

// Left-drag: the point that was under `grab_pixel` comes to lie under `cursor_pixel`.
View pan_view(const View& view, glm::dvec2 grab_pixel, glm::dvec2 cursor_pixel);
// Wheel: zoom by `factor` (> 1 zooms in) keeping the point under `pixel` where it is.
View zoom_view_about(const View& view, glm::dvec2 pixel, double factor);
// Right-drag box: the box between two corners fills the window (whole box visible, centred;
// the window's aspect ratio is kept). A box thinner than kMinBoxPixels changes nothing.
inline constexpr double kMinBoxPixels = 4.0;
View box_zoom_view(const View& view, glm::dvec2 corner_a, glm::dvec2 corner_b);
// Double-click: the point under `pixel` becomes the centre.
View center_view_on(const View& view, glm::dvec2 pixel);
// Arrow keys: move by a fraction of the window (x right, y down).
View pan_view_by_fraction(const View& view, glm::dvec2 fraction);
// Home: the formula's default place (formula_default_frame; View{}'s for Mandelbrot) at the
// current size, formula, Julia parameter, colours and
// iteration count kept.
View reset_view(const View& view);

// Iterations that follow the zoom: deeper views need more before their detail escapes.
// 1000 at zoom <= 1, plus 600 per decade of zoom, rounded to hundreds.
int64_t auto_iterations(const ViewZoom& zoom);

// Decimal text arithmetic for the centre.
// text + delta, with delta rounded to `fraction_digits` digits after the point; every digit
// of `text` is kept. Accepts compute/number_text.h's decimal grammar ("-0.75", "1e-5", "+.5");
// prints plain fixed-point text without trailing zeros. Throws std::invalid_argument.
std::string add_to_decimal(const std::string& text, double delta, int fraction_digits);
// Digits after the point the centre needs at this zoom: a ten-thousandth of a pixel.
int center_fraction_digits(const View& view);

// Where the view is in the plane, not how it is coloured or how big the window is: what the
// history compares and restores.
bool same_place(const View& a, const View& b);

// History of views for Back/Forward (Backspace, Ctrl+Z, Ctrl+Y). The current view is
// recorded when a navigation gesture ends; going back first records the view on screen if
// it is new, so the forward step returns to it.
struct ViewHistory {
    std::vector<View> views;
    std::size_t current = 0;       // index into views (meaningless while views is empty)
    std::size_t max_views = 1000;  // oldest entries are dropped past this
};
void history_record(ViewHistory& history, const View& view);
// On success replaces *view by the older/newer view (keeping view->width/height: the window's
// size is not history) and returns true; false when there is nothing further.
bool history_back(ViewHistory& history, View* view);
bool history_forward(ViewHistory& history, View* view);
bool history_can_back(const ViewHistory& history, const View& shown);
bool history_can_forward(const ViewHistory& history);

// ---- The default view in the part of the window the panels leave free ------------------------
// formula_default_frame's frames show the whole set in a 16:9 picture. In the window the panels
// cover part of the picture, so the default view (at start, Home, a new formula's or Julia set's
// frame) fits that frame whole into the area they leave free instead, centred there, at the
// deepest zoom that shows all of it. A view given on the command line or opened from a file
// stays exactly as given.
inline constexpr double kDefaultFrameAspect = 16.0 / 9.0;  // formula_default_frame's width / height

// A rectangle of the view's pixels (x right, y down). Narrower or lower than kMinFramingPixels
// (no room left beside the panels, or none given): the whole view.
inline constexpr double kMinFramingPixels = 64.0;
struct FramingArea {
    double x = 0.0, y = 0.0, width = 0.0, height = 0.0;
};
// Whether the view's centre and zoom are exactly its formula's default frame (formula_default_frame),
// as reset_view and a formula switch leave them.
bool at_default_frame(const View& view);
// reset_view's place, zoomed and centred so that the formula's frame lies whole in `area`: its
// centre at the area's centre, as large as fits (it spans the area's width or its height). The
// zoom is rounded down to 4 significant digits and the centre to a tenth of a pixel (tidy
// numbers in the View panel).
View default_view_in(const View& view, const FramingArea& area);

// The default view keeps to the free area while it changes (the window resized, a panel opened,
// dragged or collapsed, the first frames' panel sizes) until the user moves the view.
struct DefaultFraming {
    View placed;           // the view as update_default_framing left it
    bool follows = false;  // `placed` is a default view fitted here: it follows the area
};
// Before the first frame: the default view follows the area; a given view (`view_given`) stays.
DefaultFraming start_default_framing(const View& view, bool view_given);
// Once a frame, once the frame's navigation is done and before the history records it. A view
// still where it was placed follows `area` if it is a default view; a view that has just become
// its formula's default frame (at_default_frame: Home, a formula or Julia switch, a Julia set
// opened from the preview) is fitted into `area` and follows it from then on; any other view is
// left alone. When a following view moves, the history forgets the place it left (it was never
// the user's), so Back does not stop there. Returns whether the view moved.
bool update_default_framing(DefaultFraming& framing, View* view, ViewHistory* history, const FramingArea& area);

// How a frame computed for `frame_view` shows in `shown_view` (same centre units, any sizes):
// frame pixel = shown pixel * scale + offset. Identity when the views are the same.
struct FrameMapping {
    double scale = 1.0;
    glm::dvec2 offset{0.0, 0.0};
};
FrameMapping frame_mapping(const View& shown_view, const View& frame_view);

}  // namespace ms
