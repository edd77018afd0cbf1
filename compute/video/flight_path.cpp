// flight_path.cpp: van Wijk and Nuij's zoom-and-pan path in logarithms, with an exact centre
// (see flight_path.h for the formulas and why they are written this way).
#include "compute/video/flight_path.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "compute/fractal/numbers/floatexp.h"
#include "compute/fractal/numbers/mpfr.h"
#include "compute/fractal/view/deep_navigation.h"

namespace ms {

namespace {

constexpr double kLn2 = 0.69314718055994530942;
constexpr double kLn10 = 2.30258509299404568402;

// ln |x| of an exact decimal (x != 0): its first 17 digits as a double, the rest as a power of ten.
double ln_abs_decimal(const DecimalNumber& x) {
    const size_t lead = std::min<size_t>(x.digits.size(), 17);
    const double mantissa = std::strtod(x.digits.substr(0, lead).c_str(), nullptr);
    return std::log(mantissa) + double(int64_t(x.exponent) + int64_t(x.digits.size() - lead)) * kLn10;
}

// ln hypot(e^a, e^b), either may be -inf (a zero part).
double ln_hypot(double a, double b) {
    const double hi = std::max(a, b), lo = std::min(a, b);
    if (std::isinf(lo)) return hi;
    return hi + 0.5 * std::log1p(std::exp(2.0 * (lo - hi)));
}

// e^x as a FloatExp, for any x a double holds.
FloatExp fe_exp(double x) {
    const double log2 = x / kLn2;
    const double e = std::floor(log2);
    return fe_make(std::exp2(log2 - e), int64_t(e));
}

// asinh of a FloatExp, as a double: asinh(b) = sign(b) (ln 2|b| + O(1/b^2)) past double's range.
double fe_asinh(FloatExp b) {
    if (b.mantissa == 0.0) return 0.0;
    if (b.exponent < 500) return std::asinh(fe_to_double(b));
    const double ln_abs = std::log(std::fabs(b.mantissa)) + double(b.exponent) * kLn2;
    return std::copysign(kLn2 + ln_abs, b.mantissa);
}

// ln cosh x and ln sinh x (x > 0), with no overflow for any finite x.
double ln_cosh(double x) {
    x = std::fabs(x);
    return x + std::log1p(std::exp(-2.0 * x)) - kLn2;
}
double ln_sinh(double x) { return x + std::log(-std::expm1(-2.0 * x)) - kLn2; }

double ln_u_over_w0(const FlightPath& p) { return p.ln_u1 - p.ln_w0; }  // ln U

// ln sigma(s) from the start, and ln (1 - sigma(s)) from the end (the reversed path), s in (0, S).
double ln_sigma_forward(const FlightPath& p, double s) {
    return -2.0 * std::log(p.rho) - ln_u_over_w0(p) + ln_sinh(p.rho * s) - ln_cosh(p.rho * s + p.r0);
}
double ln_sigma_backward(const FlightPath& p, double s_from_end) {
    return p.ln_w1 - p.ln_u1 - 2.0 * std::log(p.rho) + ln_sinh(p.rho * s_from_end) -
           ln_cosh(p.rho * s_from_end - p.r1);
}

// The offset sigma * d rounded to fraction_digits digits after the point, added to (or, with
// `subtract`, taken from) the decimal text `base`: exact but for that one rounding.
std::string offset_centre(const std::string& base, const DecimalNumber& d, double sigma, bool subtract,
                          int64_t fraction_digits) {
    if (d.digits.empty() || sigma == 0.0) return base;
    DecimalNumber b;
    if (!parse_decimal(base, &b).empty()) return base;  // make_flight_path checked it
    // q = sigma * digits * 10^(exponent + fraction_digits), as many bits as its whole part has
    // digits, and 64 more: the one rounding is rint's.
    const double log10_q = std::log10(sigma) + double(d.digits.size()) + double(d.exponent) + double(fraction_digits);
    const mpfr_prec_t bits = mpfr_prec_t(std::clamp(64.0 + 3.33 * std::max(0.0, log10_q), 128.0, double(1 << 22)));
    MpfrNumber q(bits), p(bits);
    mpfr_set_str(q.get(), d.digits.c_str(), 10, MPFR_RNDN);
    mpfr_mul_d(q.get(), q.get(), sigma, MPFR_RNDN);
    mpfr_set_ui(p.get(), 10, MPFR_RNDN);
    mpfr_pow_si(p.get(), p.get(), long(int64_t(d.exponent) + fraction_digits), MPFR_RNDN);
    mpfr_mul(q.get(), q.get(), p.get(), MPFR_RNDN);
    mpfr_rint(q.get(), q.get(), MPFR_RNDN);
    if (mpfr_zero_p(q.get())) return base;
    mpz_t whole;
    mpz_init(whole);
    mpfr_get_z(whole, q.get(), MPFR_RNDN);
    DecimalNumber offset;
    offset.negative = d.negative != subtract;
    std::string digits(mpz_sizeinbase(whole, 10) + 2, '\0');
    mpz_get_str(digits.data(), 10, whole);
    mpz_clear(whole);
    digits.resize(digits.find('\0'));
    offset.digits = digits;
    offset.exponent = -int(fraction_digits);
    return format_decimal(add_decimals(b, offset));
}

}  // namespace

ViewZoom view_zoom_from_log10(double log10_zoom) {
    if (log10_zoom < 300.0) return ViewZoom(std::pow(10.0, log10_zoom));
    int64_t exponent10 = int64_t(std::floor(log10_zoom));
    double mantissa = std::pow(10.0, log10_zoom - double(exponent10));
    if (mantissa >= 10.0) {
        mantissa /= 10.0;
        ++exponent10;
    } else if (mantissa < 1.0) {
        mantissa *= 10.0;
        --exponent10;
    }
    return ViewZoom::from_deep(DeepZoom{mantissa, exponent10});
}

std::string make_flight_path(const Keyframe& a, const Keyframe& b, int width, int height, double rho,
                             FlightPath* out) {
    if (width <= 0 || height <= 0) return "The frames need a size of at least 1x1 pixels.";
    if (!(rho > 0.0) || !std::isfinite(rho)) return "The flight path's rho must be a positive number.";
    FlightPath p;
    p.a = a;
    p.b = b;
    p.width = width;
    p.height = height;
    p.rho = rho;
    DecimalNumber re0, im0, re1, im1;
    for (const auto& [text, number] : {std::pair{&a.center_re, &re0}, std::pair{&a.center_im, &im0},
                                       std::pair{&b.center_re, &re1}, std::pair{&b.center_im, &im1}}) {
        if (std::string problem = parse_decimal(*text, number); !problem.empty())
            return "A keyframe's centre " + problem + ".";
    }
    re0.negative = !re0.negative;
    im0.negative = !im0.negative;
    p.d_re = add_decimals(re1, re0);
    p.d_im = add_decimals(im1, im0);
    p.centres_equal = p.d_re.digits.empty() && p.d_im.digits.empty();
    // w = 4 * aspect / zoom, the image's width in the plane.
    const double ln_width_at_zoom_1 = std::log(4.0 * double(width) / double(height));
    p.ln_w0 = ln_width_at_zoom_1 - a.zoom.log10() * kLn10;
    p.ln_w1 = ln_width_at_zoom_1 - b.zoom.log10() * kLn10;
    const double ln_W = p.ln_w1 - p.ln_w0;
    if (p.centres_equal) {
        p.length = std::fabs(ln_W) / rho;
        *out = p;
        return "";
    }
    p.ln_u1 = ln_hypot(p.d_re.digits.empty() ? -INFINITY : ln_abs_decimal(p.d_re),
                       p.d_im.digits.empty() ? -INFINITY : ln_abs_decimal(p.d_im));
    // b0 = (W^2 - 1 + rho^4 U^2) / (2 rho^2 U), b1 = (W^2 - 1 - rho^4 U^2) / (2 W rho^2 U) with
    // W = w1 / w0, U = u1 / w0: van Wijk and Nuij's b_i divided through by w0^2, in FloatExp.
    const double ln_U = p.ln_u1 - p.ln_w0;
    const double ln_rho2 = 2.0 * std::log(rho);
    const FloatExp w2_minus_1 = fe_exp(2.0 * ln_W) - fe_from_double(1.0);
    const FloatExp rho4_u2 = fe_exp(2.0 * (ln_rho2 + ln_U));
    const FloatExp b0 = fe_div(w2_minus_1 + rho4_u2, fe_exp(kLn2 + ln_rho2 + ln_U));
    const FloatExp b1 = fe_div(w2_minus_1 - rho4_u2, fe_exp(kLn2 + ln_rho2 + ln_U + ln_W));
    p.r0 = -fe_asinh(b0);
    p.r1 = -fe_asinh(b1);
    p.length = (p.r1 - p.r0) / rho;
    *out = p;
    return "";
}

double flight_log10_zoom(const FlightPath& p, double f) {
    const double z0 = p.a.zoom.log10(), z1 = p.b.zoom.log10();
    if (f <= 0.0) return z0;
    if (f >= 1.0) return z1;
    // A pure zoom is linear in log zoom: the straight dive's exponential zoom.
    if (p.centres_equal) return z0 + f * (z1 - z0);
    const double s = f * p.length;
    // ln w(s) relative to the nearer end; the zoom goes as 1 / w.
    if (f <= 0.5) return z0 - (ln_cosh(p.r0) - ln_cosh(p.rho * s + p.r0)) / kLn10;
    const double s_from_end = p.length - s;
    return z1 - (ln_cosh(p.r1) - ln_cosh(p.rho * s_from_end - p.r1)) / kLn10;
}

double flight_pan_fraction(const FlightPath& p, double f) {
    if (p.centres_equal || f <= 0.0) return 0.0;
    if (f >= 1.0) return 1.0;
    const double s = f * p.length;
    const double forward = std::exp(ln_sigma_forward(p, s));
    if (forward <= 0.5) return forward;
    return 1.0 - std::exp(ln_sigma_backward(p, p.length - s));
}

FlightPoint flight_point(const FlightPath& p, double f) {
    FlightPoint point;
    if (f <= 0.0 || f >= 1.0) {
        const Keyframe& end = f <= 0.0 ? p.a : p.b;
        point.center_re = end.center_re;
        point.center_im = end.center_im;
        point.zoom = end.zoom;
        point.log10_zoom = end.zoom.log10();
        point.pan_fraction = f <= 0.0 || p.centres_equal ? 0.0 : 1.0;
        return point;
    }
    point.log10_zoom = flight_log10_zoom(p, f);
    point.zoom = view_zoom_from_log10(point.log10_zoom);
    point.center_re = p.a.center_re;
    point.center_im = p.a.center_im;
    if (p.centres_equal) return point;
    const int64_t digits = deep_center_fraction_digits(point.zoom.deep(), p.height);
    const double s = f * p.length;
    const double forward = std::exp(ln_sigma_forward(p, s));
    if (forward <= 0.5) {
        point.pan_fraction = forward;
        point.center_re = offset_centre(p.a.center_re, p.d_re, forward, false, digits);
        point.center_im = offset_centre(p.a.center_im, p.d_im, forward, false, digits);
    } else {
        const double backward = std::exp(ln_sigma_backward(p, p.length - s));
        point.pan_fraction = 1.0 - backward;
        point.center_re = offset_centre(p.b.center_re, p.d_re, backward, true, digits);
        point.center_im = offset_centre(p.b.center_im, p.d_im, backward, true, digits);
    }
    return point;
}

}  // namespace ms
