// validate.h: the one validator every CPU-vs-GPU (and reference-vs-fast) test goes through.
// It compares element by element, counts what differs beyond a tolerance, and prints the first
// mismatches with their indices, so a failing test says where, not only that.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "compute/fractal/direct/direct.h"

// Every CUDA test opens with this: where no usable device exists (no GPU, no driver, a build
// without nvcc) the test is skipped with the reason, never failed and never passed silently.
#define SKIP_WITHOUT_CUDA()                                                                \
    do {                                                                                   \
        std::string why_;                                                                  \
        if (!ms::cuda_available(&why_)) GTEST_SKIP() << "no usable CUDA device: " << why_; \
    } while (0)

namespace ms::test {

struct ValidationResult {
    size_t count = 0;       // elements compared
    size_t mismatches = 0;  // beyond tolerance (NaN on either side counts as a mismatch)
    double max_abs_error = 0.0;
    size_t max_error_index = 0;
    double mismatch_fraction() const { return count ? double(mismatches) / double(count) : 0.0; }
};

// |reference[i] - candidate[i]| <= abs_tolerance + rel_tolerance * |reference[i]|.
// `width` > 0 prints indices as (x, y) of a row-major image instead of a flat index.
template <typename T>
ValidationResult validate_result(const char* what, const T* reference, const T* candidate, size_t count,
                                 double abs_tolerance, double rel_tolerance = 0.0, int width = 0,
                                 size_t max_printed = 10) {
    ValidationResult r;
    r.count = count;
    for (size_t i = 0; i < count; ++i) {
        double ref = double(reference[i]), got = double(candidate[i]);
        double err = std::fabs(ref - got);
        bool bad = std::isnan(ref) != std::isnan(got) ||
                   (!std::isnan(ref) && err > abs_tolerance + rel_tolerance * std::fabs(ref));
        if (!std::isnan(err) && err > r.max_abs_error) {
            r.max_abs_error = err;
            r.max_error_index = i;
        }
        if (!bad) continue;
        if (r.mismatches < max_printed) {
            if (width > 0)
                std::printf("  %s mismatch at (%zu, %zu): reference %.9g, got %.9g\n", what, i % size_t(width),
                            i / size_t(width), ref, got);
            else std::printf("  %s mismatch at [%zu]: reference %.9g, got %.9g\n", what, i, ref, got);
        }
        ++r.mismatches;
    }
    std::printf("%s: %zu of %zu differ (%.4f%%), max |error| %.3g at %zu\n", what, r.mismatches, r.count,
                100.0 * r.mismatch_fraction(), r.max_abs_error, r.max_error_index);
    return r;
}

}  // namespace ms::test
