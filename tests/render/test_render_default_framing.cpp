// test_render_default_framing.cpp: the default view fitted into the part of the window the
// panels leave free (render/ui/panel_layout.h: free_area, render/frame/view_math.h:
// default_view_in, update_default_framing). At 1280x720, 1920x1080 with and without the column
// of tabs, and 800x600, every formula's default frame (which holds its whole set) lies inside
// the free area, right of the View panel and above the status line, and fills it on one side;
// a given view is never moved; a default view follows the area until the user moves it.
#include <gtest/gtest.h>

#include <string>

#include "compute/fractal/view/formula.h"
#include "render/frame/view_math.h"
#include "render/ui/panel_layout.h"

namespace ms {
namespace {

constexpr float kStatusHeight = 26.0f;      // about one line of text
constexpr float kViewPanelHeight = 640.0f;  // the expanded View panel, as ImGui sizes it

struct Window {
    int width, height;
    bool column_open;
};

PanelLayout layout_for(const Window& w) {
    return layout_panels({float(w.width), float(w.height), kStatusHeight, 0.0f, 0.0f, w.column_open});
}

// The View panel as drawn at the layout's place, no taller than its room.
PanelRect view_panel_for(const PanelLayout& layout, float height = kViewPanelHeight) {
    return {layout.view.x, layout.view.y, layout.view.width, std::min(height, layout.view.height)};
}

View sized(Formula formula, bool julia, const Window& w) {
    View v;
    v.formula = formula;
    v.julia = julia;
    v.width = w.width;
    v.height = w.height;
    return reset_view(v);
}

// The formula's default frame (the plane rectangle that holds its set) in the view's pixels:
// left, top, right, bottom.
struct Box {
    double left, top, right, bottom;
};
Box frame_in_pixels(const View& view) {
    const FormulaFrame frame = formula_default_frame(view.formula, view.julia);
    const double half_h = 2.0 / frame.zoom, half_w = kDefaultFrameAspect * half_h;
    const glm::dvec2 centre{std::stod(frame.center_re) - center_re_value(view),
                            std::stod(frame.center_im) - center_im_value(view)};
    const glm::dvec2 top_left = plane_offset_to_pixel(view, centre + glm::dvec2(-half_w, half_h));
    const glm::dvec2 bottom_right = plane_offset_to_pixel(view, centre + glm::dvec2(half_w, -half_h));
    return {top_left.x, top_left.y, bottom_right.x, bottom_right.y};
}

void expect_whole_in(const View& fitted, const FramingArea& area, const std::string& what) {
    SCOPED_TRACE(what);
    const Box box = frame_in_pixels(fitted);
    const double slack = 0.5;  // the centre is rounded to a tenth of a pixel
    EXPECT_GE(box.left, area.x - slack);
    EXPECT_GE(box.top, area.y - slack);
    EXPECT_LE(box.right, area.x + area.width + slack);
    EXPECT_LE(box.bottom, area.y + area.height + slack);
    // It fills the area on its limiting side: the zoom is rounded down by at most 0.1%.
    const double fill = std::max((box.right - box.left) / area.width, (box.bottom - box.top) / area.height);
    EXPECT_GT(fill, 0.998);
    // And it is centred there.
    EXPECT_NEAR(0.5 * (box.left + box.right), area.x + 0.5 * area.width, 1.0);
    EXPECT_NEAR(0.5 * (box.top + box.bottom), area.y + 0.5 * area.height, 1.0);
}

TEST(DefaultFraming, TheFrameFitsBesideThePanelsAtTheUsualSizes) {
    const Window windows[] = {{1280, 720, false}, {1920, 1080, false}, {1920, 1080, true}, {800, 600, false}};
    for (const Window& w : windows) {
        const PanelLayout layout = layout_for(w);
        const PanelRect panel = view_panel_for(layout);
        const FramingArea area = free_area(layout, panel);
        const std::string size = std::to_string(w.width) + "x" + std::to_string(w.height) +
                                 (w.column_open ? " with the column" : " without the column");
        SCOPED_TRACE(size);
        // Right of the View panel, left of the column, above the status line, clear of each.
        EXPECT_DOUBLE_EQ(area.x, panel.x + panel.width + kPanelMargin);
        EXPECT_DOUBLE_EQ(area.y, 0.0);
        EXPECT_DOUBLE_EQ(area.x + area.width, w.column_open ? layout.column.x - kPanelMargin : double(w.width));
        EXPECT_DOUBLE_EQ(area.y + area.height, layout.status.y - kPanelMargin);
        for (Formula f : kAllFormulas) {
            for (bool julia : {false, true}) {
                const View fitted = default_view_in(sized(f, julia, w), area);
                expect_whole_in(fitted, area, std::string(formula_name(f)) + (julia ? " julia" : ""));
                EXPECT_TRUE(validate_view(fitted).empty());
            }
        }
    }
}

TEST(DefaultFraming, TheMandelbrotSetClearsTheViewPanel) {
    // The numbers a reader can check: at 1280x720 the View panel ends at x = 386, and the set's
    // western tip (-2) sat under it at x = 0 of the plain 16:9 frame.
    const Window w{1280, 720, false};
    const PanelLayout layout = layout_for(w);
    const FramingArea area = free_area(layout, view_panel_for(layout));
    const View fitted = default_view_in(sized(Formula::Mandelbrot, false, w), area);
    const glm::dvec2 west = plane_offset_to_pixel(fitted, {-2.0 - center_re_value(fitted), -center_im_value(fitted)});
    const glm::dvec2 east = plane_offset_to_pixel(fitted, {0.4712 - center_re_value(fitted), -center_im_value(fitted)});
    EXPECT_GT(west.x, layout.view.x + layout.view.width);
    EXPECT_LT(east.x, w.width);
    EXPECT_EQ(fitted.zoom.text(), "1.644");  // 888 pixels hold the 3 units across: 4 * 888 / (3 * 720)
    // With the column open at 1920x1080 both sides are clear.
    const Window wide{1920, 1080, true};
    const PanelLayout both = layout_for(wide);
    const View framed = default_view_in(sized(Formula::Mandelbrot, false, wide), free_area(both, view_panel_for(both)));
    EXPECT_GT(plane_offset_to_pixel(framed, {-2.0 - center_re_value(framed), 0.0}).x, both.view.x + both.view.width);
    EXPECT_LT(plane_offset_to_pixel(framed, {0.4712 - center_re_value(framed), 0.0}).x, both.column.x);
}

TEST(DefaultFraming, ACollapsedViewPanelLeavesTheWidthBelowIt) {
    const Window w{1280, 720, false};
    const PanelLayout layout = layout_for(w);
    const PanelRect title_bar = view_panel_for(layout, 19.0f);
    const FramingArea area = free_area(layout, title_bar);
    EXPECT_DOUBLE_EQ(area.x, 0.0);
    EXPECT_DOUBLE_EQ(area.y, title_bar.y + title_bar.height + kPanelMargin);
    EXPECT_DOUBLE_EQ(area.width, 1280.0);
    expect_whole_in(default_view_in(sized(Formula::Mandelbrot, false, w), area), area, "collapsed");
}

TEST(DefaultFraming, WithoutPanelsTheWholeWindowIsFree) {
    // A 16:9 window with nothing drawn: the plain default frame, its zoom rounded to 4 digits.
    const Window w{1280, 720, false};
    const View fitted = default_view_in(sized(Formula::Mandelbrot, false, w), FramingArea{});
    EXPECT_EQ(fitted.center_re, "-0.5");
    EXPECT_EQ(fitted.center_im, "0");
    EXPECT_EQ(fitted.zoom.text(), "2.37");
    // 4:3: the width limits, so the set is whole (the plain frame cuts its sides off there).
    const Window square{800, 600, false};
    expect_whole_in(default_view_in(sized(Formula::Mandelbrot, false, square), FramingArea{}), {0, 0, 800, 600}, "4:3");
}

TEST(DefaultFraming, AGivenViewStaysAsGiven) {
    // The plain default frame itself, given (--center -0.5,0 or a PNG saved at the default view):
    // not moved, whatever the area.
    const Window w{1280, 720, false};
    View view = sized(Formula::Mandelbrot, false, w);
    const View given = view;
    ViewHistory history;
    DefaultFraming framing = start_default_framing(view, true);
    const FramingArea area{392, 0, 888, 688};
    EXPECT_FALSE(update_default_framing(framing, &view, &history, area));
    EXPECT_TRUE(same_place(view, given));
    EXPECT_FALSE(update_default_framing(framing, &view, &history, {500, 0, 780, 688}));
    EXPECT_TRUE(same_place(view, given));
}

TEST(DefaultFraming, TheDefaultViewFollowsTheAreaUntilTheUserMovesIt) {
    const Window w{1280, 720, false};
    View view = sized(Formula::Mandelbrot, false, w);
    ViewHistory history;
    DefaultFraming framing = start_default_framing(view, false);
    const FramingArea area{392, 0, 888, 688};
    EXPECT_TRUE(update_default_framing(framing, &view, &history, area));
    expect_whole_in(view, area, "start");
    history_record(history, view);
    EXPECT_FALSE(update_default_framing(framing, &view, &history, area));  // nothing changed
    // The column opens: the view follows, and the history forgets the place it left.
    const FramingArea narrower{392, 0, 400, 688};
    view.max_iterations = 5000;  // not a move
    EXPECT_TRUE(update_default_framing(framing, &view, &history, narrower));
    expect_whole_in(view, narrower, "column open");
    EXPECT_TRUE(history.views.empty());
    history_record(history, view);
    // The user pans: from then on the view stays where the user put it.
    view = pan_view(view, {600, 300}, {650, 300});
    const View panned = view;
    EXPECT_FALSE(update_default_framing(framing, &view, &history, area));
    EXPECT_TRUE(same_place(view, panned));
    history_record(history, view);
    // Home (reset_view) or a formula switch gives the plain frame: fitted again.
    view = reset_view(view);
    EXPECT_TRUE(at_default_frame(view));
    EXPECT_TRUE(update_default_framing(framing, &view, &history, area));
    expect_whole_in(view, area, "Home");
    EXPECT_FALSE(at_default_frame(view));
    EXPECT_EQ(history.views.size(), 2u);  // the user's places stay
    view.formula = Formula::BurningShip;
    view = reset_view(view);
    EXPECT_TRUE(update_default_framing(framing, &view, &history, area));
    expect_whole_in(view, area, "burning ship");
}

}  // namespace
}  // namespace ms
