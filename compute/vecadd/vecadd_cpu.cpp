// vecadd_cpu.cpp: the CPU side of the vector add: the one-thread reference, the all-cores SIMD
// version (OpenMP over cores, Highway over lanes, the instruction set picked at run time), and
// the helpers every variant shares (inputs, error against the reference).
//
// Highway compiles this file once per target (SSE4, AVX2, AVX-512...) through foreach_target.h
// and HWY_DYNAMIC_DISPATCH picks the best one the CPU supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/vecadd/vecadd_cpu.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace ms {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// c[0..n) = a + b: whole vectors, then a scalar tail for the n % lanes elements left over
// (a masked load could fault past the end on targets that emulate it; the tail is < 16 floats).
void vecadd_simd_range(const float* HWY_RESTRICT a, const float* HWY_RESTRICT b, float* HWY_RESTRICT c, size_t n) {
    const hn::ScalableTag<float> d;
    const size_t lanes = hn::Lanes(d);
    size_t i = 0;
    // Two vectors per iteration: two independent load/add/store chains keep the ports busy on
    // L1-resident arrays; past the caches memory bandwidth decides anyway.
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
        const auto s0 = hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i));
        const auto s1 = hn::Add(hn::LoadU(d, a + i + lanes), hn::LoadU(d, b + i + lanes));
        hn::StoreU(s0, d, c + i);
        hn::StoreU(s1, d, c + i + lanes);
    }
    for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Add(hn::LoadU(d, a + i), hn::LoadU(d, b + i)), d, c + i);
    for (; i < n; ++i) c[i] = a[i] + b[i];
}

const char* vecadd_simd_target_name() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace ms
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "compute/vecadd/vecadd.h"

namespace ms {

HWY_EXPORT(vecadd_simd_range);
HWY_EXPORT(vecadd_simd_target_name);

// The loop a tutorial writes. GCC -O3 vectorises it with the baseline SSE2 (4 floats at a
// time; -fopt-info-vec reports "loop vectorized using 16 byte vectors"), but it stays on one
// core and never uses AVX.
void vecadd_cpu_reference(const float* a, const float* b, float* c, size_t n) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

void vecadd_cpu(const float* a, const float* b, float* c, size_t n, int threads) {
    if (threads <= 0) threads = omp_get_max_threads();
        // Each thread takes one contiguous range (like schedule(static), which is also how
        // vecadd_fill_inputs touches the pages first, so each core reads its own NUMA node), cut at
        // multiples of 16 floats so only the last range has a scalar tail.
#pragma omp parallel num_threads(threads)
    {
        const size_t count = size_t(omp_get_num_threads());
        const size_t t = size_t(omp_get_thread_num());
        const size_t per_thread = (n / count + 15) / 16 * 16;
        const size_t begin = std::min(n, t * per_thread);
        const size_t end = t + 1 == count ? n : std::min(n, begin + per_thread);
        if (end > begin) HWY_DYNAMIC_DISPATCH(vecadd_simd_range)(a + begin, b + begin, c + begin, end - begin);
    }
}

std::string vecadd_cpu_simd_target() { return HWY_DYNAMIC_DISPATCH(vecadd_simd_target_name)(); }

double vecadd_max_abs_error(const float* reference, const float* got, size_t n) {
    double worst = 0.0;
#pragma omp parallel for schedule(static) reduction(max : worst)
    for (size_t i = 0; i < n; ++i) {
        const double err = std::isnan(got[i]) != std::isnan(reference[i])
                               ? std::numeric_limits<double>::infinity()
                               : std::fabs(double(reference[i]) - double(got[i]));
        if (err > worst) worst = err;
    }
    return worst;
}

namespace {
// splitmix64: a well-mixed value per index, so any element can be computed on its own.
float uniform_from_index(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return float(double(x >> 40) * (2.0 / double(1ull << 24)) - 1.0);  // 24 bits: exact in float
}
}  // namespace

void vecadd_fill_inputs(float* a, float* b, size_t n) {
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) {
        a[i] = uniform_from_index(2 * uint64_t(i));
        b[i] = uniform_from_index(2 * uint64_t(i) + 1);
    }
}

}  // namespace ms
#endif  // HWY_ONCE
