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

template <typename T>
BlaStep<T> bla_merge(const BlaStep<T>& x, const BlaStep<T>& y, T max_dc) {
    BlaStep<T> out;
    out.a = y.a * x.a;
    out.b = y.a * x.b + y.b;
    const T zero = deep_from_double<T>(0.0);
    T ax = deep_cabs(x.a), bx = deep_cabs(x.b);
    T ry = deep_sqrt(y.r2), rx = deep_sqrt(x.r2);
    T pulled = ry - bx * max_dc;
    T r = pulled > zero && ax > zero ? deep_min(rx, deep_div(pulled, ax)) : zero;
    out.r2 = r * r;
    // In double, long merges can overflow A or B (inf, then NaN radii); such a step is never
    // taken.
    if (!deep_finite(out.a.re) || !deep_finite(out.a.im) || !deep_finite(out.b.re) ||
        !deep_finite(out.b.im) || !deep_finite(out.r2))
        out.r2 = zero;
    out.length = x.length + y.length;
    return out;
}

bool cancelled(const std::atomic<bool>* cancel) {
    return cancel && cancel->load(std::memory_order_relaxed);
}

}  // namespace

template <typename T>
bool build_bla_table(const DeepComplex<T>* z, int64_t last_index, T max_dc, double epsilon,
                     const std::atomic<bool>* cancel, BlaTable<T>* table, int degree) {
    auto start = std::chrono::steady_clock::now();
    *table = BlaTable<T>{};
    const int64_t steps = last_index - 2;  // m = 1 .. last_index - 2, landing <= last_index - 1
    if (steps < 1) return true;
    // Level sizes: steps, ceil(steps / 2), ... down to 1.
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
    for (int level = 1; level < levels; ++level) {
        if (cancelled(cancel)) {
            *table = BlaTable<T>{};
            return false;
        }
        const BlaStep<T>* src = e + table->view.level_offset[level - 1];
        const int64_t src_size = table->view.level_size[level - 1];
        BlaStep<T>* dst = e + table->view.level_offset[level];
        const int64_t dst_size = table->view.level_size[level];
#pragma omp parallel for schedule(static) if (dst_size > kBlaParallelMin)
        for (int64_t j = 0; j < dst_size; ++j) {
            dst[j] = 2 * j + 1 < src_size ? bla_merge(src[2 * j], src[2 * j + 1], max_dc) : src[2 * j];
        }
    }
    table->view.entries = e;
    table->view.levels = levels;
    table->steps = steps;
    table->build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return true;
}

template bool build_bla_table<double>(const DeepComplex<double>*, int64_t, double, double,
                                      const std::atomic<bool>*, BlaTable<double>*, int);
template bool build_bla_table<FloatExp>(const DeepComplex<FloatExp>*, int64_t, FloatExp, double,
                                        const std::atomic<bool>*, BlaTable<FloatExp>*, int);

}  // namespace ms
