// deep_bla.cpp: building the BLA table (see deep_bla.h). Level 0 and each merge level are
// parallel loops over their entries (OpenMP).
#include "compute/fractal/deep/deep_bla.h"

#include <chrono>
#include <cmath>
#include <vector>

namespace ms {

namespace {

// Levels smaller than this are merged on one thread: a parallel loop's barrier costs more than
// the work there (on a loaded 2-core machine a barrier can wait a whole scheduler slice, and
// the ~20 levels of a table cost 230 ms that way; serial, the small levels take ~1 ms).
constexpr int64_t kBlaParallelMin = 1 << 16;

template <typename T, typename L>
BlaStep<T, L> bla_merge(const BlaStep<T, L>& x, const BlaStep<T, L>& y, T max_dc) {
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
    if (!bla_finite(out.a) || !bla_finite(out.b) || !deep_finite(out.r2))
        out.r2 = zero;
    out.length = x.length + y.length;
    return out;
}

// The error budget of a merged step (complex tables): a skip of L iterations drops, at each
// iteration i it covers, the z_i^2 term, a relative error of |z_i| / rho_i of the linear part
// (rho_i = r_i / epsilon, the single step's radius without epsilon: |2 Z_i| for the Mandelbrot
// set). The single-step radius bounds each such error by epsilon, what the rounding of the
// ordinary step it replaces costs; the merge rule above (r = min(r_x, pulled-back r_y)) keeps
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

template <typename T, typename L>
void bla_merge_budget(const BlaStep<T, L>& x, const BlaBudget<T>& bx, const BlaBudget<T>& by, T max_dc, double epsilon,
                      BlaStep<T, L>* out, BlaBudget<T>* budget) {
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

bool cancelled(const std::atomic<bool>* cancel) {
    return cancel && cancel->load(std::memory_order_relaxed);
}

// Sizes the levels of a table of `steps` single steps (table->view's offsets and sizes) and
// allocates its entries; returns the level count.
template <typename T, typename L>
int size_levels(int64_t steps, BlaTable<T, L>* table) {
    int64_t total = 0;
    int levels = 0;
    for (int64_t size = steps;; size = (size + 1) / 2) {
        table->view.level_offset[levels] = total;
        table->view.level_size[levels] = size;
        total += size;
        ++levels;
        if (size == 1 || levels == kBlaMaxLevels) break;
    }
    table->entries.resize(size_t(total));
    return levels;
}

// Level 1 and up from level 0 (already in table->entries); false (table emptied) when cancelled.
template <typename T, typename L>
bool merge_levels(int levels, int64_t steps, T max_dc, const std::atomic<bool>* cancel,
                  std::chrono::steady_clock::time_point start, BlaTable<T, L>* table,
                  BlaBudget<T>* budget = nullptr, double epsilon = 0.0) {
    BlaStep<T, L>* e = table->entries.data();
    for (int level = 1; level < levels; ++level) {
        if (cancelled(cancel)) {
            *table = BlaTable<T, L>{};
            return false;
        }
        const BlaStep<T, L>* src = e + table->view.level_offset[level - 1];
        const int64_t src_size = table->view.level_size[level - 1];
        BlaStep<T, L>* dst = e + table->view.level_offset[level];
        const int64_t dst_size = table->view.level_size[level];
        BlaBudget<T>* src_budget = budget ? budget + table->view.level_offset[level - 1] : nullptr;
        BlaBudget<T>* dst_budget = budget ? budget + table->view.level_offset[level] : nullptr;
#pragma omp parallel for schedule(static) if (dst_size > kBlaParallelMin)
        for (int64_t j = 0; j < dst_size; ++j) {
            if (2 * j + 1 >= src_size) {
                dst[j] = src[2 * j];
                if (budget) dst_budget[j] = src_budget[2 * j];
                continue;
            }
            dst[j] = bla_merge(src[2 * j], src[2 * j + 1], max_dc);
            if (budget)
                bla_merge_budget(src[2 * j], src_budget[2 * j], src_budget[2 * j + 1], max_dc, epsilon, &dst[j],
                                 &dst_budget[j]);
        }
    }
    table->r2.resize(table->entries.size());
    for (size_t i = 0; i < table->entries.size(); ++i) table->r2[i] = table->entries[i].r2;
    table->view.entries = e;
    table->view.levels = levels;
    table->steps = steps;
    table->build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return true;
}

}  // namespace

template <typename T>
bool build_bla_table(const DeepComplex<T>* z, int64_t last_index, T max_dc, double epsilon,
                     const std::atomic<bool>* cancel, BlaTable<T>* table, int degree) {
    auto start = std::chrono::steady_clock::now();
    *table = BlaTable<T>{};
    const int64_t steps = last_index - 2;  // m = 1 .. last_index - 2, landing <= last_index - 1
    if (steps < 1) return true;
    const int levels = size_levels(steps, table);
    BlaStep<T>* e = table->entries.data();
    const T eps = deep_from_double<T>(epsilon);
    const T one = deep_from_double<T>(1.0), zero = deep_from_double<T>(0.0);
    if (degree == 2) {
#pragma omp parallel for schedule(static) if (steps > kBlaParallelMin)
        for (int64_t i = 0; i < steps; ++i) {
            DeepComplex<T> a = deep_twice(z[i + 1]);
            T r = eps * deep_cabs(a);
            e[i] = BlaStep<T>{a, {one, zero}, r * r, 1};
        }
    } else {
        // A = d Z^(d-1), r = epsilon 2 |Z| / (d - 1) (the header's bound).
        const T d = deep_from_double<T>(double(degree));
        const T r_scale = eps * deep_from_double<T>(2.0 / double(degree - 1));
#pragma omp parallel for schedule(static) if (steps > kBlaParallelMin)
        for (int64_t i = 0; i < steps; ++i) {
            const DeepComplex<T> Z = z[i + 1];
            DeepComplex<T> p = Z;
            for (int k = 2; k < degree; ++k) p = p * Z;
            const DeepComplex<T> a{d * p.re, d * p.im};
            T r = r_scale * deep_cabs(Z);
            e[i] = BlaStep<T>{a, {one, zero}, r * r, 1};
        }
    }
    // Level 0's budgets: S_A = 1 / rho = epsilon / r, S_B = 0 (an entry with r = 0 gets an infinite
    // S_A, hence radius 0, through every merge that covers it).
    std::vector<BlaBudget<T>> budget(table->entries.size());
    const T eps_t = deep_from_double<T>(epsilon), zero_t = deep_from_double<T>(0.0);
#pragma omp parallel for schedule(static) if (steps > kBlaParallelMin)
    for (int64_t i = 0; i < steps; ++i) {
        const T r = deep_sqrt(e[i].r2);
        budget[size_t(i)].s_a = r > zero_t ? deep_div(eps_t, r) : deep_from_double<T>(INFINITY);
        budget[size_t(i)].s_b = zero_t;
    }
    return merge_levels(levels, steps, max_dc, cancel, start, table, budget.data(), epsilon);
}

template <typename T>
bool build_bla_table_matrix(const DeepComplex<T>* z, int64_t last_index, T max_dc, double epsilon,
                            const std::atomic<bool>* cancel, BlaTable<T, DeepMatrix<T>>* table, bool burning_ship) {
    using M = DeepMatrix<T>;
    auto start = std::chrono::steady_clock::now();
    *table = BlaTable<T, M>{};
    const int64_t steps = last_index - 2;
    if (steps < 1) return true;
    const int levels = size_levels(steps, table);
    BlaStep<T, M>* e = table->entries.data();
    const T eps = deep_from_double<T>(epsilon);
    const T one = deep_from_double<T>(1.0), zero = deep_from_double<T>(0.0), half = deep_from_double<T>(0.5);
    const M identity{one, zero, zero, one};
#pragma omp parallel for schedule(static) if (steps > kBlaParallelMin)
    for (int64_t i = 0; i < steps; ++i) {
        const T p = deep_twice(z[i + 1].re), q = deep_twice(z[i + 1].im);
        T r = eps * deep_cabs(DeepComplex<T>{p, q});
        M a;
        if (burning_ship) {
            // s = sign(XY); the matrix holds while X + x and Y + y keep the signs of X and Y.
            const bool negative = deep_negative(z[i + 1].re) != deep_negative(z[i + 1].im);
            const T sq = negative ? -q : q, sp = negative ? -p : p;
            a = M{p, -q, sq, sp};
            const T limit = half * deep_min(deep_abs(z[i + 1].re), deep_abs(z[i + 1].im));
            r = deep_min(r, limit);
        } else {
            a = M{p, -q, -q, -p};  // conj(2 Z z)
        }
        e[i] = BlaStep<T, M>{a, identity, r * r, 1};
    }
    return merge_levels(levels, steps, max_dc, cancel, start, table);
}

template bool build_bla_table<double>(const DeepComplex<double>*, int64_t, double, double,
                                      const std::atomic<bool>*, BlaTable<double>*, int);
template bool build_bla_table<FloatExp>(const DeepComplex<FloatExp>*, int64_t, FloatExp, double,
                                        const std::atomic<bool>*, BlaTable<FloatExp>*, int);
template bool build_bla_table_matrix<double>(const DeepComplex<double>*, int64_t, double, double,
                                             const std::atomic<bool>*, BlaTable<double, DeepMatrix<double>>*, bool);
template bool build_bla_table_matrix<FloatExp>(const DeepComplex<FloatExp>*, int64_t, FloatExp, double,
                                               const std::atomic<bool>*, BlaTable<FloatExp, DeepMatrix<FloatExp>>*,
                                               bool);

}  // namespace ms
