// deep_navigation.cpp: exact centre offsets and zoom scaling at any depth (see deep_navigation.h).
#include "compute/fractal/view/deep_navigation.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "compute/fractal/numbers/mpfr.h"
#include "compute/system/number_text.h"

namespace ms {

namespace {

// Bits for the offset's arithmetic: the offset is a few pixels times 10^4 (a ten-thousandth of
// a pixel is its last digit), so 160 bits hold every digit that is printed, whatever the depth:
// the depth lives in the exponents, which are combined before MPFR sees them.
constexpr mpfr_prec_t kOffsetBits = 160;
constexpr int64_t kMaxFractionDigits = 100000;

DecimalNumber parse_or_throw(const std::string& text) {
    DecimalNumber d;
    if (std::string problem = parse_decimal(text, &d); !problem.empty())
        throw std::invalid_argument("The centre " + problem + ".");
    return d;
}

// x := x * 10^power (power may be large: MPFR's exponent range is ~2^62 bits).
void scale_by_power_of_ten(mpfr_ptr x, int64_t power) {
    MpfrNumber p(kOffsetBits);
    mpfr_set_ui(p.get(), 10, MPFR_RNDN);
    mpfr_pow_si(p.get(), p.get(), long(power), MPFR_RNDN);
    mpfr_mul(x, x, p.get(), MPFR_RNDN);
}

}  // namespace

int64_t deep_center_fraction_digits(DeepZoom zoom, int height) {
    const double digits = std::ceil(double(zoom.exponent10) + std::log10(zoom.mantissa) +
                                    std::log10(std::max(height, 1) / 4.0)) +
                          4.0;
    return int64_t(std::clamp(std::isnan(digits) ? 0.0 : digits, 0.0, double(kMaxFractionDigits)));
}

std::string deep_offset_decimal(const std::string& text, double pixels, DeepZoom zoom, int height,
                                int64_t fraction_digits) {
    if (!std::isfinite(pixels)) throw std::invalid_argument("The centre cannot move by a non-finite amount.");
    const DecimalNumber base = parse_or_throw(text);
    fraction_digits = std::clamp<int64_t>(fraction_digits, 0, kMaxFractionDigits);
    // q = pixels * 4 / (mantissa * height) * 10^(fraction_digits - exponent10): the offset in
    // units of 10^-fraction_digits, rounded to a whole number once.
    MpfrNumber q(kOffsetBits);
    mpfr_set_d(q.get(), pixels, MPFR_RNDN);
    mpfr_mul_ui(q.get(), q.get(), 4, MPFR_RNDN);
    mpfr_div_d(q.get(), q.get(), zoom.mantissa, MPFR_RNDN);
    mpfr_div_si(q.get(), q.get(), std::max(height, 1), MPFR_RNDN);
    scale_by_power_of_ten(q.get(), fraction_digits - zoom.exponent10);
    mpfr_rint(q.get(), q.get(), MPFR_RNDN);
    if (!mpfr_number_p(q.get())) throw std::invalid_argument("The centre cannot move that far.");
    mpz_t whole;
    mpz_init(whole);
    mpfr_get_z(whole, q.get(), MPFR_RNDN);
    DecimalNumber offset;
    offset.negative = mpz_sgn(whole) < 0;
    mpz_abs(whole, whole);
    if (mpz_sgn(whole) != 0) {
        std::string digits(mpz_sizeinbase(whole, 10) + 1, '\0');
        mpz_get_str(digits.data(), 10, whole);
        digits.resize(digits.find('\0'));
        offset.digits = digits;
        offset.exponent = -int(fraction_digits);
    }
    mpz_clear(whole);
    return format_decimal(add_decimals(base, offset));
}

double deep_decimal_difference_pixels(const std::string& a, const std::string& b, DeepZoom zoom, int height) {
    DecimalNumber nb = parse_or_throw(b);
    if (!nb.digits.empty()) nb.negative = !nb.negative;
    const DecimalNumber d = add_decimals(parse_or_throw(a), nb);
    if (d.digits.empty()) return 0.0;
    MpfrNumber x(kOffsetBits);
    mpfr_set_str(x.get(), d.digits.c_str(), 10, MPFR_RNDN);
    if (d.negative) mpfr_neg(x.get(), x.get(), MPFR_RNDN);
    // digits * 10^exponent * zoom * height / 4, the exponents combined first.
    scale_by_power_of_ten(x.get(), int64_t(d.exponent) + zoom.exponent10);
    mpfr_mul_d(x.get(), x.get(), zoom.mantissa, MPFR_RNDN);
    mpfr_mul_si(x.get(), x.get(), std::max(height, 1), MPFR_RNDN);
    mpfr_div_ui(x.get(), x.get(), 4, MPFR_RNDN);
    return mpfr_get_d(x.get(), MPFR_RNDN);
}

DeepZoom deep_zoom_scaled(DeepZoom zoom, double factor) {
    if (!(factor > 0.0) || !std::isfinite(factor)) return zoom;
    // In long double, whose range (1e+-4932) holds any double factor times a mantissa < 10.
    const long double product = (long double)zoom.mantissa * (long double)factor;
    const int shift = int(std::floor(std::log10(product)));
    double mantissa = double(product / std::pow(10.0L, shift));
    int64_t exponent10 = zoom.exponent10 + shift;
    // log10 and pow may leave the mantissa a rounding outside [1, 10).
    if (mantissa >= 10.0) {
        mantissa /= 10.0;
        ++exponent10;
    } else if (mantissa < 1.0) {
        mantissa *= 10.0;
        --exponent10;
    }
    return DeepZoom{mantissa, exponent10};
}

double deep_zoom_ratio(DeepZoom zoom, DeepZoom other) {
    const int64_t de = zoom.exponent10 - other.exponent10;
    if (de > 400) return INFINITY;
    if (de < -400) return 0.0;
    return zoom.mantissa / other.mantissa * std::pow(10.0, double(de));
}

int deep_zoom_compare(DeepZoom zoom, DeepZoom other) {
    if (zoom.exponent10 != other.exponent10) return zoom.exponent10 < other.exponent10 ? -1 : 1;
    if (zoom.mantissa != other.mantissa) return zoom.mantissa < other.mantissa ? -1 : 1;
    return 0;
}

}  // namespace ms
