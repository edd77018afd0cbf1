// number_text.cpp: the strict decimal grammar, decimal addition and size text (see number_text.h).
#include "compute/system/number_text.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace ms {

namespace {

bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

// Quotes the text for a message, cut short: a message must stay one readable line even when
// the input is thousands of digits long.
std::string quote(const std::string& text) {
    constexpr size_t kShown = 40;
    if (text.size() <= kShown) return "'" + text + "'";
    return "'" + text.substr(0, kShown) + "...' (" + std::to_string(text.size()) + " characters)";
}

// Magnitudes as digit strings aligned to the same exponent: compare and add/subtract.
std::string pad_to_exponent(const DecimalNumber& d, int exponent) {
    return d.digits + std::string(size_t(d.exponent - exponent), '0');
}

int compare_magnitudes(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    return a.compare(b) < 0 ? -1 : (a == b ? 0 : 1);
}

std::string add_magnitudes(const std::string& a, const std::string& b) {
    std::string out;
    out.reserve(std::max(a.size(), b.size()) + 1);
    int carry = 0;
    for (size_t k = 0; k < std::max(a.size(), b.size()) || carry; ++k) {
        int s = carry;
        if (k < a.size()) s += a[a.size() - 1 - k] - '0';
        if (k < b.size()) s += b[b.size() - 1 - k] - '0';
        out += char('0' + s % 10);
        carry = s / 10;
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::string subtract_magnitudes(const std::string& larger, const std::string& smaller) {
    std::string out;
    out.reserve(larger.size());
    int borrow = 0;
    for (size_t k = 0; k < larger.size(); ++k) {
        int s = (larger[larger.size() - 1 - k] - '0') - borrow;
        if (k < smaller.size()) s -= smaller[smaller.size() - 1 - k] - '0';
        borrow = s < 0;
        out += char('0' + (s + 10) % 10);
    }
    std::reverse(out.begin(), out.end());
    return out;
}

}  // namespace

std::string parse_decimal(const std::string& text, DecimalNumber* out) {
    DecimalNumber d;
    const std::string not_decimal = quote(text) + " is not a decimal number";
    size_t i = 0;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) d.negative = text[i++] == '-';
    bool seen_digit = false, seen_point = false;
    int64_t fraction_digits = 0;
    for (; i < text.size(); ++i) {
        const char ch = text[i];
        if (is_digit(ch)) {
            seen_digit = true;
            if (!(d.digits.empty() && ch == '0')) d.digits += ch;
            if (seen_point) ++fraction_digits;
        } else if (ch == '.' && !seen_point) {
            seen_point = true;
        } else {
            break;
        }
    }
    if (!seen_digit) return not_decimal;
    int64_t exponent = 0;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool negative_exponent = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative_exponent = text[i++] == '-';
        if (i == text.size() || !is_digit(text[i])) return not_decimal;
        for (; i < text.size() && is_digit(text[i]); ++i) {
            exponent = exponent * 10 + (text[i] - '0');
            if (exponent > kMaxDecimalExponent)
                return quote(text) + " has an exponent beyond " + std::to_string(kMaxDecimalExponent);
        }
        if (negative_exponent) exponent = -exponent;
    }
    if (i != text.size()) return not_decimal;
    // Digits dropped as leading zeros still count as fraction digits ("0.001" = 1e-3); the
    // fraction's length is bounded by the text's, so the sum stays far inside int.
    const int64_t scaled = exponent - fraction_digits;
    if (scaled < -int64_t(INT_MAX / 2) || text.size() > size_t(INT_MAX / 4))
        return quote(text) + " has too many digits";
    d.exponent = int(scaled);
    if (d.digits.empty()) {
        d = DecimalNumber{};  // zero: no sign, exponent 0
    } else {
        // Trailing zeros of the digits move into the exponent, so sizes stay small.
        size_t last = d.digits.find_last_not_of('0');
        d.exponent += int(d.digits.size() - 1 - last);
        d.digits.erase(last + 1);
    }
    *out = d;
    return {};
}

DecimalNumber add_decimals(const DecimalNumber& a, const DecimalNumber& b) {
    if (a.digits.empty()) return b;
    if (b.digits.empty()) return a;
    const int exponent = std::min(a.exponent, b.exponent);
    const std::string ma = pad_to_exponent(a, exponent), mb = pad_to_exponent(b, exponent);
    DecimalNumber sum;
    sum.exponent = exponent;
    if (a.negative == b.negative) {
        sum.digits = add_magnitudes(ma, mb);
        sum.negative = a.negative;
    } else {
        const int c = compare_magnitudes(ma, mb);
        if (c == 0) return DecimalNumber{};
        sum.digits = c > 0 ? subtract_magnitudes(ma, mb) : subtract_magnitudes(mb, ma);
        sum.negative = c > 0 ? a.negative : b.negative;
    }
    sum.digits.erase(0, std::min(sum.digits.find_first_not_of('0'), sum.digits.size()));
    if (sum.digits.empty()) return DecimalNumber{};
    return sum;
}

std::string format_decimal(const DecimalNumber& d) {
    if (d.digits.empty()) return "0";
    std::string digits = d.digits;
    int exponent = d.exponent;
    while (exponent < 0 && digits.size() > 1 && digits.back() == '0') {
        digits.pop_back();
        ++exponent;
    }
    std::string out = d.negative ? "-" : "";
    if (exponent >= 0) return out + digits + std::string(size_t(exponent), '0');
    const size_t fraction = size_t(-int64_t(exponent));
    if (digits.size() <= fraction) return out + "0." + std::string(fraction - digits.size(), '0') + digits;
    return out + digits.substr(0, digits.size() - fraction) + "." + digits.substr(digits.size() - fraction);
}

double decimal_to_double(const DecimalNumber& d) {
    if (d.digits.empty()) return 0.0;
    // strtod rounds correctly; the canonical form keeps it from seeing anything but digits.
    const std::string canonical = (d.negative ? "-" : "") + d.digits + "e" + std::to_string(d.exponent);
    return std::strtod(canonical.c_str(), nullptr);
}

std::string parse_finite_double(const std::string& text, double* value) {
    DecimalNumber d;
    if (std::string problem = parse_decimal(text, &d); !problem.empty()) return problem;
    const double v = decimal_to_double(d);
    if (!std::isfinite(v)) return quote(text) + " is beyond the range of a double";
    *value = v;
    return {};
}

std::string parse_whole_number(const std::string& text, int64_t minimum, int64_t maximum, int64_t* value) {
    size_t i = 0;
    bool negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
    if (i == text.size()) return quote(text) + " is not a whole number";
    // Accumulate as a negative number: its range includes INT64_MIN.
    int64_t v = 0;
    bool too_large = false;
    for (; i < text.size(); ++i) {
        if (!is_digit(text[i])) return quote(text) + " is not a whole number";
        const int digit = text[i] - '0';
        if (v < (INT64_MIN + digit) / 10) too_large = true;
        else v = v * 10 - digit;
    }
    if (!too_large && !negative && v == INT64_MIN) too_large = true;
    if (!too_large && !negative) v = -v;
    if (too_large || v < minimum || v > maximum)
        return quote(text) + " is not between " + std::to_string(minimum) + " and " + std::to_string(maximum);
    *value = v;
    return {};
}

std::string parse_size_text(const std::string& text, int max_side, int* width, int* height) {
    const std::string form = "the size " + quote(text) + " is not of the form WIDTHxHEIGHT (for example 1920x1080)";
    const size_t x = text.find_first_of("xX");
    if (x == std::string::npos || x == 0 || x + 1 == text.size()) return form;
    const std::string w_text = text.substr(0, x), h_text = text.substr(x + 1);
    for (const std::string* part : {&w_text, &h_text})
        if (!std::all_of(part->begin(), part->end(), is_digit)) return form;
    int64_t w = 0, h = 0;
    if (!parse_whole_number(w_text, 1, max_side, &w).empty() || !parse_whole_number(h_text, 1, max_side, &h).empty()) {
        // Which bound was broken: 0, or too large (any number of digits).
        const bool zero = w_text.find_first_not_of('0') == std::string::npos ||
                          h_text.find_first_not_of('0') == std::string::npos;
        if (zero) return "the size " + quote(text) + " has a side of 0 pixels";
        return "the size " + quote(text) + " is larger than " + std::to_string(max_side) + " pixels a side";
    }
    *width = int(w);
    *height = int(h);
    return {};
}

}  // namespace ms
