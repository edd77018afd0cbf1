// test_video_flight_path.cpp: the frames of a keyframed video (compute/video/flight_path.h,
// keyframes_plan.h). A path starts and ends exactly at its keyframes (texts verbatim, at any
// depth); zooming in to a point inside the first view is monotone in log zoom and the centre
// moves monotonically and smoothly (bounded second differences, no kink where the centre
// switches ends); a pure zoom is the straight dive's exponential zoom; a far pan climbs (zooms
// out) and comes back down; at zoom 1e500 the centre stays on the line between the keyframes to a
// small fraction of a pixel; bad plans are refused with a sentence.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "compute/fractal/view/deep_navigation.h"
#include "compute/video/flight_path.h"
#include "compute/video/keyframes_plan.h"

using namespace ms;

namespace {

View small_base() {
    View base;
    base.width = 64;
    base.height = 36;
    return base;
}

Keyframe key(double time_s, const std::string& re, const std::string& im, const std::string& zoom, int64_t its = 1000,
             double palette = 0.0) {
    Keyframe k;
    k.time_s = time_s;
    k.center_re = re;
    k.center_im = im;
    EXPECT_EQ(ViewZoom::parse(zoom, &k.zoom), "");
    k.max_iterations = its;
    k.palette_offset = palette;
    return k;
}

KeyframePlan plan_of(const std::vector<Keyframe>& keyframes, double fps, View base = small_base()) {
    KeyframePlan plan;
    EXPECT_EQ(make_keyframe_plan(keyframes, base, fps, kFlightRho, &plan), "");
    return plan;
}

void expect_view_is_keyframe(const View& v, const Keyframe& k) {
    EXPECT_EQ(v.center_re, k.center_re);
    EXPECT_EQ(v.center_im, k.center_im);
    EXPECT_TRUE(v.zoom == k.zoom) << v.zoom.text() << " vs " << k.zoom.text();
    EXPECT_EQ(v.max_iterations, k.max_iterations);
    EXPECT_EQ(v.palette_offset, k.palette_offset);
}

const char* kSeahorseRe = "-0.743643887037158704752191506114774";
const char* kSeahorseIm = "0.131825904205311970493132056385139";

// max |x[k+1] - 2 x[k] + x[k-1]| / max |x[k+1] - x[k]|: for a smooth curve about its curvature
// times the step, so it halves when the frame rate doubles; at a kink or a jump it stays near
// 1 or 2 whatever the frame rate.
double second_difference_ratio(const std::vector<double>& x) {
    double first = 0.0, second = 0.0;
    for (size_t k = 1; k < x.size(); ++k) first = std::max(first, std::fabs(x[k] - x[k - 1]));
    for (size_t k = 1; k + 1 < x.size(); ++k) second = std::max(second, std::fabs(x[k + 1] - 2 * x[k] + x[k - 1]));
    return first > 0.0 ? second / first : 0.0;
}

// One quantity of every frame of the keyframes' video at `fps`.
template <typename Get>
std::vector<double> curve(const std::vector<Keyframe>& keyframes, double fps, Get get) {
    KeyframePlan plan;
    EXPECT_EQ(make_keyframe_plan(keyframes, small_base(), fps, kFlightRho, &plan), "");
    std::vector<double> values;
    for (const View& v : keyframe_plan_frames(plan)) values.push_back(get(v));
    return values;
}

// Smooth: the second differences are small and halve (within 0.6) when the frame rate doubles.
template <typename Get>
void expect_smooth(const std::vector<Keyframe>& keyframes, double fps, Get get, const char* what) {
    SCOPED_TRACE(what);
    const double coarse = second_difference_ratio(curve(keyframes, fps, get));
    const double fine = second_difference_ratio(curve(keyframes, 2.0 * fps, get));
    EXPECT_LT(coarse, 0.3);
    EXPECT_LT(fine, 0.6 * coarse);
}

}  // namespace

TEST(FlightPath, ZoomingInIsMonotoneSmoothAndEndsExactlyAtTheKeyframes) {
    const std::vector<Keyframe> k = {key(0, "-0.75", "0", "1", 200, 0.0),
                                     key(10, kSeahorseRe, kSeahorseIm, "1e10", 20000, 0.75)};
    const KeyframePlan plan = plan_of(k, 30.0);
    ASSERT_EQ(plan.frame_count, 300);
    const std::vector<View> frames = keyframe_plan_frames(plan);
    ASSERT_EQ(frames.size(), 300u);
    expect_view_is_keyframe(frames.front(), k[0]);
    expect_view_is_keyframe(frames.back(), k[1]);

    std::vector<double> log_zoom, re, im, pan;
    for (size_t i = 0; i < frames.size(); ++i) {
        const View& v = frames[i];
        ASSERT_EQ(validate_view(v), "") << i;
        EXPECT_EQ(v.width, 64);
        log_zoom.push_back(v.zoom.log10());
        re.push_back(center_re_value(v));
        im.push_back(center_im_value(v));
        pan.push_back(flight_pan_fraction(plan.segments[0], double(i) / 299.0));
        if (i > 0) {
            SCOPED_TRACE("frame " + std::to_string(i));
            EXPECT_GT(log_zoom[i], log_zoom[i - 1]);                       // monotone zoom in
            EXPECT_GE(pan[i], pan[i - 1]);                                 // the centre never turns back
            EXPECT_GE(v.max_iterations, frames[i - 1].max_iterations);     // iterations monotone
            EXPECT_GE(v.palette_offset, frames[i - 1].palette_offset);
        }
    }
    // Smooth: log zoom and the centre have no kink, not even where the centre is taken from the
    // other end.
    expect_smooth(k, 30.0, [](const View& v) { return v.zoom.log10(); }, "log zoom");
    expect_smooth(k, 30.0, [](const View& v) { return center_re_value(v); }, "centre, real part");
    expect_smooth(k, 30.0, [](const View& v) { return center_im_value(v); }, "centre, imaginary part");
    // The centre lies on the line from c0 to c1 at the pan's share, in every frame's own pixels.
    const double re0 = -0.75, re1 = std::stod(kSeahorseRe), im1 = std::stod(kSeahorseIm);
    for (size_t i = 1; i + 1 < frames.size(); ++i) {
        const double step = pixel_step(frames[i]);
        EXPECT_NEAR((re[i] - (re0 + pan[i] * (re1 - re0))) / step, 0.0, 1e-3) << i;
        EXPECT_NEAR((im[i] - pan[i] * im1) / step, 0.0, 1e-3) << i;
    }
}

TEST(FlightPath, APureZoomIsTheStraightDive) {
    // Same centre: log zoom is linear in time, frame k of n at Z^(k / (n - 1)) from zoom 1.
    const std::vector<Keyframe> k = {key(0, kSeahorseRe, kSeahorseIm, "1"), key(3, kSeahorseRe, kSeahorseIm, "1e50")};
    const KeyframePlan plan = plan_of(k, 10.0);
    ASSERT_EQ(plan.frame_count, 30);
    for (int64_t i = 0; i < plan.frame_count; ++i) {
        const View v = keyframe_plan_frame(plan, i);
        const double expected = std::pow(1e50, double(i) / 29.0);
        EXPECT_NEAR(v.zoom.value() / expected, 1.0, 1e-12) << i;
        EXPECT_EQ(v.center_re, kSeahorseRe);
        EXPECT_EQ(v.center_im, kSeahorseIm);
    }
    EXPECT_NEAR(plan.segments[0].length, 50.0 * std::log(10.0) / kFlightRho, 1e-9);
}

TEST(FlightPath, AFarPanClimbsAndComesBackDown) {
    // Two views at zoom 1e6 a hundredth apart (thousands of image widths): the flight zooms out
    // to about the distance, pans, and zooms back in; the zoom falls then rises, once.
    const std::vector<Keyframe> k = {key(0, "-0.75", "0.1", "1e6"), key(4, "-0.74", "0.1", "1e6")};
    const KeyframePlan plan = plan_of(k, 25.0);
    std::vector<double> z;
    for (int64_t i = 0; i < plan.frame_count; ++i) z.push_back(keyframe_plan_frame(plan, i).zoom.log10());
    const size_t lowest = size_t(std::min_element(z.begin(), z.end()) - z.begin());
    EXPECT_LT(z[lowest], 4.0);  // far above both ends
    EXPECT_NEAR(double(lowest), double(z.size() - 1) / 2.0, 1.0);  // symmetric: the top is halfway
    for (size_t i = 1; i < z.size(); ++i) {
        if (i <= lowest) {
            EXPECT_LT(z[i], z[i - 1]) << i;
        } else if (i > lowest + 1) {  // the two frames around the top are level
            EXPECT_GT(z[i], z[i - 1]) << i;
        }
    }
    expect_smooth(k, 25.0, [](const View& v) { return v.zoom.log10(); }, "log zoom");
    expect_smooth(k, 25.0, [](const View& v) { return center_re_value(v); }, "centre, real part");
}

TEST(FlightPath, DeepPathsStayExact) {
    // c0 at zoom 1e500 with a 520-digit centre; c1 five pixels (of c0's frame) away, at 1e520.
    const std::string re0 = deep_offset_decimal("-1.7490000000001", 0.37, DeepZoom{1.0, 500}, 36, 505);
    const std::string im0 = deep_offset_decimal("0", 0.21, DeepZoom{1.0, 500}, 36, 505);
    const std::string re1 = deep_offset_decimal(re0, 4.0, DeepZoom{1.0, 500}, 36, 530);
    const std::string im1 = deep_offset_decimal(im0, -3.0, DeepZoom{1.0, 500}, 36, 530);
    const std::vector<Keyframe> k = {key(0, re0, im0, "1e500"), key(2, re1, im1, "1E520")};
    const KeyframePlan plan = plan_of(k, 30.0);
    const std::vector<View> frames = keyframe_plan_frames(plan);
    expect_view_is_keyframe(frames.front(), k[0]);
    expect_view_is_keyframe(frames.back(), k[1]);
    const DeepZoom z0{1.0, 500};
    double previous_pan = 0.0;
    for (size_t i = 1; i + 1 < frames.size(); ++i) {
        SCOPED_TRACE("frame " + std::to_string(i));
        const View& v = frames[i];
        ASSERT_EQ(validate_view(v), "");
        EXPECT_GT(v.zoom.log10(), frames[i - 1].zoom.log10());
        // In c0's pixels the centre is on the segment from (0, 0) to (4, -3) at the pan's share,
        // to a ten-thousandth of the frame's own pixel (its centre's last digit).
        const double x = deep_decimal_difference_pixels(v.center_re, re0, z0, 36);
        const double y = deep_decimal_difference_pixels(v.center_im, im0, z0, 36);
        const double pan = flight_pan_fraction(plan.segments[0], double(i) / double(frames.size() - 1));
        const double frame_pixels_per_c0_pixel = deep_zoom_ratio(v.zoom.deep(), z0);
        EXPECT_LE(std::fabs(x - 4.0 * pan) * frame_pixels_per_c0_pixel, 1e-4);
        EXPECT_LE(std::fabs(y + 3.0 * pan) * frame_pixels_per_c0_pixel, 1e-4);
        EXPECT_GE(pan, previous_pan);
        previous_pan = pan;
        // Near the end, measured from c1 in the frame's own pixels (20 orders of magnitude
        // finer): still on the line, to a thousandth of a pixel.
        const double xe = deep_decimal_difference_pixels(v.center_re, re1, v.zoom.deep(), 36);
        const double ye = deep_decimal_difference_pixels(v.center_im, im1, v.zoom.deep(), 36);
        if (pan > 0.5) {
            EXPECT_NEAR(xe * -3.0, ye * 4.0, 1e-3 * std::hypot(xe, ye) + 1e-3);
        }
        // Digits follow the depth: a ten-thousandth of the frame's pixel, no more.
        EXPECT_LE(v.center_re.size(), size_t(deep_center_fraction_digits(v.zoom.deep(), 36) + 600));
    }
}

TEST(FlightPath, ThreeKeyframesPassThroughTheMiddleOne) {
    const std::vector<Keyframe> k = {key(0, "-0.75", "0", "1", 100, 0.0), key(1, "-0.75", "0.1", "50", 1000, 0.5),
                                     key(2.5, "-0.7", "0.2", "2000", 300, 1.0)};
    const KeyframePlan plan = plan_of(k, 10.0);
    EXPECT_EQ(plan.frame_count, 25);
    expect_view_is_keyframe(keyframe_plan_view_at(plan, 1.0), k[1]);
    expect_view_is_keyframe(keyframe_plan_view_at(plan, -5.0), k[0]);   // clamped
    expect_view_is_keyframe(keyframe_plan_view_at(plan, 99.0), k[2]);
    // Iterations: up from 100 to 1000, then down to 300, never outside either segment's pair.
    const View a = keyframe_plan_view_at(plan, 0.5), b = keyframe_plan_view_at(plan, 1.75);
    EXPECT_GT(a.max_iterations, 100);
    EXPECT_LT(a.max_iterations, 1000);
    EXPECT_GT(b.max_iterations, 300);
    EXPECT_LT(b.max_iterations, 1000);
    EXPECT_DOUBLE_EQ(a.palette_offset, 0.25);
}

TEST(FlightPath, TimesByLengthGiveAnEvenPace) {
    std::vector<Keyframe> k = {key(0, "-0.75", "0", "1"), key(1, "-0.75", "0", "1e3"), key(2, "-0.75", "0", "1e9")};
    ASSERT_EQ(keyframe_times_by_length(&k, small_base(), 9.0, kFlightRho), "");
    EXPECT_EQ(k[0].time_s, 0.0);
    EXPECT_NEAR(k[1].time_s, 3.0, 1e-9);  // 3 of the 9 decades
    EXPECT_EQ(k[2].time_s, 9.0);
    // One camera twice: a short pause, still strictly increasing.
    std::vector<Keyframe> pause = {key(0, "-0.75", "0", "1"), key(1, "-0.75", "0", "1"), key(2, "-0.75", "0", "1e4")};
    ASSERT_EQ(keyframe_times_by_length(&pause, small_base(), 10.0, kFlightRho), "");
    EXPECT_GT(pause[1].time_s, 0.0);
    EXPECT_LT(pause[1].time_s, 0.2);
    EXPECT_EQ(validate_keyframes(pause), "");
}

TEST(FlightPath, BadPlansAreRefused) {
    const std::vector<Keyframe> k = {key(0, "-0.75", "0", "1"), key(2, "-0.75", "0", "10")};
    KeyframePlan plan;
    EXPECT_NE(make_keyframe_plan(k, small_base(), 0.0, kFlightRho, &plan).find("frame rate"), std::string::npos);
    EXPECT_NE(make_keyframe_plan(k, small_base(), 241.0, kFlightRho, &plan).find("frame rate"), std::string::npos);
    EXPECT_NE(make_keyframe_plan(k, small_base(), 30.0, 0.0, &plan).find("rho"), std::string::npos);
    EXPECT_NE(make_keyframe_plan({k[0]}, small_base(), 30.0, kFlightRho, &plan).find("at least two"),
              std::string::npos);
    const std::vector<Keyframe> brief = {key(0, "-0.75", "0", "1"), key(0.01, "-0.75", "0", "10")};
    EXPECT_NE(make_keyframe_plan(brief, small_base(), 30.0, kFlightRho, &plan).find("two frames"), std::string::npos);
}
