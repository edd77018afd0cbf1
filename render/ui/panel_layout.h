// panel_layout.h: where the explorer's panels go, so that by default none covers another:
//
//   +-----------+------------------------------+---------------------------+
//   | View      |                              | [Performance|Vector add|  |
//   | (collaps- |        the fractal           |  CNN|Export]  one column  |
//   |  ible)    |                              |  of tabs, resizable from  |
//   |           |                              |  its left edge            |
//   +-----------+------------------------------+---------------------------+
//   | status line: always visible, the full width, as tall as its text     |
//   +----------------------------------------------------------------------+
//
// layout_panels() is plain arithmetic on the window's size, the status line's height and the
// widths the user last gave the two panels (ImGui keeps those in imgui.ini): it narrows the
// View panel and the column where the window is too small for both, and keeps both above the
// status line; free_area() is what they leave of the window for the default view. The ImGui
// side (place_view_panel, begin_side_column) pins each window to its place every frame and lets
// the user change only its width (and the View panel's height).
#pragma once

#include <string>

#include "render/frame/view_math.h"

namespace ms {

struct PanelRect {
    float x = 0.0f, y = 0.0f, width = 0.0f, height = 0.0f;
};
bool rects_overlap(const PanelRect& a, const PanelRect& b);  // their insides intersect

struct PanelLayoutInput {
    float window_width = 0.0f;  // pixels
    float window_height = 0.0f;
    float status_height = 0.0f;  // the status line's, this frame
    float view_width = 0.0f;     // the View panel's width as the user left it; 0: default
    float column_width = 0.0f;   // the column's; 0: default
    bool column_open = false;    // some panel is open in the column
};

inline constexpr float kPanelMargin = 6.0f;
inline constexpr float kDefaultViewWidth = 380.0f;
inline constexpr float kDefaultColumnWidth = 560.0f;
inline constexpr float kMinViewWidth = 200.0f;
inline constexpr float kMinColumnWidth = 240.0f;

struct PanelLayout {
    PanelRect view;               // the View panel: top left; height: the most it may take
    PanelRect column;             // the column of tabs: top right (width 0 when nothing is open in it)
    PanelRect status;             // the status line: along the bottom, the full width
    float view_max_width = 0.0f;  // how wide the user may drag each, leaving room for the other
    float column_max_width = 0.0f;
};
PanelLayout layout_panels(const PanelLayoutInput& input);

// The part of the window the panels leave free, where the default view goes (render/frame/
// view_math.h: update_default_framing): above the status line, left of the column, and either
// right of or below the View panel as drawn (`view_panel`: its rectangle this frame, a collapsed
// panel's title bar; empty: not drawn), whichever holds a 16:9 frame larger, kPanelMargin away
// from each panel.
FramingArea free_area(const PanelLayout& layout, const PanelRect& view_panel);

// imgui.ini's place: $XDG_CONFIG_HOME/mandelscope/imgui.ini, else ~/.config/mandelscope/imgui.ini.
// Creates the folder. Returns "" and sets *error to a sentence when it cannot.
std::string panel_settings_path(std::string* error);

// ---- ImGui side ------------------------------------------------------------------------------
// Before ImGui::Begin("View"): pins the View panel to layout.view and bounds its size.
void place_view_panel(const PanelLayout& layout);
// Begins the right column (a window holding a tab bar) when `any_open`; returns whether it did.
// Then each panel draws its own tab item (the panels' draw_* functions take `in_column`), and
// end_side_column() closes it. *width receives the column's width for the next frame's layout.
bool begin_side_column(const PanelLayout& layout, bool any_open, float* width);
void end_side_column();
// The panels' windows over the fractal: opacity 1 (default) hides the fractal behind them.
void set_panel_opacity(float opacity);

}  // namespace ms
