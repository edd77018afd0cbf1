// deep_bla.cpp: building the BLA table on the CPU (see deep_bla.h). Level 0 and each merge level
// are parallel loops over their entries (OpenMP), each entry from deep_bla.h's per-entry formulas,
// which the GPU build (deep_bla_cuda.cu) runs too.
#include "compute/fractal/deep/deep_bla.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <vector>

#include "compute/system/process_memory.h"

namespace ms {

void* bla_lane_allocate(size_t bytes) {
    constexpr size_t kHuge = size_t(2) << 20;
    const size_t align = bytes >= kHuge ? kHuge : 64;
    void* p = std::aligned_alloc(align, (bytes + align - 1) / align * align);
    if (!p) throw std::bad_alloc();
    if (bytes >= kHuge) advise_huge_pages(p, (bytes + kHuge - 1) / kHuge * kHuge);
    return p;
}

void bla_lane_free(void* p) { std::free(p); }

namespace {

// Levels smaller than this are merged on one thread: a parallel loop's barrier costs more than
// the work there (on a loaded machine a barrier can wait a whole scheduler slice, once per
// level, while the small levels together are little work on one thread).
constexpr int64_t kBlaParallelMin = 1 << 16;

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

// Sizes the levels of a table of `steps` single steps and allocates its entries; returns the
// level count.
template <typename T, typename L>
int size_levels(int64_t steps, BlaTable<T, L>* table) {
    int64_t total = 0;
    const int levels = bla_size_levels(steps, &table->view, &total);
    table->view.levels = 0;  // set once the table is whole (merge_levels)
    table->entries.resize(size_t(total));
    return levels;
}

// Level 1 and up from level 0 (already in table->entries); false (table emptied) when cancelled.
template <typename T, typename L>
bool merge_levels(int levels, int64_t steps, T max_dc, const std::atomic<bool>* cancel,
                  std::chrono::steady_clock::time_point start, BlaTable<T, L>* table, BlaBudget<T>* budget = nullptr,
                  double epsilon = 0.0) {
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
        for (int64_t j = 0; j < dst_size; ++j)
            bla_merge_entry(src, src_budget, src_size, j, max_dc, epsilon, dst, dst_budget);
    }
    table->r2.resize(table->entries.size());
    for (size_t i = 0; i < table->entries.size(); ++i) table->r2[i] = table->entries[i].r2;
    table->view.entries = e;
    table->view.levels = levels;
    table->steps = steps;
    table->build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return true;
}

// Level 0's radii once skips start at level `first` (bla_first_skip_radius), in the entries and in
// their compact copy. Each entry j reads only itself at level 0, so the loop writes in place.
template <typename T, typename L>
void bla_raise_first_level(int first, BlaTable<T, L>* table) {
    if (first < 1) return;
    BlaStep<T, L>* e = table->entries.data();
    const BlaView<T, L>& view = table->view;
    const int64_t steps = view.level_size[0];
#pragma omp parallel for schedule(static) if (steps > kBlaParallelMin)
    for (int64_t j = 0; j < steps; ++j) {
        e[j].r2 = bla_first_skip_radius(e, view.level_offset, view.levels, j, first);
        table->r2[size_t(j)] = e[j].r2;
    }
}

// The lanes' layout of a finished table (BlaTable::lane_points and lane_chain, deep_bla.h) for
// the orbit z[0 .. last_index].
template <typename T>
void build_lane_layout(const DeepComplex<T>* z, int64_t last_index, BlaTable<T>* table) {
    const BlaView<T>& view = table->view;
    const BlaStep<T>* e = table->entries.data();
    const int64_t steps = table->steps;
    table->lane_points.resize(size_t(last_index + 1));
    BlaLanePoint<T>* points = table->lane_points.data();
#pragma omp parallel for schedule(static) if (last_index > kBlaParallelMin)
    for (int64_t m = 0; m <= last_index; ++m) {
        const T r0 = m >= 1 && m <= steps ? e[m - 1].r2 : T{};
        points[m] = BlaLanePoint<T>{z[m].re, z[m].im, r0, T{}};
    }
    const int levels = view.levels;
    table->lane_chain.resize(size_t(steps == 0 ? 0 : bla_lane_chain_offset(levels, steps)));
    T* chain = table->lane_chain.data();
#pragma omp parallel for schedule(static) if (steps > kBlaParallelMin)
    for (int64_t j = 0; j < steps; ++j) {
        const int top = j == 0 ? levels - 1 : __builtin_ctzll(uint64_t(j));
        const int64_t run = bla_lane_chain_offset(levels, j);
        T smallest = e[j].r2;
        for (int level = 1; level <= top; ++level) {
            const T r2 = e[view.level_offset[level] + (j >> level)].r2;
            smallest = r2 < smallest ? r2 : smallest;
            chain[run + level - 1] = smallest;
        }
    }
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
    std::vector<BlaBudget<T>> budget(table->entries.size());
#pragma omp parallel for schedule(static) if (steps > kBlaParallelMin)
    for (int64_t i = 0; i < steps; ++i) {
        e[i] = bla_single_step(z[i + 1], epsilon, degree);
        budget[size_t(i)] = bla_single_budget(e[i], epsilon);
    }
    if (!merge_levels(levels, steps, max_dc, cancel, start, table, budget.data(), epsilon)) return false;
    bla_raise_first_level(bla_first_skip_level<T>(degree, levels), table);
    if constexpr (std::is_same_v<T, double>) {
        if (degree == 2) {
            build_lane_layout(z, last_index, table);
            table->build_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
    }
    return true;
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
#pragma omp parallel for schedule(static) if (steps > kBlaParallelMin)
    for (int64_t i = 0; i < steps; ++i) e[i] = bla_single_step_matrix(z[i + 1], epsilon, burning_ship);
    if (!merge_levels(levels, steps, max_dc, cancel, start, table)) return false;
    bla_raise_first_level(bla_first_skip_level<T>(2, levels), table);
    return true;
}

template bool build_bla_table<double>(const DeepComplex<double>*, int64_t, double, double, const std::atomic<bool>*,
                                      BlaTable<double>*, int);
template bool build_bla_table<FloatExp>(const DeepComplex<FloatExp>*, int64_t, FloatExp, double,
                                        const std::atomic<bool>*, BlaTable<FloatExp>*, int);
template bool build_bla_table_matrix<double>(const DeepComplex<double>*, int64_t, double, double,
                                             const std::atomic<bool>*, BlaTable<double, DeepMatrix<double>>*, bool);
template bool build_bla_table_matrix<FloatExp>(const DeepComplex<FloatExp>*, int64_t, FloatExp, double,
                                               const std::atomic<bool>*, BlaTable<FloatExp, DeepMatrix<FloatExp>>*,
                                               bool);

}  // namespace ms
