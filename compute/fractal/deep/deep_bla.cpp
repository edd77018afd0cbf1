// deep_bla.cpp: building the BLA table (see deep_bla.h). Level 0 and each merge level are
// parallel loops over their entries (OpenMP).
#include "compute/fractal/deep/deep_bla.h"

#include <chrono>
#include <cmath>

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
                  std::chrono::steady_clock::time_point start, BlaTable<T, L>* table) {
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
#pragma omp parallel for schedule(static) if (dst_size > kBlaParallelMin)
        for (int64_t j = 0; j < dst_size; ++j) {
            dst[j] = 2 * j + 1 < src_size ? bla_merge(src[2 * j], src[2 * j + 1], max_dc) : src[2 * j];
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
    return merge_levels(levels, steps, max_dc, cancel, start, table);
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
