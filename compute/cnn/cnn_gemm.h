// cnn_gemm.h: the two single-threaded FP32 matrix products the fast CPU network is built from
// (inference and training). Vectorised with Highway, the SIMD target chosen at run time
// (AVX-512, AVX2, SSE4...). Callers parallelise over images; each call stays on one thread, so a
// result never depends on thread scheduling.
//
// Register tiles: gemm_nn keeps 4 rows x 2 vectors of C in registers and broadcasts A;
// gemm_nt keeps 4x4 dot products of vectors and reduces them at the end. Every element of C
// is computed by the same sequence of operations whatever tile it falls in (edge tiles reuse
// clamped rows), so a row's result does not depend on the other rows of the batch.
#pragma once

#include <cstddef>
#include <string>

namespace ms {

// C[M x N] (+)= A * B. Element (i, k) of A is a[i * a_row_stride + k * a_k_stride] (so A may be
// used transposed); B is row-major with rows of N floats at stride ldb. N must be a multiple
// of 16 (all layouts in the network are padded so); M and K are free.
void cnn_gemm_nn(int m, int n, int k, const float* a, ptrdiff_t a_row_stride, ptrdiff_t a_k_stride, const float* b,
                 ptrdiff_t ldb, float* c, ptrdiff_t ldc, bool accumulate);

// C[M x N] (+)= A[M x K] * B[N x K]^T: dot products of rows of A with rows of B, both
// contiguous along K. K must be a multiple of 16; M and N are free.
void cnn_gemm_nt(int m, int n, int k, const float* a, ptrdiff_t lda, const float* b, ptrdiff_t ldb, float* c,
                 ptrdiff_t ldc, bool accumulate);

// The SIMD target the products run on ("AVX3", "AVX2", "SSE4", ...).
std::string cnn_cpu_simd_target();

}  // namespace ms
