// test_view_deep.cpp: the View that `render` builds (zoom parsed from text, centre text,
// 64-bit iterations) reaches the deep path unchanged, picks the path that suits its depth,
// and renders what the MPFR brute force says (deep_truth.h's bar).
// `render` does exactly this: ViewZoom::parse or a .kfr, then deep_location(view) into deep_cpu
// (app/modes/cmd_render_deep.cpp). The end-to-end side (the PNG, its metadata, the exit codes)
// is tests/cli/deep_cli.sh.
//
// Locations: Kalles Fraktaler 2's benchmark location 1e50 (rust-fractal-core's
// locations/e50.toml; assets/locations/README.md gives the commit) at its own depth, and
// rust-fractal-core's e1000 centre seen from 1e300 (past double deltas: FloatExp).
#include <gtest/gtest.h>

#include <string>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/view.h"
#include "compute/io/assets.h"
#include "tests/fractal/deep/deep_truth.h"
#include "tests/fractal/deep/kfr_location.h"

using namespace ms;
using ms::test::load_location;

namespace {

// The view as `render --center=RE,IM --zoom=TEXT --iter=N --size=WxH` builds it.
View view_from_text(const DeepLocation& location, const std::string& zoom, int width, int height) {
    View view;
    view.center_re = location.center_re;
    view.center_im = location.center_im;
    EXPECT_EQ(ViewZoom::parse(zoom, &view.zoom), "");
    view.max_iterations = location.max_iterations;
    view.width = width;
    view.height = height;
    EXPECT_EQ(validate_view(view), "");
    return view;
}

}  // namespace

TEST(ViewDeep, TheViewHandsTheDeepPathItsLocationUnchanged) {
    const DeepLocation kfr = load_location("e533");
    View view = view_from_text(kfr, "4.00000000000E533", 48, 27);
    const DeepLocation back = deep_location(view);
    EXPECT_EQ(back.center_re, kfr.center_re);
    EXPECT_EQ(back.center_im, kfr.center_im);
    EXPECT_EQ(back.zoom, kfr.zoom);
    EXPECT_EQ(back.max_iterations, kfr.max_iterations);
    // And through ViewZoom::from_deep, as render --location does.
    view.zoom = ViewZoom::from_deep(kfr.zoom);
    EXPECT_EQ(deep_location(view).zoom, kfr.zoom);
    EXPECT_EQ(view.zoom.text(), "4.00000000000E533");
    EXPECT_EQ(resolve_precision(view, Precision::Auto), Precision::DeepFloatExp);
}

TEST(ViewDeep, RenderAt1e50MatchesMpfr) {
    const View view = view_from_text(load_location("e50"), "1e50", 8, 5);
    ASSERT_EQ(resolve_precision(view, Precision::Auto), Precision::DeepDouble);
    const DeepLocation location = deep_location(view);
    DeepFrame deep = deep_cpu(location, view.width, view.height);
    EXPECT_EQ(deep.stats.number_type, DeepNumberType::Double);
    expect_agreement(compare_with_truth(deep, brute_force(location, view.width, view.height)));
}

TEST(ViewDeep, RenderAt1e300MatchesMpfr) {
    const View view = view_from_text(load_location("e1000"), "1e300", 24, 14);
    ASSERT_EQ(resolve_precision(view, Precision::Auto), Precision::DeepFloatExp);
    EXPECT_FALSE(fp64_resolves(view));
    const DeepLocation location = deep_location(view);
    DeepFrame deep = deep_cpu(location, view.width, view.height);
    EXPECT_EQ(deep.stats.number_type, DeepNumberType::FloatExp);
    expect_agreement(compare_with_truth(deep, brute_force(location, view.width, view.height)));
}
