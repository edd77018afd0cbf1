// deep_square_cuda.h: exact squarings of a multi-limb integer on the GPU, one after another
// (each square's low half squared next), to measure what a reference orbit computed on the GPU
// would cost an iteration. An orbit's iterations depend on each other, so a GPU orbit runs its
// squarings as such a chain: three of them an iteration (x^2, y^2, (x + y)^2), each in one block
// or spread over the grid with a grid-wide barrier between the steps of a squaring.
// test_deep_bench's CudaSquaringChain sets these figures against GMP and MPFR on one CPU thread
// (docs/performance.md); test_deep_square_cuda holds the squares to GMP's, limb for limb.
#pragma once

#include <cstdint>
#include <vector>

namespace ms {

struct GpuSquaringChain {
    std::vector<uint32_t> first_square;  // 2n limbs: start^2, exact
    std::vector<uint32_t> last;          // n limbs: the number the chain ends on
    double us_per_squaring = 0.0;        // CUDA events around the launch
};

inline constexpr int kGpuSquaringThreads = 1024;

// `squarings` squarings in one block of kGpuSquaringThreads threads, starting from `start` (n
// 32-bit limbs, least significant first): a_{k+1} = a_k^2 mod 2^(32n). Throws
// std::invalid_argument with a sentence for fewer than 2 limbs or 1 squaring, or a number too
// large for a block's shared memory; std::runtime_error where CUDA cannot run, or on a CUDA
// error.
GpuSquaringChain gpu_squaring_chain(const std::vector<uint32_t>& start, int squarings);

// The same chain spread over a cooperative grid of one block of 256 threads on each
// multiprocessor, with a grid-wide barrier after each of a squaring's steps (us_per_squaring: the
// whole launch, CUDA events).
GpuSquaringChain gpu_squaring_chain_grid(const std::vector<uint32_t>& start, int squarings);

// Microseconds a grid-wide barrier (cooperative groups' grid.sync) takes with one block on each
// multiprocessor: the least a squaring spread over the grid pays per barrier.
double gpu_grid_barrier_us(int barriers);

}  // namespace ms
