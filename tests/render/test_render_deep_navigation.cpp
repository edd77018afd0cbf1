// test_render_deep_navigation.cpp: the window's gestures at depths past FP64
// (render/frame/view_math.h over compute/fractal/view/deep_navigation.h), checked in MPFR at the
// depth's precision: a drag at zoom 1e500 moves the centre by exactly the dragged pixels times
// the spacing; the wheel, a double-click and a box zoom at 1e500 and 4E533 keep the point under
// the cursor where it was; undo and redo restore the deep views exactly; the preview mapping of
// a moved deep frame puts the grabbed pixel under the cursor; auto-iterations grow with depth.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <glm/geometric.hpp>

#include "compute/fractal/numbers/mpfr.h"
#include "compute/fractal/view/deep_zoom_mpfr.h"
#include "compute/fractal/view/deep_navigation.h"
#include "compute/fractal/deep/deep_reference.h"
#include "render/frame/view_math.h"

namespace ms {
namespace {

View deep_view(const char* zoom) {
    View v;
    // A centre of ~190 digits, as deep views carry (the arithmetic is tested, not the place).
    v.center_re =
        "-1.7691083304074772808923062435577784835600639118623400650778788340418929715985908084423460199088"
        "6820204375798539711744042815186207867460953613415842432757944592767829349335811233344529101414";
    v.center_im =
        "-0.0024129142135483473940162786405007764547946587093590588632716063548093437815787017624634245536"
        "1906453766938099296099564271826812512087856113640155913045217066108389633591201466618419893011";
    EXPECT_EQ(ViewZoom::parse(zoom, &v.zoom), "");
    v.width = 640;
    v.height = 360;
    v.max_iterations = 10000;
    return v;
}

// The plane point under `pixel` of `view`, minus the one under `other_pixel` of `other`, in
// pixels of `view`: 0 when both pixels show the same point. Computed in MPFR.
glm::dvec2 point_difference_pixels(const View& view, glm::dvec2 pixel, const View& other, glm::dvec2 other_pixel) {
    const mpfr_prec_t bits = mpfr_prec_t(deep_reference_precision_bits(view.zoom.deep(), view.height) + 64);
    MpfrNumber a(bits), b(bits), step(bits), other_step(bits), t(bits);
    deep_pixel_spacing_mpfr(view.zoom.deep(), view.height, step.get());
    deep_pixel_spacing_mpfr(other.zoom.deep(), other.height, other_step.get());
    glm::dvec2 out;
    for (int axis = 0; axis < 2; ++axis) {
        const double sign = axis == 0 ? 1.0 : -1.0;  // y grows down, the imaginary axis up
        const double offset = sign * ((axis == 0 ? pixel.x : pixel.y) - 0.5 * (axis == 0 ? view.width : view.height));
        const double other_offset = sign * ((axis == 0 ? other_pixel.x : other_pixel.y) -
                                            0.5 * (axis == 0 ? other.width : other.height));
        mpfr_set_decimal(a.get(), axis == 0 ? view.center_re : view.center_im);
        mpfr_mul_d(t.get(), step.get(), offset, MPFR_RNDN);
        mpfr_add(a.get(), a.get(), t.get(), MPFR_RNDN);
        mpfr_set_decimal(b.get(), axis == 0 ? other.center_re : other.center_im);
        mpfr_mul_d(t.get(), other_step.get(), other_offset, MPFR_RNDN);
        mpfr_add(b.get(), b.get(), t.get(), MPFR_RNDN);
        mpfr_sub(a.get(), a.get(), b.get(), MPFR_RNDN);
        mpfr_div(a.get(), a.get(), step.get(), MPFR_RNDN);
        (axis == 0 ? out.x : out.y) = mpfr_get_d(a.get(), MPFR_RNDN);
    }
    return out;
}

TEST(DeepViewMath, DragMovesByExactlyTheDraggedPixels) {
    for (const char* zoom : {"1e20", "1e500", "4.00000000000E533", "1e10000"}) {
        const View v = deep_view(zoom);
        const glm::dvec2 grab{100.0, 50.0}, cursor{163.0, 21.5};
        const View moved = pan_view(v, grab, cursor);
        // The point that was under the grab is under the cursor now.
        const glm::dvec2 e = point_difference_pixels(moved, cursor, v, grab);
        EXPECT_LT(std::fabs(e.x), 1e-3) << zoom;
        EXPECT_LT(std::fabs(e.y), 1e-3) << zoom;
        EXPECT_EQ(moved.zoom, v.zoom);
        // The centre's text keeps its digits: it grows only to a ten-thousandth of a pixel.
        EXPECT_LE(moved.center_re.size(), v.center_re.size() + size_t(center_fraction_digits(v)) + 2) << zoom;
    }
}

TEST(DeepViewMath, WheelBoxAndDoubleClickKeepThePointUnderTheCursor) {
    for (const char* zoom : {"1e500", "4.00000000000E533"}) {
        const View v = deep_view(zoom);
        const glm::dvec2 cursor{500.25, 80.0};
        for (double factor : {1.25, 1.0 / 1.25, 1e10}) {
            const View zoomed = zoom_view_about(v, cursor, factor);
            EXPECT_NEAR(deep_zoom_ratio(zoomed.zoom.deep(), v.zoom.deep()), factor, factor * 1e-12) << zoom;
            const glm::dvec2 e = point_difference_pixels(zoomed, cursor, v, cursor);
            EXPECT_LT(std::fabs(e.x), 1e-3) << zoom << " x" << factor;
            EXPECT_LT(std::fabs(e.y), 1e-3) << zoom << " x" << factor;
        }
        // Double-click: the point under the cursor becomes the centre.
        const View centred = center_view_on(v, cursor);
        const glm::dvec2 c = point_difference_pixels(centred, {320.0, 180.0}, v, cursor);
        EXPECT_LT(glm::length(c), 1e-3) << zoom;
        // Box zoom: the box's centre comes to the window's centre, 4x deeper.
        const View boxed = box_zoom_view(v, {200.0, 100.0}, {360.0, 190.0});
        EXPECT_NEAR(deep_zoom_ratio(boxed.zoom.deep(), v.zoom.deep()), 4.0, 1e-12) << zoom;
        const glm::dvec2 b = point_difference_pixels(boxed, {320.0, 180.0}, v, {280.0, 145.0});
        EXPECT_LT(glm::length(b), 4e-3) << zoom;
    }
}

TEST(DeepViewMath, HistoryRestoresDeepViewsExactly) {
    const View v = deep_view("1e500");
    ViewHistory history;
    history_record(history, v);
    const View a = zoom_view_about(v, {10.0, 20.0}, 1.25);
    history_record(history, a);
    const View b = pan_view(a, {10.0, 20.0}, {300.0, 200.0});
    history_record(history, b);
    View shown = b;
    ASSERT_TRUE(history_back(history, &shown));
    EXPECT_TRUE(same_place(shown, a));
    ASSERT_TRUE(history_back(history, &shown));
    EXPECT_TRUE(same_place(shown, v));
    EXPECT_EQ(shown.center_re, v.center_re);
    ASSERT_TRUE(history_forward(history, &shown));
    ASSERT_TRUE(history_forward(history, &shown));
    EXPECT_TRUE(same_place(shown, b));
}

TEST(DeepViewMath, PreviewMapsTheGrabbedPixelUnderTheCursor) {
    const View frame = deep_view("4.00000000000E533");
    const View shown = pan_view(frame, {100.0, 100.0}, {160.0, 130.0});
    FrameMapping m = frame_mapping(shown, frame);
    glm::dvec2 q = glm::dvec2(160.0, 130.0) * m.scale + m.offset;
    EXPECT_NEAR(m.scale, 1.0, 1e-12);
    EXPECT_NEAR(q.x, 100.0, 1e-3);
    EXPECT_NEAR(q.y, 100.0, 1e-3);
    const View zoomed = zoom_view_about(frame, {200.0, 300.0}, 2.0);
    m = frame_mapping(zoomed, frame);
    EXPECT_NEAR(m.scale, 0.5, 1e-12);
    q = glm::dvec2(200.0, 300.0) * m.scale + m.offset;
    EXPECT_NEAR(q.x, 200.0, 1e-3);
    EXPECT_NEAR(q.y, 300.0, 1e-3);
}

TEST(DeepViewMath, AutoIterationsGrowWithDepth) {
    EXPECT_EQ(auto_iterations(deep_view("1e500").zoom), 301000);
    EXPECT_GT(auto_iterations(deep_view("1e10000").zoom), auto_iterations(deep_view("1e500").zoom));
}

}  // namespace
}  // namespace ms
