// test_deep_numbers.cpp: the deep zoom's numbers and texts: FloatExp arithmetic (add, mul,
// compare, values far below double's range: 1e-1000, 1e-100000), the extended-range zoom's
// parse/print round trip, and the bad inputs of zoom, centre, iterations and .kfr files, each
// of which must give one sentence.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "compute/fractal/view/kfr.h"
#include "compute/fractal/view/deep_location.h"
#include "compute/fractal/numbers/mpfr.h"
#include "compute/fractal/numbers/floatexp.h"
#include "compute/io/assets.h"

using namespace ms;

namespace {

// A FloatExp from a power of ten far outside double: 10^k = 2^(k log2 10), split exactly enough
// for the tests' relative comparisons.
FloatExp pow10_fe(int64_t k) {
    long double bits = (long double)k * 3.32192809488736234787031942948939L;
    long double whole = std::floor(bits);
    return fe_make(double(std::exp2(bits - whole)), int64_t(whole));
}

// log10 of a positive FloatExp.
double log10_fe(FloatExp x) { return std::log10(x.mantissa) + double(x.exponent) * 0.30102999566398119521; }

// One sentence: starts with a capital letter, ends with a full stop, no line break.
void expect_sentence(const std::string& s) {
    ASSERT_FALSE(s.empty());
    EXPECT_TRUE(std::isupper((unsigned char)s[0]) || s[0] == '/') << s;
    EXPECT_EQ(s.back(), '.') << s;
    EXPECT_EQ(s.find('\n'), std::string::npos) << s;
}

}  // namespace

TEST(FloatExp, NormalisesAndConvertsBack) {
    for (double x : {1.0, -1.0, 3.0, 0.1, -12345.678, 1e-300, 4.9e-324, 1.7e308}) {
        FloatExp f = fe_from_double(x);
        EXPECT_GE(std::fabs(f.mantissa), 1.0) << x;
        EXPECT_LT(std::fabs(f.mantissa), 2.0) << x;
        EXPECT_EQ(fe_to_double(f), x);
    }
    FloatExp zero = fe_from_double(0.0);
    EXPECT_EQ(zero.mantissa, 0.0);
    EXPECT_EQ(zero.exponent, kFloatExpZeroExponent);
    EXPECT_EQ(fe_to_double(zero), 0.0);
}

TEST(FloatExp, AddAndMulMatchDoubleInRange) {
    const double values[] = {1.5, -2.25, 3e10, -7e-5, 0.0, 1.0 / 3.0, 1e100, -1e-100};
    for (double a : values) {
        for (double b : values) {
            FloatExp fa = fe_from_double(a), fb = fe_from_double(b);
            EXPECT_EQ(fe_to_double(fa * fb), a * b) << a << " * " << b;
            // The aligned add rounds once, as double does, while the operands overlap.
            if (a == 0.0 || b == 0.0 || std::fabs(std::log2(std::fabs(a / b))) < 60) {
                EXPECT_EQ(fe_to_double(fa + fb), a + b) << a << " + " << b;
            }
            EXPECT_EQ(fe_to_double(fa - fb), a - b) << a << " - " << b;
            EXPECT_EQ(fa < fb, a < b) << a << " < " << b;
            EXPECT_EQ(fa == fb, a == b) << a << " == " << b;
        }
    }
}

// fe_fma rounds a b + c once, as fma does: the same bits as double's fma wherever the values are
// in double's range (deep_perturbation.h's fused loop runs on either type).
TEST(FloatExp, FmaMatchesDoubleFmaInRange) {
    auto expect_fma = [](double a, double b, double c) {
        const double expected = std::fma(a, b, c);
        const double got = fe_to_double(fe_fma(fe_from_double(a), fe_from_double(b), fe_from_double(c)));
        EXPECT_EQ(std::memcmp(&got, &expected, sizeof got), 0)
            << a << " * " << b << " + " << c << ": " << got << " against " << expected;
    };
    // a b exactly halfway between two doubles (1 + 3 2^-27 + 2^-53): a c far below it, of either
    // sign, decides the rounding, as it does for fma; without one it rounds to even.
    const double a = 1.0 + std::ldexp(1.0, -26), b = 1.0 + std::ldexp(1.0, -27);
    for (double c : {0.0, 1e-300, -1e-300, 1e-40, -1e-40, std::ldexp(1.0, -120), -std::ldexp(1.0, -120)})
        expect_fma(a, b, c);
    EXPECT_NE(std::fma(a, b, 1e-300), std::fma(a, b, -1e-300));  // the case above is a real tie
    // c far above a b, a b far above c, cancellation, zeros, signs.
    expect_fma(1e-150, 1e-150, 1.0);
    expect_fma(1e-150, -1e-150, -1.0);
    expect_fma(3.0, 1.0 / 3.0, -1.0);
    expect_fma(0.1, 10.0, -1.0);
    expect_fma(0.0, 5.0, -2.5);
    expect_fma(-7.0, 0.0, 1e-3);
    expect_fma(1e200, 1e100, -1e300);
    // And many more, with exponents across double's range (the products too).
    std::mt19937_64 random(20261125);
    std::uniform_real_distribution<double> mantissa(-2.0, 2.0);
    std::uniform_int_distribution<int> exponent(-300, 300);
    for (int i = 0; i < 20000; ++i) {
        const double x = std::ldexp(mantissa(random), exponent(random) / 2);
        const double y = std::ldexp(mantissa(random), exponent(random) / 2);
        // Half of the c near x y, where the sum cancels, the rest anywhere.
        const double z = i % 2 ? -x * y * (1.0 + std::ldexp(mantissa(random), -30))
                               : std::ldexp(mantissa(random), exponent(random));
        expect_fma(x, y, z);
    }
}

TEST(FloatExp, KeepsValuesThatUnderflowDouble) {
    for (int64_t k : {1000, 100000}) {
        FloatExp tiny = pow10_fe(-k);        // 1e-1000, 1e-100000
        EXPECT_EQ(fe_to_double(tiny), 0.0);  // double has nothing there
        EXPECT_NEAR(log10_fe(tiny), double(-k), 1e-9);
        FloatExp square = tiny * tiny;
        EXPECT_NEAR(log10_fe(square), double(-2 * k), 1e-9);
        // 3e-k + 4e-k = 7e-k; (7e-k)^2 / 1e-2k = 49.
        FloatExp seven = fe_from_double(3.0) * tiny + fe_from_double(4.0) * tiny;
        EXPECT_NEAR(fe_to_double(fe_div(seven * seven, square)), 49.0, 1e-12);
        // Comparisons hold down there, signs included.
        EXPECT_TRUE(square < tiny);
        EXPECT_TRUE(fe_from_double(0.0) < square);
        EXPECT_TRUE(-tiny < -square);
        EXPECT_TRUE(-tiny < fe_from_double(0.0));
        // A term 2^-70 smaller vanishes in the add; one 2^-40 smaller does not.
        FloatExp sum = tiny + fe_ldexp(tiny, -70);
        EXPECT_TRUE(sum == tiny);
        FloatExp sum40 = tiny + fe_ldexp(tiny, -40);
        EXPECT_TRUE(tiny < sum40);
        // sqrt of an odd exponent.
        FloatExp root = fe_sqrt(fe_ldexp(square, 1));
        EXPECT_NEAR(fe_to_double(fe_div(root, tiny)), std::sqrt(2.0), 1e-15);
    }
}

TEST(FloatExp, ComplexOps) {
    DeepComplex<FloatExp> a{fe_from_double(1.5), fe_from_double(-2.0)};
    DeepComplex<FloatExp> b{fe_from_double(0.25), fe_from_double(3.0)};
    DeepComplex<double> p = deep_to_double(a * b);
    EXPECT_EQ(p.re, 1.5 * 0.25 - (-2.0) * 3.0);
    EXPECT_EQ(p.im, 1.5 * 3.0 + (-2.0) * 0.25);
    EXPECT_EQ(fe_to_double(deep_norm(a)), 1.5 * 1.5 + 4.0);
    DeepComplex<double> t = deep_to_double(deep_twice(a) + b);
    EXPECT_EQ(t.re, 3.25);
    EXPECT_EQ(t.im, -1.0);
}

TEST(DeepZoom, ParsesPrintsAndRoundTrips) {
    DeepZoom z;
    ASSERT_EQ(parse_deep_zoom("4.00000000000E533", &z), "");
    EXPECT_EQ(z.mantissa, 4.0);
    EXPECT_EQ(z.exponent10, 533);
    EXPECT_EQ(format_deep_zoom(z), "4.00000000000E533");
    ASSERT_EQ(parse_deep_zoom("0.00250e3", &z), "");  // 2.5
    EXPECT_EQ(z.mantissa, 2.5);
    EXPECT_EQ(z.exponent10, 0);
    ASSERT_EQ(parse_deep_zoom("1e50", &z), "");
    EXPECT_EQ(format_deep_zoom(z), "1.00000000000E50");
    for (const char* text : {"3.34680029051E46", "7.8685178941898205790628188309939E1392", "250", "1E60000",
                             "1.2345678901234567E-5", "9.99999999999999999999E10"}) {
        DeepZoom a, b;
        ASSERT_EQ(parse_deep_zoom(text, &a), "") << text;
        std::string printed = format_deep_zoom(a);
        ASSERT_EQ(parse_deep_zoom(printed, &b), "") << printed;
        EXPECT_TRUE(a == b) << text << " -> " << printed;
    }
    // The pixel spacing at 1e533 and 720 rows: 4 / (1e533 * 720).
    ASSERT_EQ(parse_deep_zoom("1E533", &z), "");
    FloatExp spacing = deep_pixel_spacing(z, 720);
    EXPECT_NEAR(log10_fe(spacing), std::log10(4.0 / 720.0) - 533.0, 1e-12);
    EXPECT_NEAR(deep_zoom_log2(z), 533 * std::log2(10.0), 1e-9);
}

TEST(DeepZoom, BadInputGivesOneSentence) {
    for (const char* text :
         {"1e", "", "e5", "abc", "1.2.3", "-5", "0", "0.000", "1e99999999999", "1e-20", "1e60001", "1e5x", "--1"}) {
        DeepZoom z{7.0, 7};
        std::string error = parse_deep_zoom(text, &z);
        expect_sentence(error);
        EXPECT_EQ(z.mantissa, 7.0) << "untouched on error: " << text;
    }
}

TEST(DeepLocation, CentreAndIterationLimits) {
    EXPECT_EQ(check_deep_center("-1.7692026523595072889383857467776111524931", "real"), "");
    EXPECT_EQ(check_deep_center("0", "real"), "");
    expect_sentence(check_deep_center("1.2.3", "real"));
    expect_sentence(check_deep_center("", "imaginary"));
    expect_sentence(check_deep_center("0x1p3", "real"));
    expect_sentence(check_deep_center("0." + std::string(100000, '1'), "real"));  // 100,000 digits
    int64_t n = 0;
    EXPECT_EQ(parse_deep_iterations("263010", &n), "");
    EXPECT_EQ(n, 263010);
    EXPECT_EQ(parse_deep_iterations("10000000000", &n), "");  // past 2^31
    EXPECT_EQ(n, 10000000000LL);
    for (const char* bad : {"0", "-5", "", "12x", "100000000001", "99999999999999999999999"})
        expect_sentence(parse_deep_iterations(bad, &n));
    DeepLocation location;
    EXPECT_EQ(validate_deep_location(location), "");
    location.max_iterations = 0;
    expect_sentence(validate_deep_location(location));
}

TEST(Kfr, ReadsKallesFraktalerFilesAndIgnoresOtherKeys) {
    // As KF 2.x writes them: CRLF, many keys we do not use.
    const std::string text =
        "Re: -1.768610493014677074503175653\r\nIm: 0.00126661350386871770206641\r\n"
        "Zoom: 1.00000000000E1086\r\nIterations: 600100\r\nIterDiv: 0.010000\r\nSmoothMethod: 0\r\n"
        "ColorMethod: 7\r\nColorOffset: 0\r\nRotate: 0.000000\r\nRatio: 360.000000\r\n"
        "Colors: 255,255,255,128,0,64,\r\nInteriorColor: 0,0,0,\r\nSmooth: 1\r\nPower: 2\r\n"
        "FractalType: 0\r\nSlopes: 1\r\n";
    DeepLocation location;
    ASSERT_EQ(parse_kfr(text, &location), "");
    EXPECT_EQ(location.center_re, "-1.768610493014677074503175653");
    EXPECT_EQ(location.center_im, "0.00126661350386871770206641");
    EXPECT_EQ(location.zoom.exponent10, 1086);
    EXPECT_EQ(location.max_iterations, 600100);
}

TEST(Kfr, WritesAndReadsBack) {
    DeepLocation location;
    location.center_re = "-0.0494700290631040937516922267273536301187457124882248793181049402326421947726869";
    location.center_im = "-0.6747875758446753640113920531305976563347707068224034806979997947909941983454845";
    ASSERT_EQ(parse_deep_zoom("1.00E50", &location.zoom), "");
    location.max_iterations = 263010;
    auto path = std::filesystem::temp_directory_path() / "mandelscope_test_deep.kfr";
    ASSERT_EQ(write_kfr(path.string(), location), "");
    EXPECT_FALSE(std::filesystem::exists(path.string() + ".part"));
    DeepLocation back;
    ASSERT_EQ(read_kfr(path.string(), &back), "");
    EXPECT_EQ(back.center_re, location.center_re);
    EXPECT_EQ(back.center_im, location.center_im);
    EXPECT_TRUE(back.zoom == location.zoom);
    EXPECT_EQ(back.max_iterations, location.max_iterations);
    std::filesystem::remove(path);
}

// The formula and the Julia parameter go out as KF's FractalType / Power and Mandelscope's own
// Julia keys, and come back; KF's own numbering reads as the same formulas.
TEST(Kfr, FormulaAndJuliaParameterRoundTrip) {
    for (Formula formula : kAllFormulas)
        for (bool julia : {false, true}) {
            DeepLocation location;
            location.center_re = "-0.1";
            location.center_im = "0.25";
            ASSERT_EQ(parse_deep_zoom("1E5", &location.zoom), "");
            location.formula = formula;
            location.julia = julia;
            if (julia) {
                location.julia_re = "-0.12260000000000000000000000001";
                location.julia_im = "0.7449";
            }
            DeepLocation back;
            ASSERT_EQ(parse_kfr(format_kfr(location), &back), "") << formula_name(formula);
            EXPECT_EQ(back.formula, formula);
            EXPECT_EQ(back.julia, julia);
            if (julia) {
                EXPECT_EQ(back.julia_re, location.julia_re);
                EXPECT_EQ(back.julia_im, location.julia_im);
            }
        }
    struct Kf {
        const char* type;
        const char* power;
        Formula formula;
    };
    for (const Kf& k :
         {Kf{"0", "2", Formula::Mandelbrot}, Kf{"0", "3", Formula::Multibrot3}, Kf{"0", "8", Formula::Multibrot8},
          Kf{"1", "2", Formula::BurningShip}, Kf{"4", "2", Formula::Tricorn}}) {
        DeepLocation location;
        const std::string text = std::string("Re: 0.1\r\nIm: 0.2\r\nZoom: 1E10\r\nFractalType: ") + k.type +
                                 "\r\nPower: " + k.power + "\r\nSlopes: 1\r\n";
        ASSERT_EQ(parse_kfr(text, &location), "") << text;
        EXPECT_EQ(location.formula, k.formula) << text;
        EXPECT_FALSE(location.julia);
    }
    const auto path = std::filesystem::temp_directory_path() / "mandelscope_test_julia.kfr";
    DeepLocation julia;
    julia.formula = Formula::Tricorn;
    julia.julia = true;
    julia.julia_re = "-0.2";
    julia.julia_im = "0.1";
    ASSERT_EQ(write_kfr(path.string(), julia), "");
    DeepLocation back;
    ASSERT_EQ(read_kfr(path.string(), &back), "");
    EXPECT_EQ(back.formula, Formula::Tricorn);
    EXPECT_TRUE(back.julia);
    EXPECT_EQ(back.julia_re, "-0.2");
    std::filesystem::remove(path);
}

TEST(Kfr, EveryPublicLocationInAssetsOpens) {
    int count = 0;
    for (const auto& entry : std::filesystem::directory_iterator((find_data_dir("assets") / "locations").string())) {
        if (entry.path().extension() != ".kfr") continue;
        DeepLocation location;
        EXPECT_EQ(read_kfr(entry.path().string(), &location), "") << entry.path();
        EXPECT_EQ(validate_deep_location(location), "") << entry.path();
        ++count;
    }
    EXPECT_GE(count, 8);
}

TEST(Kfr, BadInputGivesOneSentence) {
    const char* bad[] = {
        "",                                                                      // nothing
        "Re: 0.1\r\nIm: 0.2\r\n",                                                // no zoom
        "Im: 0.2\r\nZoom: 1E10\r\n",                                             // no Re
        "Re: 0.1\r\nIm: 0.2\r\nZoom: 1e\r\n",                                    // zoom "1e"
        "Re: 0.1\r\nIm: 0.2\r\nZoom: -3E10\r\n",                                 // negative zoom
        "Re: 0.1\r\nIm: 0.2\r\nZoom: 1E99999999999\r\n",                         // absurd exponent
        "Re: 0.1\r\nIm: 0.2\r\nZoom: 1E10\r\nIterations: 0\r\n",                 // iterations 0
        "Re: 0.1\r\nIm: 0.2\r\nZoom: 1E10\r\nIterations: 1000000000000000\r\n",  // past the limit
        "Re: abc\r\nIm: 0.2\r\nZoom: 1E10\r\n",                                  // centre not a number
        "Re: 0.1\r\nIm: 0.2\r\nZoom: 1E10\r\nFractalType: 2\r\n",                // a formula we lack (Buffalo)
        "Re: 0.1\r\nIm: 0.2\r\nZoom: 1E10\r\nPower: 9\r\n",
        "Re: 0.1\r\nIm: 0.2\r\nZoom: 1E10\r\nFractalType: 1\r\nPower: 3\r\n",  // Burning Ship power 3
        "Re: 0.1\r\nIm: 0.2\r\nZoom: 1E10\r\nMandelscopeJuliaRe: 0.3\r\n",     // half a Julia c
        "Re: 0.1\r\nIm: 0.2\r\nZoom: 1E10\r\nMandelscopeJuliaRe: x\r\nMandelscopeJuliaIm: 0\r\n",
        "this is not a location\r\n",
        "\x89PNG\r\n\x1a\n",
    };
    for (const char* text : bad) {
        DeepLocation location;
        location.center_re = "untouched";
        std::string error = parse_kfr(text, &location);
        expect_sentence(error);
        EXPECT_EQ(location.center_re, "untouched") << text;
    }
    // 100,000-digit centre.
    DeepLocation location;
    expect_sentence(parse_kfr("Re: 0." + std::string(100000, '7') + "\r\nIm: 0\r\nZoom: 1E10\r\n", &location));
    // Missing file, a directory.
    expect_sentence(read_kfr("/nonexistent/mandelscope.kfr", &location));
    expect_sentence(read_kfr(std::filesystem::temp_directory_path().string(), &location));
    // Writing into a missing folder leaves nothing behind.
    expect_sentence(write_kfr("/nonexistent/folder/x.kfr", DeepLocation{}));
}

// The reference orbit reads MPFR numbers through their top limb (mpfr.h): within one
// rounding of mpfr_get_d, at any precision and far outside double's range.
TEST(FloatExp, FromMpfrMatchesMpfrGetD) {
    for (long bits : {53L, 64L, 65L, 241L, 3396L}) {
        MpfrNumber x(bits), y(bits);
        mpfr_set_str(x.get(), "-1.7692026523595072889383857467776111524931174128810441858206091009582682358", 10,
                     MPFR_RNDN);
        for (int k = 0; k < 40; ++k) {
            mpfr_mul_d(x.get(), x.get(), -1.37e7, MPFR_RNDN);  // walk through magnitudes, both signs
            double expected = mpfr_get_d(x.get(), MPFR_RNDN);
            double got = fe_to_double(floatexp_from_mpfr(x.get()));
            EXPECT_NEAR(got, expected, std::fabs(expected) * 2.3e-16) << bits << " bits, step " << k;
        }
        mpfr_set_str(y.get(), "3e-100000", 10, MPFR_RNDN);
        EXPECT_NEAR(log10_fe(floatexp_from_mpfr(y.get())), std::log10(3.0) - 100000.0, 1e-9);
        mpfr_set_zero(y.get(), 1);
        EXPECT_EQ(floatexp_from_mpfr(y.get()).mantissa, 0.0);
    }
}
