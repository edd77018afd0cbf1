// deep_cpu_reference.cpp: the brute-force truth. Every pixel iterated z <- z^2 + c in MPFR at
// one precision, nothing approximated; slow by design (tests use small images).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "compute/fractal/deep/deep_cpu.h"
#include "compute/fractal/deep/deep_mpfr.h"
#include "compute/fractal/mandelbrot.h"

namespace ms {

DeepFrame deep_cpu_reference(const DeepLocation& location, int width, int height,
                             int64_t precision_bits) {
    std::string error = validate_deep_location(location);
    if (!error.empty()) throw std::invalid_argument(error);
    auto start = std::chrono::steady_clock::now();
    if (precision_bits <= 0) precision_bits = deep_reference_precision_bits(location.zoom, height) + 32;
    const mpfr_prec_t bits = mpfr_prec_t(precision_bits);
    DeepFrame frame;
    frame.width = width;
    frame.height = height;
    frame.escape_count.assign(size_t(width) * size_t(height), -1);
    frame.mu.assign(size_t(width) * size_t(height), -1.0);
    frame.stats.precision_bits = precision_bits;
    // The same spacing the deep path uses (one rounding of the exact value to 53 bits), taken
    // exactly: both paths then sample the same points.
    const FloatExp spacing_fe = deep_pixel_spacing(location.zoom, height);
    const int64_t max_iterations = location.max_iterations;
    const int64_t pixels = int64_t(width) * height;
    uint64_t iterations = 0, escaped = 0;
#pragma omp parallel reduction(+ : iterations, escaped)
    {
        MpfrNumber center_re(bits), center_im(bits), spacing(bits), cr(bits), ci(bits), x(bits),
            y(bits), x2(bits), y2(bits), s(bits);
        mpfr_set_decimal(center_re.get(), location.center_re);
        mpfr_set_decimal(center_im.get(), location.center_im);
        mpfr_set_d(spacing.get(), spacing_fe.mantissa, MPFR_RNDN);
        mpfr_mul_2si(spacing.get(), spacing.get(), long(spacing_fe.exponent), MPFR_RNDN);
#pragma omp for schedule(dynamic, 1)
        for (int64_t p = 0; p < pixels; ++p) {
            const int px = int(p % width), py = int(p / width);
            mpfr_mul_d(cr.get(), spacing.get(), px + 0.5 - 0.5 * width, MPFR_RNDN);
            mpfr_add(cr.get(), cr.get(), center_re.get(), MPFR_RNDN);
            mpfr_mul_d(ci.get(), spacing.get(), -(py + 0.5 - 0.5 * height), MPFR_RNDN);
            mpfr_add(ci.get(), ci.get(), center_im.get(), MPFR_RNDN);
            mpfr_set_zero(x.get(), 1);
            mpfr_set_zero(y.get(), 1);
            int64_t k = 1;
            for (; k <= max_iterations; ++k) {
                mpfr_sqr(x2.get(), x.get(), MPFR_RNDN);
                mpfr_sqr(y2.get(), y.get(), MPFR_RNDN);
                mpfr_add(s.get(), x.get(), y.get(), MPFR_RNDN);
                mpfr_sqr(s.get(), s.get(), MPFR_RNDN);
                mpfr_sub(s.get(), s.get(), x2.get(), MPFR_RNDN);
                mpfr_sub(s.get(), s.get(), y2.get(), MPFR_RNDN);
                mpfr_add(y.get(), s.get(), ci.get(), MPFR_RNDN);
                mpfr_sub(x.get(), x2.get(), y2.get(), MPFR_RNDN);
                mpfr_add(x.get(), x.get(), cr.get(), MPFR_RNDN);
                double xd = mpfr_get_d(x.get(), MPFR_RNDN), yd = mpfr_get_d(y.get(), MPFR_RNDN);
                double norm = xd * xd + yd * yd;
                if (norm > kBailoutRadius * kBailoutRadius) {
                    frame.escape_count[size_t(p)] = k;
                    double mu = double(k) + 1.0 - std::log2(0.5 * std::log(norm));
                    frame.mu[size_t(p)] = mu > 0.0 ? mu : 0.0;
                    ++escaped;
                    break;
                }
            }
            iterations += uint64_t(std::min(k, max_iterations));
        }
    }
    frame.stats.iterations = iterations;
    frame.stats.escaped_pixels = escaped;
    frame.stats.frame_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return frame;
}

}  // namespace ms
