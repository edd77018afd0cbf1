// test_number_text.cpp: the one parser of numbers as text (compute/number_text.h), and the
// inputs that separate parsers would treat differently: every input below is one that one mode
// could accept and another refuse (or crash on).
//   - the decimal grammar: plain decimals only, no hex, spaces, inf or nan; exponents bounded;
//   - sizes: no wrap-around (sscanf's %d made 4294967297 into 1), no stack overflow on 26,000
//     digits (std::regex recursed per character);
//   - whole numbers of any length without overflow;
//   - the centre of a View uses the same grammar (validate_view), so the window and `render`
//     accept the same centres.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <string>

#include "compute/system/number_text.h"
#include "compute/fractal/view/view.h"

namespace {

bool accepted(const std::string& text) {
    ms::DecimalNumber d;
    return ms::parse_decimal(text, &d).empty();
}

double value_of(const std::string& text) {
    double v = std::nan("");
    EXPECT_EQ(ms::parse_finite_double(text, &v), "") << text;
    return v;
}

}  // namespace

TEST(NumberText, PlainDecimalsAreAccepted) {
    EXPECT_EQ(value_of("-0.75"), -0.75);
    EXPECT_EQ(value_of("1e-5"), 1e-5);
    EXPECT_EQ(value_of("+.5"), 0.5);
    EXPECT_EQ(value_of("1."), 1.0);
    EXPECT_EQ(value_of("0"), 0.0);
    EXPECT_EQ(value_of("-0"), 0.0);
    EXPECT_EQ(value_of("2.5E+3"), 2500.0);
    // Leading zeros in the exponent are harmless, in every mode alike.
    EXPECT_EQ(value_of("1e-00000001"), 0.1);
    // Below double's range: rounds to zero, like any decimal too small for a double.
    EXPECT_EQ(value_of("1e-9999"), 0.0);
    EXPECT_EQ(value_of("-0.743643887037158704752191506114774"), -0.743643887037158704752191506114774);
}

TEST(NumberText, EverythingElseIsRefused) {
    // strtod takes hex and a leading space; this grammar does not.
    for (const char* text :
         {"0x1p-1", "0x10", " 1",  "1 ",  "\t1", "inf", "-inf",  "nan", "NAN",   "infinity", "",      "+",     "-", ".",
          "e5",     "1e",   "1e+", "1e-", "--1", "+-1", "1.2.3", "1,5", "1e5.5", "1d3",      "0b101", "1_000", "١"})
        EXPECT_FALSE(accepted(text)) << "'" << text << "'";
    ms::DecimalNumber d;
    EXPECT_NE(ms::parse_decimal("0x1p-1", &d).find("is not a decimal number"), std::string::npos);
}

TEST(NumberText, ExponentsAreBounded) {
    EXPECT_TRUE(accepted("1e9999"));
    EXPECT_TRUE(accepted("1e-9999"));
    ms::DecimalNumber d;
    const std::string problem = ms::parse_decimal("1e10000", &d);
    EXPECT_NE(problem.find("exponent beyond 9999"), std::string::npos) << problem;
    // A long exponent never overflows the accumulator.
    EXPECT_FALSE(accepted("1e" + std::string(400, '9')));
    double v = 0.0;
    EXPECT_NE(ms::parse_finite_double("1e400", &v).find("beyond the range of a double"), std::string::npos);
    EXPECT_NE(ms::parse_finite_double("-1.7e309", &v), "");
}

TEST(NumberText, DecimalArithmeticKeepsEveryDigit) {
    ms::DecimalNumber a, b;
    ASSERT_EQ(ms::parse_decimal("-0.743643887037158704752191506114774", &a), "");
    ASSERT_EQ(ms::parse_decimal("0.000000000000000000000000000000001", &b), "");
    EXPECT_EQ(ms::format_decimal(ms::add_decimals(a, b)), "-0.743643887037158704752191506114773");
    ASSERT_EQ(ms::parse_decimal("1.500", &a), "");
    ASSERT_EQ(ms::parse_decimal("-1.5", &b), "");
    EXPECT_EQ(ms::format_decimal(ms::add_decimals(a, b)), "0");
    ASSERT_EQ(ms::parse_decimal("2.5e3", &a), "");
    EXPECT_EQ(ms::format_decimal(a), "2500");
    ASSERT_EQ(ms::parse_decimal("-0.000", &a), "");
    EXPECT_EQ(ms::format_decimal(a), "0");
}

TEST(NumberText, SizesNeverWrap) {
    int w = 0, h = 0;
    EXPECT_EQ(ms::parse_size_text("1920x1080", INT_MAX, &w, &h), "");
    EXPECT_EQ(w, 1920);
    EXPECT_EQ(h, 1080);
    EXPECT_EQ(ms::parse_size_text("16X9", INT_MAX, &w, &h), "");
    // sscanf("%d") turns 4294967297 into 1: a 1x36 PNG with exit 0.
    std::string problem = ms::parse_size_text("4294967297x36", INT_MAX, &w, &h);
    EXPECT_NE(problem.find("larger than"), std::string::npos) << problem;
    EXPECT_NE(ms::parse_size_text("99999999999x90", INT_MAX, &w, &h), "");
    EXPECT_NE(ms::parse_size_text("99999999999x1", 16, &w, &h), "");
    EXPECT_NE(ms::parse_size_text("0x100", INT_MAX, &w, &h).find("side of 0"), std::string::npos);
    for (const char* bad : {"", "x", "10x", "x10", "10", "10x10x10", "-5x5", "5x-5", "+5x5", " 5x5", "5x5 ", "5 x 5",
                            "axb", "1e3x5", "0x10p3"})
        EXPECT_NE(ms::parse_size_text(bad, INT_MAX, &w, &h), "") << "'" << bad << "'";
    EXPECT_EQ(w, 16);  // untouched by the failures
}

TEST(NumberText, AHugeSizeIsRefusedWithoutRecursion) {
    // std::regex_match recurses once per character and dies with SIGSEGV on ~26,000 digits:
    // the parser must not. The message quotes the text cut short.
    int w = 0, h = 0;
    const std::string digits(26000, '7');
    std::string problem = ms::parse_size_text(digits + "x10", INT_MAX, &w, &h);
    EXPECT_NE(problem.find("larger than"), std::string::npos);
    EXPECT_LT(problem.size(), 200u) << problem;
    problem = ms::parse_size_text(std::string(1 << 20, '1'), INT_MAX, &w, &h);
    EXPECT_NE(problem.find("not of the form"), std::string::npos);
}

TEST(NumberText, WholeNumbersOfAnyLength) {
    int64_t v = 0;
    EXPECT_EQ(ms::parse_whole_number("9223372036854775807", INT64_MIN, INT64_MAX, &v), "");
    EXPECT_EQ(v, INT64_MAX);
    EXPECT_EQ(ms::parse_whole_number("-9223372036854775808", INT64_MIN, INT64_MAX, &v), "");
    EXPECT_EQ(v, INT64_MIN);
    EXPECT_NE(ms::parse_whole_number("9223372036854775808", INT64_MIN, INT64_MAX, &v), "");
    EXPECT_NE(ms::parse_whole_number(std::string(5000, '9'), 0, 10, &v), "");
    EXPECT_NE(ms::parse_whole_number("1e3", 0, 10000, &v), "");
    EXPECT_NE(ms::parse_whole_number("11", 0, 10, &v), "");
    EXPECT_NE(ms::parse_whole_number("", 0, 10, &v), "");
}

TEST(NumberText, TheViewsCentreUsesTheSameGrammar) {
    // A lax `render --center=0x1p-1,0` would write a PNG the window then hangs on.
    ms::View view;
    view.center_re = "0x1p-1";
    EXPECT_NE(ms::validate_view(view), "");
    view.center_re = " -0.5";
    EXPECT_NE(ms::validate_view(view), "");
    view.center_re = "1e-00000001";
    EXPECT_EQ(ms::validate_view(view), "");
    view.center_re = "1e400";
    EXPECT_NE(ms::validate_view(view).find("beyond the range"), std::string::npos);
}

TEST(NumberText, ZoomLimitsAreTheSameForEveryMode) {
    // Every mode's limit is DeepLocation's (1E60000); navigation in double
    // (the window, until it navigates in MPFR) stops at kMaxDoubleZoom and says so.
    ms::View view;
    view.zoom = ms::kMaxDoubleZoom;
    EXPECT_EQ(ms::validate_view(view), "");
    EXPECT_EQ(ms::validate_double_view(view), "");
    view.zoom = 1.7e308;
    EXPECT_EQ(ms::validate_view(view), "");
    EXPECT_NE(ms::validate_double_view(view).find("deeper than the window can navigate"), std::string::npos);
    ASSERT_EQ(ms::ViewZoom::parse("9.99E60000", &view.zoom), "");
    EXPECT_EQ(ms::validate_view(view), "");
    EXPECT_NE(ms::ViewZoom::parse("1E60001", &view.zoom), "");
    view.zoom = ms::kMinZoom / 2;
    EXPECT_NE(ms::validate_view(view).find("the zoom must be between"), std::string::npos);
    EXPECT_NE(ms::validate_view(view), "");
    view.zoom = std::nan("");
    EXPECT_NE(ms::validate_view(view), "");
}
