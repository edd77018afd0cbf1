// mpfr.h: the few MPFR helpers the deep zoom's .cpp files share (never included by .cu
// files or by callers of the deep API: MPFR stays an implementation detail of compute/).
#pragma once

#include <mpfr.h>

#include <string>

#include "compute/fractal/numbers/floatexp.h"

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
    if (!mpfr_regular_p(x)) {  // 0 (NaN and inf never reach here: orbits stop at escape)
        return mpfr_zero_p(x) ? FloatExp{} : fe_from_double(mpfr_get_d(x, MPFR_RNDN));
    }
    // The most significant limb holds the top 64 bits: x = 0.limb... * 2^exp. Rounding that limb
    // to double rounds to nearest on 64 bits (the lower limbs only break exact ties), and
    // costs a fraction of mpfr_get_d_2exp, which the reference orbit would otherwise pay twice
    // an iteration (see docs/performance.md).
    static_assert(GMP_NUMB_BITS == 64, "64-bit limbs");
    const mp_limb_t top = x->_mpfr_d[(mpfr_get_prec(x) - 1) / GMP_NUMB_BITS];
    const double m = double(top);  // [2^63, 2^64]
    return fe_make(x->_mpfr_sign < 0 ? -m : m, int64_t(x->_mpfr_exp) - 64);
}

// (pr, pi) := (pr, pi) * (x, y), with a, b and s as scratch.
inline void mpfr_complex_multiply_by(mpfr_ptr pr, mpfr_ptr pi, mpfr_srcptr x, mpfr_srcptr y, mpfr_ptr a, mpfr_ptr b,
                                     mpfr_ptr s) {
    mpfr_mul(a, pr, x, MPFR_RNDN);
    mpfr_mul(b, pi, y, MPFR_RNDN);
    mpfr_mul(s, pr, y, MPFR_RNDN);
    mpfr_mul(pi, pi, x, MPFR_RNDN);
    mpfr_add(pi, pi, s, MPFR_RNDN);
    mpfr_sub(pr, a, b, MPFR_RNDN);
}

// z := z^2 + c for the Mandelbrot set with three squarings, (x, y) = z, x2, y2 and s as scratch:
// x' = x^2 - y^2 + cr, y' = (x + y)^2 - x^2 - y^2 + ci (the reference orbit's rounding order).
inline void mpfr_mandelbrot_step(mpfr_ptr x, mpfr_ptr y, mpfr_srcptr cr, mpfr_srcptr ci, mpfr_ptr x2, mpfr_ptr y2,
                                 mpfr_ptr s) {
    mpfr_sqr(x2, x, MPFR_RNDN);
    mpfr_sqr(y2, y, MPFR_RNDN);
    mpfr_add(s, x, y, MPFR_RNDN);
    mpfr_sqr(s, s, MPFR_RNDN);
    mpfr_sub(s, s, x2, MPFR_RNDN);
    mpfr_sub(s, s, y2, MPFR_RNDN);
    mpfr_add(y, s, ci, MPFR_RNDN);
    mpfr_sub(x, x2, y2, MPFR_RNDN);
    mpfr_add(x, x, cr, MPFR_RNDN);
}

// Decimal text (already checked by check_deep_center) into x, rounded to x's precision.
inline void mpfr_set_decimal(mpfr_ptr x, const std::string& text) { mpfr_set_str(x, text.c_str(), 10, MPFR_RNDN); }

}  // namespace ms
