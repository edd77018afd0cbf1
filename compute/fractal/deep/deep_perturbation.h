// deep_perturbation.h: one pixel of a deep frame, the loop the CPU (deep_cpu.cpp) and CUDA
// (deep_cuda.cu) siblings share, templated on the delta type T (double or FloatExp) and on
// rebasing (on, or off for the tests' plain perturbation). See deep_cpu.h for the maths.
#pragma once

#include <math.h>

#include <cstdint>

#include "compute/fractal/deep/deep_bla.h"
#include "compute/fractal/deep/floatexp.h"

namespace ms {

// kBailoutRadius^2, as in compute/fractal/mandelbrot.h (256^2).
inline constexpr double kDeepBailoutSquared = 65536.0;

struct DeepPixelCounters {
    uint64_t iterations = 0, bla_iterations = 0, bla_skips = 0, steps = 0, rebases = 0, escaped = 0;
};

// Iterates the pixel at dc (its offset from the reference point). Returns its escape count
// (-1 inside) and writes mu (-1 inside).
template <typename T, bool kRebase>
MS_DEEP_HD int64_t deep_iterate_pixel(const DeepComplex<T>* Z, int64_t last_index,
                                      const BlaView<T>& bla, DeepComplex<T> dc,
                                      int64_t max_iterations, double* mu_out,
                                      DeepPixelCounters& counters) {
    DeepComplex<T> z{};
    int64_t m = 0, n = 0;
    while (n < max_iterations) {
        const BlaStep<T>* skip = bla_lookup(bla, m, deep_norm(z), max_iterations - n);
        if (skip) {
            z = skip->a * z + skip->b * dc;
            m += skip->length;
            n += skip->length;
            counters.bla_iterations += uint64_t(skip->length);
            ++counters.bla_skips;
        } else {
            z = (deep_twice(Z[m]) + z) * z + dc;
            ++m;
            ++n;
            ++counters.steps;
        }
        const DeepComplex<T> full = Z[m] + z;
        const T full_norm = deep_norm(full);
        const double norm = deep_to_double(full_norm);
        if (norm > kDeepBailoutSquared) {
            counters.iterations += uint64_t(n);
            ++counters.escaped;
            double mu = double(n) + 1.0 - log2(0.5 * log(norm));
            *mu_out = mu > 0.0 ? mu : 0.0;
            return n;
        }
        // Zhuoran's rebase: the pixel is closer to 0 than to the reference; restart the
        // reference from Z_0 = 0 with the pixel's full value. And where the orbit ends.
        if ((kRebase && full_norm < deep_norm(z)) || m == last_index) {
            z = full;
            m = 0;
            ++counters.rebases;
        }
    }
    counters.iterations += uint64_t(max_iterations);
    *mu_out = -1.0;
    return -1;
}

}  // namespace ms
