// test_render_view_math.cpp: the explorer's navigation maths (render/frame/view_math.h) without a
// window: pan and wheel zoom keep the point under the cursor, box zoom maps the box onto the
// window, the history walks back and forth, and the centre text never loses a digit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include <glm/geometric.hpp>

#include "render/frame/view_math.h"

namespace ms {
namespace {

View test_view() {
    View v;
    v.center_re = "-0.75";
    v.center_im = "0.1";
    v.zoom = 3.0;
    v.width = 800;
    v.height = 600;
    return v;
}

// The complex point under a pixel, in double (good enough at these zooms).
glm::dvec2 point_at(const View& view, glm::dvec2 pixel) {
    return glm::dvec2(center_re_value(view), center_im_value(view)) + pixel_to_plane_offset(view, pixel);
}

// Distance in pixels of `view` between where `point` lies and `pixel`.
double pixel_error(const View& view, glm::dvec2 point, glm::dvec2 pixel) {
    glm::dvec2 at = plane_offset_to_pixel(view, point - glm::dvec2(center_re_value(view), center_im_value(view)));
    return glm::length(at - pixel);
}

TEST(ViewMath, PixelOffsetMatchesTheComputeGrid) {
    View v = test_view();
    // Pixel (0, 0)'s centre, as compute/fractal/maths/escape.h's PixelGrid samples it.
    glm::dvec2 offset = pixel_to_plane_offset(v, {0.5, 0.5});
    double step = pixel_step(v);
    EXPECT_DOUBLE_EQ(offset.x, (0.5 - 400.0) * step);
    EXPECT_DOUBLE_EQ(offset.y, -(0.5 - 300.0) * step);
    glm::dvec2 back = plane_offset_to_pixel(v, offset);
    EXPECT_NEAR(back.x, 0.5, 1e-9);
    EXPECT_NEAR(back.y, 0.5, 1e-9);
}

TEST(ViewMath, PanKeepsThePointUnderTheCursor) {
    View v = test_view();
    glm::dvec2 grab{123.0, 456.0}, cursor{321.5, 100.25};
    glm::dvec2 point = point_at(v, grab);
    View panned = pan_view(v, grab, cursor);
    EXPECT_LT(pixel_error(panned, point, cursor), 1e-3);
    EXPECT_EQ(panned.zoom, v.zoom);
    // Dragging right moves the view's centre left (the picture follows the hand).
    EXPECT_LT(center_re_value(panned), center_re_value(v));
}

TEST(ViewMath, ZoomKeepsThePointUnderTheCursor) {
    View v = test_view();
    glm::dvec2 cursor{600.0, 150.0};
    glm::dvec2 point = point_at(v, cursor);
    View in = zoom_view_about(v, cursor, 1.25);
    EXPECT_DOUBLE_EQ(in.zoom.value(), 3.75);
    EXPECT_LT(pixel_error(in, point, cursor), 1e-3);
    // Many wheel notches in and back out: each notch keeps the point under the cursor (the
    // centre text is rounded to 1e-4 pixel of the view at hand, so a rounding made early is
    // magnified by later notches: the property holds notch by notch), and out again the
    // view comes back.
    View w = v;
    for (int i = 0; i < 40; ++i) {
        glm::dvec2 here = point_at(w, cursor);
        w = zoom_view_about(w, cursor, 1.25);
        EXPECT_LT(pixel_error(w, here, cursor), 1e-3) << "notch " << i;
    }
    for (int i = 0; i < 40; ++i) w = zoom_view_about(w, cursor, 0.8);
    EXPECT_NEAR(w.zoom.value(), v.zoom.value(), 1e-9);
    EXPECT_LT(pixel_error(w, point, cursor), 1e-2);
}

TEST(ViewMath, ZoomIsClampedToItsLimits) {
    View v = test_view();
    // Past double's range the zoom goes on in extended range (the deep path renders it), up to
    // DeepLocation's 1E60000.
    const View deep = zoom_view_about(v, {0, 0}, 1e308);
    EXPECT_FALSE(deep.zoom.fits_double());
    EXPECT_EQ(deep.zoom.deep().exponent10, 308);
    View deepest = deep;
    for (int i = 0; i < 200; ++i) deepest = zoom_view_about(deepest, {0, 0}, 1e308);
    EXPECT_EQ(deepest.zoom.deep(), (DeepZoom{1.0, kDeepZoomMaxExponent10}));
    EXPECT_EQ(zoom_view_about(v, {0, 0}, 1e-9).zoom, kMinZoom);
    EXPECT_EQ(zoom_view_about(v, {0, 0}, 0.0).zoom, v.zoom);  // nonsense factor: no change
}

TEST(ViewMath, BoxZoomMapsTheBoxOntoTheWindow) {
    View v = test_view();  // 800x600 (4:3)
    // A box with the window's aspect ratio: its corners land on the window's corners.
    glm::dvec2 a{100.0, 50.0}, b{300.0, 200.0};  // 200x150
    glm::dvec2 pa = point_at(v, a), pb = point_at(v, b);
    View boxed = box_zoom_view(v, b, a);  // corners in any order
    EXPECT_NEAR(boxed.zoom.value(), v.zoom.value() * 4.0, 1e-12);
    EXPECT_LT(pixel_error(boxed, pa, {0.0, 0.0}), 1e-3);
    EXPECT_LT(pixel_error(boxed, pb, {800.0, 600.0}), 1e-3);
    // A tall box: its height fills the window, centred, its width inside.
    glm::dvec2 c{400.0, 100.0}, d{420.0, 400.0};  // 20x300
    View tall = box_zoom_view(v, c, d);
    EXPECT_NEAR(tall.zoom.value(), v.zoom.value() * 2.0, 1e-12);
    glm::dvec2 top = plane_offset_to_pixel(
        tall, point_at(v, c) - point_at(tall, {0, 0}) + pixel_to_plane_offset(tall, {0, 0}));
    EXPECT_NEAR(top.y, 0.0, 1e-3);
    EXPECT_NEAR(top.x, 400.0 - 20.0, 1e-3);  // box 20 px wide becomes 40 px, centred
    // A click, not a box: nothing changes.
    View same = box_zoom_view(v, {10, 10}, {12, 200});
    EXPECT_TRUE(same_place(same, v));
}

TEST(ViewMath, DoubleClickCentresAndKeysStep) {
    View v = test_view();
    glm::dvec2 p{700.0, 20.0};
    glm::dvec2 point = point_at(v, p);
    View c = center_view_on(v, p);
    EXPECT_LT(pixel_error(c, point, {400.0, 300.0}), 1e-3);
    // Right arrow: a tenth of the width to the right.
    View r = pan_view_by_fraction(v, {0.1, 0.0});
    EXPECT_NEAR(center_re_value(r) - center_re_value(v), 80.0 * pixel_step(v), 1e-4 * pixel_step(v));
    EXPECT_EQ(r.center_im, v.center_im);
    View home = reset_view(c);
    EXPECT_EQ(home.center_re, View{}.center_re);
    EXPECT_EQ(home.center_im, View{}.center_im);
    EXPECT_EQ(home.zoom, View{}.zoom);
    EXPECT_EQ(home.width, 800);
}

TEST(ViewMath, HistoryWalksBackAndForth) {
    ViewHistory h;
    View a = test_view(), b = zoom_view_about(a, {10, 10}, 2.0), c = pan_view(b, {0, 0}, {50, 0});
    View shown = a;
    EXPECT_FALSE(history_can_back(h, shown));
    history_record(h, a);
    history_record(h, a);  // the same place twice is one entry
    history_record(h, b);
    history_record(h, c);
    ASSERT_EQ(h.views.size(), 3u);
    shown = c;
    shown.width = 1024;  // the window was resized meanwhile: size is not history
    ASSERT_TRUE(history_back(h, &shown));
    EXPECT_TRUE(same_place(shown, b));
    EXPECT_EQ(shown.width, 1024);
    ASSERT_TRUE(history_back(h, &shown));
    EXPECT_TRUE(same_place(shown, a));
    EXPECT_FALSE(history_back(h, &shown));
    ASSERT_TRUE(history_forward(h, &shown));
    EXPECT_TRUE(same_place(shown, b));
    ASSERT_TRUE(history_forward(h, &shown));
    EXPECT_TRUE(same_place(shown, c));
    EXPECT_FALSE(history_forward(h, &shown));
    // Back, then a new move: the forward views are dropped.
    ASSERT_TRUE(history_back(h, &shown));
    View d = pan_view(shown, {0, 0}, {0, 30});
    history_record(h, d);
    EXPECT_FALSE(history_can_forward(h));
    ASSERT_EQ(h.views.size(), 3u);
    EXPECT_TRUE(same_place(h.views[2], d));
    // Back from a view not yet recorded (a drag still being settled) records it first, so
    // forward comes back to it.
    View e = pan_view(d, {0, 0}, {5, 5});
    shown = e;
    ASSERT_TRUE(history_back(h, &shown));
    EXPECT_TRUE(same_place(shown, d));
    ASSERT_TRUE(history_forward(h, &shown));
    EXPECT_TRUE(same_place(shown, e));
}

TEST(ViewMath, HistoryIsBounded) {
    ViewHistory h;
    h.max_views = 5;
    View v = test_view();
    for (int i = 0; i < 12; ++i) {
        v = pan_view(v, {0, 0}, {1, 0});
        history_record(h, v);
    }
    EXPECT_EQ(h.views.size(), 5u);
    EXPECT_EQ(h.current, 4u);
    EXPECT_TRUE(same_place(h.views.back(), v));
}

TEST(ViewMath, DecimalAddition) {
    EXPECT_EQ(add_to_decimal("-0.75", 0.25, 6), "-0.5");
    EXPECT_EQ(add_to_decimal("-0.75", 1.0, 6), "0.25");
    EXPECT_EQ(add_to_decimal("0", -0.126, 2), "-0.13");  // delta rounded to 2 digits
    EXPECT_EQ(add_to_decimal("1e-5", 0.0, 3), "0.00001");
    EXPECT_EQ(add_to_decimal("+.5", 0.5, 3), "1");
    // The double nearest 0.1 is 0.1000000000000000055...: rounded to 16 digits it is 0.1, to
    // 17 it shows its binary error.
    EXPECT_EQ(add_to_decimal("0.1", -0.1, 16), "0");
    EXPECT_EQ(add_to_decimal("0.1", -0.1, 17), "-0.00000000000000001");
    EXPECT_EQ(add_to_decimal("999.999", 0.001, 3), "1000");
    EXPECT_EQ(add_to_decimal("-3", 5.5, 1), "2.5");
    EXPECT_THROW(add_to_decimal("abc", 0.0, 3), std::invalid_argument);
    EXPECT_THROW(add_to_decimal("1.2.3", 0.0, 3), std::invalid_argument);
    EXPECT_THROW(add_to_decimal("-", 0.0, 3), std::invalid_argument);
    EXPECT_THROW(add_to_decimal("1", NAN, 3), std::invalid_argument);
}

TEST(ViewMath, CentreTextKeepsPrecision) {
    // More digits than a double holds: moving and moving back gives the same text, and the
    // digits past the pixel step are never touched.
    const std::string re = "-0.743643887037158704752191506114774";
    View v;
    v.center_re = re;
    v.center_im = "0.131825904205311970493132056385139";
    v.zoom = 1e6;
    View moved = pan_view(v, {10, 10}, {500, 250});
    View back = pan_view(moved, {500, 250}, {10, 10});
    EXPECT_EQ(back.center_re, v.center_re);
    EXPECT_EQ(back.center_im, v.center_im);
    EXPECT_EQ(moved.center_re.substr(moved.center_re.size() - 20), re.substr(re.size() - 20));

    // Deep enough that a one-pixel move is below double's spacing at the centre: a double
    // round trip would lose it, the text keeps it.
    View deep;
    deep.center_re = "-1.5";
    deep.zoom = 1e20;
    View step = pan_view(deep, {100, 100}, {99, 100});  // one pixel to the right
    EXPECT_NE(step.center_re, deep.center_re);
    EXPECT_EQ(std::strtod(step.center_re.c_str(), nullptr), -1.5);  // double cannot tell
    // The text says exactly one pixel step: 4 / (1e20 * 720) = 5.5555...e-23.
    EXPECT_EQ(step.center_re.substr(0, 26), "-1.49999999999999999999994");
    // Enough digits for the zoom, not more.
    EXPECT_LE(int(step.center_re.size()), 3 + center_fraction_digits(deep));
}

TEST(ViewMath, AutoIterationsFollowTheZoom) {
    EXPECT_EQ(auto_iterations(0.5), 1000);
    EXPECT_EQ(auto_iterations(1.0), 1000);
    EXPECT_EQ(auto_iterations(1e3), 2800);
    EXPECT_GT(auto_iterations(1e10), auto_iterations(1e5));
}

TEST(ViewMath, FrameMappingOfAMovedView) {
    View frame = test_view();
    EXPECT_DOUBLE_EQ(frame_mapping(frame, frame).scale, 1.0);
    EXPECT_NEAR(frame_mapping(frame, frame).offset.x, 0.0, 1e-9);
    EXPECT_NEAR(frame_mapping(frame, frame).offset.y, 0.0, 1e-9);
    // After a pan, the shown pixel under the cursor shows the frame pixel that was grabbed.
    View shown = pan_view(frame, {100, 100}, {160, 130});
    FrameMapping m = frame_mapping(shown, frame);
    glm::dvec2 q = glm::dvec2(160, 130) * m.scale + m.offset;
    EXPECT_NEAR(q.x, 100.0, 1e-3);
    EXPECT_NEAR(q.y, 100.0, 1e-3);
    // After a zoom about a point, that point maps to itself; other pixels come closer.
    View zoomed = zoom_view_about(frame, {200, 500}, 2.0);
    m = frame_mapping(zoomed, frame);
    EXPECT_DOUBLE_EQ(m.scale, 0.5);
    q = glm::dvec2(200, 500) * m.scale + m.offset;
    EXPECT_NEAR(q.x, 200.0, 1e-3);
    EXPECT_NEAR(q.y, 500.0, 1e-3);
}

}  // namespace
}  // namespace ms

TEST(ViewMath, ExtremeZoomsConvertNothingOutOfRangeToInt) {
    // A zoom of 1.7e308 (from a PNG's view) makes the pixel step 0, and -log10(0) = inf must not
    // be converted to int (UBSan's float-cast-overflow): the navigation maths clamp before
    // converting. (The
    // centre's digits reach 100,000 at most: deep zooms go to 1e60000.)
    ms::View v;
    for (double zoom : {1.7e308, std::numeric_limits<double>::infinity(), 1e300, 1e-300, 0.0}) {
        v.zoom = zoom;
        const int digits = ms::center_fraction_digits(v);
        EXPECT_GE(digits, 0) << zoom;
        EXPECT_LE(digits, 100000) << zoom;
        const int iterations = ms::auto_iterations(zoom);
        EXPECT_GE(iterations, 1000) << zoom;
        EXPECT_LE(iterations, 1000000) << zoom;
    }
    EXPECT_EQ(ms::auto_iterations(std::nan("")), 1000);
}
