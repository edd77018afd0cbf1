// deep_mpfr.h: the few MPFR helpers the deep zoom's .cpp files share (never included by .cu
// files or by callers of the deep API: MPFR stays an implementation detail of compute/).
#pragma once

#include <mpfr.h>

#include <string>

#include "compute/fractal/deep/deep_location.h"
#include "compute/fractal/deep/floatexp.h"

namespace ms {

// An mpfr_t that frees itself.
class MpfrNumber {
public:
    explicit MpfrNumber(mpfr_prec_t bits) { mpfr_init2(value_, bits); }
    ~MpfrNumber() { mpfr_clear(value_); }
    MpfrNumber(const MpfrNumber&) = delete;
    MpfrNumber& operator=(const MpfrNumber&) = delete;
    mpfr_ptr get() { return value_; }
    mpfr_srcptr get() const { return value_; }

private:
    mpfr_t value_;
};

inline FloatExp floatexp_from_mpfr(mpfr_srcptr x) {
    if (mpfr_zero_p(x)) return FloatExp{};
    long exponent = 0;
    double mantissa = mpfr_get_d_2exp(&exponent, x, MPFR_RNDN);  // in [0.5, 1)
    return fe_make(mantissa, int64_t(exponent));
}

// Decimal text (already checked by check_deep_center) into x, rounded to x's precision.
inline void mpfr_set_decimal(mpfr_ptr x, const std::string& text) {
    mpfr_set_str(x, text.c_str(), 10, MPFR_RNDN);
}

// zoom = mantissa * 10^exponent10 into x.
inline void deep_zoom_mpfr(DeepZoom zoom, mpfr_ptr x) {
    mpfr_set_ui(x, 10, MPFR_RNDN);
    mpfr_pow_si(x, x, long(zoom.exponent10), MPFR_RNDN);
    mpfr_mul_d(x, x, zoom.mantissa, MPFR_RNDN);
}

// 4 / (zoom * height) into x.
inline void deep_pixel_spacing_mpfr(DeepZoom zoom, int height, mpfr_ptr x) {
    deep_zoom_mpfr(zoom, x);
    mpfr_mul_si(x, x, height, MPFR_RNDN);
    mpfr_si_div(x, 4, x, MPFR_RNDN);
}

}  // namespace ms
