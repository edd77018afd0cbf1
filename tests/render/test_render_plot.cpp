// test_render_plot.cpp: the maths behind render/ui/plot.h, headless (no ImGui context): mapping
// values to pixels on log and linear axes and back, decade and 1-2-5 ticks with their labels,
// fitting axes to data, the nearest point to the mouse, interpolation along a log-log line.
#include <gtest/gtest.h>

#include <cmath>

#include "render/ui/plot.h"

namespace ms {
namespace {

PlotAxis log_axis(double lo, double hi) {
    PlotAxis a;
    a.log = true;
    a.min = lo;
    a.max = hi;
    return a;
}

PlotAxis linear_axis(double lo, double hi) {
    PlotAxis a;
    a.min = lo;
    a.max = hi;
    return a;
}

std::vector<double> values(const std::vector<PlotTick>& ticks, bool major_only) {
    std::vector<double> v;
    for (const PlotTick& t : ticks)
        if (t.major || !major_only) v.push_back(t.value);
    return v;
}

TEST(PlotAxis, LogFractionIsEvenPerDecade) {
    const PlotAxis a = log_axis(1.0, 1000.0);
    EXPECT_DOUBLE_EQ(plot_axis_fraction(a, 1.0), 0.0);
    EXPECT_NEAR(plot_axis_fraction(a, 10.0), 1.0 / 3.0, 1e-12);
    EXPECT_NEAR(plot_axis_fraction(a, 100.0), 2.0 / 3.0, 1e-12);
    EXPECT_DOUBLE_EQ(plot_axis_fraction(a, 1000.0), 1.0);
    EXPECT_NEAR(plot_axis_fraction(a, 10000.0), 4.0 / 3.0, 1e-12);  // beyond the range: beyond 1
    EXPECT_TRUE(std::isnan(plot_axis_fraction(a, 0.0)));            // no place on a log axis
    EXPECT_TRUE(std::isnan(plot_axis_fraction(a, -5.0)));
    EXPECT_NEAR(plot_axis_value(a, 0.5), std::sqrt(1000.0), 1e-9);  // the geometric middle
    EXPECT_NEAR(plot_axis_value(a, 2.0 / 3.0), 100.0, 1e-9);
}

TEST(PlotAxis, LinearFraction) {
    const PlotAxis a = linear_axis(-2.0, 6.0);
    EXPECT_DOUBLE_EQ(plot_axis_fraction(a, -2.0), 0.0);
    EXPECT_DOUBLE_EQ(plot_axis_fraction(a, 0.0), 0.25);
    EXPECT_DOUBLE_EQ(plot_axis_fraction(a, 6.0), 1.0);
    EXPECT_DOUBLE_EQ(plot_axis_value(a, 0.75), 4.0);
    EXPECT_DOUBLE_EQ(plot_axis_fraction(linear_axis(3.0, 3.0), 3.0), 0.5);  // empty range: the middle
}

TEST(PlotFrame, MapsToPixelsWithYUpAndBack) {
    PlotFrame f;
    f.min = ImVec2(100, 50);
    f.max = ImVec2(400, 350);
    f.x = log_axis(1.0, 1000.0);
    f.y = linear_axis(0.0, 10.0);
    ImVec2 p = plot_to_screen(f, {10.0, 5.0});
    EXPECT_NEAR(p.x, 200.0f, 1e-3f);
    EXPECT_NEAR(p.y, 200.0f, 1e-3f);
    p = plot_to_screen(f, {1000.0, 10.0});  // top right: the largest y is at the top
    EXPECT_NEAR(p.x, 400.0f, 1e-3f);
    EXPECT_NEAR(p.y, 50.0f, 1e-3f);
    p = plot_to_screen(f, {1.0, 0.0});
    EXPECT_NEAR(p.x, 100.0f, 1e-3f);
    EXPECT_NEAR(p.y, 350.0f, 1e-3f);
    const PlotPoint back = plot_from_screen(f, ImVec2(300.0f, 110.0f));
    EXPECT_NEAR(back.x, 100.0, 1e-4);
    EXPECT_NEAR(back.y, 8.0, 1e-5);
}

TEST(PlotTicks, DecadesLabelledWithMinorTicksBetween) {
    PlotAxis a = log_axis(100.0, 1e6);
    a.format = plot_format_si;
    const std::vector<PlotTick> ticks = plot_ticks(a);
    EXPECT_EQ(values(ticks, true), (std::vector<double>{100.0, 1e3, 1e4, 1e5, 1e6}));
    std::vector<std::string> labels;
    for (const PlotTick& t : ticks)
        if (t.major) labels.push_back(t.label);
    EXPECT_EQ(labels, (std::vector<std::string>{"100", "1K", "10K", "100K", "1M"}));
    // 2..9 times each of the four decades below the top, unlabelled.
    EXPECT_EQ(ticks.size(), 5u + 4u * 8u);
    for (const PlotTick& t : ticks)
        if (!t.major) {
            EXPECT_TRUE(t.label.empty());
        }
    EXPECT_DOUBLE_EQ(ticks[1].value, 200.0);
    EXPECT_FALSE(ticks[1].major);
}

TEST(PlotTicks, ManyDecadesLabelEveryFewAndDropMinors) {
    const std::vector<PlotTick> ticks = plot_ticks(log_axis(1e-9, 1e9), 8);
    // 19 decades, at most 8 labels: every third one, starting at the first.
    EXPECT_EQ(values(ticks, true), (std::vector<double>{1e-9, 1e-6, 1e-3, 1.0, 1e3, 1e6, 1e9}));
    for (const PlotTick& t : ticks) EXPECT_NEAR(std::log10(t.value), std::round(std::log10(t.value)), 1e-9);
    EXPECT_EQ(ticks.size(), 19u);  // every decade still gets a grid line
}

TEST(PlotTicks, NarrowLogRangeLabels2And5) {
    const std::vector<PlotTick> ticks = plot_ticks(log_axis(2.0, 8.0));
    EXPECT_EQ(values(ticks, false), (std::vector<double>{2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(values(ticks, true), (std::vector<double>{2, 5}));
}

TEST(PlotTicks, LinearStepsOf125) {
    std::vector<PlotTick> ticks = plot_ticks(linear_axis(0.0, 1.0), 5);
    ASSERT_EQ(ticks.size(), 6u);
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(ticks[size_t(i)].value, 0.2 * i, 1e-12);
    EXPECT_EQ(ticks[0].label, "0");  // not "-0" or "1.1e-17"
    EXPECT_FALSE(std::signbit(ticks[0].value));
    ticks = plot_ticks(linear_axis(-3.0, 7.0), 8);  // 1.25 per label rounds up to 2
    EXPECT_EQ(values(ticks, true), (std::vector<double>{-2, 0, 2, 4, 6}));
    EXPECT_EQ(ticks[0].label, "-2");
}

TEST(PlotFit, LogAxesRoundTo125AndKeepADecade) {
    std::vector<PlotSeries> series(2);
    series[0].points = {{400, 0.00003}, {1e4, 0.0009}, {268435456, 120.0}};
    series[1].points = {{100, -1.0}, {2e9, 0.0}};  // not on a log axis: left out
    PlotAxis x = log_axis(1, 10), y = log_axis(1, 10);
    plot_fit_axes(series, &x, &y);
    EXPECT_DOUBLE_EQ(x.min, 200.0);
    EXPECT_DOUBLE_EQ(x.max, 5e8);
    EXPECT_NEAR(y.min, 2e-5, 1e-18);
    EXPECT_DOUBLE_EQ(y.max, 200.0);

    series[0].points = {{3, 3}, {4, 4}};  // no power of ten inside 2..5: widen to 1..10
    plot_fit_axes(series, &x, &y);
    EXPECT_DOUBLE_EQ(x.min, 1.0);
    EXPECT_DOUBLE_EQ(x.max, 10.0);

    series[0].points = {{100, 1}, {1e7, 1}};  // exact powers of ten stay put
    plot_fit_axes(series, &x, &y);
    EXPECT_DOUBLE_EQ(x.min, 100.0);
    EXPECT_DOUBLE_EQ(x.max, 1e7);
}

TEST(PlotFit, LinearAxesFromZeroAndHiddenSeriesIgnored) {
    std::vector<PlotSeries> series(2);
    series[0].points = {{1, 3}, {2, 9}};
    series[1].points = {{0, 1000}};
    series[1].hidden = true;
    PlotAxis x, y;
    plot_fit_axes(series, &x, &y);
    EXPECT_DOUBLE_EQ(y.min, 0.0);  // 3 is within half the range of 0
    EXPECT_DOUBLE_EQ(y.max, 10.0);
    EXPECT_DOUBLE_EQ(x.min, 1.0);
    EXPECT_DOUBLE_EQ(x.max, 2.0);
}

TEST(PlotFit, IncludeWidensToReferenceLines) {
    PlotAxis y = log_axis(0.1, 1000.0);
    plot_include(&y, 3352.0);
    EXPECT_DOUBLE_EQ(y.max, 5000.0);
    plot_include(&y, 0.03);
    EXPECT_DOUBLE_EQ(y.min, 0.02);
    plot_include(&y, 50.0);  // already inside: unchanged
    EXPECT_DOUBLE_EQ(y.min, 0.02);
    EXPECT_DOUBLE_EQ(y.max, 5000.0);
}

TEST(PlotNearest, FindsTheClosestVisiblePointWithinReach) {
    PlotFrame f;
    f.min = ImVec2(0, 0);
    f.max = ImVec2(300, 300);
    f.x = log_axis(1.0, 1000.0);  // 100 pixels per decade
    f.y = log_axis(1.0, 1000.0);
    std::vector<PlotSeries> series(2);
    series[0].points = {{1, 1}, {10, 10}, {100, 100}};  // pixels (0,300) (100,200) (200,100)
    series[1].points = {{10, 20}, {1000, 1}};           // (100,~170) (300,300)
    PlotNearest n = plot_nearest_point(f, series, ImVec2(104, 196), 10.0);
    EXPECT_EQ(n.series, 0);
    EXPECT_EQ(n.point, 1);
    EXPECT_NEAR(n.distance_px, std::sqrt(32.0), 1e-3);
    n = plot_nearest_point(f, series, ImVec2(101, 175), 10.0);
    EXPECT_EQ(n.series, 1);
    EXPECT_EQ(n.point, 0);
    n = plot_nearest_point(f, series, ImVec2(150, 150), 10.0);  // nothing within 10 pixels
    EXPECT_EQ(n.series, -1);
    EXPECT_EQ(n.point, -1);
    series[0].hidden = true;  // hidden lines cannot be picked
    n = plot_nearest_point(f, series, ImVec2(104, 196), 40.0);
    EXPECT_EQ(n.series, 1);
    EXPECT_EQ(n.point, 0);
}

TEST(PlotInterpolate, StraightLinesOnLogLog) {
    PlotSeries s;
    s.points = {{10, 1}, {1000, 100}, {1e4, 100}};
    const PlotAxis x = log_axis(1, 1e4), y = log_axis(0.1, 1000);
    EXPECT_NEAR(plot_series_value_at(s, x, y, 100.0), 10.0, 1e-9);  // halfway in log space
    EXPECT_NEAR(plot_series_value_at(s, x, y, 10.0), 1.0, 1e-12);
    EXPECT_NEAR(plot_series_value_at(s, x, y, 3000.0), 100.0, 1e-9);
    EXPECT_TRUE(std::isnan(plot_series_value_at(s, x, y, 5.0)));  // outside the data
    // The same points on linear axes: linear interpolation.
    EXPECT_NEAR(plot_series_value_at(s, linear_axis(0, 1e4), linear_axis(0, 100), 505.0), 50.5, 1e-9);
}

TEST(PlotFormat, SiSuffixes) {
    EXPECT_EQ(plot_format_si(0), "0");
    EXPECT_EQ(plot_format_si(100), "100");
    EXPECT_EQ(plot_format_si(1000), "1K");
    EXPECT_EQ(plot_format_si(2.5e6), "2.5M");
    EXPECT_EQ(plot_format_si(268435456), "268M");
    EXPECT_EQ(plot_format_si(1e9), "1G");
    EXPECT_EQ(plot_format_si(0.02), "0.02");
    EXPECT_EQ(plot_format_general(3352.32), "3.35e+03");
}

}  // namespace
}  // namespace ms
