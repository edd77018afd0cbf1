// plot.h: small 2D plots drawn with ImGui's ImDrawList, for the demo panels (vector add, the
// CNN) and the performance panels. ImGui 1.86 has only linear PlotLines and implot is not
// packaged in Debian, so this is the little we need: line series of (x, y) points with markers,
// linear or logarithmic axes with decade ticks and labels, reference lines and marked points,
// a legend that shows and hides series, and a tooltip with the point nearest the mouse.
//
// How to use it:
//   PlotAxis x{.log = true, .title = "elements", .format = plot_format_si};
//   PlotAxis y{.log = true, .format = my_time_format};
//   std::vector<PlotSeries> series = ...;            // label, colour, marker, points
//   plot_fit_axes(series, &x, &y);                   // ranges from the data (decades on log axes)
//   PlotResult r = draw_plot("##time", x, y, series, annotations, ImVec2(400, 260));
//   draw_plot_legend(series);                        // toggles PlotSeries::hidden on click
// The maths (axis mapping, ticks, nearest point, interpolation) is plain functions without an
// ImGui context, so tests/render/test_render_plot.cpp checks it headless.
#pragma once

#include <imgui.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace ms {

// Formats a value for tick labels and the tooltip.
using PlotFormatFn = std::function<std::string(double)>;

struct PlotAxis {
    bool log = false;  // logarithmic (base 10): values <= 0 are left out
    double min = 0.0;  // the visible range; plot_fit_axes sets it from the data
    double max = 1.0;
    std::string title;          // under the x axis, above the y axis; "" for none
    PlotFormatFn format;        // tick labels; empty: plot_format_general
    std::string name;           // in the tooltip ("size: 4000 elements"); "": the title
    PlotFormatFn value_format;  // values in the tooltip, with their unit; empty: `format`
};

enum class PlotMarker { None, Circle, Square, Diamond, TriangleUp, TriangleDown, Cross, Plus };

struct PlotPoint {
    double x = 0.0;
    double y = 0.0;
};

struct PlotSeries {
    std::string label;
    ImU32 colour = IM_COL32(255, 255, 255, 255);
    PlotMarker marker = PlotMarker::Circle;
    bool dashed = false;            // for reference series
    bool hidden = false;            // the legend toggles it; hidden series are not drawn
    std::vector<PlotPoint> points;  // in the order they are joined (sort by x first)
};

// Something to point out: x and y set: a ring at the point with `text` beside it; only x
// (y = NaN): a vertical line; only y (x = NaN): a horizontal line, `text` along it.
struct PlotAnnotation {
    double x = NAN;
    double y = NAN;
    std::string text;
    ImU32 colour = IM_COL32(255, 255, 255, 200);
};

struct PlotTick {
    double value = 0.0;
    bool major = true;  // labelled (decades on a log axis)
    std::string label;  // "" for minor ticks
};

// ---- Maths (no ImGui context needed) ----------------------------------------------------------

// Position of `v` along the axis: 0 at min, 1 at max (log10 spacing on log axes). Values <= 0 on
// a log axis give NaN.
double plot_axis_fraction(const PlotAxis& axis, double v);
double plot_axis_value(const PlotAxis& axis, double fraction);  // the inverse

// The screen rectangle of the data area and the two axes: maps data to pixels and back.
// Screen y grows downwards, so y = max is at the top (min.y) of the rectangle.
struct PlotFrame {
    ImVec2 min;  // top-left of the data area, pixels
    ImVec2 max;  // bottom-right
    PlotAxis x;
    PlotAxis y;
};
ImVec2 plot_to_screen(const PlotFrame& frame, PlotPoint p);
PlotPoint plot_from_screen(const PlotFrame& frame, ImVec2 pixel);

// Ticks inside [min, max]. Log axes: a labelled tick at every power of ten (every second or
// third one labelled when there are more than `max_labels`), unlabelled ticks at 2..9 times
// each power when the range spans at most 6 decades. Linear axes: steps of 1, 2 or 5 times a
// power of ten, at most `max_labels` labelled ticks.
std::vector<PlotTick> plot_ticks(const PlotAxis& axis, int max_labels = 8);

// Sets both axes' ranges to cover the visible series' points. Log axes are widened to 1, 2 or 5
// times a power of ten, and so that at least one power of ten is inside; linear axes to the nearest tick step, including 0 when the data are
// all positive and the range would start within half its width of it.
void plot_fit_axes(const std::vector<PlotSeries>& series, PlotAxis* x, PlotAxis* y);

// Widens the axis to include v (on a log axis to the next 1, 2 or 5 times a power of ten), for
// reference lines that must stay in view.
void plot_include(PlotAxis* axis, double v);

// The visible point nearest `pixel` on screen, within `max_distance_px`; -1s when there is none.
struct PlotNearest {
    int series = -1;
    int point = -1;
    double distance_px = 0.0;
};
PlotNearest plot_nearest_point(const PlotFrame& frame, const std::vector<PlotSeries>& series, ImVec2 pixel,
                               double max_distance_px);

// The series' y at x, interpolated linearly in the axes' space (straight lines on a log-log
// plot, as drawn); NaN outside the series' x range.
double plot_series_value_at(const PlotSeries& series, const PlotAxis& x, const PlotAxis& y, double at_x);

// Default label formats. plot_format_general: "%.3g". plot_format_si: 1, 10, 100, 1K, 10K, 1M,
// 2.5M, 1G (sizes, counts).
std::string plot_format_general(double v);
std::string plot_format_si(double v);

// ---- Drawing (inside an ImGui window) -----------------------------------------------------------

struct PlotResult {
    PlotNearest hovered;   // the point under the mouse (its tooltip is shown), or -1s
    bool clicked = false;  // the hovered point was clicked
};

// Draws the axes, grid, series and annotations into a `size` area at the cursor (an ImGui item:
// the layout continues below it). `x` and `y` must have their ranges set (plot_fit_axes).
PlotResult draw_plot(const char* id, const PlotAxis& x, const PlotAxis& y, const std::vector<PlotSeries>& series,
                     const std::vector<PlotAnnotation>& annotations, ImVec2 size);

// One marker, as the series draw them (for swatches in tables beside a plot).
void draw_plot_marker(ImDrawList* draw_list, ImVec2 center, PlotMarker marker, ImU32 colour, float radius = 3.5f);

// One entry per series (marker, line, label), flowing over as many lines as the width needs.
// Clicking an entry toggles its series' `hidden`; returns true when one was toggled.
bool draw_plot_legend(std::vector<PlotSeries>& series);

}  // namespace ms
