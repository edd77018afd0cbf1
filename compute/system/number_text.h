// number_text.h: the one parser of numbers written as text, for every mode and every file.
//
// Numbers reach Mandelscope as text from the command line, the View panel, the clipboard and a
// PNG's tEXt chunk. They all go through here, so what one mode accepts every other mode (and
// the PNG reader) accepts too. Otherwise a window could hang on a centre `render` wrote
// (strtod takes hex, a leading space and "1e-00000001", where the window's parser does not).
//
// The grammar (plain decimal, no locale, no spaces, no hex, no inf or nan):
//     [+-]? ( digits [ "." digits* ] | "." digits ) ( [eE] [+-]? digits )?
// The exponent's value (leading zeros allowed) is at most kMaxDecimalExponent in magnitude.
//
// A DecimalNumber keeps every digit: the centre is decimal text and moves in decimal
// arithmetic (render/view_math.h), never through a double round trip.
#pragma once

#include <cstdint>
#include <string>

namespace ms {

inline constexpr int kMaxDecimalExponent = 9999;

// value = (negative ? -1 : 1) * digits * 10^exponent; digits without leading zeros, "" is zero.
struct DecimalNumber {
    bool negative = false;
    std::string digits;
    int exponent = 0;
};

// Parses `text` by the grammar above. Returns "" or a sentence fragment saying what is wrong
// ("'0x10' is not a decimal number").
std::string parse_decimal(const std::string& text, DecimalNumber* out);
// a + b exactly.
DecimalNumber add_decimals(const DecimalNumber& a, const DecimalNumber& b);
// Plain fixed-point text: "-0.0125", "3", "0"; no exponent, no trailing fraction zeros.
std::string format_decimal(const DecimalNumber& d);
// The nearest double (correctly rounded; underflow gives 0 or a subnormal). Infinite when the
// number is beyond double's range: callers that need a finite value check.
double decimal_to_double(const DecimalNumber& d);

// Strict decimal text to a finite double. Returns "" or a fragment such as
// "'1e400' is beyond the range of a double".
std::string parse_finite_double(const std::string& text, double* value);
// A whole number in [minimum, maximum], digits only after an optional sign (no exponent, no
// spaces), without overflow whatever its length. Returns "" or a fragment.
std::string parse_whole_number(const std::string& text, int64_t minimum, int64_t maximum, int64_t* value);
// "WIDTHxHEIGHT" (x or X), both whole numbers in [1, max_side]; linear in the text's length
// (no backtracking regex). Returns "" or a sentence fragment.
std::string parse_size_text(const std::string& text, int max_side, int* width, int* height);

}  // namespace ms
