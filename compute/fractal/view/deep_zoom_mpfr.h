// deep_zoom_mpfr.h: a deep view's zoom and pixel spacing (deep_location.h) as MPFR numbers, for
// the deep zoom's .cpp files (MPFR stays an implementation detail of compute/, as in
// numbers/mpfr.h).
#pragma once

#include <mpfr.h>

#include "compute/fractal/view/deep_location.h"

namespace ms {

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
