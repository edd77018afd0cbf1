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
// matrix, so their tables hold matrices for A and B (L = DeepMatrix<T>; two conjugating steps
// compose into a term in conj(dc), which a complex B cannot hold). Single steps:
//   Tricorn       z -> conj(2 Z z) + dc: A = [[p, -q], [-q, -p]] with 2Z = p + iq, B = I;
//                 the dropped conj(z^2) is |z|^2 and |A z| = |2Z||z|: r = epsilon 2|Z|
//   Burning Ship  A = [[2X, -2Y], [2sY, 2sX]], s = sign(XY), B = I, exact up to the dropped
//                 (x^2 - y^2, 2sxy) (|z|^2; |A z| = 2|Z||z|) while no coordinate of Z + z changes
//                 sign: r = min(epsilon 2|Z|, min(|X|, |Y|) / 2) (0 where X or Y is 0)
// Merging is the same formula with matrix products and the Frobenius norm in place of |A_x| and
// |B_x| (an upper bound of the operator norm, so the pulled-back radius stays safe). Two consecutive linear steps x then y compose into one,
//     A = A_y A_x,  B = A_y B_x + B_y,
//     r = min(r_x, max(0, (r_y - |B_x| max|dc|) / |A_x|)),
// the second radius pulled back through the first step, with max|dc| the largest |dc| of the
// frame. That rule holds the dropped term under epsilon at every iteration of a skip; the complex
// tables also keep an error budget (deep_bla.cpp): the sum of the dropped terms' relative errors
// under L epsilon, what the L steps a skip replaces cost in rounding, and a merged radius is the
// larger of the two (a skip then passes a return of the reference near 0, where one iteration is
// tight and the rest loose: half the skips at e50 and 5e227). Level 0 holds the single steps starting at m = 1 .. steps; level k+1 entry j merges
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
// With the error budget (deep_bla.cpp), measured and not adopted: 2^-48 passes every MPFR test
// of test_deep_render with 22% fewer steps at e50 (19% at 5e227); 2^-45 gets 39 of the 1e50
// frame's 40 pixels exact and fails BlaOnAndOffAgree.
inline constexpr double kBlaDefaultEpsilon = 1.1102230246251565e-16;

// A real 2x2 matrix [[xx, xy], [yx, yy]] acting on (re, im): the linear part of the Tricorn's and
// the Burning Ship's steps.
template <typename T>
struct DeepMatrix {
    T xx{}, xy{}, yx{}, yy{};
};

// The linear maps a table holds: complex multiplications (L = DeepComplex<T>) or real 2x2
// matrices (L = DeepMatrix<T>); bla_apply, bla_compose, bla_add and bla_norm work on both.
template <typename T>
MS_DEEP_HD DeepComplex<T> bla_apply(const DeepComplex<T>& a, const DeepComplex<T>& z) { return a * z; }
template <typename T>
MS_DEEP_HD DeepComplex<T> bla_apply(const DeepMatrix<T>& a, const DeepComplex<T>& z) {
    return {a.xx * z.re + a.xy * z.im, a.yx * z.re + a.yy * z.im};
}
// y after x.
template <typename T>
MS_DEEP_HD DeepComplex<T> bla_compose(const DeepComplex<T>& y, const DeepComplex<T>& x) { return y * x; }
template <typename T>
MS_DEEP_HD DeepMatrix<T> bla_compose(const DeepMatrix<T>& y, const DeepMatrix<T>& x) {
    return {y.xx * x.xx + y.xy * x.yx, y.xx * x.xy + y.xy * x.yy, y.yx * x.xx + y.yy * x.yx,
            y.yx * x.xy + y.yy * x.yy};
}
template <typename T>
MS_DEEP_HD DeepComplex<T> bla_add(const DeepComplex<T>& a, const DeepComplex<T>& b) { return a + b; }
template <typename T>
MS_DEEP_HD DeepMatrix<T> bla_add(const DeepMatrix<T>& a, const DeepMatrix<T>& b) {
    return {a.xx + b.xx, a.xy + b.xy, a.yx + b.yx, a.yy + b.yy};
}
// A bound of the operator norm: |a| for a complex, the Frobenius norm of a matrix (at most
// sqrt(2) above the operator norm, so radii pulled back through it are safe).
template <typename T>
MS_DEEP_HD T bla_norm(const DeepComplex<T>& a) { return deep_cabs(a); }
template <typename T>
MS_DEEP_HD T bla_norm(const DeepMatrix<T>& a) { return deep_sqrt(a.xx * a.xx + a.xy * a.xy + a.yx * a.yx + a.yy * a.yy); }
template <typename T>
MS_DEEP_HD bool bla_finite(const DeepComplex<T>& a) { return deep_finite(a.re) && deep_finite(a.im); }
template <typename T>
MS_DEEP_HD bool bla_finite(const DeepMatrix<T>& a) {
    return deep_finite(a.xx) && deep_finite(a.xy) && deep_finite(a.yx) && deep_finite(a.yy);
}

template <typename T, typename L = DeepComplex<T>>
struct BlaStep {
    L a;
    L b;
    T r2;             // validity radius, squared
    int64_t length;   // iterations this step covers
};

// A plain view of a table (pointers and counts): what CPU loops and CUDA kernels index.
template <typename T, typename L = DeepComplex<T>>
struct BlaView {
    const BlaStep<T, L>* entries = nullptr;
    int64_t level_offset[kBlaMaxLevels] = {};
    int64_t level_size[kBlaMaxLevels] = {};
    int levels = 0;
    // deep_cuda: every entry's r2 alone (same order as entries), for bla_lookup_batched; null
    // elsewhere.
    const T* r2 = nullptr;
};

template <typename T, typename L = DeepComplex<T>>
struct BlaTable {
    std::vector<BlaStep<T, L>> entries;
    BlaView<T, L> view;         // into entries
    int64_t steps = 0;          // level-0 entries
    double build_ms = 0.0;
    // The entries' r2, in the same order: a compact copy for the CPU's lookup
    // (deep_cpu_lanes.h), which reads 8 bytes an entry instead of a cache line of the table.
    std::vector<T> r2;
};

// The longest valid step at iteration m for |z|^2 = z2 of at most max_length iterations, or null.
// Level k has an entry starting at m when 2^k divides m - 1, so the levels to try are those up to
// the trailing zeros of m - 1 (every level for m = 1). A level's length is 2^k except for an odd
// last entry copied up (shorter), so the stored length is read only where 2^k exceeds max_length.
// The pixel loop calls it in two parts: bla_first_radius() is level 0's radius at m (0 where no
// entry starts at m, so that no |z|^2 passes), loaded beside Z_m; most iterations fail that test
// and take an ordinary step at no further cost. Where it passes, bla_lookup_above_first() tries
// the higher levels and returns the longest valid entry (level 0's if none above holds).
MS_DEEP_HD int bla_trailing_zeros(uint64_t x) {
#ifdef __CUDA_ARCH__
    return __ffsll((long long)x) - 1;
#else
    return __builtin_ctzll(x);
#endif
}
template <typename T, typename L>
MS_DEEP_HD T bla_first_radius(const BlaView<T, L>& bla, int64_t m) {
    return m >= 1 && m <= bla.level_size[0] ? bla.entries[bla.level_offset[0] + m - 1].r2 : deep_from_double<T>(0.0);
}
// For m with z2 < bla_first_radius(bla, m): level 0 holds (its length, 1, fits any max_length >= 1).
template <typename T, typename L>
MS_DEEP_HD const BlaStep<T, L>* bla_lookup_above_first(const BlaView<T, L>& bla, int64_t m, T z2, int64_t max_length) {
    const int64_t j = m - 1;
    const BlaStep<T, L>* best = bla.entries + bla.level_offset[0] + j;
    int top = bla.levels - 1;
    if (j != 0 && bla_trailing_zeros(uint64_t(j)) < top) top = bla_trailing_zeros(uint64_t(j));
    for (int level = 1; level <= top; ++level) {
        const int64_t ix = j >> level;
        if (ix >= bla.level_size[level]) break;
        const BlaStep<T, L>* step = bla.entries + bla.level_offset[level] + ix;
        if (!(z2 < step->r2)) break;
        if ((int64_t(1) << level) > max_length && step->length > max_length) break;
        best = step;
    }
    return best;
}
// bla_lookup_above_first's choice (the same entry), for CUDA, where a skip's lookup holds up
// every lane of its warp: the radii come from bla.r2 (8 bytes an entry for double, 18 MB at
// 5e227 rather than a 48-byte entry's sector of a 108 MB table), kBatch levels' loads go out
// together (the walk above is a chain of dependent loads), indices are 32-bit and the levels
// are tested without a branch each. Level l's entry j >> l always exists (level sizes are
// ceil(size / 2^l), and j < size), so the walk above's size test is not repeated. Where a
// level may be longer than the iterations left (2^top > max_length: a stored length to read)
// or the table has 2^31 entries, the walk above does it.
template <typename T, typename L>
MS_DEEP_HD const BlaStep<T, L>* bla_lookup_batched(const BlaView<T, L>& bla, int64_t m, T z2, int64_t max_length) {
    constexpr int kBatch = 4;
    const int64_t j = m - 1;
    int top = bla.levels - 1;
    if (j != 0 && bla_trailing_zeros(uint64_t(j)) < top) top = bla_trailing_zeros(uint64_t(j));
    if ((int64_t(1) << top) > max_length || bla.level_offset[bla.levels - 1] >= (int64_t(1) << 31))
        return bla_lookup_above_first(bla, m, z2, max_length);
    const uint32_t j32 = uint32_t(j);
    int level = 1;  // levels below it hold
    while (level <= top) {
        T r2[kBatch];
MS_DEEP_UNROLL
        for (int k = 0; k < kBatch; ++k) {
            const int l = level + k <= top ? level + k : top;
            r2[k] = bla.r2[uint32_t(bla.level_offset[l]) + (j32 >> l)];
        }
        int held = 0;
MS_DEEP_UNROLL
        for (int k = 0; k < kBatch; ++k) held += (held == k && level + k <= top && z2 < r2[k]) ? 1 : 0;
        level += held;
        if (held < kBatch) break;
    }
    const int best = level - 1;
    return bla.entries + (uint32_t(bla.level_offset[best]) + (j32 >> best));
}
template <typename T, typename L>
MS_DEEP_HD const BlaStep<T, L>* bla_lookup(const BlaView<T, L>& bla, int64_t m, T z2, int64_t max_length) {
    if (max_length < 1 || !(z2 < bla_first_radius(bla, m))) return nullptr;
    return bla_lookup_above_first(bla, m, z2, max_length);
}

// Builds the table for Z_0..Z_last (z: the orbit in T) of z^degree + c and frames whose
// |dc| <= max_dc. Returns false (table empty) when cancelled.
template <typename T>
bool build_bla_table(const DeepComplex<T>* z, int64_t last_index, T max_dc, double epsilon,
                     const std::atomic<bool>* cancel, BlaTable<T>* table, int degree = 2);

// The same for the Tricorn (burning_ship false) or the Burning Ship, with 2x2 real matrices.
template <typename T>
bool build_bla_table_matrix(const DeepComplex<T>* z, int64_t last_index, T max_dc, double epsilon,
                            const std::atomic<bool>* cancel, BlaTable<T, DeepMatrix<T>>* table, bool burning_ship);

// The table in effect for the view: the table's view, or no levels (BLA off).
template <typename T, typename L>
BlaView<T, L> bla_view(const BlaTable<T, L>* table) {
    if (!table) return BlaView<T, L>{};
    BlaView<T, L> view = table->view;
    view.entries = table->entries.data();
    return view;
}

}  // namespace ms
