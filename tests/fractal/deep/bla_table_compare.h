// bla_table_compare.h: the shared validator of BLA tables (deep_bla.h): two tables of the same
// orbit compared level by level and entry by entry, every field (A, B, the radius, the length)
// bit for bit, as 64-bit words (a BlaStep is doubles, FloatExps and an int64: no padding). Prints
// the first mismatches with their level, index and field. Used by test_deep_bla.cpp (the OpenMP
// build against a serial one from the same per-entry functions) and test_deep_bla_cuda.cpp (the
// GPU build against the CPU's).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "compute/fractal/deep/deep_bla.h"

namespace ms::test {

// Mismatched entries (0: the tables are equal); a difference in the level layout counts as one.
template <typename T, typename L>
size_t compare_bla_tables(const char* what, const BlaTable<T, L>& reference, const BlaTable<T, L>& candidate,
                          size_t max_printed = 10) {
    using Step = BlaStep<T, L>;
    static_assert(sizeof(Step) % 8 == 0 && sizeof(Step) == 2 * sizeof(L) + sizeof(T) + sizeof(int64_t),
                  "a BlaStep has no padding: its words are its fields");
    constexpr size_t kWords = sizeof(Step) / 8;
    const auto& a = reference.view;
    const auto& b = candidate.view;
    bool layout = a.levels == b.levels && reference.steps == candidate.steps &&
                  reference.entries.size() == candidate.entries.size();
    for (int level = 0; layout && level < a.levels; ++level)
        layout = a.level_offset[level] == b.level_offset[level] && a.level_size[level] == b.level_size[level];
    if (!layout) {
        std::printf("  %s: the level layouts differ (levels %d / %d, steps %lld / %lld, entries %zu / %zu)\n", what,
                    a.levels, b.levels, (long long)reference.steps, (long long)candidate.steps,
                    reference.entries.size(), candidate.entries.size());
        return 1;
    }
    // Word w of an entry: A (the first sizeof(L) / 8 words), B (as many), r2, length.
    auto field = [](size_t w) {
        const size_t per_map = sizeof(L) / 8;
        if (w < per_map) return "A";
        if (w < 2 * per_map) return "B";
        return w < 2 * per_map + sizeof(T) / 8 ? "r2" : "length";
    };
    size_t mismatches = 0;
    for (int level = 0; level < a.levels; ++level) {
        for (int64_t j = 0; j < a.level_size[level]; ++j) {
            const size_t i = size_t(a.level_offset[level] + j);
            uint64_t x[kWords], y[kWords];
            std::memcpy(x, &reference.entries[i], sizeof(Step));
            std::memcpy(y, &candidate.entries[i], sizeof(Step));
            size_t w = 0;
            while (w < kWords && x[w] == y[w]) ++w;
            if (w == kWords) continue;
            if (mismatches < max_printed) {
                double dx, dy;
                std::memcpy(&dx, &x[w], 8);
                std::memcpy(&dy, &y[w], 8);
                std::printf(
                    "  %s mismatch at level %d entry %lld: %s word %zu: %.17g (0x%016llx) / %.17g (0x%016llx)\n", what,
                    level, (long long)j, field(w), w, dx, (unsigned long long)x[w], dy, (unsigned long long)y[w]);
            }
            ++mismatches;
        }
    }
    std::printf("%s: %zu of %zu entries differ (%d levels, %lld steps)\n", what, mismatches, reference.entries.size(),
                a.levels, (long long)reference.steps);
    return mismatches;
}

}  // namespace ms::test
