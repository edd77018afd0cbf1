// direct_point-inl.h: one point of the direct path, scalar: the loop direct_cpu_reference
// (direct_cpu_reference.cpp) runs a pixel at a time and direct_cpu_rings (the exponential map's
// shallow strips) runs on rings of points. formula_math.h has each formula's step
// (formula_step-inl.h).
#pragma once

#include <cstdint>

#include "compute/fractal/maths/escape.h"
#include "compute/fractal/maths/formula_math.h"

namespace ms {

// Iterates one point of formula F from z_0 = (zr, zi) with parameter (cr, ci) (z_0 = 0, c = the
// pixel for the parameter plane; z_0 = the pixel, c fixed for a Julia set); returns mu (or
// kInteriorMu) and adds the iterations it ran to *iterations.
template <Formula F, typename T>
MS_HD float iterate_point(T zr, T zi, T cr, T ci, int max_iterations, bool periodicity, uint64_t* iterations) {
    const T bailout_squared = T(formula_bailout_radius(F) * formula_bailout_radius(F));
    T zr2 = zr * zr, zi2 = zi * zi;
    // Periodicity: remember z at the save steps of next_periodicity_save() and compare z with
    // it exactly at the steps of periodicity_compare_step(). An exact repeat means the
    // floating-point orbit is periodic from there on, so it would never escape in this
    // arithmetic either: the pixel comes out exactly as without the check.
    T saved_r = 0, saved_i = 0;
    const int interval = periodicity_interval(max_iterations);
    int next_save = next_periodicity_save(0, interval);
    for (int k = 1; k <= max_iterations; ++k) {
        formula_step<F>(zr, zi, zr2, zi2, cr, ci, ScalarAbs{});
        zr2 = zr * zr;
        zi2 = zi * zi;
        T norm = zr2 + zi2;
        if (norm > bailout_squared) {
            *iterations += uint64_t(k);
            return formula_smooth_mu_of<F>(k, double(norm));
        }
        if (periodicity) {
            if (periodicity_compare_step(k) && zr == saved_r && zi == saved_i) {
                *iterations += uint64_t(k);
                return kInteriorMu;
            }
            if (k == next_save) {
                saved_r = zr;
                saved_i = zi;
                next_save = next_periodicity_save(k, interval);
            }
        }
    }
    *iterations += uint64_t(max_iterations);
    return kInteriorMu;
}

}  // namespace ms
