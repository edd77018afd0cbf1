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
// tables also keep an error budget (BlaBudget below): the sum of the dropped terms' relative errors
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
// Where it is built: on the CPU (build_bla_table, OpenMP) for deep_cpu, on the GPU
// (deep_bla_cuda.h) for deep_cuda, from the same per-entry functions below, bit for bit equal.
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "compute/fractal/numbers/floatexp.h"

namespace ms {

inline constexpr int kBlaMaxLevels = 64;
// 2^-53: the z^2 term dropped is below a double's rounding of the linear part, so BLA is as
// exact as the perturbation step it replaces. Larger epsilons skip more steps but fall below
// the tests' bar against the MPFR truth (2^-24 and 2^-40 do); with the error budget
// (BlaBudget), 2^-48 passes every MPFR test of test_deep_render, and 2^-45 fails
// BlaOnAndOffAgree (see docs/performance.md for the step counts).
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
MS_DEEP_HD DeepComplex<T> bla_apply(const DeepComplex<T>& a, const DeepComplex<T>& z) {
    return a * z;
}
template <typename T>
MS_DEEP_HD DeepComplex<T> bla_apply(const DeepMatrix<T>& a, const DeepComplex<T>& z) {
    return {a.xx * z.re + a.xy * z.im, a.yx * z.re + a.yy * z.im};
}
// y after x.
template <typename T>
MS_DEEP_HD DeepComplex<T> bla_compose(const DeepComplex<T>& y, const DeepComplex<T>& x) {
    return y * x;
}
template <typename T>
MS_DEEP_HD DeepMatrix<T> bla_compose(const DeepMatrix<T>& y, const DeepMatrix<T>& x) {
    return {y.xx * x.xx + y.xy * x.yx, y.xx * x.xy + y.xy * x.yy, y.yx * x.xx + y.yy * x.yx, y.yx * x.xy + y.yy * x.yy};
}
template <typename T>
MS_DEEP_HD DeepComplex<T> bla_add(const DeepComplex<T>& a, const DeepComplex<T>& b) {
    return a + b;
}
template <typename T>
MS_DEEP_HD DeepMatrix<T> bla_add(const DeepMatrix<T>& a, const DeepMatrix<T>& b) {
    return {a.xx + b.xx, a.xy + b.xy, a.yx + b.yx, a.yy + b.yy};
}
// A bound of the operator norm: |a| for a complex, the Frobenius norm of a matrix (at most
// sqrt(2) above the operator norm, so radii pulled back through it are safe).
template <typename T>
MS_DEEP_HD T bla_norm(const DeepComplex<T>& a) {
    return deep_cabs(a);
}
template <typename T>
MS_DEEP_HD T bla_norm(const DeepMatrix<T>& a) {
    return deep_sqrt(a.xx * a.xx + a.xy * a.xy + a.yx * a.yx + a.yy * a.yy);
}
template <typename T>
MS_DEEP_HD bool bla_finite(const DeepComplex<T>& a) {
    return deep_finite(a.re) && deep_finite(a.im);
}
template <typename T>
MS_DEEP_HD bool bla_finite(const DeepMatrix<T>& a) {
    return deep_finite(a.xx) && deep_finite(a.xy) && deep_finite(a.yx) && deep_finite(a.yy);
}

template <typename T, typename L = DeepComplex<T>>
struct BlaStep {
    L a;
    L b;
    T r2;            // validity radius, squared
    int64_t length;  // iterations this step covers
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

// An allocator for the CPU lanes' arrays (BlaTable::lane_points, lane_chain): where an array
// reaches 2 MB it is aligned to 2 MB and asks Linux for transparent huge pages (madvise), so that
// the lanes' scattered reads of tens of MB miss the TLB far less often. Elsewhere, and for
// small arrays, plain aligned memory.
void* bla_lane_allocate(size_t bytes);
void bla_lane_free(void* p);
template <typename T>
struct BlaLaneAllocator {
    using value_type = T;
    BlaLaneAllocator() = default;
    template <typename U>
    BlaLaneAllocator(const BlaLaneAllocator<U>&) {}
    T* allocate(size_t n) { return static_cast<T*>(bla_lane_allocate(n * sizeof(T))); }
    void deallocate(T* p, size_t) { bla_lane_free(p); }
    template <typename U>
    bool operator==(const BlaLaneAllocator<U>&) const {
        return true;
    }
    template <typename U>
    bool operator!=(const BlaLaneAllocator<U>&) const {
        return false;
    }
};

// One orbit point for the CPU's lanes (BlaTable::lane_points).
template <typename T>
struct alignas(4 * sizeof(T)) BlaLanePoint {
    T re{}, im{};
    T r0{};   // level 0's radius at this m (0 where no entry starts there)
    T pad{};  // a point is a power of two in size: one aligned load
};

template <typename T, typename L = DeepComplex<T>>
struct BlaTable {
    std::vector<BlaStep<T, L>> entries;
    BlaView<T, L> view;  // into entries
    int64_t steps = 0;   // level-0 entries
    double build_ms = 0.0;
    // The entries' r2, in the same order: a compact copy for the CPU's lookup
    // (deep_cpu_lanes.h), which reads 8 bytes an entry instead of a cache line of the table.
    std::vector<T> r2;
    // The CPU's SIMD lanes (deep_cpu_lanes_avx512.cpp), built with the Mandelbrot set's double
    // tables only (empty elsewhere):
    //   lane_points  per orbit index m = 0 .. last: Z_m and level 0's radius at m
    //                (bla_first_radius), one 32-byte load a lane an iteration
    //   lane_chain   per level-0 entry j (a skip from m = j + 1): for each level l = 1 .. top(j)
    //                (bla_lookup_above_first's walk, top(j) = the trailing zeros of j, every level
    //                for j = 0), the smallest r2 of the entries the walk passes at levels 0 .. l.
    //                The walk stops at the first level whose radius fails, so it reaches level l
    //                exactly where |z|^2 is below that running minimum: one compare of a vector of
    //                levels instead of a chain of loads. Entry j's run starts at
    //                bla_lane_chain_offset(levels, j).
    std::vector<BlaLanePoint<T>, BlaLaneAllocator<BlaLanePoint<T>>> lane_points;
    std::vector<T, BlaLaneAllocator<T>> lane_chain;
};

// Where level-0 entry j's run of lane_chain starts: entry 0 holds levels - 1 values, entry i >= 1
// ctz(i), and the sum of ctz(i) over i = 1 .. n is n - popcount(n).
inline int64_t bla_lane_chain_offset(int levels, int64_t j) {
    return j == 0 ? 0 : int64_t(levels - 1) + (j - 1) - int64_t(__builtin_popcountll(uint64_t(j - 1)));
}

// --- the per-entry formulas, shared by the CPU build (deep_bla.cpp, OpenMP) and the GPU build
// (deep_bla_cuda.cu, a thread per entry): the two run the same IEEE operations in the same order
// (neither contracts a*b+c into an FMA: -ffp-contract=off, --fmad=false), so their tables are
// equal bit for bit (tests/fractal/deep/test_deep_bla_cuda.cpp).

// The error budget of a merged step (complex tables): a skip of L iterations drops, at each
// iteration i it covers, the z_i^2 term, a relative error of |z_i| / rho_i of the linear part
// (rho_i = r_i / epsilon, the single step's radius without epsilon: |2 Z_i| for the Mandelbrot
// set). The single-step radius bounds each such error by epsilon, what the rounding of the
// ordinary step it replaces costs; the merge rule (r = min(r_x, pulled-back r_y)) keeps
// that bound at every iteration, so a skip fails wherever one iteration of it is tight (near a
// return of the reference to 0, |Z_i| small), however loose the others are. The budget instead
// bounds the sum of the errors by L epsilon: what the L ordinary steps the skip replaces cost in
// rounding. With z_i = A_i z + B_i dc (A_0 = 1, B_0 = 0 at the skip's first iteration),
//     sum_i |z_i| / rho_i <= |z| S_A + max|dc| S_B,  S_A = sum_i |A_i| / rho_i,  S_B = sum_i |B_i| / rho_i,
// so the skip holds for |z| < (L epsilon - S_B max|dc|) / S_A. Merging x then y (|A_y,j A_x| =
// |A_y,j| |A_x| for complex numbers): S_A = S_A,x + |A_x| S_A,y, S_B = S_B,x + |B_x| S_A,y + S_B,y.
// The min rule on radii that each hold their own budget also holds the sum's, so the radius kept
// is the larger of the two. No single error can pass L epsilon (below 2^-17 for any table of up
// to 2^36 iterations), so |z_i| << |Z_i| still holds at every iteration: no escape and no rebase
// hides inside a skip. Only the complex tables use it: the Burning Ship's radius also keeps the
// signs of X and Y, a per-iteration limit that no sum may trade.
template <typename T>
struct BlaBudget {
    T s_a{}, s_b{};
};

// Level 0, complex tables: the single step at Z = Z_m of z^degree + c. Degree 2: A = 2 Z,
// r = epsilon |A|; degree d: A = d Z^(d-1), r = epsilon 2 |Z| / (d - 1) (the header's bound).
template <typename T>
MS_DEEP_HD BlaStep<T> bla_single_step(DeepComplex<T> Z, double epsilon, int degree) {
    const T eps = deep_from_double<T>(epsilon);
    const T one = deep_from_double<T>(1.0), zero = deep_from_double<T>(0.0);
    if (degree == 2) {
        const DeepComplex<T> a = deep_twice(Z);
        const T r = eps * deep_cabs(a);
        return BlaStep<T>{a, {one, zero}, r * r, 1};
    }
    const T d = deep_from_double<T>(double(degree));
    const T r_scale = eps * deep_from_double<T>(2.0 / double(degree - 1));
    DeepComplex<T> p = Z;
    for (int k = 2; k < degree; ++k) p = p * Z;
    const DeepComplex<T> a{d * p.re, d * p.im};
    const T r = r_scale * deep_cabs(Z);
    return BlaStep<T>{a, {one, zero}, r * r, 1};
}

// Level 0's budget: S_A = 1 / rho = epsilon / r, S_B = 0 (an entry with r = 0 gets an infinite
// S_A, hence radius 0, through every merge that covers it).
template <typename T, typename L>
MS_DEEP_HD BlaBudget<T> bla_single_budget(const BlaStep<T, L>& step, double epsilon) {
    const T r = deep_sqrt(step.r2), zero = deep_from_double<T>(0.0);
    return BlaBudget<T>{r > zero ? deep_div(deep_from_double<T>(epsilon), r) : deep_from_double<T>(INFINITY), zero};
}

// Level 0, matrix tables: the Tricorn's (burning_ship false) or the Burning Ship's single step at Z.
template <typename T>
MS_DEEP_HD BlaStep<T, DeepMatrix<T>> bla_single_step_matrix(DeepComplex<T> Z, double epsilon, bool burning_ship) {
    using M = DeepMatrix<T>;
    const T eps = deep_from_double<T>(epsilon);
    const T one = deep_from_double<T>(1.0), zero = deep_from_double<T>(0.0), half = deep_from_double<T>(0.5);
    const T p = deep_twice(Z.re), q = deep_twice(Z.im);
    T r = eps * deep_cabs(DeepComplex<T>{p, q});
    M a;
    if (burning_ship) {
        // s = sign(XY); the matrix holds while X + x and Y + y keep the signs of X and Y.
        const bool negative = deep_negative(Z.re) != deep_negative(Z.im);
        const T sq = negative ? -q : q, sp = negative ? -p : p;
        a = M{p, -q, sq, sp};
        const T limit = half * deep_min(deep_abs(Z.re), deep_abs(Z.im));
        r = deep_min(r, limit);
    } else {
        a = M{p, -q, -q, -p};  // conj(2 Z z)
    }
    return BlaStep<T, M>{a, M{one, zero, zero, one}, r * r, 1};
}

// x then y merged into one step by the min rule (the header's formula).
template <typename T, typename L>
MS_DEEP_HD BlaStep<T, L> bla_merge(const BlaStep<T, L>& x, const BlaStep<T, L>& y, T max_dc) {
    BlaStep<T, L> out;
    out.a = bla_compose(y.a, x.a);
    out.b = bla_add(bla_compose(y.a, x.b), y.b);
    const T zero = deep_from_double<T>(0.0);
    T ax = bla_norm(x.a), bx = bla_norm(x.b);
    T ry = deep_sqrt(y.r2), rx = deep_sqrt(x.r2);
    T pulled = ry - bx * max_dc;
    T r = pulled > zero && ax > zero ? deep_min(rx, deep_div(pulled, ax)) : zero;
    out.r2 = r * r;
    // In double, long merges can overflow A or B (inf, then NaN radii); such a step is never
    // taken.
    if (!bla_finite(out.a) || !bla_finite(out.b) || !deep_finite(out.r2)) out.r2 = zero;
    out.length = x.length + y.length;
    return out;
}

// The merged step's budget (from x's and y's), and its radius raised to the budget's where that
// is larger (complex tables).
template <typename T, typename L>
MS_DEEP_HD void bla_merge_budget(const BlaStep<T, L>& x, const BlaBudget<T>& bx, const BlaBudget<T>& by, T max_dc,
                                 double epsilon, BlaStep<T, L>* out, BlaBudget<T>* budget) {
    const T ax = bla_norm(x.a), bnx = bla_norm(x.b);
    budget->s_a = bx.s_a + ax * by.s_a;
    budget->s_b = bx.s_b + bnx * by.s_a + by.s_b;
    if (!bla_finite(out->a) || !bla_finite(out->b)) return;  // overflowed: never taken
    const T allowed = deep_from_double<T>(double(out->length) * epsilon) - budget->s_b * max_dc;
    if (!(allowed > deep_from_double<T>(0.0)) || !(budget->s_a > deep_from_double<T>(0.0)) ||
        !deep_finite(budget->s_a) || !deep_finite(budget->s_b))
        return;
    const T r = deep_div(allowed, budget->s_a);
    const T r2 = r * r;
    if (deep_finite(r2) && r2 > out->r2) out->r2 = r2;
}

// Entry j of a merge level from the level below (src, src_size entries): entries 2j and 2j + 1
// merged, or 2j copied up where it is the odd last one. Budgets: null for matrix tables.
template <typename T, typename L>
MS_DEEP_HD void bla_merge_entry(const BlaStep<T, L>* src, const BlaBudget<T>* src_budget, int64_t src_size, int64_t j,
                                T max_dc, double epsilon, BlaStep<T, L>* dst, BlaBudget<T>* dst_budget) {
    if (2 * j + 1 >= src_size) {
        dst[j] = src[2 * j];
        if (dst_budget) dst_budget[j] = src_budget[2 * j];
        return;
    }
    dst[j] = bla_merge(src[2 * j], src[2 * j + 1], max_dc);
    if (dst_budget)
        bla_merge_budget(src[2 * j], src_budget[2 * j], src_budget[2 * j + 1], max_dc, epsilon, &dst[j],
                         &dst_budget[j]);
}

// Sizes the levels of a table of `steps` single steps (view's level_offset and level_size:
// level 0 is `steps` long, each level above half the one below, rounded up, down to 1 entry);
// returns the level count and the total entries in *total.
template <typename T, typename L>
int bla_size_levels(int64_t steps, BlaView<T, L>* view, int64_t* total) {
    *total = 0;
    int levels = 0;
    for (int64_t size = steps;; size = (size + 1) / 2) {
        view->level_offset[levels] = *total;
        view->level_size[levels] = size;
        *total += size;
        ++levels;
        if (size == 1 || levels == kBlaMaxLevels) break;
    }
    view->levels = levels;
    return levels;
}

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
// The lowest level a skip takes (bla_first_skip_level). A skip is a lookup in the table and a
// jump to another part of the orbit; where ordinary steps are cheap, a short skip costs more than
// the steps it replaces. On the CPU's SIMD lanes (deep_cpu_lanes_avx512.cpp) a double-delta frame
// runs fastest with skips from level 6 (64 iterations), but the one-pixel loop (a drag's narrow
// strips) then slows by a fifth to a third; from level 4 the lanes keep
// most of the gain and the one-pixel loop its speed (docs/deep-zoom.md has the figures). The
// Burning Ship's and the Tricorn's matrix tables (degree 2) skip from level 4 too: their lanes
// (deep_cpu_lanes.cpp) look each skip up lane by lane, and with every level they are slower than
// the one-pixel loop. Steps drop no z^2 term, so fewer skips cost no accuracy. Tables of other
// numbers and formulas keep every level: their steps cost far more (FloatExp, the Multibrots'
// powers).
inline constexpr int kBlaFirstSkipLevelDouble = 4;
template <typename T>
int bla_first_skip_level(int degree, int levels) {
    const bool cheap_steps = std::is_same_v<T, double> && degree == 2;
    if (!cheap_steps || levels < 1) return 0;
    return kBlaFirstSkipLevelDouble < levels - 1 ? kBlaFirstSkipLevelDouble : levels - 1;
}
// Level 0's radius at entry j once skips start at level `first` (the builds write it over the
// single step's, bla_raise_first_level): where 2^first divides j, the smallest radius that
// bla_lookup_above_first's walk passes from level 0 to `first`, so that a |z|^2 below it reaches
// `first` or higher; elsewhere 0, where no skip starts. Every radius stays at most its own level's,
// so every skip taken is one the full table allows. Reads entry j of level 0 and its entries above.
template <typename T, typename L>
MS_DEEP_HD T bla_first_skip_radius(const BlaStep<T, L>* entries, const int64_t* level_offset, int levels, int64_t j,
                                   int first) {
    const int top = j == 0 ? levels - 1 : bla_trailing_zeros(uint64_t(j));
    if (top < first) return deep_from_double<T>(0.0);
    T smallest = entries[level_offset[0] + j].r2;
    for (int level = 1; level <= first; ++level) {
        const T r2 = entries[level_offset[level] + (j >> level)].r2;
        smallest = r2 < smallest ? r2 : smallest;
    }
    return smallest;
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
