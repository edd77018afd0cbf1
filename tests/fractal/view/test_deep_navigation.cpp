// test_deep_navigation.cpp: the exact centre arithmetic of navigation at any depth
// (compute/fractal/view/deep_navigation.h), checked against MPFR: an offset of some pixels at
// zoom 1e500 and 1e5000 moves the centre by exactly pixels * spacing (to a ten-thousandth of a
// pixel), the centre keeps every digit it had, its digits grow with the depth, the distance of
// two centres in pixels inverts the move, zoom scaling, and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "compute/fractal/view/deep_location.h"
#include "compute/fractal/numbers/mpfr.h"
#include "compute/fractal/view/deep_zoom_mpfr.h"
#include "compute/fractal/view/deep_navigation.h"
#include "compute/fractal/deep/deep_reference.h"

using namespace ms;

namespace {

DeepZoom zoom_of(const std::string& text) {
    DeepZoom z;
    EXPECT_EQ(parse_deep_zoom(text, &z), "");
    return z;
}

// (moved - start) / spacing - pixels, in pixels, computed in MPFR at the depth's precision.
double offset_error_pixels(const std::string& start, const std::string& moved, double pixels, DeepZoom zoom,
                           int height) {
    const mpfr_prec_t bits = mpfr_prec_t(deep_reference_precision_bits(zoom, height) + 64);
    MpfrNumber a(bits), b(bits), spacing(bits);
    mpfr_set_decimal(a.get(), moved);
    mpfr_set_decimal(b.get(), start);
    mpfr_sub(a.get(), a.get(), b.get(), MPFR_RNDN);
    deep_pixel_spacing_mpfr(zoom, height, spacing.get());
    mpfr_div(a.get(), a.get(), spacing.get(), MPFR_RNDN);
    mpfr_sub_d(a.get(), a.get(), pixels, MPFR_RNDN);
    return mpfr_get_d(a.get(), MPFR_RNDN);
}

size_t fraction_length(const std::string& text) {
    size_t point = text.find('.');
    return point == std::string::npos ? 0 : text.size() - point - 1;
}

}  // namespace

// A centre of 130 digits, as deep views carry (the arithmetic is tested, not the place).
const char* kDeepRe =
    "-1.7490121133583474918553394693508097099785014614578155369227418148917656193213580599131549718"
    "1027628913146212806225738396437478113";

TEST(DeepNavigation, OffsetIsExactlyPixelsTimesSpacing) {
    for (const char* zoom_text : {"1e20", "3.7e500", "1e5000"}) {
        const DeepZoom zoom = zoom_of(zoom_text);
        const int height = 1080;
        const int64_t digits = deep_center_fraction_digits(zoom, height);
        for (double pixels : {1.0, -37.5, 0.001, 1919.75, -250000.0}) {
            const std::string moved = deep_offset_decimal(kDeepRe, pixels, zoom, height, digits);
            EXPECT_LE(std::fabs(offset_error_pixels(kDeepRe, moved, pixels, zoom, height)), 1e-4)
                << zoom_text << " by " << pixels << " pixels";
            // Every digit of the start is kept: at 1e500 and deeper the moved text starts with
            // the start's digits but the last, which a borrow may change.
            if (zoom.exponent10 >= 500) {
                EXPECT_EQ(moved.substr(0, 120), std::string(kDeepRe).substr(0, 120)) << zoom_text;
            }
        }
    }
}

TEST(DeepNavigation, DigitsGrowWithDepth) {
    const int height = 720;
    size_t last = 0;
    for (const char* zoom_text : {"1e10", "1e100", "1e500", "1e5000"}) {
        const DeepZoom zoom = zoom_of(zoom_text);
        const int64_t digits = deep_center_fraction_digits(zoom, height);
        // A ten-thousandth of a pixel: 10^-digits <= 1e-4 spacing < 10^(1-digits).
        EXPECT_EQ(
            digits,
            int64_t(std::ceil(std::log10(zoom.mantissa) + double(zoom.exponent10) + std::log10(height / 4.0))) + 4)
            << zoom_text;
        const std::string moved = deep_offset_decimal("-0.75", 0.3, zoom, height, digits);
        EXPECT_EQ(int64_t(fraction_length(moved)), digits) << zoom_text;
        EXPECT_GT(fraction_length(moved), last);
        last = fraction_length(moved);
    }
}

TEST(DeepNavigation, DifferenceInPixelsInvertsTheOffset) {
    for (const char* zoom_text : {"2.5", "1e300", "4.00000000000E533", "1e10000"}) {
        const DeepZoom zoom = zoom_of(zoom_text);
        const int height = 360;
        const int64_t digits = deep_center_fraction_digits(zoom, height);
        for (double pixels : {0.0, 12.25, -640.5}) {
            const std::string moved = deep_offset_decimal(kDeepRe, pixels, zoom, height, digits);
            EXPECT_NEAR(deep_decimal_difference_pixels(moved, kDeepRe, zoom, height), pixels, 1e-4) << zoom_text;
            EXPECT_NEAR(deep_decimal_difference_pixels(kDeepRe, moved, zoom, height), -pixels, 1e-4) << zoom_text;
        }
    }
    // Far apart at depth: beyond double, not a wrong finite number.
    EXPECT_TRUE(std::isinf(deep_decimal_difference_pixels("1", "0", zoom_of("1e500"), 100)));
}

TEST(DeepNavigation, ZoomScalesAcrossDecadesAndCompares) {
    const DeepZoom z = zoom_of("9.5e500");
    const DeepZoom in = deep_zoom_scaled(z, 2.0);
    EXPECT_EQ(in.exponent10, 501);
    EXPECT_NEAR(in.mantissa, 1.9, 1e-14);
    const DeepZoom out = deep_zoom_scaled(in, 0.5);
    EXPECT_EQ(out.exponent10, 500);
    EXPECT_NEAR(out.mantissa, 9.5, 1e-13);
    EXPECT_NEAR(deep_zoom_ratio(in, z), 2.0, 1e-14);
    EXPECT_EQ(deep_zoom_ratio(zoom_of("1e900"), z), INFINITY);
    EXPECT_EQ(deep_zoom_compare(in, z), 1);
    EXPECT_EQ(deep_zoom_compare(z, in), -1);
    EXPECT_EQ(deep_zoom_compare(z, z), 0);
    // Bad factors change nothing.
    EXPECT_EQ(deep_zoom_scaled(z, 0.0), z);
    EXPECT_EQ(deep_zoom_scaled(z, NAN), z);
}

TEST(DeepNavigation, BadInputThrowsASentence) {
    const DeepZoom zoom = zoom_of("1e500");
    EXPECT_THROW(deep_offset_decimal("0x10", 1.0, zoom, 100, 510), std::invalid_argument);
    EXPECT_THROW(deep_offset_decimal("-0.5", INFINITY, zoom, 100, 510), std::invalid_argument);
    EXPECT_THROW(deep_decimal_difference_pixels("1e", "0", zoom, 100), std::invalid_argument);
    try {
        deep_offset_decimal("nan", 1.0, zoom, 100, 510);
        FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
        const std::string s = e.what();
        EXPECT_TRUE(std::isupper((unsigned char)s[0])) << s;
        EXPECT_EQ(s.back(), '.') << s;
    }
}
