// test_render_view_flight.cpp: the Newton zoom's flight (render/frame/view_flight.h): it starts
// where the view is, lands exactly on the destination, zooms evenly in log(zoom) (eased), keeps
// the destination on its way to the middle of the window, and works past double's range.
#include <gtest/gtest.h>

#include <cmath>

#include "compute/fractal/view/deep_navigation.h"
#include "render/frame/view_flight.h"

namespace ms {
namespace {

View view_at(const char* re, const char* im, ViewZoom zoom) {
    View v;
    v.center_re = re;
    v.center_im = im;
    v.zoom = zoom;
    v.width = 640;
    v.height = 360;
    return v;
}

// Where the destination's centre lies in `view`, in pixels from the top-left corner.
double target_x(const View& view, const View& to) {
    return 0.5 * view.width +
           deep_decimal_difference_pixels(to.center_re, view.center_re, view.zoom.deep(), view.height);
}
double target_y(const View& view, const View& to) {
    return 0.5 * view.height -
           deep_decimal_difference_pixels(to.center_im, view.center_im, view.zoom.deep(), view.height);
}

TEST(ViewFlight, LogZoomRoundTrips) {
    for (DeepZoom z : {DeepZoom{1.0, 0}, DeepZoom{2.5, 3}, DeepZoom{9.99, 1000}, DeepZoom{4.0, 533}}) {
        DeepZoom back = deep_zoom_from_log10(deep_zoom_log10(z));
        EXPECT_EQ(back.exponent10, z.exponent10);
        EXPECT_NEAR(back.mantissa, z.mantissa, 1e-9 * z.mantissa);
    }
}

TEST(ViewFlight, StartsHereLandsThereAndFliesAtTheTarget) {
    const View from = view_at("-0.5", "0", 2.0);
    const View to = view_at("-0.7436438870371587", "0.1318259042053119", 1e10);
    const ViewFlight flight = start_view_flight(from, to, 10.0, 2.0);
    bool arrived = true;
    View first = view_flight_at(flight, 10.0, &arrived);
    EXPECT_FALSE(arrived);
    EXPECT_DOUBLE_EQ(first.zoom.value(), 2.0);
    // Within a ten-thousandth of a pixel (the offset is rounded there; the destination's digits stay).
    const double step = pixel_step(from);
    EXPECT_NEAR(center_re_value(first), -0.5, 1e-4 * step);
    EXPECT_NEAR(center_im_value(first), 0.0, 1e-4 * step);

    // Halfway in time is halfway in log zoom (smoothstep's middle), and the target is halfway
    // from its starting pixel to the middle of the window.
    View mid = view_flight_at(flight, 11.0, &arrived);
    EXPECT_FALSE(arrived);
    EXPECT_NEAR(std::log10(mid.zoom.value()), 0.5 * (std::log10(2.0) + 10.0), 1e-9);
    const double x0 = target_x(from, to), y0 = target_y(from, to);
    EXPECT_NEAR(target_x(mid, to), 0.5 * (x0 + 320.0), 1e-3);
    EXPECT_NEAR(target_y(mid, to), 0.5 * (y0 + 180.0), 1e-3);

    // The zoom grows all the way.
    double last = 0.0;
    for (int i = 0; i <= 20; ++i) {
        View v = view_flight_at(flight, 10.0 + 0.1 * i, &arrived);
        EXPECT_GE(v.zoom.value(), last);
        last = v.zoom.value();
    }
    View end = view_flight_at(flight, 12.5, &arrived);
    EXPECT_TRUE(arrived);
    EXPECT_EQ(end.center_re, to.center_re);
    EXPECT_EQ(end.center_im, to.center_im);
    EXPECT_EQ(end.zoom, to.zoom);
}

// Past double's range (zoom 1e50 to 1e400): decimal centres; the target comes steadily closer to
// the middle of the window.
TEST(ViewFlight, DeepFlight) {
    const View from = view_at("-1.7497219297423385717", "0.0000005076", ViewZoom::from_deep({1.0, 50}));
    View to = from;
    to.center_re = "-1.74972192974233857170000000000000000000000000000012345";
    to.center_im = "0.00000050760000000000000000000000000000000000000000067";
    to.zoom = ViewZoom::from_deep({3.0, 400});
    const ViewFlight flight = start_view_flight(from, to, 0.0, 1.5);
    bool arrived = false;
    double last = std::hypot(target_x(from, to) - 320.0, target_y(from, to) - 180.0);
    for (int i = 1; i < 15; ++i) {
        View v = view_flight_at(flight, 0.1 * i, &arrived);
        EXPECT_FALSE(arrived);
        const double distance = std::hypot(target_x(v, to) - 320.0, target_y(v, to) - 180.0);
        EXPECT_LT(distance, last);
        last = distance;
    }
    View end = view_flight_at(flight, 1.5, &arrived);
    EXPECT_TRUE(arrived);
    EXPECT_EQ(end.center_re, to.center_re);
    EXPECT_EQ(end.zoom, to.zoom);
}

}  // namespace
}  // namespace ms
