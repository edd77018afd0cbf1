// cnn_gemm.cpp: the Highway kernels behind cnn_gemm.h, compiled once per SIMD target
// (foreach_target.h re-includes this file) and picked at run time by HWY_DYNAMIC_DISPATCH.
#include "compute/cnn/cnn_gemm.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "compute/cnn/cnn_gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace ms {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Register tile of gemm_nt: 4x4 accumulators where 32 vector registers exist (AVX-512),
// 2x4 where only 16 do, so nothing spills.
#if HWY_TARGET <= HWY_AVX3
constexpr int kNtRows = 4;
#else
constexpr int kNtRows = 2;
#endif
constexpr int kNtCols = 4;
constexpr int kNnRows = 4;

// Up to 4 rows x NV vectors of C. Rows past `rows` repeat the last valid row (same arithmetic,
// results discarded), so every element sees the same operation sequence.
template <int NV>
HWY_INLINE void TileNN(int rows, int k, const float* a, ptrdiff_t a_row, ptrdiff_t a_k, const float* b, ptrdiff_t ldb,
                       float* c, ptrdiff_t ldc, bool accumulate) {
    const hn::ScalableTag<float> d;
    const size_t lanes = hn::Lanes(d);
    using V = decltype(hn::Zero(d));
    const float* ar[kNnRows];
    float* cr[kNnRows];
    for (int r = 0; r < kNnRows; ++r) {
        int rr = std::min(r, rows - 1);
        ar[r] = a + rr * a_row;
        cr[r] = c + rr * ldc;
    }
    V acc[kNnRows][NV];
    for (int r = 0; r < kNnRows; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] = accumulate ? hn::LoadU(d, cr[r] + v * lanes) : hn::Zero(d);
    for (int kk = 0; kk < k; ++kk) {
        const float* brow = b + kk * ldb;
        V bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = hn::LoadU(d, brow + v * lanes);
        for (int r = 0; r < kNnRows; ++r) {
            const V av = hn::Set(d, ar[r][kk * a_k]);
            for (int v = 0; v < NV; ++v) acc[r][v] = hn::MulAdd(av, bv[v], acc[r][v]);
        }
    }
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < NV; ++v) hn::StoreU(acc[r][v], d, cr[r] + v * lanes);
}

void GemmNN(int m, int n, int k, const float* a, ptrdiff_t a_row, ptrdiff_t a_k, const float* b, ptrdiff_t ldb,
            float* c, ptrdiff_t ldc, bool accumulate) {
    const hn::ScalableTag<float> d;
    const int lanes = int(hn::Lanes(d));
    if (n % lanes != 0) {
        std::fprintf(stderr, "cnn_gemm_nn: n = %d is not a multiple of %d\n", n, lanes);
        std::abort();
    }
    int j = 0;
    for (; j + 2 * lanes <= n; j += 2 * lanes)
        for (int i = 0; i < m; i += kNnRows)
            TileNN<2>(std::min(kNnRows, m - i), k, a + i * a_row, a_row, a_k, b + j, ldb, c + i * ldc + j, ldc,
                      accumulate);
    for (; j < n; j += lanes)
        for (int i = 0; i < m; i += kNnRows)
            TileNN<1>(std::min(kNnRows, m - i), k, a + i * a_row, a_row, a_k, b + j, ldb, c + i * ldc + j, ldc,
                      accumulate);
}

void GemmNT(int m, int n, int k, const float* a, ptrdiff_t lda, const float* b, ptrdiff_t ldb, float* c, ptrdiff_t ldc,
            bool accumulate) {
    const hn::ScalableTag<float> d;
    const int lanes = int(hn::Lanes(d));
    using V = decltype(hn::Zero(d));
    if (k % lanes != 0) {
        std::fprintf(stderr, "cnn_gemm_nt: k = %d is not a multiple of %d\n", k, lanes);
        std::abort();
    }
    for (int i = 0; i < m; i += kNtRows) {
        const int rows = std::min(kNtRows, m - i);
        const float* ar[kNtRows];
        for (int r = 0; r < kNtRows; ++r) ar[r] = a + (i + std::min(r, rows - 1)) * lda;
        for (int j = 0; j < n; j += kNtCols) {
            const int cols = std::min(kNtCols, n - j);
            const float* br[kNtCols];
            for (int q = 0; q < kNtCols; ++q) br[q] = b + (j + std::min(q, cols - 1)) * ldb;
            V acc[kNtRows][kNtCols];
            for (int r = 0; r < kNtRows; ++r)
                for (int q = 0; q < kNtCols; ++q) acc[r][q] = hn::Zero(d);
            for (int kk = 0; kk < k; kk += lanes) {
                V bv[kNtCols];
                for (int q = 0; q < kNtCols; ++q) bv[q] = hn::LoadU(d, br[q] + kk);
                for (int r = 0; r < kNtRows; ++r) {
                    const V av = hn::LoadU(d, ar[r] + kk);
                    for (int q = 0; q < kNtCols; ++q) acc[r][q] = hn::MulAdd(av, bv[q], acc[r][q]);
                }
            }
            for (int r = 0; r < rows; ++r)
                for (int q = 0; q < cols; ++q) {
                    float s = hn::GetLane(hn::SumOfLanes(d, acc[r][q]));
                    float& out = c[(i + r) * ldc + j + q];
                    out = accumulate ? out + s : s;
                }
        }
    }
}

int CurrentTarget() { return int(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace ms
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace ms {

HWY_EXPORT(GemmNN);
HWY_EXPORT(GemmNT);
HWY_EXPORT(CurrentTarget);

void cnn_gemm_nn(int m, int n, int k, const float* a, ptrdiff_t a_row_stride, ptrdiff_t a_k_stride, const float* b,
                 ptrdiff_t ldb, float* c, ptrdiff_t ldc, bool accumulate) {
    if (m <= 0 || n <= 0) return;
    HWY_DYNAMIC_DISPATCH(GemmNN)(m, n, k, a, a_row_stride, a_k_stride, b, ldb, c, ldc, accumulate);
}

void cnn_gemm_nt(int m, int n, int k, const float* a, ptrdiff_t lda, const float* b, ptrdiff_t ldb, float* c,
                 ptrdiff_t ldc, bool accumulate) {
    if (m <= 0 || n <= 0) return;
    HWY_DYNAMIC_DISPATCH(GemmNT)(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

std::string cnn_cpu_simd_target() { return hwy::TargetName(HWY_DYNAMIC_DISPATCH(CurrentTarget)()); }

}  // namespace ms
#endif  // HWY_ONCE
