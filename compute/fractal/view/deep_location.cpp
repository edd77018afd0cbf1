// deep_location.cpp: parsing and printing of the deep view's numbers (see deep_location.h).
#include "compute/fractal/view/deep_location.h"

#include "compute/fractal/numbers/mpfr.h"
#include "compute/fractal/view/deep_zoom_mpfr.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ms {

namespace {

std::string quoted(const std::string& text) {
    if (text.size() <= 40) return "\"" + text + "\"";
    return "\"" + text.substr(0, 37) + "...\" (" + std::to_string(text.size()) + " characters)";
}

// Splits a decimal number [+-]digits[.digits][(e|E)[+-]digits] into its parts. Returns false
// where the text is not of that form.
struct DecimalParts {
    bool negative = false;
    std::string digits;    // all significand digits, point removed
    int64_t point = 0;     // digits before the decimal point
    int64_t exponent = 0;  // the written exponent
    bool exponent_overflow = false;
};

bool split_decimal(const std::string& text, DecimalParts* parts) {
    size_t i = 0, n = text.size();
    if (i < n && (text[i] == '+' || text[i] == '-')) parts->negative = text[i++] == '-';
    size_t int_digits = 0, frac_digits = 0;
    while (i < n && std::isdigit((unsigned char)text[i])) {
        parts->digits += text[i++];
        ++int_digits;
    }
    if (i < n && text[i] == '.') {
        ++i;
        while (i < n && std::isdigit((unsigned char)text[i])) {
            parts->digits += text[i++];
            ++frac_digits;
        }
    }
    if (int_digits + frac_digits == 0) return false;
    parts->point = int64_t(int_digits);
    if (i < n && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool exp_negative = false;
        if (i < n && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
        size_t start = i;
        int64_t e = 0;
        while (i < n && std::isdigit((unsigned char)text[i])) {
            if (e > 100000000000LL) parts->exponent_overflow = true;
            else e = e * 10 + (text[i] - '0');
            ++i;
        }
        if (i == start) return false;
        parts->exponent = exp_negative ? -e : e;
    }
    return i == n;
}

}  // namespace

std::string parse_deep_zoom(const std::string& text, DeepZoom* out) {
    DecimalParts parts;
    if (!split_decimal(text, &parts))
        return "The zoom " + quoted(text) + " is not a number (expected a form like 4.5E533).";
    size_t first = parts.digits.find_first_not_of('0');
    if (first == std::string::npos) return "The zoom must be greater than 0, not " + quoted(text) + ".";
    if (parts.negative) return "The zoom must be positive, not " + quoted(text) + ".";
    // Decimal exponent of the leading significant digit.
    int64_t exponent10 = parts.point - int64_t(first) - 1 + parts.exponent;
    if (parts.exponent_overflow || exponent10 > kDeepZoomMaxExponent10 || exponent10 < kDeepZoomMinExponent10)
        return "The zoom " + quoted(text) + " is outside the supported range 1E" +
               std::to_string(kDeepZoomMinExponent10) + " to 1E" + std::to_string(kDeepZoomMaxExponent10) + ".";
    std::string mantissa_text = parts.digits.substr(first, 1) + "." + parts.digits.substr(first + 1, 25);
    double mantissa = std::strtod(mantissa_text.c_str(), nullptr);
    if (mantissa >= 10.0) {  // 9.9999...9 rounded up
        mantissa /= 10.0;
        ++exponent10;
    }
    *out = DeepZoom{mantissa, exponent10};
    return "";
}

std::string format_deep_zoom(DeepZoom zoom) {
    for (int digits : {12, 17}) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.*fE%lld", digits - 1, zoom.mantissa, (long long)zoom.exponent10);
        DeepZoom back;
        if (digits == 17 || (parse_deep_zoom(buffer, &back).empty() && back == zoom)) return buffer;
    }
    return "";  // not reached
}

std::string check_deep_center(const std::string& text, const char* which) {
    if (text.size() > kDeepCenterMaxChars)
        return std::string("The centre's ") + which + " part has " + std::to_string(text.size()) +
               " characters, more than the limit of " + std::to_string(kDeepCenterMaxChars) + ".";
    DecimalParts parts;
    if (!split_decimal(text, &parts) || parts.exponent_overflow)
        return std::string("The centre's ") + which + " part " + quoted(text) + " is not a decimal number.";
    return "";
}

std::string parse_deep_iterations(const std::string& text, int64_t* out) {
    size_t i = 0;
    int64_t value = 0;
    bool overflow = false;
    while (i < text.size() && std::isdigit((unsigned char)text[i])) {
        if (value > kDeepMaxIterations) overflow = true;
        else value = value * 10 + (text[i] - '0');
        ++i;
    }
    if (i == 0 || i != text.size()) return "The iteration count " + quoted(text) + " is not a whole number.";
    if (overflow || value < 1 || value > kDeepMaxIterations)
        return "The iteration count must be between 1 and " + std::to_string(kDeepMaxIterations) + ", not " +
               quoted(text) + ".";
    *out = value;
    return "";
}

std::string validate_deep_location(const DeepLocation& location) {
    std::string error = check_deep_center(location.center_re, "real");
    if (error.empty()) error = check_deep_center(location.center_im, "imaginary");
    if (error.empty() && location.julia) {
        error = check_deep_center(location.julia_re, "real");
        if (error.empty()) error = check_deep_center(location.julia_im, "imaginary");
        // Same grammar and limit as the centre; the sentence names the Julia parameter.
        if (error.rfind("The centre's", 0) == 0) error = "The Julia parameter's" + error.substr(12);
    }
    if (!error.empty()) return error;
    const DeepZoom& z = location.zoom;
    if (!(z.mantissa >= 1.0 && z.mantissa < 10.0) || z.exponent10 > kDeepZoomMaxExponent10 ||
        z.exponent10 < kDeepZoomMinExponent10)
        return "The zoom " + format_deep_zoom(z) + " is outside the supported range.";
    if (location.max_iterations < 1 || location.max_iterations > kDeepMaxIterations)
        return "The iteration count must be between 1 and " + std::to_string(kDeepMaxIterations) + ", not " +
               std::to_string(location.max_iterations) + ".";
    return "";
}

double deep_zoom_log2(DeepZoom zoom) {
    return std::log2(zoom.mantissa) + double(zoom.exponent10) * 3.321928094887362347870319429;
}

FloatExp deep_pixel_spacing(DeepZoom zoom, int height) {
    // Through MPFR, so that the deep path and the brute-force truth sample the same points:
    // both round the one exact value (see mpfr.h).
    MpfrNumber spacing(128);
    deep_pixel_spacing_mpfr(zoom, height, spacing.get());
    return floatexp_from_mpfr(spacing.get());
}

FloatExp deep_half_diagonal(DeepZoom zoom, int width, int height) {
    return deep_pixel_spacing(zoom, height) * fe_from_double(0.5 * std::hypot(double(width), double(height)));
}

DeepZoom deep_zoom_from_double(double zoom) {
    int64_t e = int64_t(std::floor(std::log10(zoom)));
    double m = zoom / std::pow(10.0, double(e));
    if (m >= 10.0) {
        m /= 10.0;
        ++e;
    }
    if (m < 1.0) {
        m *= 10.0;
        --e;
    }
    return DeepZoom{m, e};
}

bool operator==(const DeepZoom& a, const DeepZoom& b) {
    return a.mantissa == b.mantissa && a.exponent10 == b.exponent10;
}

}  // namespace ms
