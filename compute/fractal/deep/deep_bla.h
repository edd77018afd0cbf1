// deep_bla.h: bilinear approximation (BLA) of the perturbation iteration, after
// C. Heiland-Allen's formulation (mathr.co.uk, "deep zoom theory and practice (again)", 2022,
// as Fraktaler-3 implements it); our own code.
//
// One perturbation step at reference iteration m is z -> 2 Z_m z + z^2 + dc. While |z| is
// small enough the z^2 term is below the rounding of the linear part and the step is linear:
//     z -> A z + B dc,   A = 2 Z_m, B = 1,   valid while |z| < r = epsilon |A|
// (|z^2| < epsilon |A z|). The Multibrots (z^d + c) linearise the same way with A = d Z_m^(d-1):
// the largest dropped term is C(d,2) Z^(d-2) z^2 (the rest are smaller by further factors
// |z/Z| < epsilon), so |dropped| < epsilon |A z| while |z| < r = epsilon 2 |Z_m| / (d - 1),
// which is epsilon |A| again for d = 2. A Julia set's step has no dc (B's products vanish:
// the table is built with max|dc| = 0).
// The Burning Ship and the Tricorn are not complex-analytic: their linear part is a real 2x2
// matrix (Tricorn: z -> conj(2 Z z); Burning Ship: [[2X, -2Y], [2sY, 2sX]], s = sign(XY), valid
// only while no coordinate of Z + z changes sign), so a complex A cannot hold their merged steps
// (two conjugating steps compose to a term in conj(dc)). Their BLA needs 2x2 matrices for A and B
// (as Fraktaler-3 has); until this table has them the deep path runs those two formulas without
// BLA (deep_perturbation.h: deep_formula_has_bla), exact but with every step iterated. Two consecutive linear steps x then y compose into one,
//     A = A_y A_x,  B = A_y B_x + B_y,
//     r = min(r_x, max(0, (r_y - |B_x| max|dc|) / |A_x|)),
// the second radius pulled back through the first step, with max|dc| the largest |dc| of the
// frame. Level 0 holds the single steps starting at m = 1 .. steps; level k+1 entry j merges
// level k entries 2j and 2j+1 (an odd last entry is copied up), so level k entry j covers the
// 2^k steps from m = j 2^k + 1. A pixel at iteration m takes the entry of the highest level
// that starts at m (m - 1 divisible by 2^k), whose radius holds its |z| and whose length fits
// the iterations left; else one ordinary perturbation step.
// Range: steps start at m >= 1 (Z_0 = 0 gives A = 0) and land at most at the orbit's last
// index - 1, so no skip lands on the escaping Z or crosses the rebase at the orbit's end.
// While the radius holds, |z| << |Z_m| at every skipped step, so no escape and no rebase
// (|Z_m + z| < |z|) can hide inside a skip.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "compute/fractal/deep/floatexp.h"

namespace ms {

inline constexpr int kBlaMaxLevels = 64;
// 2^-53: the z^2 term dropped is below a double's rounding of the linear part, so BLA is as
// exact as the perturbation step it replaces. Larger epsilons skip more but fail the tests'
// bar against the MPFR truth: 2^-24 (x5 fewer steps) got 94.8% of the 1e20 frame exact and
// 92.5% of the 1e50 one, 2^-40 99.1% / 100% but only 99.3% within one iteration at 1e20.
inline constexpr double kBlaDefaultEpsilon = 1.1102230246251565e-16;

template <typename T>
struct BlaStep {
    DeepComplex<T> a;
    DeepComplex<T> b;
    T r2;             // validity radius, squared
    int64_t length;   // iterations this step covers
};

// A plain view of a table (pointers and counts): what CPU loops and CUDA kernels index.
template <typename T>
struct BlaView {
    const BlaStep<T>* entries = nullptr;
    int64_t level_offset[kBlaMaxLevels] = {};
    int64_t level_size[kBlaMaxLevels] = {};
    int levels = 0;
};

template <typename T>
struct BlaTable {
    std::vector<BlaStep<T>> entries;
    BlaView<T> view;            // into entries
    int64_t steps = 0;          // level-0 entries
    double build_ms = 0.0;
};

// The longest valid step at iteration m for |z|^2 = z2 of at most max_length iterations, or null.
template <typename T>
MS_DEEP_HD const BlaStep<T>* bla_lookup(const BlaView<T>& bla, int64_t m, T z2, int64_t max_length) {
    if (bla.levels == 0 || m < 1 || m > bla.level_size[0]) return nullptr;
    const BlaStep<T>* best = nullptr;
    int64_t ix = m - 1;
    for (int level = 0; level < bla.levels; ++level) {
        if ((ix << level) != m - 1 || ix >= bla.level_size[level]) break;
        const BlaStep<T>* step = bla.entries + bla.level_offset[level] + ix;
        if (!(z2 < step->r2) || step->length > max_length) break;
        best = step;
        ix >>= 1;
    }
    return best;
}

// Builds the table for Z_0..Z_last (z: the orbit in T) of z^degree + c and frames whose
// |dc| <= max_dc. Returns false (table empty) when cancelled.
template <typename T>
bool build_bla_table(const DeepComplex<T>* z, int64_t last_index, T max_dc, double epsilon,
                     const std::atomic<bool>* cancel, BlaTable<T>* table, int degree = 2);

// The table in effect for the view: the table's view, or no levels (BLA off).
template <typename T>
BlaView<T> bla_view(const BlaTable<T>* table) {
    if (!table) return BlaView<T>{};
    BlaView<T> view = table->view;
    view.entries = table->entries.data();
    return view;
}

}  // namespace ms
